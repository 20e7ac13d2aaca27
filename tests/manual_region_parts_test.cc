// The parts manual regions are read with (frontends/manual_regions.h), no
// device needed: GSPMD sharding text, frontend attribute strings and their
// escapes, and the IR edits the rewrite makes (uses replaced, instructions
// taken out, definition order restored).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "frontends/frontend_attributes.h"
#include "frontends/gspmd_sharding.h"
#include "ir/module.h"

namespace vkxla {
namespace {

TEST(GspmdSharding, ParsesTileAssignments) {
  auto listed = ParseGspmdSharding("{devices=[2,1]1,0}");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->tiles, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(listed->devices, (std::vector<int64_t>{1, 0}));
  auto iota = ParseGspmdSharding("{devices=[2,3]<=[3,2]T(1,0)}");
  ASSERT_TRUE(iota.ok()) << iota.status().ToString();
  EXPECT_EQ(iota->devices, (std::vector<int64_t>{0, 2, 4, 1, 3, 5}));
  auto replicate = ParseGspmdSharding("{devices=[2,1,2]<=[4] last_tile_dim_replicate metadata={op_name=\"x\"}}");
  ASSERT_TRUE(replicate.ok()) << replicate.status().ToString();
  EXPECT_EQ(replicate->replicated_subgroups, 1);
  auto mesh = AsMeshSharding(*replicate, 2, 4);
  ASSERT_TRUE(mesh.ok()) << mesh.status().ToString();
  EXPECT_EQ(mesh->mesh.devices(), 4);
  EXPECT_EQ(mesh->sharding.dims.size(), 2u);
  auto manual = ParseGspmdSharding("{devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}");
  ASSERT_TRUE(manual.ok());
  EXPECT_TRUE(manual->partly_manual);
  EXPECT_FALSE(AsMeshSharding(*manual, 1, 4).ok());
  EXPECT_EQ(ParseGspmdSharding("{replicated}")->kind, GspmdSharding::Kind::kReplicated);
  EXPECT_EQ(ParseGspmdSharding("{maximal device=1}")->devices, (std::vector<int64_t>{1}));
  for (const char* bad : {"{devices=[2,2]0,1,2}", "{devices=[2]<=[2]T(0,0)}", "{devices=[0]}", "{devices=[4096,2]<=[8192]}",
                          "{devices=[2]0,1", "{tiles}", "{{replicated}, {manual}}", "devices=[2]0,1", "{devices=[2]0,1 extra}"})
    EXPECT_FALSE(ParseGspmdSharding(bad).ok()) << bad;
}

TEST(FrontendAttributes, ReadsEscapedStrings) {
  EXPECT_EQ(FrontendAttribute("{a = \"x\", xla.sdy.manual_axes = \"#sdy<manual_axes{\\22a\\22}>\"}", "xla.sdy.manual_axes"),
            "#sdy<manual_axes{\"a\"}>");
  EXPECT_EQ(FrontendAttribute("{k = \"{\\\\\\22b\\\\\\22}\"}", "k"), "{\"b\"}");  // \\\22: escaped twice
  EXPECT_EQ(FrontendAttribute("{n = 3 : i32, k=\"v\"}", "k"), "v");
  EXPECT_EQ(FrontendAttribute("{kk = \"v\"}", "k"), std::nullopt);
  EXPECT_EQ(FrontendAttribute("{k = \"unterminated}", "k"), std::nullopt);
}

Instruction* Add(Computation& c, const std::string& name, Opcode op, std::vector<Instruction*> operands) {
  auto inst = std::make_unique<Instruction>();
  inst->name = name;
  inst->opcode = op;
  inst->shape = Shape(ElementType::kF32, {2});
  inst->operands = std::move(operands);
  return c.AddInstruction(std::move(inst));
}

std::string Order(const Computation& c) {
  std::string s;
  for (const auto& inst : c.instructions()) s += (s.empty() ? "" : " ") + inst->name;
  return s;
}

TEST(ComputationEdits, ReplaceExtractAndRestoreOrder) {
  Computation c("c");
  Instruction* p = Add(c, "p", Opcode::kParameter, {});
  p->parameter_number = 0;
  Instruction* old = Add(c, "old", Opcode::kNegate, {p});
  Instruction* user = Add(c, "user", Opcode::kAdd, {old, old});
  Instruction* other = Add(c, "other", Opcode::kAbs, {p});
  c.set_root(user);
  // A replacement made after its users: every use moves, then the order
  // puts it before them, the rest keeping theirs.
  Instruction* fresh = Add(c, "fresh", Opcode::kExp, {p});
  c.ReplaceUses(old, fresh);
  EXPECT_EQ(user->operands[0], fresh);
  EXPECT_EQ(user->operands[1], fresh);
  std::vector<std::unique_ptr<Instruction>> taken = c.Extract({old});
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].get(), old);
  EXPECT_EQ(c.Find("old"), nullptr);
  EXPECT_EQ(Order(c), "p user other fresh");
  c.RestoreDefinitionOrder();
  EXPECT_EQ(Order(c), "p fresh user other");
  EXPECT_EQ(c.root(), user);
  c.ReplaceUses(user, other);
  EXPECT_EQ(c.root(), other);
}

}  // namespace
}  // namespace vkxla
