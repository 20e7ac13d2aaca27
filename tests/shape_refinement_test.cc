// Shape-polymorphic StableHLO as jax.export writes it (arguments with open
// dimensions, shapes computed with get_dimension_size, the dynamic_* ops,
// shape assertions, the wrapped main called with the dimension values):
// read with its arguments' shapes, it runs as the reference evaluator runs
// the same refined module, for several shapes of one text; what cannot be
// refined is an error at its line:col.
#include <gtest/gtest.h>

#include <random>

#include "frontends/stablehlo_reader.h"
#include "ops/evaluator.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class ShapeRefinement : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

// f(x) = exp(x) / rowsum(exp(x)) + iota, x: f32[b, 4], with jax.export's
// assertion that b >= 1.
const char* kRowNormalize = R"(
module @jit_f attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x4xf32> {mhlo.layout_mode = "default"}) -> (tensor<?x4xf32> {jax.result_info = ""}) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %2 = stablehlo.compare  GE, %1, %c,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %1) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}).", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
    %3 = call @_wrapped_jax_export_main(%1, %arg0) : (tensor<i64>, tensor<?x4xf32>) -> tensor<?x4xf32>
    return %3 : tensor<?x4xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i64> {jax.global_constant = "b"}, %arg1: tensor<?x4xf32>) -> (tensor<?x4xf32> {jax.result_info = ""}) {
    %0 = stablehlo.exponential %arg1 : tensor<?x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
    %2 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
    %3 = stablehlo.reshape %2 : (tensor<i32>) -> tensor<1xi32>
    %c = stablehlo.constant dense<4> : tensor<1xi32>
    %4 = stablehlo.concatenate %3, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %5 = stablehlo.dynamic_broadcast_in_dim %1, %4, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x4xf32>
    %6 = stablehlo.divide %0, %5 : tensor<?x4xf32>
    %7 = stablehlo.dynamic_iota %4, dim = 0 : (tensor<2xi32>) -> tensor<?x4xi32>
    %8 = stablehlo.convert %7 : (tensor<?x4xi32>) -> tensor<?x4xf32>
    %9 = stablehlo.add %6, %8 : tensor<?x4xf32>
    return %9 : tensor<?x4xf32>
  }
}
)";

// Two symbolic dims (b, n): a product of (b,3) and (3,n) through tanh; a
// fori_loop to n that reads the product (its shape captured into the
// loop); a dynamic_reshape to (3b/2, 2) and a real_dynamic_slice of it.
const char* kTwoDims = R"(
module @jit_g attributes {jax.uses_shape_polymorphism = true} {
  func.func public @main(%arg0: tensor<?x3xf32>, %arg1: tensor<3x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %2 = stablehlo.get_dimension_size %arg1, dim = 1 : (tensor<3x?xf32>) -> tensor<i32>
    %3 = stablehlo.convert %2 : (tensor<i32>) -> tensor<i64>
    %4:3 = call @_wrapped_jax_export_main(%1, %3, %arg0, %arg1) : (tensor<i64>, tensor<i64>, tensor<?x3xf32>, tensor<3x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>)
    return %4#0, %4#1, %4#2 : tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i64>, %arg1: tensor<i64>, %arg2: tensor<?x3xf32>, %arg3: tensor<3x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>) {
    %0 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<?x3xf32>, tensor<3x?xf32>) -> tensor<?x?xf32>
    %1 = stablehlo.tanh %0 : tensor<?x?xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
    %3 = stablehlo.reshape %2 : (tensor<i32>) -> tensor<1xi32>
    %4 = stablehlo.dynamic_broadcast_in_dim %cst, %3, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
    %5:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %4) : tensor<i64>, tensor<?xf32>
     cond {
      %10 = stablehlo.compare  LT, %iterArg, %arg1,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %c_1 = stablehlo.constant dense<0> : tensor<i64>
      %10 = stablehlo.dynamic_slice %1, %c_1, %iterArg, sizes = [1, 1] : (tensor<?x?xf32>, tensor<i64>, tensor<i64>) -> tensor<1x1xf32>
      %11 = stablehlo.reshape %10 : (tensor<1x1xf32>) -> tensor<f32>
      %12 = stablehlo.dynamic_broadcast_in_dim %11, %3, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
      %13 = stablehlo.add %iterArg_0, %12 : tensor<?xf32>
      %c_2 = stablehlo.constant dense<1> : tensor<i64>
      %14 = stablehlo.add %iterArg, %c_2 : tensor<i64>
      stablehlo.return %14, %13 : tensor<i64>, tensor<?xf32>
    }
    %c_3 = stablehlo.constant dense<3> : tensor<i64>
    %6 = stablehlo.multiply %arg0, %c_3 : tensor<i64>
    %c_4 = stablehlo.constant dense<2> : tensor<i64>
    %7 = stablehlo.divide %6, %c_4 : tensor<i64>
    %8 = stablehlo.convert %7 : (tensor<i64>) -> tensor<i32>
    %9 = stablehlo.reshape %8 : (tensor<i32>) -> tensor<1xi32>
    %c_5 = stablehlo.constant dense<2> : tensor<1xi32>
    %10 = stablehlo.concatenate %9, %c_5, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %11 = stablehlo.dynamic_reshape %arg2, %10 : (tensor<?x3xf32>, tensor<2xi32>) -> tensor<?x2xf32>
    %c_6 = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
    %c_7 = stablehlo.constant dense<1> : tensor<2xi32>
    %12 = stablehlo.real_dynamic_slice %11, %c_6, %10, %c_7 : (tensor<?x2xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x2xf32>
    return %1, %5#1, %12 : tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>
  }
}
)";

// Reads `text` refined for `shapes`, runs it on the device with random
// values and compares with the reference evaluator; the result's shape
// must be `result`.
void ExpectRunsAsTheReference(const char* text, const std::vector<Shape>& shapes, const std::string& result) {
  SCOPED_TRACE(result);
  StatusOr<StablehloProgram> p = ReadStablehlo(text, false, 1, {}, &shapes);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  std::mt19937_64 rng(11);
  std::vector<Literal> args;
  for (const Shape& s : shapes) args.push_back(RandomLiteral(s, rng, Opcode::kTanh));
  StatusOr<Literal> want = EvaluateModule(*p->module, args);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  StatusOr<Literal> got = CompileAndRun(*p->module, args);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->shape().ToString(false), result);
  const std::vector<const Literal*> g = got->Leaves(), w = want->Leaves();
  ASSERT_EQ(g.size(), w.size());
  for (size_t i = 0; i < g.size(); ++i) ExpectClose(*g[i], *w[i], Opcode::kTanh, "result " + std::to_string(i));
}

TEST_F(ShapeRefinement, OneTextRunsForEveryShapeItsArgumentsTake) {
  for (int64_t b : {1, 3, 64})
    ExpectRunsAsTheReference(kRowNormalize, {Shape(ElementType::kF32, {b, 4})}, "f32[" + std::to_string(b) + ",4]");
  for (auto [b, n] : std::vector<std::pair<int64_t, int64_t>>{{2, 1}, {4, 5}, {10, 7}})
    ExpectRunsAsTheReference(kTwoDims, {Shape(ElementType::kF32, {b, 3}), Shape(ElementType::kF32, {3, n})},
                             "(f32[" + std::to_string(b) + "," + std::to_string(n) + "], f32[" + std::to_string(b) + "], f32[" +
                                 std::to_string(3 * b / 2 - 1) + ",2])");
}

// The loop sums row 0 of tanh(x y) into every element: checked by value.
TEST_F(ShapeRefinement, LoopBoundsAndShapesComeFromTheArguments) {
  const std::vector<Shape> shapes = {Shape(ElementType::kF32, {2, 3}), Shape(ElementType::kF32, {3, 2})};
  StatusOr<StablehloProgram> p = ReadStablehlo(kTwoDims, false, 1, {}, &shapes);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  Literal x(shapes[0]), y(shapes[1]);
  for (int64_t i = 0; i < 6; ++i) {
    x.Set(i, Scalar::Float(ElementType::kF32, i == 0 || i == 4 ? 1 : 0));  // the identity's first two rows
    y.Set(i, Scalar::Float(ElementType::kF32, i == 0 ? 0.5 : i == 3 ? -0.25 : 0));
  }
  StatusOr<Literal> got = CompileAndRun(*p->module, {x, y});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const float sum = std::tanh(0.5f) + std::tanh(0.0f);  // row 0 of tanh(x y): tanh(0.5), tanh(0)
  const Literal& loop = got->tuple_elements()[1];
  for (int64_t i = 0; i < 2; ++i) EXPECT_NEAR(loop.Get(i).re, sum, 1e-6);
  // x as (3, 2) is {{1, 0}, {0, 0}, {1, 0}}; the slice takes rows 1 and 2.
  EXPECT_EQ(got->tuple_elements()[2].ValuesToString(), "{{0, 0}, {1, 0}}");
}

TEST_F(ShapeRefinement, WhatCannotBeRefinedIsAnErrorThatSaysWhy) {
  // No shapes: the reader says the module needs them.
  StatusOr<StablehloProgram> none = ReadStablehlo(kRowNormalize, false);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find("shape-polymorphic"), std::string::npos) << none.status().message();
  EXPECT_NE(none.status().message().find("f32[?,4]"), std::string::npos) << none.status().message();
  // A shape that does not fit the written one.
  const std::vector<Shape> wrong = {Shape(ElementType::kF32, {2, 5})};
  StatusOr<StablehloProgram> bad = ReadStablehlo(kRowNormalize, false, 1, {}, &wrong);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("%arg0 is f32[?,4], but its value is f32[2,5]"), std::string::npos) << bad.status().message();
  const std::vector<Shape> negative = {Shape(ElementType::kF32, {-5, 4})};
  StatusOr<StablehloProgram> bounds = ReadStablehlo(kRowNormalize, false, 1, {}, &negative);
  ASSERT_FALSE(bounds.ok());
  EXPECT_NE(bounds.status().message().find("%arg0 is given as negative dimension size -5"), std::string::npos)
      << bounds.status().message();
  // jax.export's assertion, with its message and the value in it.
  const std::vector<Shape> empty = {Shape(ElementType::kF32, {0, 4})};
  StatusOr<StablehloProgram> zero = ReadStablehlo(kRowNormalize, false, 1, {}, &empty);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("8:5: Input shapes do not match the polymorphic shapes specification. Expected value >= 1 "
                                         "for dimension variable 'b'. Obtained dimension variables: 'b' = 0"),
            std::string::npos)
      << zero.status().message();
  // An open result no operand gives, and a size only the run knows.
  const std::vector<Shape> four = {Shape(ElementType::kF32, {4})};
  StatusOr<StablehloProgram> open = ReadStablehlo(R"(
func.func @main(%x: tensor<?xf32>) -> tensor<?x?xf32> {
  %b = stablehlo.broadcast_in_dim %x, dims = [0] : (tensor<?xf32>) -> tensor<?x?xf32>
  return %b : tensor<?x?xf32>
})", false, 1, {}, &four);
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.status().message().find("3:3: broadcast: its result type f32[?,?] does not follow from its operands (they give f32[4,?])"),
            std::string::npos)
      << open.status().message();
  const std::vector<Shape> with_size = {Shape(ElementType::kF32, {4}), Shape(ElementType::kS32, {1})};
  StatusOr<StablehloProgram> runtime = ReadStablehlo(R"(
func.func @main(%x: tensor<?xf32>, %n: tensor<1xi32>) -> tensor<?xf32> {
  %b = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  return %b : tensor<?xf32>
})", false, 1, {}, &with_size);
  ASSERT_FALSE(runtime.ok());
  EXPECT_NE(runtime.status().message().find("3:3: stablehlo.dynamic_iota with %n computed at run time is not supported"),
            std::string::npos)
      << runtime.status().message();
  // Signatures as written, open dims marked.
  StatusOr<std::vector<Shape>> types = StablehloEntryArgumentTypes(kTwoDims);
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  ASSERT_EQ(types->size(), 2u);
  EXPECT_EQ((*types)[1].dims(), (std::vector<int64_t>{3, -1}));
}

}  // namespace
}  // namespace vkxla

namespace vkxla {
namespace {

Literal F32Matrix(int64_t rows, int64_t cols, const std::vector<float>& v) {
  Literal l(Shape(ElementType::kF32, {rows, cols}));
  for (int64_t i = 0; i < rows * cols; ++i) l.Set(i, Scalar::Float(ElementType::kF32, v[static_cast<size_t>(i)]));
  return l;
}

Literal F32Vector(const std::vector<float>& v) {
  Literal l(Shape(ElementType::kF32, {static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) l.Set(static_cast<int64_t>(i), Scalar::Float(ElementType::kF32, v[i]));
  return l;
}

class ExpandedCustomCalls : public ShapeRefinement {};

// jax.export's dynamic top_k (k a dimension of another argument), top_k by
// ApproxTopK (the exact one, ties to the lower index) in its static and
// dynamic forms, a dynamic reduce_window (a cumulative sum over b rows), a
// dynamic rng_bit_generator (the same bits as the static op), and the
// uninitialised AllocateBuffer and Shardy's result annotation.
TEST_F(ExpandedCustomCalls, RunAsTheOpsXlaExpandsThemTo) {
  const Literal x = F32Matrix(2, 5, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3});
  EXPECT_EQ(RunRefined(R"(
func.func @main(%x: tensor<2x?xf32>, %k: tensor<?xf32>) -> (tensor<2x?xf32>, tensor<2x?xi32>) {
  %n = stablehlo.get_dimension_size %k, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %n) {api_version = 2 : i32} : (tensor<2x?xf32>, tensor<i32>) -> (tensor<2x?xf32>, tensor<2x?xi32>)
  return %0#0, %0#1 : tensor<2x?xf32>, tensor<2x?xi32>
})", {x, Literal(Shape(ElementType::kF32, {3}))}),
            "(f32[2,3], s32[2,3]) ({{5, 4, 3}, {9, 6, 5}}, {{4, 2, 0}, {0, 2, 3}})");
  const std::string comparator = R"(
func.func private @gt(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<i1> {
  %c = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %c : tensor<i1>
})";
  Literal v(Shape(ElementType::kF32, {7}));
  const float values[] = {2, 7, 1, 7, 3, -1, 7};
  for (int64_t i = 0; i < 7; ++i) v.Set(i, Scalar::Float(ElementType::kF32, values[i]));
  EXPECT_EQ(RunRefined(R"(
func.func @main(%x: tensor<7xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %i = stablehlo.iota dim = 0 : tensor<7xi32>
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<-1> : tensor<i32>
  %0:2 = stablehlo.custom_call @ApproxTopK(%x, %i, %m, %z) {called_computations = [@gt], mhlo.backend_config = {aggregate_to_topk = true, recall_target = 0.949999988 : f32, reduction_dim = 0 : i64, reduction_input_size_override = -1 : i64, top_k = 3 : i64}} : (tensor<7xf32>, tensor<7xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xi32>
})" + comparator, {v}),
            "(f32[3], s32[3]) ({7, 7, 7}, {1, 3, 6})");
  EXPECT_EQ(RunRefined(R"(
func.func @main(%x: tensor<2x?xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>) {
  %i = stablehlo.iota dim = 1 : tensor<2x5xi32>
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<-1> : tensor<i32>
  %s = stablehlo.constant dense<2> : tensor<2xi32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_approx_top_k(%x, %i, %m, %z, %s, %s) {called_computations = [@gt], indices_of_shape_operands = dense<[4, 5]> : tensor<2xi64>, mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.949999988 : f32, reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64, top_k = 2 : i64}} : (tensor<2x?xf32>, tensor<2x5xi32>, tensor<f32>, tensor<i32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x2xi32>
})" + comparator, {x}),
            "(f32[2,2], s32[2,2]) ({{5, 4}, {9, 6}}, {{4, 2}, {0, 2}})");
  EXPECT_EQ(RunRefined(R"(
func.func private @add(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %s = stablehlo.add %a, %b : tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %b = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>
  %b1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %one = stablehlo.constant dense<1> : tensor<1xi32>
  %window = stablehlo.concatenate %b1, %one, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %ones = stablehlo.constant dense<1> : tensor<2xi32>
  %low = stablehlo.subtract %b1, %one : tensor<1xi32>
  %zero = stablehlo.constant dense<0> : tensor<3xi32>
  %pad1 = stablehlo.concatenate %low, %zero, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
  %pad = stablehlo.reshape %pad1 : (tensor<4xi32>) -> tensor<2x2xi32>
  %init = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %init, %window, %ones, %ones, %ones, %pad) {api_version = 2 : i32, called_computations = [@add]} : (tensor<?x2xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
})", {F32Matrix(3, 2, {1, 10, 2, 20, 3, 30})}),
            "f32[3,2] {{1, 10}, {3, 30}, {6, 60}}");
  Literal key(Shape(ElementType::kU64, {2}));
  key.Set(0, Scalar::UInt(ElementType::kU64, 42));
  key.Set(1, Scalar::UInt(ElementType::kU64, 7));
  const std::string dynamic = RunRefined(R"(
func.func @main(%s: tensor<2xui64>, %x: tensor<?x3xf32>) -> (tensor<2xui64>, tensor<?x3xui32>) {
  %b = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %b1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %three = stablehlo.constant dense<3> : tensor<1xi32>
  %shape = stablehlo.concatenate %b1, %three, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %shape) {api_version = 2 : i32, rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>, tensor<2xi32>) -> (tensor<2xui64>, tensor<?x3xui32>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<?x3xui32>
})", {key, Literal(Shape(ElementType::kF32, {4, 3}))});
  const std::string fixed = RunRefined(R"(
func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<4x3xui32>) {
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x3xui32>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<4x3xui32>
})", {key});
  EXPECT_EQ(dynamic, fixed);
  EXPECT_NE(fixed.find("(u64[2], u32[4,3])"), std::string::npos) << fixed;
  EXPECT_EQ(RunRefined(R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @AllocateBuffer() : () -> tensor<2x2xf32>
  %1 = stablehlo.custom_call @xla.sdy.FuncResultSharding(%x) {has_side_effect = true} : (tensor<2xf32>) -> tensor<2xf32>
  %r = stablehlo.slice %0 [0:1, 0:2] : (tensor<2x2xf32>) -> tensor<1x2xf32>
  %s = stablehlo.reshape %r : (tensor<1x2xf32>) -> tensor<2xf32>
  %t = stablehlo.add %1, %s : tensor<2xf32>
  return %t : tensor<2xf32>
})", {F32Vector({1.5, -2})}), "f32[2] {1.5, -2}");
}

// jaxlib's GPU Threefry kernel, in both forms, on Random123's known
// answers for Threefry-2x32-20 (the zero, all-ones and pi keys/counters).
TEST_F(ExpandedCustomCalls, GpuThreefryGivesTheKnownAnswers) {
  auto u32s = [](std::vector<uint64_t> v) {
    Literal l(Shape(ElementType::kU32, {static_cast<int64_t>(v.size())}));
    for (size_t i = 0; i < v.size(); ++i) l.Set(static_cast<int64_t>(i), Scalar::UInt(ElementType::kU32, v[i]));
    return l;
  };
  const std::vector<Literal> args = {u32s({0, 0xFFFFFFFF, 0x13198A2E}), u32s({0, 0xFFFFFFFF, 0x03707344}),
                                     u32s({0, 0xFFFFFFFF, 0x243F6A88}), u32s({0, 0xFFFFFFFF, 0x85A308D3})};
  const std::string want = "(u32[3], u32[3]) ({1797259609, 481924860, 3297917596}, {2579123966, 3137350631, 1212020640})";
  EXPECT_EQ(RunRefined(R"(
func.func @main(%k0: tensor<3xui32>, %k1: tensor<3xui32>, %x0: tensor<3xui32>, %x1: tensor<3xui32>) -> (tensor<3xui32>, tensor<3xui32>) {
  %0:2 = stablehlo.custom_call @cu_threefry2x32_ffi(%k0, %k1, %x0, %x1) {mhlo.backend_config = {}} : (tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>) -> (tensor<3xui32>, tensor<3xui32>)
  return %0#0, %0#1 : tensor<3xui32>, tensor<3xui32>
})", args), want);
  EXPECT_EQ(RunRefined(R"(
func.func @main(%k0: tensor<3xui32>, %k1: tensor<3xui32>, %x0: tensor<3xui32>, %x1: tensor<3xui32>) -> (tensor<3xui32>, tensor<3xui32>) {
  %0:2 = stablehlo.custom_call @oneapi_threefry2x32_ffi(%k0, %k1, %x0, %x1) {mhlo.backend_config = {}} : (tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>) -> (tensor<3xui32>, tensor<3xui32>)
  return %0#0, %0#1 : tensor<3xui32>, tensor<3xui32>
})", args), want);
  EXPECT_EQ(RunRefined(R"(
func.func @main(%k0: tensor<3xui32>, %k1: tensor<3xui32>, %x0: tensor<3xui32>, %x1: tensor<3xui32>) -> (tensor<3xui32>, tensor<3xui32>) {
  %0 = stablehlo.custom_call @cu_threefry2x32(%k0, %k1, %x0, %x1) {api_version = 2 : i32, backend_config = "\03\00\00\00\00\00\00\00"} : (tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>) -> tuple<tensor<3xui32>, tensor<3xui32>>
  %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<3xui32>, tensor<3xui32>>) -> tensor<3xui32>
  %2 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<3xui32>, tensor<3xui32>>) -> tensor<3xui32>
  return %1, %2 : tensor<3xui32>, tensor<3xui32>
})", args), want);
}

TEST_F(ExpandedCustomCalls, BadOperandsAreErrorsAtTheirPosition) {
  const Literal x = F32Matrix(2, 5, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3});
  EXPECT_NE(RunRefined(R"(
func.func @main(%x: tensor<2x5xf32>) -> (tensor<2x9xf32>, tensor<2x9xi32>) {
  %k = stablehlo.constant dense<9> : tensor<i32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<2x5xf32>, tensor<i32>) -> (tensor<2x9xf32>, tensor<2x9xi32>)
  return %0#0, %0#1 : tensor<2x9xf32>, tensor<2x9xi32>
})", {x}).find("4:3: custom_call @stablehlo.dynamic_top_k: k must be one integer from 0 to the last dimension of f32[2,5]"),
            std::string::npos);
  EXPECT_NE(RunRefined(R"(
func.func @main(%x: tensor<2x5xf32>) -> (tensor<2x1xf32>) {
  %m = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.custom_call @ApproxTopK(%x, %m) {mhlo.backend_config = {reduction_dim = 1 : i64, top_k = 1 : i64}} : (tensor<2x5xf32>, tensor<f32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
})", {x}).find("4:3: custom_call @ApproxTopK: needs its comparator in called_computations"),
            std::string::npos);
}

}  // namespace
}  // namespace vkxla
