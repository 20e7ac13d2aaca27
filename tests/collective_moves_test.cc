// Collectives that only move elements as byte copies between the members'
// buffers (plan/collective_moves.h): the copies each member makes for
// every op, merged runs, zeros, layouts, and what stays on the host.
#include <gtest/gtest.h>

#include "frontends/hlo_text.h"
#include "ir/hlo_parser.h"
#include "plan/collective_moves.h"

namespace vkxla {
namespace {

// The root of a one-collective module over x = `operand`.
struct OneOp {
  std::unique_ptr<Module> module;
  const Instruction* op = nullptr;
};

OneOp Collective(const std::string& operand, const std::string& root) {
  OneOp o;
  auto m = ParseAndVerifyHlo("HloModule m, replica_count=4\nadd { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
                             " ROOT s = f32[] add(a, b) }\nENTRY e { x = " + operand + " parameter(0)\n ROOT r = " + root + " }\n");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return o;
  o.module = std::move(*m);
  o.op = o.module->entry()->root();
  return o;
}

Shape Parsed(const std::string& text) {
  auto s = ParseShape(text);
  EXPECT_TRUE(s.ok()) << text;
  return s.ok() ? *s : Shape();
}

std::vector<ByteMove> Moves(const OneOp& o, int64_t position, const std::string& operand, const std::string& result) {
  auto moves = CollectiveByteMoves(*o.op, 4, position, {Parsed(operand)}, {Parsed(result)});
  EXPECT_TRUE(moves.ok()) << moves.status().ToString();
  if (!moves.ok() || moves->size() != 1) return {};
  return (*moves)[0].moves;
}

TEST(CollectiveMoves, AllGatherAlongTheMajorDimensionIsOneCopyPerMember) {
  OneOp o = Collective("f32[2,3]{1,0}", "f32[8,3]{1,0} all-gather(x), dimensions={0}");
  ASSERT_NE(o.op, nullptr);
  // Each member's 24 bytes land after the previous member's.
  EXPECT_EQ(Moves(o, 2, "f32[2,3]{1,0}", "f32[8,3]{1,0}"),
            (std::vector<ByteMove>{{0, 0, 0, 0, 24}, {1, 0, 0, 24, 24}, {2, 0, 0, 48, 24}, {3, 0, 0, 72, 24}}));
}

TEST(CollectiveMoves, AllGatherAlongTheMinorDimensionCopiesRowPieces) {
  OneOp o = Collective("s8[2,3]{1,0}", "s8[2,12]{1,0} all-gather(x), dimensions={1}");
  ASSERT_NE(o.op, nullptr);
  std::vector<ByteMove> want;
  for (uint64_t row = 0; row < 2; ++row)
    for (int64_t m = 0; m < 4; ++m) want.push_back({m, 0, row * 3, row * 12 + static_cast<uint64_t>(m) * 3, 3});
  EXPECT_EQ(Moves(o, 0, "s8[2,3]{1,0}", "s8[2,12]{1,0}"), want);
  // Column-major, the gathered dimension is the major one: whole blocks.
  o = Collective("s8[2,3]{0,1}", "s8[2,12]{0,1} all-gather(x), dimensions={1}");
  ASSERT_NE(o.op, nullptr);
  EXPECT_EQ(Moves(o, 1, "s8[2,3]{0,1}", "s8[2,12]{0,1}"),
            (std::vector<ByteMove>{{0, 0, 0, 0, 6}, {1, 0, 0, 6, 6}, {2, 0, 0, 12, 6}, {3, 0, 0, 18, 6}}));
}

TEST(CollectiveMoves, AllToAllTakesThisMembersPartOfEveryOperand) {
  // Split dimension 0 (8 rows, 2 a member), concat dimension 1: member 3's
  // result row r holds, per member i, row 6 + r of member i's operand.
  OneOp o = Collective("u16[8,2]{1,0}", "u16[2,8]{1,0} all-to-all(x), split_dimension=0, concat_dimension=1, split_count=4, "
                                        "replica_groups={{0,1,2,3}}");
  ASSERT_NE(o.op, nullptr);
  std::vector<ByteMove> want;
  for (uint64_t r = 0; r < 2; ++r)
    for (int64_t i = 0; i < 4; ++i) want.push_back({i, 0, (6 + r) * 4, r * 16 + static_cast<uint64_t>(i) * 4, 4});
  EXPECT_EQ(Moves(o, 3, "u16[8,2]{1,0}", "u16[2,8]{1,0}"), want);
  // HLO's one-dimension form splits and concatenates along it.
  o = Collective("f32[8]{0}", "f32[8]{0} all-to-all(x), dimensions={0}");
  ASSERT_NE(o.op, nullptr);
  EXPECT_EQ(Moves(o, 1, "f32[8]{0}", "f32[8]{0}"),
            (std::vector<ByteMove>{{0, 0, 8, 0, 8}, {1, 0, 8, 8, 8}, {2, 0, 8, 16, 8}, {3, 0, 8, 24, 8}}));
}

TEST(CollectiveMoves, PermutationsCopyWholeLeavesOrLeaveZeros) {
  OneOp o = Collective("f64[5]{0}", "f64[5]{0} collective-permute(x), source_target_pairs={{0,1},{1,2},{2,0}}");
  ASSERT_NE(o.op, nullptr);
  EXPECT_EQ(Moves(o, 2, "f64[5]{0}", "f64[5]{0}"), (std::vector<ByteMove>{{1, 0, 0, 0, 40}}));
  auto moves = CollectiveByteMoves(*o.op, 4, 3, {Parsed("f64[5]{0}")}, {Parsed("f64[5]{0}")});
  ASSERT_TRUE(moves.ok()) << moves.status().ToString();
  ASSERT_EQ(moves->size(), 1u);
  EXPECT_TRUE((*moves)[0].zeros);  // nobody sends to member 3
  o = Collective("bf16[3]{0}", "bf16[3]{0} collective-broadcast(x), replica_groups={{2,0,1,3}}");
  ASSERT_NE(o.op, nullptr);
  EXPECT_EQ(Moves(o, 3, "bf16[3]{0}", "bf16[3]{0}"), (std::vector<ByteMove>{{0, 0, 0, 0, 6}}));
}

TEST(CollectiveMoves, LayoutsCopiesCannotServeStayOnTheHost) {
  OneOp gather = Collective("f32[2,4]{1,0}", "f32[8,4]{1,0} all-gather(x), dimensions={0}");
  ASSERT_NE(gather.op, nullptr);
  EXPECT_TRUE(MovesBytesBetweenBuffers(*gather.op, {Parsed("f32[2,4]{1,0}")}, {Parsed("f32[8,4]{1,0}")}));
  // A relayout between operand and result would copy element by element.
  EXPECT_FALSE(MovesBytesBetweenBuffers(*gather.op, {Parsed("f32[2,4]{0,1}")}, {Parsed("f32[8,4]{1,0}")}));
  // Tiles, and elements packed below a byte.
  EXPECT_FALSE(MovesBytesBetweenBuffers(*gather.op, {Parsed("f32[2,4]{1,0:T(2,2)}")}, {Parsed("f32[8,4]{1,0:T(2,2)}")}));
  EXPECT_FALSE(MovesBytesBetweenBuffers(*gather.op, {Parsed("s4[2,4]{1,0:E(4)}")}, {Parsed("s4[8,4]{1,0:E(4)}")}));
  // A gather along a minor-most dimension of one element over 2^20 rows:
  // more runs than the region lists may hold.
  OneOp rows = Collective("u8[1048576,1]{1,0}", "u8[1048576,4]{1,0} all-gather(x), dimensions={1}");
  ASSERT_NE(rows.op, nullptr);
  EXPECT_FALSE(MovesBytesBetweenBuffers(*rows.op, {Parsed("u8[1048576,1]{1,0}")}, {Parsed("u8[1048576,4]{1,0}")}));
  EXPECT_TRUE(MovesBytesBetweenBuffers(*rows.op, {Parsed("u8[1048576,1]{0,1}")}, {Parsed("u8[1048576,4]{0,1}")}));
  // Values computed, not moved.
  OneOp scatter = Collective("f32[8]{0}", "f32[2]{0} reduce-scatter(x), dimensions={0}, to_apply=add");
  ASSERT_NE(scatter.op, nullptr);
  EXPECT_FALSE(MovesBytesBetweenBuffers(*scatter.op, {Parsed("f32[8]{0}")}, {Parsed("f32[2]{0}")}));
}

TEST(CollectiveMoves, ReduceScatterBlocksAreRunsWhereTheScatteredDimensionIsMajorMost) {
  OneOp o = Collective("f32[8,4]{1,0}", "f32[2,4]{1,0} reduce-scatter(x), dimensions={0}, to_apply=add");
  ASSERT_NE(o.op, nullptr);
  EXPECT_TRUE(ScatteredBlocksAreRuns(*o.op, {Parsed("f32[8,4]{1,0}")}, {Parsed("f32[2,4]{1,0}")}));
  EXPECT_FALSE(ScatteredBlocksAreRuns(*o.op, {Parsed("f32[8,4]{0,1}")}, {Parsed("f32[2,4]{0,1}")}));  // blocks strided
  EXPECT_FALSE(ScatteredBlocksAreRuns(*o.op, {Parsed("f32[8,4]{1,0}")}, {Parsed("f32[2,4]{0,1}")}));  // a relayout
  EXPECT_FALSE(ScatteredBlocksAreRuns(*o.op, {Parsed("f32[8,4]{1,0:T(2,4)}")}, {Parsed("f32[2,4]{1,0:T(2,4)}")}));
  OneOp m = Collective("f32[8,4]{1,0}", "f32[8,1]{1,0} reduce-scatter(x), dimensions={1}, to_apply=add");
  ASSERT_NE(m.op, nullptr);
  EXPECT_FALSE(ScatteredBlocksAreRuns(*m.op, {Parsed("f32[8,4]{1,0}")}, {Parsed("f32[8,1]{1,0}")}));
  // A gather moves elements; it folds nothing.
  OneOp g = Collective("f32[2,4]{1,0}", "f32[8,4]{1,0} all-gather(x), dimensions={0}");
  ASSERT_NE(g.op, nullptr);
  EXPECT_FALSE(ScatteredBlocksAreRuns(*g.op, {Parsed("f32[2,4]{1,0}")}, {Parsed("f32[8,4]{1,0}")}));
}

}  // namespace
}  // namespace vkxla
