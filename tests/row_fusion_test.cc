// Row kernels (plan/row_config.h) on the device: softmax, layer norm and
// every element type through one kernel per row group, against the
// reference evaluator. Exact where the sums are (small integers), within a
// stated tolerance where a float sum's order shows (random floats).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "frontends/hlo_text.h"
#include "ops/evaluator.h"
#include "codegen/kernel_builder.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class RowFusion : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

std::string Fold(const std::string& name, const std::string& ty, const std::string& op) {
  return "%" + name + " {\n  %a = " + ty + "[] parameter(0)\n  %b = " + ty + "[] parameter(1)\n  ROOT %r = " + ty + "[] " + op +
         "(%a, %b)\n}\n";
}

const TargetFeatures& GpuConfiguration() {
  static const TargetFeatures gpu = [] {
    TargetFeatures t = TestDevice().target();
    t.cpu = false;
    return t;
  }();
  return gpu;
}

// Compiles `m` and expects what these tests are about: one group, a row
// kernel, one dispatch. Null (a test failure) where it does not compile.
std::unique_ptr<Executable> CompileOneRowKernel(const Module& m) {
  auto exe = Executable::Compile(m, TestDevice());
  if (!exe.ok()) {
    ADD_FAILURE() << exe.status().ToString();
    return nullptr;
  }
  const Program& p = (*exe)->program();
  EXPECT_EQ(p.groups.size(), 1u) << p.ToString();
  if (!p.groups.empty()) {
    EXPECT_EQ(p.groups[0].kind, KernelKind::kRow) << p.ToString();
  }
  EXPECT_EQ((*exe)->kernel_count(), 1);
  return std::move(*exe);
}

// x - max(x) per row, plus the sum of that per row (with a random init,
// applied once), and the difference itself: two stages, two outputs.
// Values in {-1, 0, 1}: every sum is exact, so every type compares exactly.
TEST_F(RowFusion, EveryTypeAndLayoutMatchesTheReferenceExactly) {
  const std::string out_layouts[] = {"{1,0}", "{0,1}", "{0,1:T(2,4)}"};
  const std::string x_layouts[] = {"{1,0}", "{1,0:T(2,4)}"};
  int trial = 0;
  for (ElementType t : kAllTypes) {
    if (t == ElementType::kF8E8M0FNU) continue;  // no 0, no -1
    const std::string ty(ElementTypeName(t));
    const bool pred = t == ElementType::kPred, complex = IsComplex(t);
    const bool narrow = IsFloat(t) && BitWidth(t) < 16;  // sums past 2 elements would round (f4e2m1 lacks 5)
    const std::string fold = pred ? "or" : complex ? "add" : "maximum", minus = pred ? "xor" : "subtract",
                      plus = pred ? "or" : "add";
    for (const int64_t rows : {3, 17, 70}) {  // 70: a lane a row on a CPU
      // Sums stay integers the type holds: |sum| <= 2 n (bf16 holds 256).
      const int64_t n = narrow ? 2 : rows >= 17 ? 5 : IsFloat(t) && BitWidth(t) == 16 ? 100 : 1000;
      const std::string row = ty + "[" + std::to_string(rows) + "," + std::to_string(n) + "]";
      const std::string result = ty + "[" + std::to_string(rows) + "]";
      const std::string& xl = x_layouts[trial % 2];
      const std::string& yl = out_layouts[trial % 3];
      const std::string text = "HloModule rows_" + ty + "\n" + Fold("fold", ty, fold) + Fold("plus", ty, plus) +
                               "ENTRY %e {\n  %x = " + row + xl + " parameter(0)\n  %i = " + ty + "[] parameter(1)\n"
                               "  %m = " + result + " reduce(%x, %i), dimensions={1}, to_apply=%fold\n"
                               "  %mb = " + row + " broadcast(%m), dimensions={0}\n"
                               "  %d = " + row + yl + " " + minus + "(%x, %mb)\n"
                               "  %s = " + result + " reduce(%d, %i), dimensions={1}, to_apply=%plus\n"
                               "  %sb = " + row + " broadcast(%s), dimensions={0}\n"
                               "  %y = " + row + yl + " " + plus + "(%d, %sb)\n"
                               "  ROOT %t = (" + row + yl + ", " + row + yl + ") tuple(%y, %d)\n}\n";
      SCOPED_TRACE(text);
      ++trial;
      std::unique_ptr<Module> m = ParseOrFail(text);
      ASSERT_TRUE(m);
      std::mt19937_64 rng(trial);
      Literal x(Shape(t, {rows, n}));
      for (int64_t i = 0; i < x.element_count(); ++i) {
        const int64_t v = static_cast<int64_t>(rng() % 3) - 1;
        if (pred) x.Set(i, Scalar::Pred(v > 0));
        else if (complex) x.Set(i, Scalar::Complex(t, {double(v), double(static_cast<int64_t>(rng() % 3) - 1)}));
        else if (IsFloat(t)) x.Set(i, Scalar::Float(t, double(v)));
        else x.Set(i, Scalar::Convert(Scalar::Int(ElementType::kS64, v), t));
      }
      // The init value joins each fold once: 1 (true) would show a second time.
      Literal init(Shape(t, {}));
      init.Set(0, pred ? Scalar::Pred(false) : IsFloat(t) || complex ? Scalar::Convert(Scalar::Float(ElementType::kF64, 1.0), t)
                                                                   : Scalar::Convert(Scalar::Int(ElementType::kS64, 1), t));
      std::unique_ptr<Executable> exe = CompileOneRowKernel(*m);
      ASSERT_TRUE(exe);
      RunAndCompareWith(*m, {x, init}, 1);
      // A GPU's configuration (up to 256 invocations a row, trees over
      // shared memory between barriers) runs here too.
      RunAndCompareWith(*m, {x, init}, 1, &GpuConfiguration());
    }
  }
}

// Relative error of got against want, elementwise, at most `tolerance`
// (past a floor of `floor` in absolute value).
void ExpectNear(const Literal& got, const Literal& want, double tolerance, double floor, const std::string& what) {
  ASSERT_EQ(got.element_count(), want.element_count()) << what;
  int failures = 0;
  for (int64_t i = 0; i < want.element_count() && failures < 5; ++i) {
    const double g = got.Get(i).re, w = want.Get(i).re;
    if (std::abs(g - w) <= tolerance * std::max(std::abs(w), floor)) continue;
    ++failures;
    ADD_FAILURE() << what << " element " << i << ": got " << g << ", want " << w;
  }
}

const char* kSoftmaxRows = R"(
  %ninf = T[] constant(-inf)
  %mx = T[R] reduce(%x, %ninf), dimensions={1}, to_apply=%max
  %mb = T[R,N] broadcast(%mx), dimensions={0}
  %d = T[R,N] subtract(%x, %mb)
  %e = T[R,N] exponential(%d)
  %z = T[] constant(0)
  %s = T[R] reduce(%e, %z), dimensions={1}, to_apply=%add
  %sb = T[R,N] broadcast(%s), dimensions={0}
  ROOT %y = T[R,N]OUT divide(%e, %sb)
)";

const char* kLayerNormRows = R"(
  %g = T[N] parameter(1)
  %b = T[N] parameter(2)
  %z = T[] constant(0)
  %inv = T[] constant(INV)
  %invb = T[R] broadcast(%inv), dimensions={}
  %s = T[R] reduce(%x, %z), dimensions={1}, to_apply=%add
  %mean = T[R] multiply(%s, %invb)
  %mb = T[R,N] broadcast(%mean), dimensions={0}
  %c = T[R,N] subtract(%x, %mb)
  %c2 = T[R,N] multiply(%c, %c)
  %ss = T[R] reduce(%c2, %z), dimensions={1}, to_apply=%add
  %var = T[R] multiply(%ss, %invb)
  %eps = T[] constant(1e-05)
  %epsb = T[R] broadcast(%eps), dimensions={}
  %ve = T[R] add(%var, %epsb)
  %r = T[R] rsqrt(%ve)
  %rb = T[R,N] broadcast(%r), dimensions={0}
  %nrm = T[R,N] multiply(%c, %rb)
  %gb = T[R,N] broadcast(%g), dimensions={1}
  %bb = T[R,N] broadcast(%b), dimensions={1}
  %sc = T[R,N] multiply(%nrm, %gb)
  ROOT %y = T[R,N]OUT add(%sc, %bb)
)";

std::string Instantiate(std::string body, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values)
    for (size_t at = body.find(key); at != std::string::npos; at = body.find(key, at + value.size()))
      body.replace(at, key.size(), value);
  return body;
}

// Softmax and layer norm of random floats, as models write them, over odd
// row counts and lengths up to the row kernel's limit, two result layouts
// and a tiled operand: within the rounding of sums taken in another order.
TEST_F(RowFusion, SoftmaxAndLayerNormMatchTheReference) {
  struct Size {
    int64_t rows, n;
  };
  int trial = 0;
  for (const std::string ty : {"f32", "f16", "bf16"}) {
    const ElementType t = *ParseElementType(ty);
    // A few units in the last place of the type. 16-bit sums round at
    // every step in the reference (the type's own arithmetic), so their
    // order shows more: their rows stay short.
    const double tolerance = ty == "f32" ? 2e-5 : ty == "f16" ? 8e-3 : 4e-2;
    // The last three: a lane a row on a CPU (rows not a whole number of
    // workgroups; rows of 4095 kept whole in a lane's array; rows shorter
    // than a vector); then rows of whole vectors of 8 16-bit elements (a
    // trip's 8 elements from one vector, the outputs stored a vector at a
    // time), in one workgroup a row and a lane a row.
    for (const Size size : {Size{1, 1}, Size{3, 17}, Size{17, 127}, Size{5, 1000}, Size{2, 16384}, Size{100, 1000}, Size{70, 4095},
                            Size{65, 3}, Size{5, 120}, Size{70, 64}}) {
      if (ty != "f32" && size.n > 127) continue;
      for (const bool softmax : {true, false}) {
        ++trial;
        const std::string out = trial % 2 ? "{1,0}" : "{0,1}";
        const std::string xl = trial % 3 == 0 ? "{1,0:T(2,128)}" : "{1,0}";
        const std::string body = Instantiate(softmax ? kSoftmaxRows : kLayerNormRows,
                                             {{"T[", ty + "["}, {"R,N", std::to_string(size.rows) + "," + std::to_string(size.n)},
                                              {"[R]", "[" + std::to_string(size.rows) + "]"}, {"[N]", "[" + std::to_string(size.n) + "]"},
                                              {"OUT", out}, {"INV", std::to_string(1.0 / double(size.n))}});
        const std::string text = "HloModule rows\n" + Fold("add", ty, "add") + Fold("max", ty, "maximum") + "ENTRY %e {\n  %x = " +
                                 ty + "[" + std::to_string(size.rows) + "," + std::to_string(size.n) + "]" + xl +
                                 " parameter(0)\n" + body + "}\n";
        SCOPED_TRACE(text);
        std::unique_ptr<Module> m = ParseOrFail(text);
        ASSERT_TRUE(m);
        std::mt19937_64 rng(trial);
        std::normal_distribution<double> normal(0.0, 3.0);
        auto random = [&](std::vector<int64_t> dims) {
          Literal l(Shape(t, dims));
          for (int64_t i = 0; i < l.element_count(); ++i) l.Set(i, Scalar::Float(t, normal(rng)));
          return l;
        };
        std::vector<Literal> args = {random({size.rows, size.n})};
        if (!softmax) {
          args.push_back(random({size.n}));
          args.push_back(random({size.n}));
        }
        std::unique_ptr<Executable> exe = CompileOneRowKernel(*m);
        ASSERT_TRUE(exe);
        const RowConfig& config = std::get<RowConfig>(exe->program().groups[0].config);
        EXPECT_EQ(config.rows_per_group > 1, TestDevice().target().cpu && size.rows >= kMinLanePerRowRows);
        auto got = exe->Run(args);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        auto want = EvaluateModule(*m, args);
        ASSERT_TRUE(want.ok()) << want.status().ToString();
        // Layer norm's outputs are scaled by |g| ~ 3 around an offset b ~ 3:
        // errors relative to that scale (4), not to a value near 0.
        // Softmax: relative to the largest (about 1/n at least; subnormal
        // f16 results differ by whole units).
        ExpectNear(*got, *want, tolerance, softmax ? 1e-2 / double(size.n) : 4.0, text);
      }
    }
  }
}

// The stages a row kernel's source folds in: one walk each.
int StagesOf(const Executable& exe) {
  auto k = BuildKernel(exe.program(), exe.program().groups[0], 0);
  if (!k.ok()) {
    ADD_FAILURE() << k.status().ToString();
    return -1;
  }
  // Each stage's walk starts its folds' `has` (in both modes: several
  // invocations a row, or a lane a row).
  int stages = 0;
  for (size_t at = k->glsl.find("bool has = "); at != std::string::npos; at = k->glsl.find("bool has = ", at + 1)) ++stages;
  return stages;
}

// Reduces that do not read one another share a walk: a sum, a sum of
// squares and a max of x fold in one stage; a min of x minus the sum
// needs the sum and takes a second. Exact on small integers, with the
// kernel shaped for this device and for a GPU.
TEST_F(RowFusion, IndependentReducesShareOneWalk) {
  const std::string text = "HloModule shared_walk\n" + Fold("add", "s32", "add") + Fold("max", "s32", "maximum") +
                           Fold("min", "s32", "minimum") +
                           "ENTRY %e {\n  %x = s32[7,300] parameter(0)\n  %z = s32[] constant(0)\n"
                           "  %lo = s32[] constant(-1000)\n  %hi = s32[] constant(1000)\n"
                           "  %s = s32[7] reduce(%x, %z), dimensions={1}, to_apply=%add\n"
                           "  %x2 = s32[7,300] multiply(%x, %x)\n"
                           "  %q = s32[7] reduce(%x2, %z), dimensions={1}, to_apply=%add\n"
                           "  %mx = s32[7] reduce(%x, %lo), dimensions={1}, to_apply=%max\n"
                           "  %sb = s32[7,300] broadcast(%s), dimensions={0}\n"
                           "  %d = s32[7,300] subtract(%x, %sb)\n"
                           "  %mn = s32[7] reduce(%d, %hi), dimensions={1}, to_apply=%min\n"
                           "  %qm = s32[7] add(%q, %mx)\n  %qmn = s32[7] add(%qm, %mn)\n"
                           "  %qb = s32[7,300] broadcast(%qmn), dimensions={0}\n"
                           "  ROOT %y = s32[7,300]{0,1} multiply(%d, %qb)\n}\n";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  std::unique_ptr<Executable> exe = CompileOneRowKernel(*m);
  ASSERT_TRUE(exe);
  EXPECT_EQ(std::get<RowConfig>(exe->program().groups[0].config).reduces.size(), 4u);
  EXPECT_EQ(StagesOf(*exe), 2);
  std::mt19937_64 rng(21);
  Literal x(Shape(ElementType::kS32, {7, 300}));
  for (int64_t i = 0; i < x.element_count(); ++i) x.Set(i, Scalar::Int(ElementType::kS32, static_cast<int64_t>(rng() % 9) - 4));
  RunAndCompareWith(*m, {x}, 1);
  RunAndCompareWith(*m, {x}, 1, &GpuConfiguration());
}

// Layer norm as flax writes it by default (use_fast_variance: the mean and
// the mean of squares, var = mean2 - mean^2): both statistics in one walk,
// then the outputs; f32 within the rounding of sums in another order.
TEST_F(RowFusion, FastVarianceLayerNormFoldsBothStatisticsInOneWalk) {
  const char* body = R"(
  %g = f32[N] parameter(1)
  %b = f32[N] parameter(2)
  %z = f32[] constant(0)
  %inv = f32[] constant(INV)
  %invb = f32[R] broadcast(%inv), dimensions={}
  %s = f32[R] reduce(%x, %z), dimensions={1}, to_apply=%add
  %mean = f32[R] multiply(%s, %invb)
  %x2 = f32[R,N] multiply(%x, %x)
  %s2 = f32[R] reduce(%x2, %z), dimensions={1}, to_apply=%add
  %mean2 = f32[R] multiply(%s2, %invb)
  %msq = f32[R] multiply(%mean, %mean)
  %diff = f32[R] subtract(%mean2, %msq)
  %zr = f32[R] broadcast(%z), dimensions={}
  %var = f32[R] maximum(%diff, %zr)
  %eps = f32[] constant(1e-05)
  %epsb = f32[R] broadcast(%eps), dimensions={}
  %ve = f32[R] add(%var, %epsb)
  %r = f32[R] rsqrt(%ve)
  %mb = f32[R,N] broadcast(%mean), dimensions={0}
  %c = f32[R,N] subtract(%x, %mb)
  %rb = f32[R,N] broadcast(%r), dimensions={0}
  %nrm = f32[R,N] multiply(%c, %rb)
  %gb = f32[R,N] broadcast(%g), dimensions={1}
  %bb = f32[R,N] broadcast(%b), dimensions={1}
  %sc = f32[R,N] multiply(%nrm, %gb)
  ROOT %y = f32[R,N] add(%sc, %bb)
)";
  int trial = 100;
  // 100 rows: a lane a row on a CPU.
  for (const std::pair<int64_t, int64_t>& size : {std::pair<int64_t, int64_t>{3, 17}, {5, 1000}, {2, 16384}, {100, 1000}}) {
    const auto [rows, n] = size;
    const std::string text = "HloModule fast_variance\n" + Fold("add", "f32", "add") + "ENTRY %e {\n  %x = f32[" +
                             std::to_string(rows) + "," + std::to_string(n) + "] parameter(0)\n" +
                             Instantiate(body, {{"R,N", std::to_string(rows) + "," + std::to_string(n)},
                                                {"[R]", "[" + std::to_string(rows) + "]"}, {"[N]", "[" + std::to_string(n) + "]"},
                                                {"INV", std::to_string(1.0 / double(n))}}) +
                             "}\n";
    SCOPED_TRACE(text);
    std::unique_ptr<Module> m = ParseOrFail(text);
    ASSERT_TRUE(m);
    std::unique_ptr<Executable> exe = CompileOneRowKernel(*m);
    ASSERT_TRUE(exe);
    EXPECT_EQ(StagesOf(*exe), 1);
    std::mt19937_64 rng(++trial);
    std::normal_distribution<double> normal(0.0, 3.0);
    auto random = [&](std::vector<int64_t> dims) {
      Literal l(Shape(ElementType::kF32, dims));
      for (int64_t i = 0; i < l.element_count(); ++i) l.Set(i, Scalar::Float(ElementType::kF32, normal(rng)));
      return l;
    };
    const std::vector<Literal> args = {random({rows, n}), random({n}), random({n})};
    auto got = exe->Run(args);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    auto want = EvaluateModule(*m, args);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    ExpectNear(*got, *want, 2e-5, 4.0, text);
  }
}

// Rows over two dims of a rank-3 operand, kept dims on both sides of them,
// and a row result read by an elementwise op of its own shape before the
// broadcast: one kernel, exact on small integers.
TEST_F(RowFusion, RowsOverSeveralDimsAndRowResultArithmetic) {
  const std::string text = "HloModule rows3\n" + Fold("add", "s32", "add") + Fold("max", "s32", "maximum") +
                           "ENTRY %e {\n  %x = s32[4,6,7,5]{3,1,2,0} parameter(0)\n  %z = s32[] constant(0)\n"
                           "  %s = s32[4,7] reduce(%x, %z), dimensions={1,3}, to_apply=%add\n"
                           "  %two = s32[] constant(2)\n  %twob = s32[4,7] broadcast(%two), dimensions={}\n"
                           "  %s2 = s32[4,7] multiply(%s, %twob)\n"
                           "  %sb = s32[4,6,7,5] broadcast(%s2), dimensions={0,2}\n"
                           "  %d = s32[4,6,7,5] subtract(%x, %sb)\n"
                           "  %lo = s32[] constant(-1000)\n"
                           "  %m = s32[4,7] reduce(%d, %lo), dimensions={1,3}, to_apply=%max\n"
                           "  %mb = s32[4,6,7,5] broadcast(%m), dimensions={0,2}\n"
                           "  ROOT %y = s32[4,6,7,5]{0,1,2,3} multiply(%d, %mb)\n}\n";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  std::unique_ptr<Executable> exe = CompileOneRowKernel(*m);
  ASSERT_TRUE(exe);
  const RowConfig& c = std::get<RowConfig>(exe->program().groups[0].config);
  EXPECT_EQ(c.length, 30);
  EXPECT_EQ(c.rows, 28);
  RunAndCompare(*m, 5, 1);
}

// Row kernels among other kernels, each in its place: an output read by a
// transpose defined before the kernel's last member (which ran before the
// kernel wrote it: a silent wrong answer), and an op in an earlier row
// kernel read by a later one (which read the earlier one's reduce inline:
// an internal error).
TEST_F(RowFusion, KernelsRunAfterWhatTheyRead) {
  const std::string head = "HloModule order\n" + Fold("add", "f32", "add") +
                           "ENTRY %e {\n  %x = f32[64,128] parameter(0)\n  %z = f32[] constant(0)\n"
                           "  %r = f32[64] reduce(%x, %z), dimensions={1}, to_apply=%add\n"
                           "  %rb = f32[64,128] broadcast(%r), dimensions={0}\n";
  for (const std::string& rest :
       {std::string("  %y = f32[64,128] subtract(%x, %rb)\n  %v = f32[128,64] transpose(%y), dimensions={1,0}\n"
                    "  %w = f32[64,128] multiply(%x, %rb)\n  ROOT %t = (f32[128,64], f32[64,128]) tuple(%v, %w)\n}\n"),
        std::string("  %ex = f32[64,128] exponential(%x)\n  %s = f32[] reduce(%ex, %z), dimensions={0,1}, to_apply=%add\n"
                    "  %sb = f32[64,128] broadcast(%s), dimensions={}\n  ROOT %a = f32[64,128] add(%rb, %sb)\n}\n")}) {
    std::unique_ptr<Module> m = ParseOrFail(head + rest);
    ASSERT_TRUE(m);
    RunAndCompare(*m, 3);
  }
}

// More rows than one grid dimension holds (65535 workgroups): the grid
// folds into a second dimension and every row is still computed once.
TEST_F(RowFusion, MoreRowsThanOneGridDimension) {
  const std::string text = "HloModule many\n" + Fold("add", "s32", "add") +
                           "ENTRY %e {\n  %x = s32[70001,4] parameter(0)\n  %z = s32[] constant(0)\n"
                           "  %s = s32[70001] reduce(%x, %z), dimensions={1}, to_apply=%add\n"
                           "  %sb = s32[70001,4] broadcast(%s), dimensions={0}\n"
                           "  ROOT %y = s32[70001,4] subtract(%x, %sb)\n}\n";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  std::unique_ptr<Executable> exe = CompileOneRowKernel(*m);
  ASSERT_TRUE(exe);
  RunAndCompare(*m, 9, 1);
}

// The most stages a row kernel chains, alternating folds, and s64 beside
// s32 (two compute types, two shared arrays every stage reuses): exact.
TEST_F(RowFusion, EightStagesShareTheirSharedArrays) {
  std::string text = "HloModule stages\n" + Fold("add", "s32", "add") + Fold("max", "s32", "maximum") +
                     Fold("min", "s32", "minimum") + Fold("add64", "s64", "add") +
                     "ENTRY %e {\n  %x = s32[9,300] parameter(0)\n  %z = s32[] constant(0)\n  %z64 = s64[] constant(0)\n";
  std::string v = "%x";
  const char* folds[] = {"max", "add", "min", "add", "max", "add", "min", "add"};
  for (int k = 0; k < static_cast<int>(kMaxRowStages); ++k) {
    const std::string n = std::to_string(k);
    if (k == 3) {
      // A stage over s64: the value widened, folded, narrowed back.
      text += "  %w" + n + " = s64[9,300] convert(" + v + ")\n  %r" + n + "w = s64[9] reduce(%w" + n +
              ", %z64), dimensions={1}, to_apply=%add64\n  %r" + n + " = s32[9] convert(%r" + n + "w)\n";
    } else {
      text += "  %r" + n + " = s32[9] reduce(" + v + ", %z), dimensions={1}, to_apply=%" + folds[k] + "\n";
    }
    text += "  %b" + n + " = s32[9,300] broadcast(%r" + n + "), dimensions={0}\n  %d" + n + " = s32[9,300] " +
            (k % 2 ? "add(" : "subtract(") + v + ", %b" + n + ")\n";
    v = "%d" + n;
  }
  text += "  ROOT %y = s32[9,300] multiply(" + v + ", " + v + ")\n}\n";
  SCOPED_TRACE(text);
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  std::unique_ptr<Executable> exe = CompileOneRowKernel(*m);
  ASSERT_TRUE(exe);
  EXPECT_EQ(std::get<RowConfig>(exe->program().groups[0].config).reduces.size(), static_cast<size_t>(kMaxRowStages));
  std::mt19937_64 rng(11);
  Literal x(Shape(ElementType::kS32, {9, 300}));
  for (int64_t i = 0; i < x.element_count(); ++i) x.Set(i, Scalar::Int(ElementType::kS32, static_cast<int64_t>(rng() % 7) - 3));
  RunAndCompareWith(*m, {x}, 1);
  RunAndCompareWith(*m, {x}, 1, &GpuConfiguration());
}

}  // namespace
}  // namespace vkxla
