"""The Python module against numpy: compile from text and files, run with
numpy arrays of every type numpy holds, the types it lacks, and the errors."""
import os

import numpy as np
import pytest

import vkxla

SAMPLES = os.environ.get("VKXLA_SAMPLES", os.path.join(os.path.dirname(__file__), "..", "..", "samples"))


def unary_module(hlo_type, op="negate"):
    return f"""HloModule m
ENTRY e {{
  x = {hlo_type}[2,3] parameter(0)
  ROOT r = {hlo_type}[2,3] {op}(x)
}}"""


def test_devices_lists_at_least_one_with_its_name_and_driver():
    devices = vkxla.devices()
    assert len(devices) >= 1
    assert devices[0]["index"] == 0
    assert devices[0]["name"] and devices[0]["driver"]
    assert devices[0]["api_version"].count(".") == 2


def test_version_is_a_dotted_number():
    assert all(part.isdigit() for part in vkxla.__version__.split("."))


def test_sample_file_runs_as_numpy_computes_it():
    x = np.load(os.path.join(SAMPLES, "x.npy"))
    v = np.load(os.path.join(SAMPLES, "y.npy"))
    for name in ("elementwise.hlo", "elementwise.mlir"):
        exe = vkxla.compile(os.path.join(SAMPLES, name))
        assert exe.parameters == ["f32[2,3]", "f32[3]"]
        assert exe.results == ["f32[2,3]", "pred[2,3]"]
        y, lt = exe(x, v)
        expected = np.clip(np.exp(x) * 2 - v, 0, 10).astype(np.float32)
        np.testing.assert_allclose(y, expected, rtol=1e-6)
        assert y.dtype == np.float32 and lt.dtype == np.bool_
        np.testing.assert_array_equal(lt, expected < x)


def test_stablehlo_text_with_a_chosen_function():
    text = """
func.func @twice(%x: tensor<4xi32>) -> tensor<4xi32> {
  %r = stablehlo.add %x, %x : tensor<4xi32>
  return %r : tensor<4xi32>
}
func.func @main(%x: tensor<4xi32>) -> tensor<4xi32> {
  return %x : tensor<4xi32>
}"""
    x = np.array([1, -2, 3, 2**30], dtype=np.int32)
    (out,) = vkxla.compile(text, function="twice")(x)
    np.testing.assert_array_equal(out, x * 2)  # 2**31 wraps as XLA's s32 does
    (same,) = vkxla.compile(text)(x)
    np.testing.assert_array_equal(same, x)


def test_shape_polymorphic_stablehlo_compiles_for_the_arguments_given():
    # As jax.export writes f(x) = x * x.shape[0] for x of shape (b, 3).
    text = """
func.func public @main(%arg0: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<f32>
  %2 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<3> : tensor<1xi32>
  %3 = stablehlo.concatenate %2, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %4 = stablehlo.dynamic_broadcast_in_dim %1, %3, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x3xf32>
  %5 = stablehlo.multiply %arg0, %4 : tensor<?x3xf32>
  return %5 : tensor<?x3xf32>
}"""
    for b in (1, 5):
        x = np.arange(3 * b, dtype=np.float32).reshape(b, 3)
        exe = vkxla.compile(text, arguments=[x])
        assert exe.parameters == [f"f32[{b},3]"]
        (out,) = exe(x)
        np.testing.assert_array_equal(out, x * b)
    with pytest.raises(Exception, match="shape-polymorphic"):
        vkxla.compile(text)


@pytest.mark.parametrize("dtype,hlo_type", [
    (np.int8, "s8"), (np.int16, "s16"), (np.int32, "s32"), (np.int64, "s64"),
    (np.uint8, "u8"), (np.uint16, "u16"), (np.uint32, "u32"), (np.uint64, "u64"),
    (np.float16, "f16"), (np.float32, "f32"), (np.float64, "f64"),
    (np.complex64, "c64"), (np.complex128, "c128"),
])
def test_every_numpy_type_round_trips_through_negate(dtype, hlo_type):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((2, 3)) * 50).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * x[::-1]
    (out,) = vkxla.compile(unary_module(hlo_type))(x.astype(dtype))
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, -x.astype(dtype))


def test_pred_and_non_contiguous_inputs():
    (out,) = vkxla.compile(unary_module("pred", "not"))(np.array([[True, False, True], [False, False, True]]))
    np.testing.assert_array_equal(out, [[False, True, False], [True, True, False]])
    x = np.arange(12, dtype=np.float32).reshape(3, 4).T[:3, :2].T  # strided view, shape (2, 3)
    (neg,) = vkxla.compile(unary_module("f32"))(x)
    np.testing.assert_array_equal(neg, -x)


def test_python_lists_and_scalars_take_the_parameter_type():
    exe = vkxla.compile("""HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  s = f32[] parameter(1)
  b = f32[3] broadcast(s), dimensions={}
  ROOT r = f32[3] multiply(x, b)
}""")
    (out,) = exe([1, 2, 3], 0.5)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [0.5, 1, 1.5])


def test_bf16_without_ml_dtypes_travels_as_float32_rounded_to_nearest_even():
    exe = vkxla.compile(unary_module("bf16"))
    x = np.array([[1.0, 1.00390625, 1.01171875], [-3.0, 65536.0, 0.1]], dtype=np.float32)
    (out,) = exe(x)
    # bf16 keeps 8 significant bits: 1 + 2^-8 ties to 1, 1 + 3·2^-8 to 1 + 2^-6.
    expected = -np.array([[1.0, 1.0, 1.015625], [-3.0, 65536.0, 0.10009765625]], dtype=np.float32)
    try:
        import ml_dtypes  # noqa: F401
        out = out.astype(np.float32)
    except ImportError:
        assert out.dtype == np.float32
    np.testing.assert_array_equal(out, expected)


def test_s4_values_keep_their_sign_and_out_of_range_values_are_an_error():
    exe = vkxla.compile(unary_module("s4"))
    x = np.array([[-8, -1, 0], [1, 5, 7]], dtype=np.int8)
    (out,) = exe(x)
    # negate wraps in 4 bits: -(-8) is -8.
    np.testing.assert_array_equal(out.astype(np.int8), [[-8, 1, 0], [-1, -5, -7]])
    with pytest.raises(vkxla.Error, match=r"s4\[2,3\] element 2 is 9, outside s4's range \[-8, 7\]"):
        exe(np.array([[0, 1, 9], [0, 0, 0]], dtype=np.int8))


def test_wrong_arguments_raise_with_the_shapes():
    exe = vkxla.compile(unary_module("f32"))
    with pytest.raises(vkxla.Error, match="the module takes 1 arguments, 2 were given"):
        exe(np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32))
    with pytest.raises(vkxla.Error, match=r"argument 0 is f32\[3,2\] but the parameter is f32\[2,3\]"):
        exe(np.zeros((3, 2), np.float32))
    with pytest.raises(vkxla.Error, match=r"argument 0 is s32\[2,3\] but the parameter is f32\[2,3\]"):
        exe(np.zeros((2, 3), np.int32))
    with pytest.raises(vkxla.Error, match="numpy dtype .* has no vkxla element type"):
        exe(np.array([["a", "b", "c"], ["d", "e", "f"]]))


def test_bad_sources_and_options_raise_with_the_position():
    with pytest.raises(vkxla.Error, match=r"^\d+:\d+: "):
        vkxla.compile("HloModule m\nENTRY e {\n  ROOT r = f32[2] bogus-op()\n}")
    assert issubclass(vkxla.Error, RuntimeError)
    with pytest.raises(vkxla.Error, match="device -1 is negative"):
        vkxla.compile(unary_module("f32"), device=-1)
    with pytest.raises(vkxla.Error, match="format 'onnx' is not one of hlo, stablehlo"):
        vkxla.compile(unary_module("f32"), format="onnx")
    with pytest.raises(vkxla.Error, match="device 1000 does not exist"):
        vkxla.compile(unary_module("f32"), device=1000)
    with pytest.raises(vkxla.Error, match="cannot open"):
        vkxla.compile(os.path.join(SAMPLES, "missing.hlo"))


def test_replicated_modules_take_and_give_stacked_values_as_pmap_does():
    exe = vkxla.compile(os.path.join(SAMPLES, "psum.hlo"))
    assert exe.processes == 4
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    total, ids = exe(x)
    # Replicas {0,1} and {2,3} sum their rows.
    np.testing.assert_array_equal(total, np.stack([x[0] + x[1]] * 2 + [x[2] + x[3]] * 2))
    np.testing.assert_array_equal(ids, np.arange(4, dtype=np.uint32))
    assert vkxla.compile(unary_module("f32")).processes == 1
    with pytest.raises(vkxla.Error, match="leading axis"):
        exe(np.zeros(3, np.float32))
