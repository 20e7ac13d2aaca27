// RngBitGenerator's plan without a device: the split into the bits (an
// array-shaped rng-bit-generator) and the new state in plain ops, how many
// counter blocks each algorithm and type uses (the state's advance), and
// the bits fusing into their reader: one kernel for JAX's uniform floats.
#include <gtest/gtest.h>

#include "frontends/hlo_text.h"
#include "ops/rng.h"
#include "ops/rng_bit_generator.h"
#include "plan/planner.h"
#include "plan/rng_expansion.h"
#include "plan/target_profiles.h"

namespace vkxla {
namespace {

std::unique_ptr<Module> Parse(const std::string& entry) {
  auto m = ParseAndVerifyHlo("HloModule r\n\n" + entry);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(m).value() : nullptr;
}

std::unique_ptr<Module> Rng(const std::string& algorithm, const std::string& state, const std::string& bits) {
  return Parse("ENTRY main {\n  s = " + state + " parameter(0)\n  ROOT r = (" + state + ", " + bits +
               ") rng-bit-generator(s), algorithm=" + algorithm + "\n}\n");
}

TEST(RngPlan, BlocksFollowXlasExpansion) {
  const struct {
    const char* algorithm;
    const char* state;
    const char* bits;
    uint64_t blocks;
    int64_t split;
  } cases[] = {
      {"rng_three_fry", "u64[2]", "u32[]", 1, -1},       {"rng_three_fry", "u64[2]", "u32[7]", 4, 0},
      {"rng_three_fry", "u64[2]", "u32[3,4]", 6, 1},     {"rng_three_fry", "u64[2]", "u8[3,5]", 9, 1},
      {"rng_three_fry", "u64[2]", "u32[5,3,7]", 60, 2},  {"rng_three_fry", "u64[2]", "u64[3,5]", 15, -1},
      {"rng_philox", "u64[3]", "u32[15]", 4, -1},        {"rng_philox", "u64[2]", "f64[5]", 3, -1},
      {"rng_default", "u64[2]", "s16[4,4]", 4, -1},      {"rng_philox", "u64[3]", "u32[0]", 0, -1},
  };
  for (const auto& c : cases) {
    auto m = Rng(c.algorithm, c.state, c.bits);
    ASSERT_TRUE(m);
    StatusOr<RngBitsPlan> p = PlanRngBits(*m->entry()->root());
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->blocks, c.blocks) << c.algorithm << " " << c.bits;
    EXPECT_EQ(p->split_dim, c.split) << c.algorithm << " " << c.bits;
    EXPECT_NE(p->algorithm, RngAlgorithm::kDefault);  // the default is Philox
  }
}

TEST(RngPlan, SplitsIntoBitsAndState) {
  auto m = Rng("rng_philox", "u64[3]", "f32[4,6]");
  ASSERT_TRUE(m);
  StatusOr<std::shared_ptr<const Module>> expanded = ExpandRngBitGenerators(*m);
  ASSERT_TRUE(expanded.ok() && *expanded) << expanded.status().ToString();
  const Instruction* root = (*expanded)->entry()->root();
  ASSERT_EQ(root->opcode, Opcode::kTuple);
  EXPECT_EQ(root->shape, m->entry()->root()->shape);
  EXPECT_EQ(root->operands[0]->opcode, Opcode::kConcatenate);  // key, low + blocks, high + carry
  EXPECT_EQ(root->operands[0]->operands.size(), 3u);
  EXPECT_EQ(root->operands[1]->opcode, Opcode::kRngBitGenerator);
  EXPECT_TRUE(root->operands[1]->shape.IsArray());
  auto none = Parse("ENTRY main {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n");
  ASSERT_TRUE(none);
  StatusOr<std::shared_ptr<const Module>> kept = ExpandRngBitGenerators(*none);
  ASSERT_TRUE(kept.ok());
  EXPECT_FALSE(*kept);
}

TEST(RngPlan, BitsFuseIntoTheirReader) {
  auto m = Parse(R"(ENTRY main {
  s = u64[2] parameter(0)
  r = (u64[2], u32[64,64]) rng-bit-generator(s), algorithm=rng_three_fry
  b = u32[64,64] get-tuple-element(r), index=1
  nine = u32[] constant(9)
  shift = u32[64,64] broadcast(nine), dimensions={}
  m = u32[64,64] shift-right-logical(b, shift)
  one_bits = u32[] constant(1065353216)
  ob = u32[64,64] broadcast(one_bits), dimensions={}
  o = u32[64,64] or(m, ob)
  ROOT f = f32[64,64] bitcast-convert(o)
}
)");
  ASSERT_TRUE(m);
  for (const TargetFeatures& target : {LavapipeTarget(), DesktopGpuTarget()}) {
    StatusOr<Program> p = PlanModule(*m, target);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->DispatchCount(), 1) << p->ToString();
    ASSERT_EQ(p->groups.size(), 1u);
    EXPECT_EQ(p->groups[0].kind, KernelKind::kLoop);
  }
}

// rng: the counter from a host step, then bits and conversion in one kernel.
TEST(RngPlan, RngIsAHostStepAndOneKernel) {
  for (const char* op : {"f32[33,5] rng(a, b), distribution=rng_uniform", "f32[33,5] rng(a, b), distribution=rng_normal"}) {
    auto m = Parse(std::string("ENTRY main {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = ") + op + "\n}\n");
    ASSERT_TRUE(m);
    StatusOr<Program> p = PlanModule(*m, LavapipeTarget());
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->DispatchCount(), 1) << p->ToString();
    int counters = 0;
    for (const Step& s : p->steps)
      if (const auto* h = std::get_if<HostStep>(&s.op)) counters += h->kind == HostStep::Kind::kRngCounter;
    EXPECT_EQ(counters, 1) << p->ToString();
    StatusOr<std::shared_ptr<const Module>> e = ExpandRngBitGenerators(*m);
    ASSERT_TRUE(e.ok() && *e) << e.status().ToString();
    int64_t delta = -1;
    for (const auto& inst : (*e)->entry()->instructions())
      if (inst->opcode == Opcode::kRngGetAndUpdateState) {
        StatusOr<int64_t> d = ReadRngDelta(*inst);
        ASSERT_TRUE(d.ok()) << d.status().ToString();
        delta = *d;
      }
    EXPECT_EQ(delta, 33 * 5) << op;  // one 32-bit word per element
  }
}

}  // namespace
}  // namespace vkxla
