// RngUniform, RngNormal and RngGetAndUpdateState on the device (ops/rng.h):
// every type on odd shapes and two layouts against the reference (the same
// Philox bits and XLA's conversions), values in range and distributed as
// asked, the counter advancing between ops, loop trips and runs (a new
// executable repeats the numbers), StableHLO and builder forms, and errors.
#include <gtest/gtest.h>

#include <cmath>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"
#include "frontends/xla_builder.h"
#include "ops/evaluator.h"
#include "ops/rng.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class RngDistribution : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

std::string RngModule(const std::string& type, const std::string& dims, const std::string& a, const std::string& b,
                      const std::string& distribution, const std::string& layout = "") {
  return "HloModule r\nENTRY main {\n  a = " + type + "[] constant(" + a + ")\n  b = " + type + "[] constant(" + b +
         ")\n  ROOT r = " + type + "[" + dims + "]" + layout + " rng(a, b), distribution=" + distribution + "\n}\n";
}

// Device and reference: integers equal, floats within `ulps`.
void ExpectMatchesReference(const Module& module, double ulps, const std::string& what) {
  StatusOr<Literal> want = EvaluateModule(module, {});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  StatusOr<Literal> got = CompileAndRun(module, {});
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
  const ElementType t = want->shape().element_type();
  int reported = 0;
  for (int64_t i = 0; i < want->element_count(); ++i) {
    const Scalar g = got->Get(i), w = want->Get(i);
    const bool same = IsFloat(t) ? UlpDistance(g.re, w.re, t) <= ulps : g.Bits() == w.Bits();
    if (!same && reported++ < 5) ADD_FAILURE() << what << ": element " << i << " is " << g.ToString() << ", expected " << w.ToString();
  }
}

TEST_F(RngDistribution, UniformEveryTypeMatchesReference) {
  const struct {
    const char* type;
    const char* a;
    const char* b;
  } cases[] = {{"f32", "-1.5", "3.25"}, {"f64", "-2", "7"},          {"f16", "0", "1"},
               {"bf16", "-4", "4"},     {"s32", "-100", "1000"},    {"u32", "7", "4000000000"},
               {"s64", "-5", "123456789012"}, {"u64", "3", "18446744073709551000"}, {"s32", "-2147483648", "2147483647"}};
  for (const auto& c : cases) {
    for (const char* dims : {"", "7", "3,5", "2,3,5"})
      for (const char* layout : {"", "{0,1}"}) {
        if (std::string(layout) == "{0,1}" && std::string(dims) != "3,5") continue;
        auto m = ParseOrFail(RngModule(c.type, dims, c.a, c.b, "rng_uniform", layout));
        ASSERT_TRUE(m);
        ExpectMatchesReference(*m, 2, std::string(c.type) + "[" + dims + "]" + layout);
      }
  }
}

TEST_F(RngDistribution, NormalEveryTypeMatchesReference) {
  for (const char* type : {"f32", "f64", "f16", "bf16"}) {
    // Odd sizes split the largest dim; a scalar draws one pair.
    for (const char* dims : {"", "1", "7", "4,3", "3,5", "3,5,7"}) {
      auto m = ParseOrFail(RngModule(type, dims, "0.5", "2", "rng_normal"));
      ASSERT_TRUE(m);
      // log, sin and cos are the device's own: a few ULP apart.
      ExpectMatchesReference(*m, 64, std::string(type) + "[" + dims + "]");
    }
  }
}

TEST_F(RngDistribution, ValuesAreInRangeAndDistributedAsAsked) {
  const int64_t n = 1 << 16;
  auto run = [&](const std::string& text) {
    auto m = ParseOrFail(text);
    StatusOr<Literal> got = m ? CompileAndRun(*m, {}) : StatusOr<Literal>(Internal("parse"));
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    std::vector<double> v;
    if (got.ok())
      for (int64_t i = 0; i < got->element_count(); ++i) v.push_back(IsFloat(got->shape().element_type()) ? got->Get(i).re
                                                                                                           : static_cast<double>(got->Get(i).s));
    return v;
  };
  auto moments = [](const std::vector<double>& v, double& mean, double& sd) {
    mean = sd = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    for (double x : v) sd += (x - mean) * (x - mean);
    sd = std::sqrt(sd / static_cast<double>(v.size()));
  };
  double mean = 0, sd = 0;
  std::vector<double> u = run(RngModule("f32", std::to_string(n), "2", "6", "rng_uniform"));
  for (double x : u) ASSERT_TRUE(x >= 2 && x < 6) << x;
  moments(u, mean, sd);
  EXPECT_NEAR(mean, 4, 0.03);
  EXPECT_NEAR(sd, 4 / std::sqrt(12.0), 0.03);
  std::vector<double> k = run(RngModule("s32", std::to_string(n), "-3", "5", "rng_uniform"));
  std::vector<int> counts(8, 0);
  for (double x : k) {
    ASSERT_TRUE(x >= -3 && x < 5) << x;
    ++counts[static_cast<int>(x) + 3];
  }
  for (int c : counts) EXPECT_NEAR(c, n / 8, n / 8 * 0.1);
  std::vector<double> g = run(RngModule("f32", std::to_string(n), "3", "2", "rng_normal"));
  moments(g, mean, sd);
  EXPECT_NEAR(mean, 3, 0.03);
  EXPECT_NEAR(sd, 2, 0.03);
}

// Each op takes its own counter range; runs of one executable go on where
// the last stopped, as the reference's runs with one set of feeds do; a new
// executable starts over.
TEST_F(RngDistribution, CounterAdvancesBetweenOpsAndRuns) {
  auto m = ParseOrFail(R"(HloModule r
ENTRY main {
  a = f32[] constant(0)
  b = f32[] constant(1)
  x = f32[6] rng(a, b), distribution=rng_uniform
  y = f32[6] rng(a, b), distribution=rng_uniform
  s = u64[2] rng-get-and-update-state(), delta=10
  t = u64[2] rng-get-and-update-state(), delta=0
  ROOT r = (f32[6], f32[6], u64[2], u64[2]) tuple(x, y, s, t)
})");
  ASSERT_TRUE(m);
  StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(*m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  EvaluationFeeds feeds;
  for (int run = 0; run < 2; ++run) {
    StatusOr<Literal> got = (*exe)->Run({});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    StatusOr<Literal> want = EvaluateModule(*m, {}, feeds);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    const auto& g = got->tuple_elements();
    const auto& w = want->tuple_elements();
    EXPECT_FALSE(g[0].Equal(g[1])) << "two ops drew the same numbers";
    for (int i = 0; i < 2; ++i)
      for (int64_t e = 0; e < 6; ++e) EXPECT_LE(UlpDistance(g[i].Get(e).re, w[i].Get(e).re, ElementType::kF32), 2) << run;
    // 6 words each, then the counter itself: 12 + run * 22, then + 10.
    EXPECT_EQ(g[2].Get(0).u, 12u + 22u * run);
    EXPECT_EQ(g[3].Get(0).u, 22u + 22u * run);
    EXPECT_EQ(g[2].Get(1).u, 0u);
    EXPECT_TRUE(g[2].Equal(w[2]) && g[3].Equal(w[3]));
  }
  StatusOr<std::unique_ptr<Executable>> again = Executable::Compile(*m, TestDevice());
  ASSERT_TRUE(again.ok());
  StatusOr<Literal> first = (*again)->Run({});
  StatusOr<Literal> reference = EvaluateModule(*m, {});
  ASSERT_TRUE(first.ok() && reference.ok());
  EXPECT_TRUE(first->tuple_elements()[2].Equal(reference->tuple_elements()[2]));
}

// A seed picks a stream: the same seed repeats it, another one differs;
// the reference seeded alike agrees.
TEST_F(RngDistribution, SeedPicksTheStream) {
  auto m = ParseOrFail(RngModule("f32", "16", "0", "1", "rng_uniform"));
  ASSERT_TRUE(m);
  StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(*m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto draw = [&](uint64_t seed) {
    (*exe)->SeedRng(seed);
    StatusOr<Literal> got = (*exe)->Run({});
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : Literal();
  };
  const Literal seven = draw(7), eight = draw(8), seven_again = draw(7), zero = draw(0);
  EXPECT_TRUE(seven.Equal(seven_again));
  EXPECT_FALSE(seven.Equal(eight));
  EvaluationFeeds feeds;
  feeds.rng_counter = {0, 7};
  StatusOr<Literal> want = EvaluateModule(*m, {}, feeds);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  for (int64_t i = 0; i < 16; ++i) EXPECT_LE(UlpDistance(seven.Get(i).re, want->Get(i).re, ElementType::kF32), 2) << i;
  StatusOr<Literal> fresh = EvaluateModule(*m, {});
  ASSERT_TRUE(fresh.ok());
  for (int64_t i = 0; i < 16; ++i) EXPECT_LE(UlpDistance(zero.Get(i).re, fresh->Get(i).re, ElementType::kF32), 2) << i;
}

TEST(RngCounter, CarriesIntoTheHighWord) {
  RngCounter c = {~0ull - 1, 5};
  Literal now = TakeRngCounter(c, 3);
  EXPECT_EQ(now.Get(0).u, ~0ull - 1);
  EXPECT_EQ(now.Get(1).u, 5u);
  EXPECT_EQ(c[0], 1u);
  EXPECT_EQ(c[1], 6u);
}

// A loop body draws new numbers each trip.
TEST_F(RngDistribution, NewNumbersEachLoopTrip) {
  auto m = ParseOrFail(R"(HloModule r
body {
  p = (s32[], f32[4,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[4,3] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  a = f32[] constant(0)
  b = f32[] constant(1)
  u = f32[3] rng(a, b), distribution=rng_uniform
  row = f32[1,3] reshape(u)
  zero = s32[] constant(0)
  next = f32[4,3] dynamic-update-slice(acc, row, i, zero)
  ROOT t = (s32[], f32[4,3]) tuple(j, next)
}
cond {
  p = (s32[], f32[4,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  four = s32[] constant(4)
  ROOT lt = pred[] compare(i, four), direction=LT
}
ENTRY main {
  zero = s32[] constant(0)
  z = f32[] constant(0)
  acc = f32[4,3] broadcast(z), dimensions={}
  init = (s32[], f32[4,3]) tuple(zero, acc)
  w = (s32[], f32[4,3]) while(init), condition=cond, body=body
  ROOT r = f32[4,3] get-tuple-element(w), index=1
})");
  ASSERT_TRUE(m);
  ExpectMatchesReference(*m, 2, "loop");
  StatusOr<Literal> got = CompileAndRun(*m, {});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (int64_t r = 1; r < 4; ++r) EXPECT_NE(got->Get(r * 3).re, got->Get(0).re) << r;
}

TEST_F(RngDistribution, StablehloFormsAndBuilder) {
  // stablehlo_spec.md's example: i32 numbers in [0, 2).
  for (const char* op : {R"("stablehlo.rng"(%a, %b, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>})",
                         "stablehlo.rng %a, %b, %shape, distribution = UNIFORM"}) {
    auto read = ReadStablehlo(std::string("func.func @main() -> tensor<3x3xi32> {\n"
                                          "  %a = stablehlo.constant dense<0> : tensor<i32>\n"
                                          "  %b = stablehlo.constant dense<2> : tensor<i32>\n"
                                          "  %shape = stablehlo.constant dense<[3, 3]> : tensor<2xi64>\n  %r = ") +
                                  op + " : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x3xi32>\n  func.return %r : tensor<3x3xi32>\n}\n",
                              false);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ExpectMatchesReference(*read->module, 0, op);
    StatusOr<Literal> got = CompileAndRun(*read->module, {});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (int64_t i = 0; i < 9; ++i) EXPECT_TRUE(got->Get(i).s == 0 || got->Get(i).s == 1) << got->Get(i).s;
  }
  XlaBuilder b("rng");
  XlaOp mu = b.ConstantLiteral(Literal::ScalarOf(Scalar::Float(ElementType::kF32, 1)));
  XlaOp sigma = b.ConstantLiteral(Literal::ScalarOf(Scalar::Float(ElementType::kF32, 0.5)));
  XlaOp n = b.RngNormal(mu, sigma, Shape(ElementType::kF32, {5, 2}));
  XlaOp u = b.RngUniform(mu, sigma, Shape(ElementType::kF32, {5, 2}));
  auto module = b.Build(b.Binary(Opcode::kAdd, n, u));
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  ExpectMatchesReference(**module, 64, "builder");
}

TEST_F(RngDistribution, BadInputsAreClearErrors) {
  ExpectHloError("", "a = f32[2] parameter(0)\n  b = f32[] constant(1)\n  ROOT r = f32[3] rng(a, b), distribution=rng_uniform",
                 {"rng", "f32[2]", "scalars"});
  ExpectHloError("", "a = s32[] constant(0)\n  b = s32[] constant(1)\n  ROOT r = s32[3] rng(a, b), distribution=rng_normal",
                 {"rng", "rng_normal", "s32[3]"});
  ExpectHloError("", "a = s8[] constant(0)\n  b = s8[] constant(1)\n  ROOT r = s8[3] rng(a, b), distribution=rng_uniform",
                 {"rng", "s8[3]", "f16, bf16"});
  ExpectHloError("", "a = f32[] constant(0)\n  b = f32[] constant(1)\n  ROOT r = f32[3] rng(a, b)", {"rng", "distribution"});
  ExpectHloError("", "a = f32[] constant(0)\n  b = f32[] constant(1)\n  ROOT r = f32[3] rng(a, b), distribution=rng_cauchy",
                 {"rng", "rng_cauchy"});
  ExpectHloError("", "ROOT s = u64[2] rng-get-and-update-state(), delta=-4", {"rng-get-and-update-state", "delta", "-4"});
  ExpectHloError("", "ROOT s = u64[2] rng-get-and-update-state()", {"rng-get-and-update-state", "delta"});
  auto bad = ReadStablehlo(R"(func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<3xf32> {
  %shape = stablehlo.constant dense<[3]> : tensor<1xi64>
  %r = "stablehlo.rng"(%a, %b, %shape) {rng_distribution = #stablehlo<rng_distribution POISSON>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
})", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("POISSON"), std::string::npos) << bad.status().ToString();
}

}  // namespace
}  // namespace vkxla
