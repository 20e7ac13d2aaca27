// How the planner lays out control flow, without a device: trip counts it
// knows before the run, the steps of a while and a conditional, and one
// plan per call site.
#include <gtest/gtest.h>

#include "frontends/hlo_text.h"
#include "plan/in_place_update.h"
#include "plan/planner.h"
#include "plan/target_profiles.h"
#include "plan/trip_count.h"
#include "tests/while_scan_module.h"

namespace vkxla {
namespace {

// A loop over (counter, f32[4]) with the given condition root and counter update.
std::unique_ptr<Module> Loop(const std::string& type, const std::string& start, const std::string& cond_root,
                             const std::string& next, const std::string& backend_config = "",
                             const std::string& x_update = "  %x2 = f32[4] add(%x, %x)") {
  const std::string state = "(" + type + "[], f32[4])";
  const std::string text =
      "HloModule loop\n"
      "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
      "  %i = " + type + "[] get-tuple-element(%p), index=0\n  %n = " + type + "[] constant(10)\n"
      "  %m = " + type + "[] constant(3)\n  %l = pred[] compare(%i, %m), direction=GT\n" + cond_root + "\n}\n"
      "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
      "  %i = " + type + "[] get-tuple-element(%p), index=0\n  %x = f32[4] get-tuple-element(%p), index=1\n"
      "  %s = " + type + "[] constant(4)\n  %one = " + type + "[] constant(1)\n" + next + "\n" +
      x_update + "\n  ROOT %t = " + state + " tuple(%i2, %x2)\n}\n"
      "ENTRY %e {\n  %x = f32[4] parameter(0)\n  %z = " + type + "[] constant(" + start + ")\n"
      "  %t = " + state + " tuple(%z, %x)\n"
      "  ROOT %w = " + state + " while(%t), condition=%cond, body=%body" + backend_config + "\n}\n";
  auto m = ParseAndVerifyHlo(text);
  EXPECT_TRUE(m.ok()) << m.status().ToString() << "\n" << text;
  return m.ok() ? std::move(*m) : nullptr;
}

std::optional<int64_t> Trips(const Module& m) { return KnownTripCount(*m.entry()->root()); }

// The program's last top-level while (and its step), or null.
const WhileStep* LastWhile(const Program& p, const Step** step = nullptr) {
  const WhileStep* w = nullptr;
  for (const Step& s : p.steps)
    if (const auto* x = std::get_if<WhileStep>(&s.op)) {
      w = x;
      if (step) *step = &s;
    }
  return w;
}

const std::string kLt = "  ROOT %c = pred[] compare(%i, %n), direction=LT";
const std::string kPlusOne = "  %i2 = s32[] add(%i, %one)";

TEST(ControlFlowPlan, CounterPatternsGiveTheirTripCounts) {
  EXPECT_EQ(Trips(*Loop("s32", "0", kLt, kPlusOne)), 10);
  EXPECT_EQ(Trips(*Loop("s32", "0", "  ROOT %c = pred[] compare(%i, %n), direction=LE", kPlusOne)), 11);
  EXPECT_EQ(Trips(*Loop("s32", "0", "  ROOT %c = pred[] compare(%n, %i), direction=GT", kPlusOne)), 10);
  EXPECT_EQ(Trips(*Loop("s32", "3", kLt, "  %i2 = s32[] add(%s, %i)")), 2);  // 3, 7
  EXPECT_EQ(Trips(*Loop("s32", "12", kLt, kPlusOne)), 0);
  EXPECT_EQ(Trips(*Loop("s32", "-5", kLt, kPlusOne)), 15);
  EXPECT_EQ(Trips(*Loop("u32", "0", kLt, "  %i2 = u32[] add(%i, %one)")), 10);
  EXPECT_EQ(Trips(*Loop("s64", "0", kLt, "  %i2 = s64[] add(%i, %one)")), 10);
  // known_trip_count wins where the condition says nothing countable.
  EXPECT_EQ(Trips(*Loop("s32", "0", "  ROOT %c = pred[] compare(%i, %i), direction=EQ", kPlusOne,
                        ", backend_config={\"known_trip_count\":{\"n\":\"37\"}}")),
            37);
}

TEST(ControlFlowPlan, OtherLoopsReadTheirPredicate) {
  // A condition that is more than the comparison; a counter going down; a
  // step that is not a constant; a comparison with another direction.
  EXPECT_EQ(Trips(*Loop("s32", "0", "  %lt = pred[] compare(%i, %n), direction=LT\n  ROOT %c = pred[] and(%lt, %l)", kPlusOne)),
            std::nullopt);
  EXPECT_EQ(Trips(*Loop("s32", "0", kLt, "  %i2 = s32[] subtract(%i, %one)")), std::nullopt);
  EXPECT_EQ(Trips(*Loop("s32", "0", kLt, "  %i2 = s32[] add(%i, %i)")), std::nullopt);
  EXPECT_EQ(Trips(*Loop("s32", "0", "  ROOT %c = pred[] compare(%i, %n), direction=NE", kPlusOne)), std::nullopt);
  EXPECT_EQ(Trips(*Loop("s32", "0", kLt, "  %z = s32[] constant(0)\n  %i2 = s32[] add(%i, %z)")), std::nullopt);
  // A condition that also writes an outfeed runs every trip.
  EXPECT_EQ(Trips(*Loop("s32", "0", "  %tok = token[] after-all()\n  %o = token[] outfeed(%i, %tok)\n" + kLt, kPlusOne)),
            std::nullopt);
}

TEST(ControlFlowPlan, CountedLoopStepsSkipThePredicate) {
  std::unique_ptr<Module> m = Loop("s32", "0", kLt, kPlusOne);
  ASSERT_TRUE(m);
  auto p = PlanModule(*m, LavapipeTarget());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const WhileStep* w = LastWhile(*p);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->trip_count, 10);
  EXPECT_NE(p->ToString().find("while (10 trips, counted)"), std::string::npos) << p->ToString();
}

// A scan written as While + DynamicUpdateSlice writes one element a trip
// into the carried array: no step of the body copies or rewrites it whole.
TEST(ControlFlowPlan, WhileDynamicUpdateSliceWritesInPlace) {
  auto m = ParseAndVerifyHlo(WhileDynamicUpdateSliceScan());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto p = PlanModule(**m, LavapipeTarget());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const WhileStep* w = LastWhile(*p);
  ASSERT_NE(w, nullptr);
  bool in_place = false;
  for (const Step& s : w->body) {
    if (const auto* c = std::get_if<CopyStep>(&s.op)) {
      EXPECT_LT(c->bytes, 4000u) << p->ToString();
    }
    if (const auto* d = std::get_if<DispatchStep>(&s.op)) {
      const KernelLaunch& k = p->groups[d->group].kernels[d->kernel];
      EXPECT_LT(k.invocations, 250u) << k.name;  // nothing walks the 1000-element array
      in_place = in_place || k.name.rfind("update_in_place_", 0) == 0;
    }
  }
  EXPECT_TRUE(in_place) << p->ToString();
}

// A body of elementwise updates (i + 1, x + x) writes its results into the
// state: the trip copies nothing back.
TEST(ControlFlowPlan, ElementwiseUpdatesWriteInPlace) {
  std::unique_ptr<Module> m = Loop("s32", "0", kLt, kPlusOne);
  ASSERT_TRUE(m);
  auto p = PlanModule(*m, LavapipeTarget());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const WhileStep* w = LastWhile(*p);
  ASSERT_NE(w, nullptr);
  for (const Step& s : w->body) EXPECT_TRUE(std::holds_alternative<DispatchStep>(s.op)) << p->ToString();
}

// A result that cannot overwrite its leaf (a reverse) is copied back at the
// end of the body: that copy, from the body's own buffer into the state,
// is what ping-pong leaves out.
TEST(ControlFlowPlan, ClosingCopiesArePingPongPairs) {
  std::unique_ptr<Module> reversed =
      Loop("s32", "0", kLt, kPlusOne, "", "  %r = f32[4] reverse(%x), dimensions={0}\n  %x2 = f32[4] add(%r, %x)");
  ASSERT_TRUE(reversed);
  auto p = PlanModule(*reversed, LavapipeTarget());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const Step* loop = nullptr;
  const WhileStep* w = LastWhile(*p, &loop);
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->alternates.size(), 1u) << p->ToString();
  ASSERT_EQ(w->alternate_copies.size(), 1u);
  const auto* copy = std::get_if<CopyStep>(&w->body[w->alternate_copies[0]].op);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->src, w->alternates[0].first);
  EXPECT_EQ(copy->dst, w->alternates[0].second);
  // The state buffer is the loop's; the body's buffer is nobody else's.
  EXPECT_NE(std::find(loop->writes.begin(), loop->writes.end(), w->alternates[0].second), loop->writes.end());
  EXPECT_NE(p->ToString().find("ping-pong"), std::string::npos);
}

// Which body results may overwrite their state leaf: the state is
// (a: f32[4], b: f32[4], s: f32[]), `lines` compute a2, b2 and s2.
std::vector<bool> InPlace(const std::string& lines) {
  const std::string state = "(f32[4], f32[4], f32[])";
  const std::string text =
      "HloModule m\n%sum (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
      "  ROOT %r = f32[] add(%x, %y)\n}\n%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
      "  %a = f32[4] get-tuple-element(%p), index=0\n  %b = f32[4] get-tuple-element(%p), index=1\n"
      "  %s = f32[] get-tuple-element(%p), index=2\n" + lines + "\n  ROOT %t = " + state + " tuple(%a2, %b2, %s2)\n}\n"
      "ENTRY %e {\n  %x = " + state + " parameter(0)\n  ROOT %c = " + state + " call(%x), to_apply=%body\n}\n";
  auto m = ParseAndVerifyHlo(text);
  EXPECT_TRUE(m.ok()) << m.status().ToString() << "\n" << text;
  if (!m.ok()) return {};
  const Computation* body = (*m)->entry()->root()->called_computations.at(0).second;
  auto state_leaves = ValueLeaves(body->parameters()[0]);
  auto results = ValueLeaves(body->root());
  std::vector<bool> out;
  for (size_t k = 0; k < 3; ++k) out.push_back(UpdatesInPlace(*body, (*results)[k], (*state_leaves)[k]));
  return out;
}

TEST(ControlFlowPlan, InPlaceUpdatesReadEachElementWhereTheyWriteIt) {
  // a: a chain of its own (b2 reading the new a2 is fine); b: its chain
  // takes a2, which the tuple also returns; s: a scalar update.
  EXPECT_EQ(InPlace("  %aa = f32[4] multiply(%a, %a)\n  %a2 = f32[4] add(%aa, %a)\n  %b2 = f32[4] add(%b, %a2)\n"
                    "  %s2 = f32[] add(%s, %s)"),
            (std::vector<bool>{true, false, true}));
  // a read reversed, b read by a broadcast of another shape, s read by every
  // invocation of a clamp (a scalar bound).
  EXPECT_EQ(InPlace("  %r = f32[4] reverse(%a), dimensions={0}\n  %a2 = f32[4] add(%a, %r)\n"
                    "  %bb = f32[2,4] broadcast(%b), dimensions={1}\n  %bs = f32[1,4] slice(%bb), slice={[0:1], [0:4]}\n"
                    "  %d = f32[4] reshape(%bs)\n  %b2 = f32[4] add(%b, %d)\n"
                    "  %c = f32[4] clamp(%s, %a, %b)\n  %s2 = f32[] add(%s, %s)"),
            (std::vector<bool>{false, false, false}));
  // An intermediate value of a's chain that b's chain also reads; s from a
  // reduction.
  EXPECT_EQ(InPlace("  %m = f32[4] multiply(%a, %a)\n  %a2 = f32[4] add(%m, %m)\n  %b2 = f32[4] subtract(%m, %b)\n"
                    "  %z = f32[] constant(0)\n  %s2 = f32[] reduce(%a, %z), dimensions={0}, to_apply=%sum"),
            (std::vector<bool>{false, false, false}));
}

// A computation called from two sites gets a copy for the second, so each
// site's values have buffers of their own.
TEST(ControlFlowPlan, EachCallSiteIsPlannedOnItsOwn) {
  auto m = ParseAndVerifyHlo(
      "HloModule calls\n%f (x: f32[4]) -> f32[4] {\n  %x = f32[4] parameter(0)\n  ROOT %n = f32[4] negate(%x)\n}\n"
      "ENTRY %e {\n  %x = f32[4] parameter(0)\n  %a = f32[4] call(%x), to_apply=%f\n  %b = f32[4] call(%a), to_apply=%f\n"
      "  ROOT %r = (f32[4], f32[4]) tuple(%a, %b)\n}\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto p = PlanModule(**m, LavapipeTarget());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->clones.size(), 1u);
  EXPECT_EQ(p->DispatchCount(), 2);
}

}  // namespace
}  // namespace vkxla
