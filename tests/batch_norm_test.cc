// BatchNormTraining, BatchNormInference and BatchNormGrad: the spec's
// examples, random inputs against the reference (f16, bf16, f32, f64; the
// feature dim first, inside and last; column-major layouts; long
// reductions), a variance the naive sum of squares would lose, both front
// ends, the builder, and bad operands quoting the shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "frontends/stablehlo_reader.h"
#include "frontends/xla_builder.h"
#include "ops/evaluator.h"
#include "tests/dot_test_util.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class BatchNorm : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

const char* kSpecOperands =
    "  %x = f32[2,2,2] constant({{{1, 2}, {3, 4}}, {{3, 4}, {1, 2}}})\n  %one = f32[] constant(1)\n"
    "  %s = f32[2] broadcast(%one), dimensions={}\n  %m = f32[2] constant({2, 3})\n"
    "  %g = f32[2,2,2] constant({{{0.1, 0.1}, {0.1, 0.1}}, {{0.1, 0.1}, {0.1, 0.1}}})\n";

TEST_F(BatchNorm, SpecExamples) {
  EXPECT_EQ(RunHloText("", std::string(kSpecOperands) +
                               "  ROOT %t = (f32[2,2,2], f32[2], f32[2]) batch-norm-training(%x, %s, %s), epsilon=0, feature_index=2\n"),
            "({{{0, 0}, {2, 2}}, {{2, 2}, {0, 0}}}, {2, 3}, {1, 1})");
  EXPECT_EQ(RunHloText("", std::string(kSpecOperands) +
                               "  ROOT %r = f32[2,2,2] batch-norm-inference(%x, %s, %s, %m, %s), epsilon=0, feature_index=2\n"),
            "{{{0, 0}, {2, 2}}, {{2, 2}, {0, 0}}}");
  EXPECT_EQ(RunHloText("", std::string(kSpecOperands) +
                               "  ROOT %t = (f32[2,2,2], f32[2], f32[2]) batch-norm-grad(%x, %s, %m, %s, %g), epsilon=0, feature_index=2\n"),
            "({{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}}, {0, 0}, {0.4, 0.4})");
}

// Values within a relative bound of the reference's double computation.
void ExpectNear(const Literal& got, const Literal& want, double tolerance, const std::string& what) {
  std::vector<const Literal*> g = got.Leaves(), w = want.Leaves();
  ASSERT_EQ(g.size(), w.size()) << what;
  for (size_t leaf = 0; leaf < g.size(); ++leaf) {
    double scale = 1;
    for (int64_t i = 0; i < w[leaf]->element_count(); ++i) scale = std::max(scale, std::abs(w[leaf]->Get(i).re));
    int bad = 0;
    for (int64_t i = 0; i < w[leaf]->element_count() && bad < 5; ++i) {
      const double a = g[leaf]->Get(i).re, b = w[leaf]->Get(i).re;
      if (!(std::abs(a - b) <= tolerance * scale)) {
        ++bad;
        ADD_FAILURE() << what << " result " << leaf << " element " << i << ": got " << a << ", want " << b;
      }
    }
  }
}

double ToleranceOf(ElementType t) {
  return t == ElementType::kF64 ? 1e-12 : t == ElementType::kF32 ? 2e-5 : t == ElementType::kF16 ? 4e-3 : 3e-2;
}

Literal RandomFloats(const Shape& shape, std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  Literal l(shape);
  for (int64_t i = 0; i < l.element_count(); ++i) l.Set(i, Scalar::Float(shape.element_type(), u(rng)));
  return l;
}

void RunAll(ElementType t, const std::vector<int64_t>& dims, int64_t fi, const std::string& layout, uint64_t seed,
            double mean = 0.5, double spread = 2) {
  const std::string x = ShapeText(t, dims, layout), v = ShapeText(t, {dims[fi]});
  const std::string head = "HloModule bn\nENTRY %e {\n  %x = " + x + " parameter(0)\n  %s = " + v + " parameter(1)\n  %o = " + v +
                           " parameter(2)\n  %m = " + v + " parameter(3)\n  %v = " + v + " parameter(4)\n  %g = " +
                           ShapeText(t, dims) + " parameter(5)\n";
  const std::string attrs = ", epsilon=0.001, feature_index=" + std::to_string(fi) + "\n}\n";
  const std::string tuple = "(" + ShapeText(t, dims, layout) + ", " + v + ", " + v + ")";
  std::mt19937_64 rng(seed);
  const std::vector<Literal> args = {RandomFloats(Shape(t, dims), rng, mean - spread, mean + spread),
                                     RandomFloats(Shape(t, {dims[fi]}), rng, 0.5, 2), RandomFloats(Shape(t, {dims[fi]}), rng, -1, 1),
                                     RandomFloats(Shape(t, {dims[fi]}), rng, -1, 1), RandomFloats(Shape(t, {dims[fi]}), rng, 0.5, 2),
                                     RandomFloats(Shape(t, dims), rng, -1, 1)};
  for (const std::string& root : {"  ROOT %r = " + tuple + " batch-norm-training(%x, %s, %o)",
                                  "  ROOT %r = " + x + " batch-norm-inference(%x, %s, %o, %m, %v)",
                                  "  ROOT %r = " + tuple + " batch-norm-grad(%x, %s, %m, %v, %g)"}) {
    const std::string text = head + root + attrs;
    SCOPED_TRACE(text);
    auto module = Parse(text);
    ASSERT_TRUE(module);
    auto want = EvaluateModule(*module, args);
    auto got = CompileAndRun(*module, args);
    ASSERT_TRUE(want.ok() && got.ok()) << want.status().ToString() << " / " << got.status().ToString();
    ExpectNear(*got, *want, ToleranceOf(t), text);
  }
}

TEST_F(BatchNorm, RandomInputsMatchTheReference) {
  uint64_t seed = 0;
  for (ElementType t : {ElementType::kF32, ElementType::kF16, ElementType::kBF16, ElementType::kF64}) {
    SCOPED_TRACE(Type(t));
    RunAll(t, {3, 5, 7, 4}, 3, "", ++seed);
    RunAll(t, {6, 5, 9}, 0, "{0,1,2}", ++seed);
    RunAll(t, {4, 3, 17}, 1, "", ++seed);
    RunAll(t, {11}, 0, "", ++seed);
  }
}

TEST_F(BatchNorm, LongReductions) {
  // 2^15 elements per feature: the sums split across workgroups.
  RunAll(ElementType::kF32, {8, 64, 64, 8}, 3, "", 21);
}

TEST_F(BatchNorm, VarianceWithoutCancellation) {
  // Mean 10^4, standard deviation about 1: in f32 the naive E[x^2] - E[x]^2
  // loses every digit of the variance (10^8 against an eps of 10^-7). The
  // variance must keep 4 digits; the normalised values are off by what
  // rounding x - mean to f32 costs (an ulp of 10^4 over the deviation).
  const Shape x(ElementType::kF32, {64, 32, 4}), v(ElementType::kF32, {4});
  auto module = Parse("HloModule bn\nENTRY %e {\n  %x = f32[64,32,4] parameter(0)\n  %s = f32[4] parameter(1)\n"
                      "  ROOT %r = (f32[64,32,4], f32[4], f32[4]) batch-norm-training(%x, %s, %s), epsilon=0, feature_index=2\n}\n");
  ASSERT_TRUE(module);
  std::mt19937_64 rng(22);
  const std::vector<Literal> args = {RandomFloats(x, rng, 1e4 - 1.7, 1e4 + 1.7), RandomFloats(v, rng, 0.5, 2)};
  auto want = EvaluateModule(*module, args);
  auto got = CompileAndRun(*module, args);
  ASSERT_TRUE(want.ok() && got.ok()) << want.status().ToString() << " / " << got.status().ToString();
  const std::vector<const Literal*> g = got->Leaves(), w = want->Leaves();
  for (int64_t c = 0; c < 4; ++c) {
    EXPECT_NEAR(g[1]->Get(c).re, w[1]->Get(c).re, 2e-3) << "mean " << c;
    EXPECT_NEAR(g[2]->Get(c).re, w[2]->Get(c).re, 1e-4 * w[2]->Get(c).re) << "variance " << c;
    EXPECT_GT(w[2]->Get(c).re, 0.5);
  }
  ExpectNear(*g[0], *w[0], 2e-3, "normalised");
}

TEST_F(BatchNorm, StablehloReachesIt) {
  auto p = ReadStablehlo(
      "func.func @main() -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) {\n"
      "  %x = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>\n"
      "  %s = stablehlo.constant dense<1.0> : tensor<2xf64>\n  %m = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf64>\n"
      "  %g = stablehlo.constant dense<0.1> : tensor<2x2x2xf64>\n"
      "  %a, %b, %c = \"stablehlo.batch_norm_grad\"(%x, %s, %m, %s, %g) {epsilon = 0.0 : f32, feature_index = 2 : i64}\n"
      "    : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>)"
      " -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)\n"
      "  return %a, %b, %c : tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>\n}\n",
      /*with_checks=*/false);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  auto want = EvaluateModule(*p->module, {});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  EXPECT_EQ(want->ValuesToString(), "({{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}}, {0, 0}, {0.4, 0.4})");
  auto got = CompileAndRun(*p->module, {});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectNear(*got, *want, 1e-12, "stablehlo.batch_norm_grad");
}

TEST_F(BatchNorm, TheBuilderReachesIt) {
  XlaBuilder b("builder_bn");
  XlaOp x = b.Parameter(0, Shape(ElementType::kF32, {2, 3}), "x");
  XlaOp s = b.Parameter(1, Shape(ElementType::kF32, {3}), "s");
  XlaOp t = b.BatchNormTraining(x, s, s, 0.0f, 1);
  ASSERT_TRUE(t.valid()) << b.first_error().ToString();
  auto module = b.Build(t);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Literal lx(Shape(ElementType::kF32, {2, 3})), ls(Shape(ElementType::kF32, {3}));
  for (int i = 0; i < 6; ++i) lx.Set(i, Scalar::Float(ElementType::kF32, i));
  for (int i = 0; i < 3; ++i) ls.Set(i, Scalar::Float(ElementType::kF32, 1));
  auto got = CompileAndRun(**module, {lx, ls});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->ValuesToString(), "({{0, 0, 0}, {2, 2, 2}}, {1.5, 2.5, 3.5}, {2.25, 2.25, 2.25})");
  XlaBuilder bad("builder_bn_bad");
  x = bad.Parameter(0, Shape(ElementType::kF32, {2, 3}), "x");
  s = bad.Parameter(1, Shape(ElementType::kF32, {2}), "s");
  EXPECT_FALSE(bad.BatchNormInference(x, s, s, s, s, 0.001f, 1).valid());
  EXPECT_NE(bad.first_error().message().find("f32[2]"), std::string::npos) << bad.first_error().ToString();
}

TEST_F(BatchNorm, BadOperandsQuoteTheShapes) {
  const std::string ops = "  %x = f32[2,3,4] parameter(0)\n  %s = f32[4] parameter(1)\n  %t = f32[3] parameter(2)\n";
  ExpectHloError("", ops + "  ROOT %r = (f32[2,3,4], f32[4], f32[4]) batch-norm-training(%x, %s, %t), epsilon=0.001, feature_index=2\n",
                 {"operand 2", "f32[3]", "f32[4]", "f32[2,3,4]"});
  ExpectHloError("", ops + "  ROOT %r = (f32[2,3,4], f32[4], f32[4]) batch-norm-training(%x, %s, %s), epsilon=0.001, feature_index=3\n",
                 {"feature_index=3", "out of range", "f32[2,3,4]"});
  ExpectHloError("", ops + "  ROOT %r = (f32[2,3,4], f32[4], f32[4]) batch-norm-training(%x, %s, %s), feature_index=2\n",
                 {"epsilon"});
  ExpectHloError("", ops + "  ROOT %r = (f32[2,3,4], f32[4], f32[4]) batch-norm-training(%x, %s, %s), epsilon=abc, feature_index=2\n",
                 {"epsilon", "abc"});
  ExpectHloError("", "  %x = s32[2,3] parameter(0)\n  %s = s32[3] parameter(1)\n"
                     "  ROOT %r = s32[2,3] batch-norm-inference(%x, %s, %s, %s, %s), epsilon=0.001, feature_index=1\n",
                 {"s32[2,3]", "floating-point"});
  ExpectHloError("", ops + "  ROOT %r = f32[2,3,4] batch-norm-inference(%x, %s, %s, %s), epsilon=0.001, feature_index=2\n",
                 {"expects 5 operands"});
}

}  // namespace
}  // namespace vkxla
