// While, conditional, call and the ops that only order or forward values,
// run on the device and compared with the reference evaluator: counted
// loops over every element type and two layouts, loops that stop on a
// computed value, nested loops, a five-array tuple state, a 1,000-step
// While + DynamicUpdateSlice scan, conditionals (pred, index, index out of
// range) inside loops, calls from several sites, and the errors malformed
// bodies, conditions and branches give.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "frontends/hlo_text.h"
#include "frontends/xla_builder.h"
#include "ops/evaluator.h"
#include "plan/planner.h"
#include "runtime/executable.h"
#include "tests/test_util.h"
#include "tests/while_scan_module.h"

namespace vkxla {
namespace {

class ControlFlow : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

std::unique_ptr<Module> Parse(const std::string& text) { return ParseOrFail(text); }

// Runs on the device and on the reference with the given arguments.
Literal Check(const std::string& text, const std::vector<Literal>& args) {
  std::unique_ptr<Module> m = Parse(text);
  if (!m) return Literal();
  return RunAndCompareWith(*m, args);
}

Literal Randoms(const std::string& text, uint64_t seed) {
  std::unique_ptr<Module> m = Parse(text);
  if (!m) return Literal();
  return RunAndCompare(*m, seed);
}

std::string Name(ElementType t) { return std::string(ElementTypeName(t)); }

// The counter pattern: (i, x, y) -> (i + 1, x op y, y) while i < 7.
TEST_F(ControlFlow, CountedLoopEveryTypeAndLayout) {
  int trial = 0;
  for (ElementType t : kAllTypes) {
    const std::string ty = Name(t);
    const std::string op = t == ElementType::kPred ? "xor" : "add";
    for (const auto& [lx, ly] : {std::pair{"{1,0}", "{0,1}"}, std::pair{"{0,1}", "{1,0}"}}) {
      const std::string state = "(s32[], " + ty + "[3,4]" + lx + ", " + ty + "[3,4]" + ly + ")";
      const std::string text =
          "HloModule counted_" + ty + "\n"
          "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
          "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(7)\n"
          "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
          "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
          "  %i = s32[] get-tuple-element(%p), index=0\n  %x = " + ty + "[3,4]" + lx + " get-tuple-element(%p), index=1\n"
          "  %y = " + ty + "[3,4]" + ly + " get-tuple-element(%p), index=2\n  %one = s32[] constant(1)\n"
          "  %i2 = s32[] add(%i, %one)\n  %x2 = " + ty + "[3,4]" + lx + " " + op + "(%x, %y)\n"
          "  ROOT %t = " + state + " tuple(%i2, %x2, %y)\n}\n"
          "ENTRY %e {\n  %x = " + ty + "[3,4]" + lx + " parameter(0)\n  %y = " + ty + "[3,4]" + ly + " parameter(1)\n"
          "  %z = s32[] constant(0)\n  %t = " + state + " tuple(%z, %x, %y)\n"
          "  %w = " + state + " while(%t), condition=%cond, body=%body\n"
          "  ROOT %r = " + ty + "[3,4]" + lx + " get-tuple-element(%w), index=1\n}\n";
      SCOPED_TRACE(text);
      Randoms(text, ++trial);
    }
  }
}

// The page's example: (iteration, accumulator) starts at {0, zeros}; while
// the iteration is below 1000 it adds a constant vector[10].
TEST_F(ControlFlow, WhileSpecExample) {
  const std::string state = "(s32[], f32[10])";
  const std::string text =
      "HloModule while_example\n"
      "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(1000)\n"
      "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
      "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %v = f32[10] get-tuple-element(%p), index=1\n"
      "  %one = s32[] constant(1)\n  %iteration = s32[] add(%i, %one)\n"
      "  %c = f32[10] constant({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})\n  %new_vector = f32[10] add(%v, %c)\n"
      "  ROOT %t = " + state + " tuple(%iteration, %new_vector)\n}\n"
      "ENTRY %e {\n  %z = s32[] constant(0)\n  %zf = f32[] constant(0)\n  %zv = f32[10] broadcast(%zf), dimensions={}\n"
      "  %init = " + state + " tuple(%z, %zv)\n  ROOT %w = " + state + " while(%init), condition=%cond, body=%body\n}\n";
  std::unique_ptr<Module> m = Parse(text);
  ASSERT_TRUE(m);
  Literal r = RunAndCompareWith(*m, {});
  EXPECT_EQ(r.tuple_elements()[0].Get(0).s, 1000);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(r.tuple_elements()[1].Get(i).re, 1000.0 * i) << i;
}

// The page's conditionals: a pred picks true_computation or
// false_computation, each with its own operand type; an s32 index picks
// among N branches, anything outside 0..N-1 the last.
TEST_F(ControlFlow, ConditionalSpecExamples) {
  const std::string comps =
      "%t (x: f32[2]) -> s32[] {\n  %x = f32[2] parameter(0)\n  %c = s32[] constant(1)\n  ROOT %r = s32[] copy(%c)\n}\n"
      "%f (x: (s32[], s32[])) -> s32[] {\n  %x = (s32[], s32[]) parameter(0)\n  %a = s32[] get-tuple-element(%x), index=0\n"
      "  %b = s32[] get-tuple-element(%x), index=1\n  ROOT %r = s32[] add(%a, %b)\n}\n"
      "%b0 (x: s32[]) -> s32[] {\n  %x = s32[] parameter(0)\n  ROOT %r = s32[] negate(%x)\n}\n"
      "%b1 (x: s32[]) -> s32[] {\n  %x = s32[] parameter(0)\n  ROOT %r = s32[] multiply(%x, %x)\n}\n"
      "%b2 (x: s32[]) -> s32[] {\n  %x = s32[] parameter(0)\n  %c = s32[] constant(100)\n  ROOT %r = s32[] add(%x, %c)\n}\n";
  auto pred = [&](bool p) {
    return RunHloText(comps, std::string("  %p = pred[] constant(") + (p ? "true" : "false") + ")\n"
                             "  %x = f32[2] constant({1, 2})\n  %a = s32[] constant(20)\n  %b = s32[] constant(22)\n"
                             "  %y = (s32[], s32[]) tuple(%a, %b)\n"
                             "  ROOT %c = s32[] conditional(%p, %x, %y), true_computation=%t, false_computation=%f\n");
  };
  EXPECT_EQ(pred(true), "1");
  EXPECT_EQ(pred(false), "42");
  auto index = [&](int i) {
    return RunHloText(comps, "  %i = s32[] constant(" + std::to_string(i) + ")\n  %x = s32[] constant(7)\n"
                             "  ROOT %c = s32[] conditional(%i, %x, %x, %x), branch_computations={%b0, %b1, %b2}\n");
  };
  EXPECT_EQ(index(0), "-7");
  EXPECT_EQ(index(1), "49");
  EXPECT_EQ(index(2), "107");
  EXPECT_EQ(index(3), "107");
  EXPECT_EQ(index(-1), "107");
  EXPECT_EQ(index(2147483647), "107");
}

// The trip count comes from the values: Newton's iteration for sqrt(a)
// until every |x*x - a| is within 1e-5 of a (at most 60 steps).
TEST_F(ControlFlow, NewtonIterationToTolerance) {
  const std::string state = "(s32[], f32[6], f32[6])";
  const std::string text =
      "HloModule newton\n"
      "%max (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
      "  ROOT %m = f32[] maximum(%a, %b)\n}\n"
      "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %x = f32[6] get-tuple-element(%p), index=1\n"
      "  %a = f32[6] get-tuple-element(%p), index=2\n  %xx = f32[6] multiply(%x, %x)\n  %d = f32[6] subtract(%xx, %a)\n"
      "  %ad = f32[6] abs(%d)\n  %rel = f32[6] divide(%ad, %a)\n  %zero = f32[] constant(0)\n"
      "  %worst = f32[] reduce(%rel, %zero), dimensions={0}, to_apply=%max\n  %tol = f32[] constant(1e-5)\n"
      "  %far = pred[] compare(%worst, %tol), direction=GT\n  %cap = s32[] constant(60)\n"
      "  %more = pred[] compare(%i, %cap), direction=LT\n  ROOT %go = pred[] and(%far, %more)\n}\n"
      "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %x = f32[6] get-tuple-element(%p), index=1\n"
      "  %a = f32[6] get-tuple-element(%p), index=2\n  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n"
      "  %q = f32[6] divide(%a, %x)\n  %s = f32[6] add(%x, %q)\n  %h = f32[] constant(0.5)\n"
      "  %hb = f32[6] broadcast(%h), dimensions={}\n  %x2 = f32[6] multiply(%s, %hb)\n"
      "  ROOT %t = " + state + " tuple(%i2, %x2, %a)\n}\n"
      "ENTRY %e {\n  %a = f32[6] parameter(0)\n  %z = s32[] constant(0)\n  %t = " + state + " tuple(%z, %a, %a)\n"
      "  %w = " + state + " while(%t), condition=%cond, body=%body\n"
      "  %steps = s32[] get-tuple-element(%w), index=0\n  %x = f32[6] get-tuple-element(%w), index=1\n"
      "  ROOT %r = (s32[], f32[6]) tuple(%steps, %x)\n}\n";
  std::unique_ptr<Module> m = Parse(text);
  ASSERT_TRUE(m);
  Literal a(Shape(ElementType::kF32, {6}));
  const double values[] = {2, 9, 1e4, 0.25, 3e-3, 12345.678};
  for (int i = 0; i < 6; ++i) a.Set(i, Scalar::Float(ElementType::kF32, values[i]));
  auto exe = Executable::Compile(*m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto got = (*exe)->Run({a});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const int64_t steps = got->tuple_elements()[0].Get(0).s;
  EXPECT_GT(steps, 3);
  EXPECT_LT(steps, 60);  // it stopped on the tolerance, not the cap
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(got->tuple_elements()[1].Get(i).re, std::sqrt(values[i]), 1e-5 * std::sqrt(values[i])) << i;
  auto want = EvaluateModule(*m, {a});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  EXPECT_EQ(want->tuple_elements()[0].Get(0).s, steps);
  // The loop ran on the device: its trips went in batches (1, 8, 64), not
  // one submission (or two) per trip.
  EXPECT_LE((*exe)->last_run_submissions(), 6) << steps << " trips";
}

// A loop whose bound is part of its state (so only the device knows the
// count) over five arrays of different types, sizes that are not whole
// words and two layouts, two of them swapped each trip: the body's copies
// run gated too, and the trips past the end change nothing. 0, 1, 8, 9
// and 100 trips cross the batch sizes.
TEST_F(ControlFlow, DeviceCountedLoopWithSwapsAndOddSizes) {
  const std::string state = "(s32[], s32[], f32[2,3]{0,1}, f32[2,3]{1,0}, u8[5], pred[3], bf16[3])";
  const std::string text =
      "HloModule bounded\n"
      "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] get-tuple-element(%p), index=1\n"
      "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
      "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] get-tuple-element(%p), index=1\n"
      "  %a = f32[2,3]{0,1} get-tuple-element(%p), index=2\n"
      "  %b = f32[2,3]{1,0} get-tuple-element(%p), index=3\n  %u = u8[5] get-tuple-element(%p), index=4\n"
      "  %q = pred[3] get-tuple-element(%p), index=5\n  %h = bf16[3] get-tuple-element(%p), index=6\n"
      "  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n  %ab = f32[2,3]{1,0} add(%a, %b)\n"
      "  %k = u8[] constant(3)\n  %kb = u8[5] broadcast(%k), dimensions={}\n  %u2 = u8[5] add(%u, %kb)\n"
      "  %q2 = pred[3] not(%q)\n  %hh = bf16[] constant(0.5)\n  %hb = bf16[3] broadcast(%hh), dimensions={}\n"
      "  %h2 = bf16[3] add(%h, %hb)\n"
      "  ROOT %t = " + state + " tuple(%i2, %n, %b, %ab, %u2, %q2, %h2)\n}\n"
      "ENTRY %e {\n  %n = s32[] parameter(0)\n  %a = f32[2,3]{0,1} parameter(1)\n  %b = f32[2,3]{1,0} parameter(2)\n"
      "  %u = u8[5] parameter(3)\n  %q = pred[3] parameter(4)\n  %h = bf16[3] parameter(5)\n  %z = s32[] constant(0)\n"
      "  %t = " + state + " tuple(%z, %n, %a, %b, %u, %q, %h)\n"
      "  ROOT %w = " + state + " while(%t), condition=%cond, body=%body\n}\n";
  std::unique_ptr<Module> m = Parse(text);
  ASSERT_TRUE(m);
  Shape f32_01(ElementType::kF32, {2, 3});
  Layout column_major;
  column_major.minor_to_major = {0, 1};
  f32_01.set_layout(column_major);
  Literal a(f32_01), b(Shape(ElementType::kF32, {2, 3})), u(Shape(ElementType::kU8, {5})), q(Shape(ElementType::kPred, {3})),
      h(Shape(ElementType::kBF16, {3}));
  for (int i = 0; i < 6; ++i) {
    a.Set(i, Scalar::Float(ElementType::kF32, i * 0.25));
    b.Set(i, Scalar::Float(ElementType::kF32, 1 - i));
  }
  for (int i = 0; i < 5; ++i) u.Set(i, Scalar::UInt(ElementType::kU8, 40 * i));
  for (int i = 0; i < 3; ++i) {
    q.Set(i, Scalar::Pred(i == 1));
    h.Set(i, Scalar::Float(ElementType::kBF16, i));
  }
  for (int trips : {0, 1, 8, 9, 100}) {
    Literal got = RunAndCompareWith(*m, {Literal::ScalarOf(Scalar::Int(ElementType::kS32, trips)), a, b, u, q, h});
    ASSERT_TRUE(got.shape().IsTuple()) << trips;
    EXPECT_EQ(got.tuple_elements()[0].Get(0).s, trips);
    EXPECT_EQ(got.tuple_elements()[4].Get(4).u, (160 + 3 * trips) % 256) << trips;
  }
}

// Results that overwrite their state leaf (plan/in_place_update.h) next to
// ones that may not, with leaves of two layouts (a kernel that reads one
// and writes the other works in tiles): the same answers as the reference.
TEST_F(ControlFlow, InPlaceUpdatesAgreeWithTheReference) {
  const std::string state = "(s32[], f32[8,16]{0,1}, f32[8,16]{1,0}, f32[])";
  // b2 and s2: reading the new a2 only; the old a after a2 exists (a must
  // not be overwritten); a reduction of the old a.
  const std::string b2 = "  %b2 = f32[8,16]{1,0} subtract(%b, %a2)\n";
  for (const std::string& b2_s2 :
       {b2 + "  %s2 = f32[] multiply(%s, %s)",
        std::string("  %d = f32[8,16]{1,0} subtract(%b, %a2)\n  %b2 = f32[8,16]{1,0} add(%d, %a)\n  %s2 = f32[] multiply(%s, %s)"),
        b2 + "  %z = f32[] constant(0)\n  %r = f32[] reduce(%a, %z), dimensions={0,1}, to_apply=%sum\n"
             "  %s2 = f32[] add(%s, %r)"}) {
    const std::string text =
        "HloModule in_place\n"
        "%sum (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
        "  ROOT %r = f32[] add(%x, %y)\n}\n"
        "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
        "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(5)\n"
        "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
        "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
        "  %i = s32[] get-tuple-element(%p), index=0\n  %a = f32[8,16]{0,1} get-tuple-element(%p), index=1\n"
        "  %b = f32[8,16]{1,0} get-tuple-element(%p), index=2\n  %s = f32[] get-tuple-element(%p), index=3\n"
        "  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n  %aa = f32[8,16]{0,1} multiply(%a, %a)\n"
        "  %a2 = f32[8,16]{0,1} add(%aa, %b)\n" + b2_s2 + "\n"
        "  ROOT %t = " + state + " tuple(%i2, %a2, %b2, %s2)\n}\n"
        "ENTRY %e {\n  %a = f32[8,16]{0,1} parameter(0)\n  %b = f32[8,16]{1,0} parameter(1)\n  %s = f32[] parameter(2)\n"
        "  %z = s32[] constant(0)\n  %t = " + state + " tuple(%z, %a, %b, %s)\n"
        "  ROOT %w = " + state + " while(%t), condition=%cond, body=%body\n}\n";
    Randoms(text, 7);
  }
}

// Bodies whose results cannot overwrite their state (a reverse, a
// transpose) ping-pong between two sets of buffers: counted and device-
// counted loops, even and odd trip counts, against the reference.
TEST_F(ControlFlow, PingPongBodiesAgreeWithTheReference) {
  const std::string state = "(s32[], s32[], f32[8], f32[4,4])";
  for (bool counted : {false, true}) {
    const std::string bound = counted ? "  %n = s32[] constant(5)\n" : "  %n = s32[] get-tuple-element(%p), index=1\n";
    const std::string text =
        "HloModule ping_pong\n"
        "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
        "  %i = s32[] get-tuple-element(%p), index=0\n" + bound +
        "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
        "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
        "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] get-tuple-element(%p), index=1\n"
        "  %x = f32[8] get-tuple-element(%p), index=2\n  %m = f32[4,4] get-tuple-element(%p), index=3\n"
        "  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n  %r = f32[8] reverse(%x), dimensions={0}\n"
        "  %h = f32[] constant(0.5)\n  %hb = f32[8] broadcast(%h), dimensions={}\n  %x2 = f32[8] add(%r, %hb)\n"
        "  %mt = f32[4,4] transpose(%m), dimensions={1,0}\n"
        "  %q = f32[] constant(0.5)\n  %qb = f32[4,4] broadcast(%q), dimensions={}\n  %m2 = f32[4,4] multiply(%mt, %qb)\n"
        "  ROOT %t = " + state + " tuple(%i2, %n, %x2, %m2)\n}\n"
        "ENTRY %e {\n  %n = s32[] parameter(0)\n  %x = f32[8] parameter(1)\n  %m = f32[4,4] parameter(2)\n"
        "  %z = s32[] constant(0)\n  %t = " + state + " tuple(%z, %n, %x, %m)\n"
        "  ROOT %w = " + state + " while(%t), condition=%cond, body=%body\n}\n";
    std::unique_ptr<Module> m = Parse(text);
    ASSERT_TRUE(m);
    auto plan = PlanModule(*m, TestDevice().target());
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_NE(plan->ToString().find("ping-pong"), std::string::npos) << plan->ToString();
    std::mt19937_64 rng(11);
    Literal x = RandomLiteral(Shape(ElementType::kF32, {8}), rng, Opcode::kAdd);
    Literal mat = RandomLiteral(Shape(ElementType::kF32, {4, 4}), rng, Opcode::kAdd);
    for (int trips : counted ? std::vector<int>{5} : std::vector<int>{0, 1, 2, 3, 7, 70}) {
      Literal got = RunAndCompareWith(*m, {Literal::ScalarOf(Scalar::Int(ElementType::kS32, trips)), x, mat});
      ASSERT_TRUE(got.shape().IsTuple()) << trips;
      EXPECT_EQ(got.tuple_elements()[0].Get(0).s, counted ? 5 : trips);
    }
  }
}

// Tuples inside the loop state and inside a branch's operand and result
// (with a token among them): every array is a leaf of its own.
TEST_F(ControlFlow, NestedTupleStateAndOperands) {
  const std::string inner = "(f32[3], (s32[2], token[]))";
  const std::string state = "(s32[], " + inner + ")";
  const std::string text =
      "HloModule nested\n"
      "%swap (q: " + inner + ") -> " + inner + " {\n  %q = " + inner + " parameter(0)\n"
      "  %x = f32[3] get-tuple-element(%q), index=0\n  %yt = (s32[2], token[]) get-tuple-element(%q), index=1\n"
      "  %y = s32[2] get-tuple-element(%yt), index=0\n  %nx = f32[3] negate(%x)\n  %ny = s32[2] negate(%y)\n"
      "  %tok = token[] get-tuple-element(%yt), index=1\n  %yt2 = (s32[2], token[]) tuple(%ny, %tok)\n"
      "  ROOT %r = " + inner + " tuple(%nx, %yt2)\n}\n"
      "%keep (q: " + inner + ") -> " + inner + " {\n  ROOT %q = " + inner + " parameter(0)\n}\n"
      "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %in = " + inner + " get-tuple-element(%p), index=1\n"
      "  %yt = (s32[2], token[]) get-tuple-element(%in), index=1\n  %y = s32[2] get-tuple-element(%yt), index=0\n"
      "  %y0 = s32[1] slice(%y), slice={[0:1]}\n  %y0s = s32[] reshape(%y0)\n  %lim = s32[] constant(40)\n"
      "  %small = pred[] compare(%y0s, %lim), direction=LT\n  %n = s32[] constant(6)\n"
      "  %more = pred[] compare(%i, %n), direction=LT\n  ROOT %go = pred[] and(%small, %more)\n}\n"
      "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %in = " + inner + " get-tuple-element(%p), index=1\n"
      "  %two = s32[] constant(2)\n  %r = s32[] remainder(%i, %two)\n"
      "  %b = " + inner + " conditional(%r, %in, %in), branch_computations={%keep, %swap}\n"
      "  %x = f32[3] get-tuple-element(%b), index=0\n  %yt = (s32[2], token[]) get-tuple-element(%b), index=1\n"
      "  %y = s32[2] get-tuple-element(%yt), index=0\n  %tok = token[] get-tuple-element(%yt), index=1\n"
      "  %x2 = f32[3] add(%x, %x)\n  %ib = s32[2] broadcast(%i), dimensions={}\n  %y2 = s32[2] add(%y, %ib)\n"
      "  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n  %yt2 = (s32[2], token[]) tuple(%y2, %tok)\n"
      "  %in2 = " + inner + " tuple(%x2, %yt2)\n  ROOT %t = " + state + " tuple(%i2, %in2)\n}\n"
      "ENTRY %e {\n  %x = f32[3] parameter(0)\n  %y = s32[2] parameter(1)\n  %tok = token[] after-all()\n"
      "  %z = s32[] constant(0)\n  %yt = (s32[2], token[]) tuple(%y, %tok)\n  %in = " + inner + " tuple(%x, %yt)\n"
      "  %t = " + state + " tuple(%z, %in)\n  %w = " + state + " while(%t), condition=%cond, body=%body\n"
      "  %i = s32[] get-tuple-element(%w), index=0\n  %out = " + inner + " get-tuple-element(%w), index=1\n"
      "  %ox = f32[3] get-tuple-element(%out), index=0\n  %oyt = (s32[2], token[]) get-tuple-element(%out), index=1\n"
      "  %oy = s32[2] get-tuple-element(%oyt), index=0\n  %oin = (f32[3], s32[2]) tuple(%ox, %oy)\n  ROOT %o = (s32[], (f32[3], s32[2])) tuple(%i, %oin)\n}\n";
  Literal x(Shape(ElementType::kF32, {3})), y(Shape(ElementType::kS32, {2}));
  for (int i = 0; i < 3; ++i) x.Set(i, Scalar::Float(ElementType::kF32, i + 1));
  y.Set(0, Scalar::Int(ElementType::kS32, 3));
  y.Set(1, Scalar::Int(ElementType::kS32, -5));
  Literal r = Check(text, {x, y});
  ASSERT_TRUE(r.shape().IsTuple());
  // Six trips, odd ones through the negating branch: x * -64, and y
  // (3, -5) -> (3, -5) -> (-2, 6) -> (0, 8) -> (3, -5) -> (7, -1) -> (-2, 6).
  EXPECT_EQ(r.tuple_elements()[0].Get(0).s, 6);
  const Literal& xy = r.tuple_elements()[1];
  for (int i = 0; i < 3; ++i) EXPECT_EQ(xy.tuple_elements()[0].Get(i).re, -64.0 * (i + 1));
  EXPECT_EQ(xy.tuple_elements()[1].Get(0).s, -2);
  EXPECT_EQ(xy.tuple_elements()[1].Get(1).s, 6);
}

// sum over i < 4, j < 5 of i * j = 60, by two nested counted loops.
TEST_F(ControlFlow, NestedLoops) {
  const std::string inner = "(s32[], s32[], s32[])";  // j, i, s
  const std::string outer = "(s32[], s32[])";          // i, s
  const std::string text =
      "HloModule nested\n"
      "%icond (p: " + inner + ") -> pred[] {\n  %p = " + inner + " parameter(0)\n"
      "  %j = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(5)\n"
      "  ROOT %lt = pred[] compare(%j, %n), direction=LT\n}\n"
      "%ibody (p: " + inner + ") -> " + inner + " {\n  %p = " + inner + " parameter(0)\n"
      "  %j = s32[] get-tuple-element(%p), index=0\n  %i = s32[] get-tuple-element(%p), index=1\n"
      "  %s = s32[] get-tuple-element(%p), index=2\n  %ij = s32[] multiply(%i, %j)\n  %s2 = s32[] add(%s, %ij)\n"
      "  %one = s32[] constant(1)\n  %j2 = s32[] add(%j, %one)\n  ROOT %t = " + inner + " tuple(%j2, %i, %s2)\n}\n"
      "%ocond (p: " + outer + ") -> pred[] {\n  %p = " + outer + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(4)\n"
      "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
      "%obody (p: " + outer + ") -> " + outer + " {\n  %p = " + outer + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %s = s32[] get-tuple-element(%p), index=1\n"
      "  %zero = s32[] constant(0)\n  %t0 = " + inner + " tuple(%zero, %i, %s)\n"
      "  %w = " + inner + " while(%t0), condition=%icond, body=%ibody\n  %s2 = s32[] get-tuple-element(%w), index=2\n"
      "  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n  ROOT %t = " + outer + " tuple(%i2, %s2)\n}\n"
      "ENTRY %e {\n  %s = s32[] parameter(0)\n  %z = s32[] constant(0)\n  %t = " + outer + " tuple(%z, %s)\n"
      "  %w = " + outer + " while(%t), condition=%ocond, body=%obody\n"
      "  ROOT %r = s32[] get-tuple-element(%w), index=1\n}\n";
  Literal r = Check(text, {Literal::ScalarOf(Scalar::Int(ElementType::kS32, 100))});
  EXPECT_EQ(r.Get(0).s, 160);
}

// A state of five arrays of different types and layouts, two of them
// swapped every step (the copy back must not read what it overwrote).
TEST_F(ControlFlow, FiveArrayTupleStateWithSwap) {
  const std::string state = "(s32[], f32[2,3]{0,1}, f32[2,3]{1,0}, u8[5], pred[4], bf16[3])";
  const std::string text =
      "HloModule five\n"
      "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(5)\n"
      "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
      "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %a = f32[2,3]{0,1} get-tuple-element(%p), index=1\n"
      "  %b = f32[2,3]{1,0} get-tuple-element(%p), index=2\n  %u = u8[5] get-tuple-element(%p), index=3\n"
      "  %q = pred[4] get-tuple-element(%p), index=4\n  %h = bf16[3] get-tuple-element(%p), index=5\n"
      "  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n  %ab = f32[2,3]{1,0} add(%a, %b)\n"
      "  %u2 = u8[5] multiply(%u, %u)\n  %q2 = pred[4] not(%q)\n  %h2 = bf16[3] add(%h, %h)\n"
      "  ROOT %t = " + state + " tuple(%i2, %b, %ab, %u2, %q2, %h2)\n}\n"
      "ENTRY %e {\n  %a = f32[2,3]{0,1} parameter(0)\n  %b = f32[2,3]{1,0} parameter(1)\n  %u = u8[5] parameter(2)\n"
      "  %q = pred[4] parameter(3)\n  %h = bf16[3] parameter(4)\n  %z = s32[] constant(0)\n"
      "  %t = " + state + " tuple(%z, %a, %b, %u, %q, %h)\n"
      "  ROOT %w = " + state + " while(%t), condition=%cond, body=%body\n}\n";
  Randoms(text, 5);
}

// A scan written as While + DynamicUpdateSlice: the running sum of 1,000
// values, one element per step.
TEST_F(ControlFlow, WhileDynamicUpdateSliceScanOf1000Steps) {
  const std::string text = WhileDynamicUpdateSliceScan();
  Literal xs(Shape(ElementType::kF32, {1000}));
  for (int i = 0; i < 1000; ++i) xs.Set(i, Scalar::Float(ElementType::kF32, (i % 7) - 3));
  Literal r = Check(text, {xs});
  double sum = 0;
  for (int i = 0; i < 1000; ++i) {
    sum += (i % 7) - 3;
    ASSERT_EQ(r.Get(i).re, sum) << i;
  }
}

// Branch index i - 1 for i = 0..5 over three branches: -1 and 3, 4 take the
// last branch, as the spec says; a pred conditional inside picks by sign.
TEST_F(ControlFlow, ConditionalsInLoopWithIndexOutOfRange) {
  const std::string state = "(s32[], s32[], f32[3])";  // i, log of branches taken, x
  const std::string text =
      "HloModule branches\n"
      "%b0 (x: f32[3]) -> f32[3] {\n  %x = f32[3] parameter(0)\n  %c = f32[] constant(1)\n"
      "  %cb = f32[3] broadcast(%c), dimensions={}\n  ROOT %r = f32[3] add(%x, %cb)\n}\n"
      "%b1 (x: f32[3]) -> f32[3] {\n  %x = f32[3] parameter(0)\n  ROOT %r = f32[3] multiply(%x, %x)\n}\n"
      "%b2 (x: f32[3]) -> f32[3] {\n  %x = f32[3] parameter(0)\n  ROOT %r = f32[3] negate(%x)\n}\n"
      "%pos (x: s32[]) -> s32[] {\n  %x = s32[] parameter(0)\n  %t = s32[] constant(10)\n  %m = s32[] multiply(%x, %t)\n"
      "  %k = s32[] constant(1)\n  ROOT %r = s32[] add(%m, %k)\n}\n"
      "%neg (x: s32[]) -> s32[] {\n  %x = s32[] parameter(0)\n  %t = s32[] constant(10)\n  %m = s32[] multiply(%x, %t)\n"
      "  %k = s32[] constant(2)\n  ROOT %r = s32[] add(%m, %k)\n}\n"
      "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(6)\n"
      "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
      "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %log = s32[] get-tuple-element(%p), index=1\n"
      "  %x = f32[3] get-tuple-element(%p), index=2\n  %one = s32[] constant(1)\n  %k = s32[] subtract(%i, %one)\n"
      "  %x2 = f32[3] conditional(%k, %x, %x, %x), branch_computations={%b0, %b1, %b2}\n"
      "  %two = s32[] constant(2)\n  %odd = pred[] compare(%k, %two), direction=LT\n"
      "  %log2 = s32[] conditional(%odd, %log, %log), true_computation=%pos, false_computation=%neg\n"
      "  %i2 = s32[] add(%i, %one)\n  ROOT %t = " + state + " tuple(%i2, %log2, %x2)\n}\n"
      "ENTRY %e {\n  %x = f32[3] parameter(0)\n  %z = s32[] constant(0)\n  %t = " + state + " tuple(%z, %z, %x)\n"
      "  %w = " + state + " while(%t), condition=%cond, body=%body\n"
      "  %log = s32[] get-tuple-element(%w), index=1\n  %r = f32[3] get-tuple-element(%w), index=2\n"
      "  ROOT %o = (s32[], f32[3]) tuple(%log, %r)\n}\n";
  Literal x(Shape(ElementType::kF32, {3}));
  for (int i = 0; i < 3; ++i) x.Set(i, Scalar::Float(ElementType::kF32, i + 1));
  Literal r = Check(text, {x});
  // k = -1, 0, 1, 2, 3, 4 -> branches 2, 0, 1, 2, 2, 2: x -> -x -> 1-x -> (1-x)^2 -> -, +, -
  for (int i = 0; i < 3; ++i) {
    const double v = i + 1, want = -((1 - v) * (1 - v));
    EXPECT_EQ(r.tuple_elements()[1].Get(i).re, want) << i;
  }
  // k < 2 for k = -1, 0, 1: digits 1 1 1 2 2 2
  EXPECT_EQ(r.tuple_elements()[0].Get(0).s, 111222);
}

// One computation called from three sites, one call inside another's
// operand chain and one nested in a callee.
// A reduce (and a dot) read by an elementwise op and also carried into a
// loop's state: the op may not take the value as its epilogue, which left
// the loop's copy without a source (an internal error; a random program
// found it).
TEST_F(ControlFlow, AValueBothReadAndCarriedKeepsItsBuffer) {
  const std::string loop =
      "%cond (p: (s32[], f32[3])) -> pred[] {\n  %p = (s32[], f32[3]) parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(2)\n"
      "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
      "%body (p: (s32[], f32[3])) -> (s32[], f32[3]) {\n  %p = (s32[], f32[3]) parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %x = f32[3] get-tuple-element(%p), index=1\n"
      "  %one = s32[] constant(1)\n  %j = s32[] add(%i, %one)\n  %y = f32[3] add(%x, %x)\n"
      "  ROOT %t = (s32[], f32[3]) tuple(%j, %y)\n}\n"
      "%sum (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
      "  ROOT %r = f32[] add(%a, %b)\n}\n";
  for (const char* value : {"  %v = f32[3] reduce(%m, %z), dimensions={1}, to_apply=%sum\n",
                            "  %v = f32[3] dot(%m, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"}) {
    SCOPED_TRACE(value);
    // Small integers: the dot's sums are exact in any order.
    Literal m(Shape(ElementType::kF32, {3, 4})), w(Shape(ElementType::kF32, {4}));
    for (int64_t i = 0; i < 12; ++i) m.Set(i, Scalar::Float(ElementType::kF32, double(i % 5) - 2));
    for (int64_t i = 0; i < 4; ++i) w.Set(i, Scalar::Float(ElementType::kF32, double(i) - 1));
    Check("HloModule carried\n" + loop +
                "ENTRY %e {\n  %m = f32[3,4] parameter(0)\n  %w = f32[4] parameter(1)\n  %z = f32[] constant(0)\n" + value +
                "  %c = s32[] constant(0)\n  %s = (s32[], f32[3]) tuple(%c, %v)\n"
                "  %l = (s32[], f32[3]) while(%s), condition=%cond, body=%body\n"
                "  %x = f32[3] get-tuple-element(%l), index=1\n  %n = f32[3] negate(%v)\n"
                "  ROOT %r = f32[3] add(%x, %n)\n}\n",
          {m, w});
  }
}

TEST_F(ControlFlow, CallsFromSeveralSites) {
  const std::string text =
      "HloModule calls\n"
      "%f (x: f32[4]) -> f32[4] {\n  %x = f32[4] parameter(0)\n  %two = f32[] constant(2)\n"
      "  %tb = f32[4] broadcast(%two), dimensions={}\n  %m = f32[4] multiply(%x, %tb)\n"
      "  %one = f32[] constant(1)\n  %ob = f32[4] broadcast(%one), dimensions={}\n  ROOT %r = f32[4] add(%m, %ob)\n}\n"
      "%g (x: f32[4], y: f32[4]) -> (f32[4], f32[4]) {\n  %x = f32[4] parameter(0)\n  %y = f32[4] parameter(1)\n"
      "  %fx = f32[4] call(%x), to_apply=%f\n  %s = f32[4] subtract(%fx, %y)\n  ROOT %t = (f32[4], f32[4]) tuple(%s, %fx)\n}\n"
      "ENTRY %e {\n  %x = f32[4] parameter(0)\n  %a = f32[4] call(%x), to_apply=%f\n  %b = f32[4] call(%a), to_apply=%f\n"
      "  %c = (f32[4], f32[4]) call(%b, %x), to_apply=%g\n  %c0 = f32[4] get-tuple-element(%c), index=0\n"
      "  %c1 = f32[4] get-tuple-element(%c), index=1\n  ROOT %r = (f32[4], f32[4], f32[4]) tuple(%a, %c0, %c1)\n}\n";
  Literal x(Shape(ElementType::kF32, {4}));
  for (int i = 0; i < 4; ++i) x.Set(i, Scalar::Float(ElementType::kF32, i));
  Literal r = Check(text, {x});
  for (int i = 0; i < 4; ++i) {
    const double a = 2 * i + 1, b = 2 * a + 1, fb = 2 * b + 1;
    EXPECT_EQ(r.tuple_elements()[0].Get(i).re, a);
    EXPECT_EQ(r.tuple_elements()[1].Get(i).re, fb - i);
    EXPECT_EQ(r.tuple_elements()[2].Get(i).re, fb);
  }
}

// Ordering and annotation ops pass values through unchanged.
TEST_F(ControlFlow, TokensBarriersAndAnnotationsForwardValues) {
  const std::string text =
      "HloModule forward\n"
      "ENTRY %e {\n  %x = f32[2,3] parameter(0)\n  %y = s32[5] parameter(1)\n  %tok = token[] after-all()\n"
      "  %tok2 = token[] after-all(%tok, %tok)\n  %xd = f32[2,3] add-dependency(%x, %tok2)\n"
      "  %t = (f32[2,3], s32[5]) tuple(%xd, %y)\n  %b = (f32[2,3], s32[5]) opt-barrier(%t)\n"
      "  %bx = f32[2,3] get-tuple-element(%b), index=0\n  %by = s32[5] get-tuple-element(%b), index=1\n"
      "  %sx = f32[2,3] custom-call(%bx), custom_call_target=\"Sharding\", sharding={replicated}\n"
      "  %hx = f32[2,3] custom-call(%sx), custom_call_target=\"MoveToHost\"\n"
      "  %dx = f32[2,3] custom-call(%hx), custom_call_target=\"MoveToDevice\"\n"
      "  %e = f32[2,3] negate(%dx)\n"
      "  %sy = s32[5] custom-call(%by), custom_call_target=\"SPMDFullToShardShape\"\n"
      "  %gy = s32[5] custom-call(%sy), custom_call_target=\"xla.sdy.GlobalToLocalShape\"\n"
      "  %ly = s32[5] custom-call(%gy), custom_call_target=\"xla.sdy.LocalToGlobalShape\"\n"
      "  %ry = s32[5] custom-call(%ly), custom_call_target=\"xla.sdy.FuncResultSharding\"\n"
      "  %ny = s32[5] negate(%ry)\n  ROOT %r = (f32[2,3], s32[5]) tuple(%e, %ny)\n}\n";
  std::mt19937_64 rng(3);
  Check(text, {RandomLiteral(Shape(ElementType::kF32, {2, 3}), rng, Opcode::kAdd),
               RandomLiteral(Shape(ElementType::kS32, {5}), rng, Opcode::kAdd)});
}

// The builder's control flow: a counted While whose body calls a
// computation, a two-way and an N-way Conditional, tokens ordering an
// outfeed, and a placement annotation.
TEST_F(ControlFlow, FromTheBuilder) {
  const Shape s32 = Shape::Scalar(ElementType::kS32), v4 = Shape(ElementType::kF32, {4});
  const Shape state = Shape::Tuple({s32, v4});
  XlaBuilder twice("twice");
  XlaOp tx = twice.Parameter(0, v4, "x");
  auto twice_c = twice.BuildComputation(Add(tx, tx));
  ASSERT_TRUE(twice_c.ok()) << twice_c.status().ToString();
  XlaBuilder cond("cond");
  XlaOp cp = cond.Parameter(0, state, "p");
  auto cond_c = cond.BuildComputation(cond.Compare(cond.GetTupleElement(cp, 0),
                                                   cond.ConstantLiteral(Literal::ScalarOf(Scalar::Int(ElementType::kS32, 3))),
                                                   ComparisonDirection::kLt));
  ASSERT_TRUE(cond_c.ok()) << cond_c.status().ToString();
  XlaBuilder body("body");
  XlaOp bp = body.Parameter(0, state, "p");
  XlaOp next = Add(body.GetTupleElement(bp, 0), body.ConstantLiteral(Literal::ScalarOf(Scalar::Int(ElementType::kS32, 1))));
  auto body_c = body.BuildComputation(body.Tuple({next, body.Call(*twice_c, {body.GetTupleElement(bp, 1)})}));
  ASSERT_TRUE(body_c.ok()) << body_c.status().ToString();
  XlaBuilder neg("neg");
  auto neg_c = neg.BuildComputation(Neg(neg.Parameter(0, v4, "x")));
  ASSERT_TRUE(neg_c.ok()) << neg_c.status().ToString();

  XlaBuilder b("control");
  XlaOp x = b.Parameter(0, v4, "x");
  XlaOp k = b.Parameter(1, s32, "k");
  XlaOp w = b.While(*cond_c, *body_c, b.Tuple({b.ConstantLiteral(Literal::ScalarOf(Scalar::Int(ElementType::kS32, 0))), x}));
  XlaOp looped = b.GetTupleElement(w, 1);  // 8x
  XlaOp positive = b.Compare(k, b.ConstantLiteral(Literal::ScalarOf(Scalar::Int(ElementType::kS32, 0))), ComparisonDirection::kGt);
  XlaOp picked = b.Conditional(positive, looped, *twice_c, looped, *neg_c);
  XlaOp indexed = b.Conditional(k, {&*neg_c, &*twice_c}, {picked, picked});
  XlaOp token = b.AfterAll({});
  XlaOp sent = b.Outfeed(indexed, token);
  XlaOp after = b.AddDependency(b.OptimizationBarrier(indexed), sent);
  XlaOp annotated = b.CustomCall("Sharding", {after}, v4);
  auto m = b.Build(annotated);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Literal in(v4);
  for (int i = 0; i < 4; ++i) in.Set(i, Scalar::Float(ElementType::kF32, i + 1));
  for (int kv : {-3, 0, 1, 7}) {
    SCOPED_TRACE(kv);
    auto exe = Executable::Compile(**m, TestDevice());
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    auto got = (*exe)->Run({in, Literal::ScalarOf(Scalar::Int(ElementType::kS32, kv))});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    std::optional<Literal> sent_value = TestDevice().outfeed().Pop();
    ASSERT_TRUE(sent_value.has_value());
    EXPECT_EQ(sent_value->ValuesToString(), got->ValuesToString());
    // 8x, then x2 when k > 0 else negated, then negated for k == 0 else doubled.
    for (int i = 0; i < 4; ++i) {
      const double looped_v = 8.0 * (i + 1), p = kv > 0 ? 2 * looped_v : -looped_v, want = kv == 0 ? -p : 2 * p;
      EXPECT_EQ(got->Get(i).re, want) << i;
    }
  }
}

void ExpectError(const std::string& text, const std::vector<std::string>& words) {
  auto m = ParseAndVerifyHlo(text);
  ASSERT_FALSE(m.ok()) << text;
  for (const std::string& w : words) EXPECT_NE(m.status().message().find(w), std::string::npos) << m.status().ToString();
}

TEST_F(ControlFlow, MalformedBodiesConditionsAndBranchesAreErrors) {
  const std::string cond = "%cond (p: (s32[], f32[2])) -> pred[] {\n  %p = (s32[], f32[2]) parameter(0)\n"
                           "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(3)\n"
                           "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n";
  const std::string entry = "ENTRY %e {\n  %x = f32[2] parameter(0)\n  %z = s32[] constant(0)\n"
                            "  %t = (s32[], f32[2]) tuple(%z, %x)\n";
  // A body returning another shape than the state.
  ExpectError("HloModule m\n" + cond +
                  "%body (p: (s32[], f32[2])) -> f32[2] {\n  %p = (s32[], f32[2]) parameter(0)\n"
                  "  ROOT %x = f32[2] get-tuple-element(%p), index=1\n}\n" + entry +
                  "  ROOT %w = (s32[], f32[2]) while(%t), condition=%cond, body=%body\n}\n",
              {"while", "%w", "body %body", "((s32[], f32[2])) -> f32[2]", "expected ((s32[], f32[2])) -> (s32[], f32[2])"});
  // A condition returning s32.
  ExpectError("HloModule m\n%c (p: (s32[], f32[2])) -> s32[] {\n  %p = (s32[], f32[2]) parameter(0)\n"
              "  ROOT %i = s32[] get-tuple-element(%p), index=0\n}\n"
              "%body (p: (s32[], f32[2])) -> (s32[], f32[2]) {\n  ROOT %p = (s32[], f32[2]) parameter(0)\n}\n" +
                  entry + "  ROOT %w = (s32[], f32[2]) while(%t), condition=%c, body=%body\n}\n",
              {"condition %c", "-> s32[]", "-> pred[]"});
  // A missing body.
  ExpectError("HloModule m\n" + cond + entry + "  ROOT %w = (s32[], f32[2]) while(%t), condition=%cond\n}\n",
              {"while", "body="});
  // A pred selector with three branches; an s64 selector; a branch taking the wrong operand.
  const std::string branch = "%b (x: f32[2]) -> f32[2] {\n  ROOT %x = f32[2] parameter(0)\n}\n"
                             "%bs (x: s32[]) -> f32[2] {\n  %x = s32[] parameter(0)\n  %c = f32[2] constant({1, 2})\n"
                             "  ROOT %r = f32[2] add(%c, %c)\n}\n";
  ExpectError("HloModule m\n" + branch + "ENTRY %e {\n  %p = pred[] parameter(0)\n  %x = f32[2] parameter(1)\n"
              "  ROOT %c = f32[2] conditional(%p, %x, %x, %x), branch_computations={%b, %b, %b}\n}\n",
              {"conditional", "%c", "pred selector needs two branches"});
  ExpectError("HloModule m\n" + branch + "ENTRY %e {\n  %p = s64[] parameter(0)\n  %x = f32[2] parameter(1)\n"
              "  ROOT %c = f32[2] conditional(%p, %x), branch_computations={%b}\n}\n",
              {"conditional", "pred[] or s32[]", "s64[]"});
  ExpectError("HloModule m\n" + branch + "ENTRY %e {\n  %p = s32[] parameter(0)\n  %x = f32[2] parameter(1)\n"
              "  ROOT %c = f32[2] conditional(%p, %x, %x), branch_computations={%b, %bs}\n}\n",
              {"branch 1 %bs", "(s32[]) -> f32[2]", "expected (f32[2]) -> f32[2]"});
  // An unknown custom call names its target.
  ExpectError("HloModule m\nENTRY %e {\n  %x = f32[2] parameter(0)\n"
              "  ROOT %c = f32[2] custom-call(%x), custom_call_target=\"my_kernel\"\n}\n",
              {"custom-call", "%c", "\"my_kernel\"", "not registered"});
  // A call with the wrong arguments.
  ExpectError("HloModule m\n" + branch + "ENTRY %e {\n  %x = f32[3] parameter(0)\n"
              "  ROOT %c = f32[2] call(%x), to_apply=%b\n}\n",
              {"call", "%c", "callee %b", "(f32[2]) -> f32[2]", "expected (f32[3])"});
}

}  // namespace
}  // namespace vkxla
