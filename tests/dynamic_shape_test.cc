// Bounded dynamic shapes (f32[<=8]): arguments smaller than the bound,
// sizes carried at run time through elementwise ops, transposes and
// broadcasts, set-dimension-size, get-dimension-size and dynamic-reshape,
// reduces over dynamic dims, and results cut to their run-time sizes;
// against the reference.
#include <gtest/gtest.h>

#include "frontends/hlo_text.h"
#include "frontends/xla_builder.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class DynamicShapes : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

Literal Iota(ElementType t, const std::vector<int64_t>& dims) {
  Literal l(Shape(t, dims));
  for (int64_t i = 0; i < l.element_count(); ++i) l.Set(i, Scalar::Convert(Scalar::Int(ElementType::kS64, i), t));
  return l;
}

Literal S32(int64_t v) { return Literal::ScalarOf(Scalar::Int(ElementType::kS32, v)); }

// Runs the module on the device and the reference; returns the device's
// values as text (the two must agree).
std::string RunBoth(const std::string& body, const std::vector<Literal>& args) {
  auto m = ParseAndVerifyHlo("HloModule m\nENTRY %e {\n" + body + "}\n");
  if (!m.ok()) return m.status().ToString();
  Literal got = RunAndCompareWith(**m, args);
  return got.shape().ToString(false) + " " + got.ValuesToString();
}

TEST_F(DynamicShapes, ArgumentsSmallerThanTheBound) {
  EXPECT_EQ(RunBoth("  %x = f32[<=8] parameter(0)\n"
                "  ROOT %y = f32[<=8] add(%x, %x)\n",
                {Iota(ElementType::kF32, {5})}),
            "f32[5] {0, 2, 4, 6, 8}");
  EXPECT_EQ(RunBoth("  %x = f32[<=8] parameter(0)\n  ROOT %n = s32[] get-dimension-size(%x), dimensions={0}\n",
                {Iota(ElementType::kF32, {5})}),
            "s32[] 5");
  // A dynamic operand broadcast along a new dim, then transposed.
  EXPECT_EQ(RunBoth("  %x = s32[<=6] parameter(0)\n  %b = s32[<=6,2] broadcast(%x), dimensions={0}\n"
                "  ROOT %t = s32[2,<=6] transpose(%b), dimensions={1,0}\n",
                {Iota(ElementType::kS32, {3})}),
            "s32[2,3] {{0, 1, 2}, {0, 1, 2}}");
}

// Like RunBoth for a whole module (computations besides the entry),
// planned for `target` (null: this device as it is).
std::string RunModule(const std::string& text, const std::vector<Literal>& args, const TargetFeatures* target = nullptr) {
  auto m = ParseAndVerifyHlo(text);
  if (!m.ok()) return m.status().ToString();
  Literal got = RunAndCompareWith(**m, args, -1, target);
  return got.shape().ToString(false) + " " + got.ValuesToString();
}

// This device as it is, and planned as a GPU (its kernel shapes).
std::vector<TargetFeatures> ThisDeviceAndAsAGpu() {
  TargetFeatures gpu = TestDevice().target();
  gpu.cpu = false;
  return {TestDevice().target(), gpu};
}

// Sizes through control flow: a loop state whose size the body reads and
// changes each trip (the condition stops on it, so the device counts the
// trips), branches returning different sizes, and a call whose dynamic
// argument is the entry's second parameter.
TEST_F(DynamicShapes, SizesThroughLoopsBranchesAndCalls) {
  const std::string state = "(s32[], f32[<=8])";
  const std::string shrink =
      "HloModule shrink\n"
      "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
      "  %x = f32[<=8] get-tuple-element(%p), index=1\n  %d = s32[] get-dimension-size(%x), dimensions={0}\n"
      "  %two = s32[] constant(2)\n  ROOT %gt = pred[] compare(%d, %two), direction=GT\n}\n"
      "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %x = f32[<=8] get-tuple-element(%p), index=1\n"
      "  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n"
      "  %d = s32[] get-dimension-size(%x), dimensions={0}\n  %d1 = s32[] subtract(%d, %one)\n"
      "  %df = f32[] convert(%d)\n  %db8 = f32[8] broadcast(%df), dimensions={}\n"
      "  %db = f32[<=8] set-dimension-size(%db8, %d), dimensions={0}\n  %x1 = f32[<=8] add(%x, %db)\n"
      "  %x2 = f32[<=8] set-dimension-size(%x1, %d1), dimensions={0}\n"
      "  ROOT %t = " + state + " tuple(%i2, %x2)\n}\n"
      "ENTRY %e {\n  %x = f32[<=8] parameter(0)\n  %z = s32[] constant(0)\n  %t = " + state + " tuple(%z, %x)\n"
      "  ROOT %w = " + state + " while(%t), condition=%cond, body=%body\n}\n";
  // 5 values: sizes 5, 4, 3 go in, adding 5, 4, 3 to what remains.
  EXPECT_EQ(RunModule(shrink, {Iota(ElementType::kF32, {5})}), "(s32[], f32[2]) (3, {12, 13})");
  EXPECT_EQ(RunModule(shrink, {Iota(ElementType::kF32, {2})}), "(s32[], f32[2]) (0, {0, 1})");
  EXPECT_EQ(RunModule(shrink, {Iota(ElementType::kF32, {8})}), "(s32[], f32[2]) (6, {33, 34})");

  const std::string branches =
      "HloModule branches\n"
      "%keep (x: f32[<=8]) -> f32[<=8] {\n  ROOT %x = f32[<=8] parameter(0)\n}\n"
      "%halve (x: f32[<=8]) -> f32[<=8] {\n  %x = f32[<=8] parameter(0)\n"
      "  %d = s32[] get-dimension-size(%x), dimensions={0}\n  %two = s32[] constant(2)\n"
      "  %h = s32[] divide(%d, %two)\n  %n = f32[<=8] negate(%x)\n"
      "  ROOT %r = f32[<=8] set-dimension-size(%n, %h), dimensions={0}\n}\n"
      "%size (y: f32[<=8]) -> s32[] {\n  %y = f32[<=8] parameter(0)\n"
      "  ROOT %d = s32[] get-dimension-size(%y), dimensions={0}\n}\n"
      "ENTRY %e {\n  %b = s32[] parameter(0)\n  %x = f32[<=8] parameter(1)\n  %y = f32[<=8] parameter(2)\n"
      "  %c = f32[<=8] conditional(%b, %x, %x), branch_computations={%keep, %halve}\n"
      "  %s = s32[] call(%y), to_apply=%size\n  ROOT %t = (f32[<=8], s32[]) tuple(%c, %s)\n}\n";
  EXPECT_EQ(RunModule(branches, {S32(1), Iota(ElementType::kF32, {7}), Iota(ElementType::kF32, {4})}),
            "(f32[3], s32[]) ({-0, -1, -2}, 4)");
  EXPECT_EQ(RunModule(branches, {S32(0), Iota(ElementType::kF32, {3}), Iota(ElementType::kF32, {6})}),
            "(f32[3], s32[]) ({0, 1, 2}, 6)");
}

TEST_F(DynamicShapes, SetAndGetDimensionSize) {
  // The page's example: a size of 5 set on ten values keeps the first five.
  EXPECT_EQ(RunBoth("  %v = f32[10] iota(), iota_dimension=0\n  %n = s32[] parameter(0)\n"
                "  %p = f32[<=10] set-dimension-size(%v, %n), dimensions={0}\n"
                "  %two = f32[] constant(2)\n  %b = f32[10] broadcast(%two), dimensions={}\n"
                "  %bs = f32[<=10] set-dimension-size(%b, %n), dimensions={0}\n"
                "  %m = f32[<=10] multiply(%p, %bs)\n  %size = s32[] get-dimension-size(%m), dimensions={0}\n"
                "  ROOT %t = (f32[<=10], s32[]) tuple(%m, %size)\n",
                {S32(5)}),
            "(f32[5], s32[]) ({0, 2, 4, 6, 8}, 5)");
  // Sizes beyond the bound are clamped to it.
  EXPECT_EQ(RunBoth("  %v = s32[3] iota(), iota_dimension=0\n  %n = s32[] parameter(0)\n"
                "  ROOT %p = s32[<=3] set-dimension-size(%v, %n), dimensions={0}\n",
                {S32(7)}),
            "s32[3] {0, 1, 2}");
}

// A reduce over dynamic dims folds only the elements inside the run-time
// sizes (none: the init value), whether the kernel sums a whole array, rows
// or columns, alone or with another operand; planned as this device and as
// a GPU. A dynamic dim the reduce keeps is still an error.
TEST_F(DynamicShapes, ReduceOverDynamicDims) {
  const std::string add = "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
                          "max {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] maximum(a, b)\n}\n";
  for (const TargetFeatures& target : ThisDeviceAndAsAGpu()) {
    SCOPED_TRACE(target.cpu ? "this device" : "as a GPU");
    auto run = [&](const std::string& text, const std::vector<Literal>& args) { return RunModule(text, args, &target); };
    // The whole array: 0 + 1 + 2 + 3 + 4 of a bound of 8.
    EXPECT_EQ(run(add + "ENTRY %e {\n  %x = f32[<=8] parameter(0)\n  %z = f32[] constant(0)\n"
                        "  ROOT %r = f32[] reduce(%x, %z), dimensions={0}, to_apply=add\n}\n",
                  {Iota(ElementType::kF32, {5})}),
              "f32[] 10");
    // Size 0: the init value alone.
    EXPECT_EQ(run(add + "ENTRY %e {\n  %v = f32[6] iota(), iota_dimension=0\n  %n = s32[] parameter(0)\n"
                        "  %x = f32[<=6] set-dimension-size(%v, %n), dimensions={0}\n  %z = f32[] constant(0)\n"
                        "  ROOT %r = f32[] reduce(%x, %z), dimensions={0}, to_apply=add\n}\n",
                  {S32(0)}),
              "f32[] 0");
    // Rows of a bound of 8 cut to 3 (a negated chain before the sum), and
    // columns of 2 rows of 4 cut from 6.
    EXPECT_EQ(run(add + "ENTRY %e {\n  %v = f32[2,8] iota(), iota_dimension=1\n  %n = s32[] parameter(0)\n"
                        "  %x = f32[2,<=8] set-dimension-size(%v, %n), dimensions={1}\n  %y = f32[2,<=8] negate(%x)\n"
                        "  %z = f32[] constant(0)\n  ROOT %r = f32[2] reduce(%y, %z), dimensions={1}, to_apply=add\n}\n",
                  {S32(3)}),
              "f32[2] {-3, -3}");
    EXPECT_EQ(run(add + "ENTRY %e {\n  %x = s32[<=6,4] parameter(0)\n  %z = s32[] constant(-100)\n"
                        "  ROOT %r = s32[4] reduce(%x, %z), dimensions={0}, to_apply=max\n}\n",
                  {Iota(ElementType::kS32, {2, 4})}),
              "s32[4] {4, 5, 6, 7}");
    // Both dims dynamic, the sum of all 2 x 3 elements of a 4 x 5 bound.
    EXPECT_EQ(run(add + "ENTRY %e {\n  %x = f32[<=4,<=5] parameter(0)\n  %z = f32[] constant(0)\n"
                        "  ROOT %r = f32[] reduce(%x, %z), dimensions={0,1}, to_apply=add\n}\n",
                  {Iota(ElementType::kF32, {2, 3})}),
              "f32[] 15");
  }
  // Two operands (the largest value and its index) over a dynamic row.
  const std::string argmax =
      "HloModule m\nargmax {\n  a = s32[] parameter(0)\n  i = s32[] parameter(1)\n  b = s32[] parameter(2)\n"
      "  j = s32[] parameter(3)\n  gt = pred[] compare(a, b), direction=GT\n  eq = pred[] compare(a, b), direction=EQ\n"
      "  lo = pred[] compare(i, j), direction=LT\n  tie = pred[] and(eq, lo)\n  pick = pred[] or(gt, tie)\n"
      "  v = s32[] select(pick, a, b)\n  k = s32[] select(pick, i, j)\n  ROOT r = (s32[], s32[]) tuple(v, k)\n}\n"
      "ENTRY %e {\n  %x = s32[<=8] parameter(0)\n  %i = s32[8] iota(), iota_dimension=0\n"
      "  %n = s32[] get-dimension-size(%x), dimensions={0}\n  %is = s32[<=8] set-dimension-size(%i, %n), dimensions={0}\n"
      "  %lo = s32[] constant(-2147483648)\n  %z = s32[] constant(0)\n"
      "  ROOT %r = (s32[], s32[]) reduce(%x, %is, %lo, %z), dimensions={0}, to_apply=argmax\n}\n";
  auto m = ParseAndVerifyHlo(argmax);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Literal x(Shape(ElementType::kS32, {4}));
  for (int64_t i = 0; i < 4; ++i) x.Set(i, Scalar::Int(ElementType::kS32, i == 2 ? 9 : 1));
  EXPECT_EQ(RunAndCompareWith(**m, {std::move(x)}).ValuesToString(), "(9, 2)");
}

// The dims a reduce keeps keep their run-time sizes: rows of a dynamic
// count summed, a dynamic row count and a dynamic length at once, and the
// two results of a variadic reduce; a declared result that drops the
// dynamic dim is an error quoting both shapes.
TEST_F(DynamicShapes, ReduceKeepsDynamicDims) {
  const std::string add = "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n";
  for (const TargetFeatures& target : ThisDeviceAndAsAGpu()) {
    SCOPED_TRACE(target.cpu ? "this device" : "as a GPU");
    auto run = [&](const std::string& text, const std::vector<Literal>& args) { return RunModule(text, args, &target); };
    EXPECT_EQ(run(add + "ENTRY %e {\n  %x = f32[<=6,4] parameter(0)\n  %z = f32[] constant(0)\n"
                        "  ROOT %r = f32[<=6] reduce(%x, %z), dimensions={1}, to_apply=add\n}\n",
                  {Iota(ElementType::kF32, {3, 4})}),
              "f32[3] {6, 22, 38}");
    EXPECT_EQ(run(add + "ENTRY %e {\n  %x = f32[<=6,<=8] parameter(0)\n  %z = f32[] constant(0)\n"
                        "  ROOT %r = f32[<=6] reduce(%x, %z), dimensions={1}, to_apply=add\n}\n",
                  {Iota(ElementType::kF32, {2, 3})}),
              "f32[2] {3, 12}");
    EXPECT_EQ(run(add + "add2 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] parameter(2)\n"
                        "  d = f32[] parameter(3)\n  s = f32[] add(a, c)\n  t = f32[] add(b, d)\n"
                        "  ROOT r = (f32[], f32[]) tuple(s, t)\n}\n"
                        "ENTRY %e {\n  %x = f32[<=3,2,<=5] parameter(0)\n  %y = f32[<=3,2,<=5] negate(%x)\n"
                        "  %z = f32[] constant(0)\n"
                        "  ROOT %r = (f32[<=3,<=5], f32[<=3,<=5]) reduce(%x, %y, %z, %z), dimensions={1}, to_apply=add2\n}\n",
                  {Iota(ElementType::kF32, {1, 2, 2})}),
              "(f32[1,2], f32[1,2]) ({{2, 4}}, {{-2, -4}})");
  }
  auto dropped = ParseAndVerifyHlo(add + "ENTRY %e {\n  %x = f32[<=6,5] parameter(0)\n  %z = f32[] constant(0)\n"
                                         "  ROOT %r = f32[6] reduce(%x, %z), dimensions={1}, to_apply=add\n}\n");
  ASSERT_FALSE(dropped.ok());
  EXPECT_NE(dropped.status().message().find("f32[<=6]"), std::string::npos) << dropped.status().message();
  EXPECT_NE(dropped.status().message().find("f32[6]"), std::string::npos) << dropped.status().message();
}

// A dynamic value one kernel writes and later kernels size: they read the
// sizes that kernel wrote. They recomputed them from its producers, reading
// the size's parameter from a buffer the plan had already given to another
// value (a random program found it: every element came back as the init).
TEST_F(DynamicShapes, LaterKernelsReadTheSizesAnEarlierOneWrote) {
  const std::string text =
      "HloModule m\nmin {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] minimum(a, b)\n}\n"
      "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] maximum(a, b)\n}\n"
      "ENTRY %e {\n  %n = s32[] parameter(0)\n  %four = f32[] constant(4)\n  %v = f32[8,3,5,4] broadcast(%four), dimensions={}\n"
      "  %d = f32[<=8,3,5,4] set-dimension-size(%v, %n), dimensions={0}\n  %neg = f32[<=8,3,5,4] negate(%d)\n"
      "  %inf = f32[] constant(inf)\n  %rows = f32[<=8,5,4] reduce(%neg, %inf), dimensions={1}, to_apply=min\n"
      "  %ninf = f32[] constant(-inf)\n  ROOT %r = f32[5,4] reduce(%rows, %ninf), dimensions={0}, to_apply=max\n}\n";
  auto m = ParseAndVerifyHlo(text);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  for (const TargetFeatures& target : ThisDeviceAndAsAGpu()) {
    Literal got = RunAndCompareWith(**m, {S32(3)}, -1, &target);
    EXPECT_EQ(got.Get(0).re, -4);
    EXPECT_EQ(got.Get(19).re, -4);
  }
}

// Windows over a dynamic dim see its elements and then the padding, and
// the result keeps as many windows as fit the run-time size.
TEST_F(DynamicShapes, ReduceWindowOverDynamicDims) {
  const std::string fns = "HloModule m\nmax {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] maximum(a, b)\n}\n"
                          "add {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\n";
  for (const TargetFeatures& target : ThisDeviceAndAsAGpu()) {
    SCOPED_TRACE(target.cpu ? "this device" : "as a GPU");
    auto run = [&](const std::string& text, const std::vector<Literal>& args) { return RunModule(text, args, &target); };
    const std::string pool = fns + "ENTRY %e {\n  %x = f32[<=8] parameter(0)\n  %z = f32[] constant(-inf)\n"
                                   "  ROOT %r = f32[<=4] reduce-window(%x, %z), window={size=2 stride=2}, to_apply=max\n}\n";
    EXPECT_EQ(run(pool, {Iota(ElementType::kF32, {5})}), "f32[2] {1, 3}");
    EXPECT_EQ(run(pool, {Iota(ElementType::kF32, {1})}), "f32[0] {}");
    // Padding past the run-time end: the last window holds 4 and the pad.
    EXPECT_EQ(run(fns + "ENTRY %e {\n  %x = f32[<=8] parameter(0)\n  %z = f32[] constant(-inf)\n"
                        "  ROOT %r = f32[<=4] reduce-window(%x, %z), window={size=2 stride=2 pad=0_1}, to_apply=max\n}\n",
                  {Iota(ElementType::kF32, {5})}),
              "f32[3] {1, 3, 4}");
    EXPECT_EQ(run(fns + "ENTRY %e {\n  %x = s32[<=6,4] parameter(0)\n  %z = s32[] constant(0)\n"
                        "  ROOT %r = s32[<=5,3] reduce-window(%x, %z), window={size=2x2}, to_apply=add\n}\n",
                  {Iota(ElementType::kS32, {3, 4})}),
              "s32[2,3] {{10, 14, 18}, {26, 30, 34}}");
  }
}

// A dot sums a dynamic contraction over its run-time size (the lhs's where
// its dim is dynamic), both sides masked so that what lies past it (a NaN
// here) adds nothing; dynamic batch and free dims keep their sizes.
TEST_F(DynamicShapes, DotOverDynamicDims) {
  Literal y(Shape(ElementType::kF32, {6, 2}));
  for (int64_t i = 0; i < 12; ++i) y.Set(i, Scalar::Float(ElementType::kF32, i == 10 ? NAN : static_cast<double>(i)));
  for (const TargetFeatures& target : ThisDeviceAndAsAGpu()) {
    SCOPED_TRACE(target.cpu ? "this device" : "as a GPU");
    auto run = [&](const std::string& body, const std::vector<Literal>& args) {
      return RunModule("HloModule m\nENTRY %e {\n" + body + "}\n", args, &target);
    };
    EXPECT_EQ(run("  %x = f32[<=8] parameter(0)\n  %y = f32[<=8] parameter(1)\n"
                  "  ROOT %d = f32[] dot(%x, %y), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n",
                  {Iota(ElementType::kF32, {3}), Iota(ElementType::kF32, {3})}),
              "f32[] 5");
    EXPECT_EQ(run("  %x = f32[<=4,<=6] parameter(0)\n  %y = f32[6,2] parameter(1)\n"
                  "  ROOT %d = f32[<=4,2] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
                  {Iota(ElementType::kF32, {2, 3}), y}),
              "f32[2,2] {{10, 13}, {28, 40}}");
    EXPECT_EQ(run("  %x = s32[<=3,2,2] parameter(0)\n  %y = s32[<=3,2,2] parameter(1)\n"
                  "  ROOT %d = s32[<=3,2,2] dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0},"
                  " lhs_contracting_dims={2}, rhs_contracting_dims={1}\n",
                  {Iota(ElementType::kS32, {2, 2, 2}), Iota(ElementType::kS32, {2, 2, 2})}),
              "s32[2,2,2] {{{2, 3}, {6, 11}}, {{46, 55}, {66, 79}}}");
  }
}

TEST_F(DynamicShapes, DynamicReshape) {
  EXPECT_EQ(RunBoth("  %x = f32[<=12] parameter(0)\n  %r = s32[] parameter(1)\n  %c = s32[] constant(3)\n"
                "  ROOT %y = f32[<=4,3] dynamic-reshape(%x, %r, %c)\n",
                {Iota(ElementType::kF32, {6}), S32(2)}),
            "f32[2,3] {{0, 1, 2}, {3, 4, 5}}");
  EXPECT_EQ(RunBoth("  %x = s32[<=4,<=5] parameter(0)\n  %r = s32[] parameter(1)\n"
                "  ROOT %y = s32[<=20] dynamic-reshape(%x, %r)\n",
                {Iota(ElementType::kS32, {2, 3}), S32(6)}),
            "s32[6] {0, 1, 2, 3, 4, 5}");
}

// Every element type, dynamic dims in two layouts, through a chain of ops.
TEST_F(DynamicShapes, EveryTypeMatchesReference) {
  const char* layouts[] = {"{1,0}", "{0,1}"};
  int trial = 0;
  for (ElementType t : kAllTypes) {
    const std::string ty(ElementTypeName(t));
    for (int l = 0; l < 2; ++l) {
      const std::string text = "HloModule dyn_" + ty + "\nENTRY %e {\n"
          "  %x = " + ty + "[<=6,5]" + layouts[l] + " parameter(0)\n"
          "  %y = " + ty + "[<=6,5]" + layouts[1 - l] + " parameter(1)\n"
          "  %s = " + ty + "[<=6,5] add(%x, %y)\n"
          "  %t = " + ty + "[5,<=6] transpose(%s), dimensions={1,0}\n"
          "  ROOT %c = " + ty + "[5,<=6]" + layouts[l] + " copy(%t)\n}\n";
      SCOPED_TRACE(text);
      auto m = ParseAndVerifyHlo(text);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      std::mt19937_64 rng(++trial);
      const Shape actual(t, {4, 5});
      Literal got = RunAndCompareWith(**m, {RandomLiteral(actual, rng, Opcode::kAdd), RandomLiteral(actual, rng, Opcode::kAdd)});
      EXPECT_EQ(got.shape().dims(), (std::vector<int64_t>{5, 4}));
    }
  }
}

TEST_F(DynamicShapes, BuilderBuildsTheSameOps) {
  XlaBuilder b("builder_dynamic");
  XlaOp x = b.Parameter(0, Shape(ElementType::kS32, {12}), "x");
  XlaOp n = b.Parameter(1, Shape::Scalar(ElementType::kS32), "n");
  XlaOp cut = b.SetDimensionSize(x, n, 0);                       // s32[<=12], n elements
  XlaOp rows = Div(b.GetDimensionSize(cut, 0), b.ConstantLiteral(S32(2)));
  XlaOp grid = b.DynamicReshape(cut, {rows, b.ConstantLiteral(S32(2))}, {6, 2}, {true, false});
  auto m = b.Build(grid);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)->entry()->root()->shape.ToString(false), "s32[<=6,2]");
  Literal got = RunAndCompareWith(**m, {Iota(ElementType::kS32, {12}), S32(8)});
  EXPECT_EQ(got.ValuesToString(), "{{0, 1}, {2, 3}, {4, 5}, {6, 7}}");
}

TEST_F(DynamicShapes, Errors) {
  auto bad = ParseAndVerifyHlo("HloModule m\nENTRY %e {\n  %x = f32[<=8] parameter(0)\n"
                               "  ROOT %s = f32[2] slice(%x), slice={[0:2]}\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("f32[<=8]"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("dynamic dimension"), std::string::npos) << bad.status().message();
  auto size_type = ParseAndVerifyHlo("HloModule m\nENTRY %e {\n  %x = f32[8] parameter(0)\n  %n = f32[] parameter(1)\n"
                                     "  ROOT %s = f32[<=8] set-dimension-size(%x, %n), dimensions={0}\n}\n");
  ASSERT_FALSE(size_type.ok());
  EXPECT_NE(size_type.status().message().find("s32 scalar, got f32[]"), std::string::npos) << size_type.status().message();
  // An argument larger than the bound.
  auto m = ParseAndVerifyHlo("HloModule m\nENTRY %e {\n  ROOT %x = f32[<=4] parameter(0)\n}\n");
  ASSERT_TRUE(m.ok());
  auto exe = Executable::Compile(**m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto r = (*exe)->Run({Iota(ElementType::kF32, {5})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("f32[<=4]"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("f32[5]"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace vkxla
