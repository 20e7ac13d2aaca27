// How the planner lays out control flow, without a device: trip counts it
// knows before the run, the steps of a while and a conditional, and one
// plan per call site.
#include <gtest/gtest.h>

#include "frontends/hlo_text.h"
#include "plan/planner.h"
#include "plan/target_profiles.h"
#include "plan/trip_count.h"
#include "tests/while_scan_module.h"

namespace vkxla {
namespace {

// A loop over (counter, f32[4]) with the given condition root and counter update.
std::unique_ptr<Module> Loop(const std::string& type, const std::string& start, const std::string& cond_root,
                             const std::string& next, const std::string& backend_config = "") {
  const std::string state = "(" + type + "[], f32[4])";
  const std::string text =
      "HloModule loop\n"
      "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
      "  %i = " + type + "[] get-tuple-element(%p), index=0\n  %n = " + type + "[] constant(10)\n"
      "  %m = " + type + "[] constant(3)\n  %l = pred[] compare(%i, %m), direction=GT\n" + cond_root + "\n}\n"
      "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
      "  %i = " + type + "[] get-tuple-element(%p), index=0\n  %x = f32[4] get-tuple-element(%p), index=1\n"
      "  %s = " + type + "[] constant(4)\n  %one = " + type + "[] constant(1)\n" + next + "\n"
      "  %x2 = f32[4] add(%x, %x)\n  ROOT %t = " + state + " tuple(%i2, %x2)\n}\n"
      "ENTRY %e {\n  %x = f32[4] parameter(0)\n  %z = " + type + "[] constant(" + start + ")\n"
      "  %t = " + state + " tuple(%z, %x)\n"
      "  ROOT %w = " + state + " while(%t), condition=%cond, body=%body" + backend_config + "\n}\n";
  auto m = ParseAndVerifyHlo(text);
  EXPECT_TRUE(m.ok()) << m.status().ToString() << "\n" << text;
  return m.ok() ? std::move(*m) : nullptr;
}

std::optional<int64_t> Trips(const Module& m) { return KnownTripCount(*m.entry()->root()); }

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
  const WhileStep* w = nullptr;
  for (const Step& s : p->steps)
    if (const auto* x = std::get_if<WhileStep>(&s.op)) w = x;
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
  const WhileStep* w = nullptr;
  for (const Step& s : p->steps)
    if (const auto* x = std::get_if<WhileStep>(&s.op)) w = x;
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
