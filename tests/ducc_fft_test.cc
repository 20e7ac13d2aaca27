// jaxlib's 2023 CPU FFT custom calls (frontends/ducc_fft.h), ducc_fft with
// its flatbuffer descriptor and dynamic_ducc_fft, read as Fft and run on the
// device: each fft type, c64 and c128, one and two axes, the scale, against
// a DFT written out here; the module JAX exported (back-compat data of
// 2023-03-17 and 2023-06-14); descriptors that say what is not supported.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "frontends/stablehlo_reader.h"
#include "tests/stablehlo_test_util.h"

namespace vkxla {
namespace {

class DuccFft : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

// A DuccFftDescriptor flatbuffer: root offset, vtable of its eight fields,
// the table (dtype, fft_type, forward, four vector offsets, scale), then
// the vectors, each 8-byte aligned where its elements are 64-bit.
std::vector<uint8_t> Descriptor(uint8_t dtype, uint8_t kind, const std::vector<uint64_t>& shape, const std::vector<uint64_t>& strides_in,
                                const std::vector<uint64_t>& strides_out, const std::vector<uint32_t>& axes, bool forward, double scale) {
  std::vector<uint8_t> b(56, 0);
  auto put = [&](size_t at, uint64_t v, size_t width) {
    if (b.size() < at + width) b.resize(at + width, 0);
    for (size_t k = 0; k < width; ++k) b[at + k] = static_cast<uint8_t>(v >> (8 * k));
  };
  put(0, 24, 4);                                    // the table at 24
  put(4, 20, 2);                                    // the vtable: 20 bytes
  put(6, 32, 2);                                    // the table: 32 bytes
  const uint16_t fields[8] = {4, 5, 8, 12, 16, 20, 6, 24};  // dtype, fft_type, shape, strides_in, strides_out, axes, forward, scale
  for (size_t f = 0; f < 8; ++f) put(8 + 2 * f, fields[f], 2);
  put(24, 20, 4);  // back to the vtable
  put(28, dtype, 1);
  put(29, kind, 1);
  put(30, forward ? 1 : 0, 1);
  uint64_t bits;
  std::memcpy(&bits, &scale, 8);
  put(48, bits, 8);
  auto vector = [&](size_t field_at, const std::vector<uint64_t>& v, size_t width) {
    size_t start = b.size();
    while ((start + 4) % 8 != 0) ++start;
    put(field_at, start - field_at, 4);
    put(start, v.size(), 4);
    for (size_t k = 0; k < v.size(); ++k) put(start + 4 + k * width, v[k], width);
  };
  vector(32, shape, 8);
  vector(36, strides_in, 8);
  vector(40, strides_out, 8);
  vector(44, std::vector<uint64_t>(axes.begin(), axes.end()), 4);
  return b;
}

std::string Bytes(const std::vector<uint8_t>& b) {
  std::string s;
  for (size_t k = 0; k < b.size(); ++k) s += (k ? ", " : "") + std::to_string(b[k]);
  return "dense<[" + s + "]> : tensor<" + std::to_string(b.size()) + "xui8>";
}

std::vector<uint64_t> RowMajor(const std::vector<int64_t>& dims) {
  std::vector<uint64_t> s(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * static_cast<uint64_t>(dims[k]);
  return s;
}

using Complex = std::complex<double>;

// The DFT along the last axis of rows of n values (sign -1 forward, +1 back), unscaled.
std::vector<Complex> Dft(const std::vector<Complex>& x, int64_t n, int sign) {
  std::vector<Complex> y(x.size());
  for (size_t row = 0; row < x.size() / static_cast<size_t>(n); ++row)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j)
        y[row * n + k] += x[row * n + j] * std::polar(1.0, sign * 2 * std::numbers::pi * static_cast<double>(j * k) / static_cast<double>(n));
  return y;
}

// Runs `ducc_fft(descriptor, x)` of x : `in` giving `out`.
StatusOr<Literal> RunDucc(const std::vector<uint8_t>& descriptor, const Shape& in, const Shape& out, const Literal& x) {
  const auto tensor = MlirTensorType;
  const std::string text = "func.func @main(%x: " + tensor(in) + ") -> " + tensor(out) + " {\n  %d = stablehlo.constant " + Bytes(descriptor) +
                           "\n  %0 = stablehlo.custom_call @ducc_fft(%d, %x) {api_version = 2 : i32} : (tensor<" +
                           std::to_string(descriptor.size()) + "xui8>, " + tensor(in) + ") -> " + tensor(out) + "\n  return %0 : " + tensor(out) + "\n}\n";
  VKXLA_ASSIGN_OR_RETURN(StablehloProgram p, ReadStablehlo(text, false));
  return CompileAndRun(*p.module, {x});
}

Literal Values(const Shape& s, const std::vector<Complex>& v) {
  Literal l(s);
  for (size_t i = 0; i < v.size(); ++i)
    l.Set(static_cast<int64_t>(i), IsComplex(s.element_type()) ? Scalar::Complex(s.element_type(), v[i]) : Scalar::Float(s.element_type(), v[i].real()));
  return l;
}

void ExpectNear(const Literal& got, const std::vector<Complex>& want, double tol) {
  ASSERT_EQ(got.element_count(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    const Scalar g = got.Get(static_cast<int64_t>(i));
    const Complex v = IsComplex(got.shape().element_type()) ? g.c() : Complex(g.re, 0);
    EXPECT_NEAR(std::abs(v - want[i]), 0, tol) << i;
  }
}

std::vector<Complex> Signal(size_t n, bool complex) {
  std::vector<Complex> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = {std::sin(0.7 * static_cast<double>(i) + 0.3), complex ? std::cos(1.3 * static_cast<double>(i)) : 0.0};
  return x;
}

TEST_F(DuccFft, EveryTypeAgainstADft) {
  for (const uint8_t dtype : {0, 1}) {
    const ElementType c = dtype == 0 ? ElementType::kC64 : ElementType::kC128, r = dtype == 0 ? ElementType::kF32 : ElementType::kF64;
    const double tol = dtype == 0 ? 1e-4 : 1e-10;
    SCOPED_TRACE(MlirElementType(c));
    // C2C forward over the last axis of 3 x 8.
    const std::vector<int64_t> d38 = {3, 8};
    const std::vector<Complex> x = Signal(24, true);
    auto forward = RunDucc(Descriptor(dtype, 0, {3, 8}, RowMajor(d38), RowMajor(d38), {1}, true, 1.0), Shape(c, d38), Shape(c, d38), Values(Shape(c, d38), x));
    ASSERT_TRUE(forward.ok()) << forward.status().ToString();
    ExpectNear(*forward, Dft(x, 8, -1), tol * 8);
    // C2C backward, ducc's unnormalized sum scaled by 1/8 (what jnp.fft.ifft asks for).
    auto back = RunDucc(Descriptor(dtype, 0, {3, 8}, RowMajor(d38), RowMajor(d38), {1}, false, 1.0 / 8), Shape(c, d38), Shape(c, d38), Values(Shape(c, d38), x));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    std::vector<Complex> want = Dft(x, 8, 1);
    for (Complex& v : want) v /= 8.0;
    ExpectNear(*back, want, tol);
    // R2C: 3 x 8 real into 3 x 5.
    const std::vector<Complex> xr = Signal(24, false);
    auto r2c = RunDucc(Descriptor(dtype, 2, {3, 8}, RowMajor(d38), RowMajor({3, 5}), {1}, true, 1.0), Shape(r, d38), Shape(c, {3, 5}),
                       Values(Shape(r, d38), xr));
    ASSERT_TRUE(r2c.ok()) << r2c.status().ToString();
    const std::vector<Complex> full = Dft(xr, 8, -1);
    std::vector<Complex> half;
    for (int64_t row = 0; row < 3; ++row)
      for (int64_t k = 0; k < 5; ++k) half.push_back(full[static_cast<size_t>(row * 8 + k)]);
    ExpectNear(*r2c, half, tol * 8);
    // C2R: those 3 x 5 back into 3 x 8, scaled by 2 / 8.
    auto c2r = RunDucc(Descriptor(dtype, 1, {3, 8}, RowMajor({3, 5}), RowMajor(d38), {1}, false, 2.0 / 8), Shape(c, {3, 5}), Shape(r, d38),
                       Values(Shape(c, {3, 5}), half));
    ASSERT_TRUE(c2r.ok()) << c2r.status().ToString();
    std::vector<Complex> twice;
    for (const Complex& v : xr) twice.push_back(2.0 * v);
    ExpectNear(*c2r, twice, tol * 8);
  }
  // Two axes: the 2-D DFT of 2 x 4 x 4, as rows then columns.
  const std::vector<int64_t> d = {2, 4, 4};
  const std::vector<Complex> x = Signal(32, true);
  auto two = RunDucc(Descriptor(0, 0, {2, 4, 4}, RowMajor(d), RowMajor(d), {1, 2}, true, 1.0), Shape(ElementType::kC64, d),
                     Shape(ElementType::kC64, d), Values(Shape(ElementType::kC64, d), x));
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  std::vector<Complex> rows = Dft(x, 4, -1), want(32);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t col = 0; col < 4; ++col) {
      std::vector<Complex> column(4);
      for (int64_t i = 0; i < 4; ++i) column[static_cast<size_t>(i)] = rows[static_cast<size_t>(b * 16 + i * 4 + col)];
      const std::vector<Complex> t = Dft(column, 4, -1);
      for (int64_t i = 0; i < 4; ++i) want[static_cast<size_t>(b * 16 + i * 4 + col)] = t[static_cast<size_t>(i)];
    }
  ExpectNear(*two, want, 1e-4 * 16);
}

// The modules JAX exported (its back-compat data), descriptors as written.
TEST_F(DuccFft, ExportedModules) {
  const std::vector<Complex> x = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}, {7, 0}, {8, 0}, {9, 0}, {10, 0}, {11, 0}};
  const std::vector<Complex> want = Dft(x, 4, -1);
  const std::string fixed = R"(module @jit_func {
  func.func public @main(%arg0: tensor<3x4xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}) -> (tensor<3x4xcomplex<f32>> {jax.result_info = ""}) {
    %0 = stablehlo.convert %arg0 : (tensor<3x4xf32>) -> tensor<3x4xcomplex<f32>>
    %1 = stablehlo.constant dense<"0x18000000140024000000000008000C001000140007001800140000000000000154000000380000001C00000010000000000000000000F03F0000000001000000010000000200000004000000000000000100000000000000000000000200000004000000000000000100000000000000000000000200000003000000000000000400000000000000"> : tensor<136xui8>
    %2 = stablehlo.custom_call @ducc_fft(%1, %0) {api_version = 2 : i32, operand_layouts = [dense<0> : tensor<1xindex>, dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<136xui8>, tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
    return %2 : tensor<3x4xcomplex<f32>>
  }
}
)";
  const std::string dynamic = R"(module @jit_func {
  func.func public @main(%arg0: tensor<3x4xf32>) -> tensor<3x4xcomplex<f32>> {
    %0 = stablehlo.convert %arg0 : (tensor<3x4xf32>) -> tensor<3x4xcomplex<f32>>
    %shape = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
    %strides = stablehlo.constant dense<[4, 1]> : tensor<2xi32>
    %scale = stablehlo.constant dense<1.0> : tensor<1xf64>
    %d = stablehlo.constant dense<[20, 0, 0, 0, 0, 0, 14, 0, 16, 0, 8, 0, 0, 0, 0, 0, 12, 0, 7, 0, 14, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]> : tensor<44xui8>
    %1 = stablehlo.custom_call @dynamic_ducc_fft(%d, %0, %shape, %strides, %strides, %scale, %shape) {api_version = 2 : i32, indices_of_shape_operands = dense<6> : tensor<1xi64>} : (tensor<44xui8>, tensor<3x4xcomplex<f32>>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<1xf64>, tensor<2xi32>) -> tensor<3x4xcomplex<f32>>
    return %1 : tensor<3x4xcomplex<f32>>
  }
}
)";
  Literal in(Shape(ElementType::kF32, {3, 4}));
  for (int64_t i = 0; i < 12; ++i) in.Set(i, Scalar::Float(ElementType::kF32, static_cast<double>(i)));
  for (const std::string& text : {fixed, dynamic}) {
    auto p = ReadStablehlo(text, false);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    auto got = CompileAndRun(*p->module, {in});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectNear(*got, want, 1e-4);
  }
}

TEST_F(DuccFft, UnsupportedDescriptorsAreErrors) {
  const Shape c(ElementType::kC64, {3, 8});
  const Literal x = Values(c, Signal(24, true));
  const std::vector<uint64_t> rm = RowMajor({3, 8});
  struct Case {
    std::vector<uint8_t> descriptor;
    Shape in, out;
    std::string expect;
  } cases[] = {
      {Descriptor(0, 0, {3, 8}, rm, rm, {0}, true, 1.0), c, c, "not the trailing ones"},
      {Descriptor(0, 0, {3, 8}, {1, 3}, rm, {1}, true, 1.0), c, c, "not the row-major ones"},
      {Descriptor(1, 0, {3, 8}, rm, rm, {1}, true, 1.0), c, c, "transforms c128 into c128"},
      {Descriptor(0, 2, {3, 8}, rm, rm, {1}, false, 1.0), Shape(ElementType::kF32, {3, 8}), Shape(ElementType::kC64, {3, 5}), "wrong direction"},
      {Descriptor(0, 7, {3, 8}, rm, rm, {1}, true, 1.0), c, c, "no known dtype and FFT type"},
      {std::vector<uint8_t>{200, 0, 0, 0, 1, 2, 3}, c, c, "lie outside it"},
  };
  for (const Case& k : cases) {
    auto got = RunDucc(k.descriptor, k.in, k.out, k.in == c ? x : Values(k.in, Signal(static_cast<size_t>(k.in.element_count()), false)));
    ASSERT_FALSE(got.ok()) << k.expect;
    EXPECT_NE(got.status().message().find(k.expect), std::string::npos) << got.status().message();
  }
}

}  // namespace
}  // namespace vkxla
