// Collectives without a device: replica_groups in every form, the spec's
// process-group strategies, the reference evaluator running N processes
// (the spec's worked examples), and the errors of bad groups and of
// programs whose processes never meet.
#include <gtest/gtest.h>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"
#include "ops/collectives.h"
#include "ops/evaluator.h"

namespace vkxla {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

TEST(ReplicaGroups, EveryWrittenForm) {
  EXPECT_EQ(*ParseIdGroups("{}"), Groups{});
  EXPECT_EQ(*ParseIdGroups("{{0,1},{2,3}}"), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(*ParseIdGroups(" { {0, 2} , {1,3} } "), (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(*ParseIdGroups("[2,4]<=[8]"), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  // iota(8) as [4,2], transposed: column-major order.
  EXPECT_EQ(*ParseIdGroups("[2,4]<=[4,2]T(1,0)"), (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_EQ(*ParseIdGroups("[4,2]<=[2,2,2]T(2,1,0)"), (Groups{{0, 4}, {2, 6}, {1, 5}, {3, 7}}));
  EXPECT_EQ(IdGroupsText({{0, 1}, {2, 3}}), "{{0,1},{2,3}}");
  for (const char* bad : {"{{0,1}", "{0,1}}", "[2,4]<=[7]", "[2,2]<=[2,2]T(0,0)", "[2,2]<=[4]T(1,0)", "x", "{{1,99999999999999999999}}",
                          "[1048577,1]<=[1048577]"}) {
    StatusOr<Groups> g = ParseIdGroups(bad);
    ASSERT_FALSE(g.ok()) << bad;
    EXPECT_NE(g.status().message().find("replica groups"), std::string::npos) << g.status().message();
  }
}

// The op of `body` ("all-reduce(...), replica_groups=...") in a module.
std::unique_ptr<Module> Module1(const std::string& text) {
  auto m = ParseAndVerifyHlo(text);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(*m) : nullptr;
}

const Instruction& Root(const Module& m) { return *m.entry()->root(); }

std::string AllReduce(const std::string& attributes) {
  return "HloModule m\nadd { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
         "ENTRY e { x = f32[4] parameter(0)\n ROOT r = f32[4] all-reduce(x), to_apply=add" +
         attributes + " }\n";
}

TEST(ReplicaGroups, HugeListsAreCheckedInLinearishTime) {
  // 200,000 permute pairs: read and checked at once (a quadratic duplicate
  // check would take minutes); one repeated target is an error.
  std::string pairs = "{";
  for (int i = 0; i < 200000; ++i) pairs += (i ? ",{" : "{") + std::to_string(i) + "," + std::to_string(i + 1) + "}";
  const std::string text = "HloModule m\nENTRY e { x = f32[2] parameter(0)\n ROOT p = f32[2] collective-permute(x), source_target_pairs=";
  EXPECT_TRUE(ParseAndVerifyHlo(text + pairs + "} }\n").ok());
  auto repeated = ParseAndVerifyHlo(text + pairs + ",{200001,5}} }\n");
  ASSERT_FALSE(repeated.ok());
  EXPECT_NE(repeated.status().message().find("name a source or a target twice"), std::string::npos);
}

TEST(ReplicaGroups, TheSpecsStrategies) {
  // cross_replica, replica_groups [[0,1],[2,3]] on 4 replicas × 2 partitions.
  auto m = Module1(AllReduce(", replica_groups={{0,1},{2,3}}"));
  ASSERT_NE(m, nullptr);
  const ProcessGrid grid{4, 2};
  EXPECT_EQ(*ProcessGroups(Root(*m), grid), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  // cross_replica_and_partition: the partitions join each replica group.
  m = Module1(AllReduce(", replica_groups={{0,1},{2,3}}, channel_id=1"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(*GroupModeOf(Root(*m)), GroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(*ProcessGroups(Root(*m), grid), (Groups{{0, 2, 1, 3}, {4, 6, 5, 7}}));
  // flattened_ids.
  m = Module1(AllReduce(", replica_groups={{0,1,2,3},{4,5,6,7}}, channel_id=1, use_global_device_ids=true"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(*ProcessGroups(Root(*m), grid), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  // Empty groups: every replica, per partition.
  m = Module1(AllReduce(", replica_groups={}"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(*ProcessGroups(Root(*m), ProcessGrid{2, 2}), (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(*ProcessGroupOf(Root(*m), ProcessGrid{2, 2}, 3), (std::vector<int64_t>{1, 3}));
}

TEST(ReplicaGroups, BadGroupsAreClearErrors) {
  const ProcessGrid grid{4, 1};
  struct Case {
    const char* attributes;
    const char* message;
  } cases[] = {
      {", replica_groups={{0,1},{1,2,3}}", "replica 1 is in two groups"},
      {", replica_groups={{0,1},{2,4}}", "replica id 4 in replica_groups {{0,1},{2,4}} is outside 0..3"},
      {", replica_groups={{0,1},{2}}", "replica 3 is in no group"},
  };
  for (const Case& c : cases) {
    auto m = Module1(AllReduce(c.attributes));
    ASSERT_NE(m, nullptr);
    StatusOr<Groups> g = ProcessGroups(Root(*m), grid);
    ASSERT_FALSE(g.ok()) << c.attributes;
    EXPECT_NE(g.status().message().find(c.message), std::string::npos) << g.status().message();
    EXPECT_NE(g.status().message().find("all-reduce"), std::string::npos) << g.status().message();
  }
  // use_global_device_ids without a channel is rejected when the module is read.
  auto bad = ParseAndVerifyHlo(AllReduce(", replica_groups={}, use_global_device_ids=true"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("use_global_device_ids=true needs a channel_id"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(CheckProcessGrid(ProcessGrid{0, 1}).ok());
  EXPECT_FALSE(CheckProcessGrid(ProcessGrid{1 << 20, 1 << 20}).ok());
}

Literal S64s(std::vector<int64_t> dims, std::vector<int64_t> values) {
  Literal l(Shape(ElementType::kS64, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) l.Set(static_cast<int64_t>(i), Scalar::Int(ElementType::kS64, values[i]));
  return l;
}

// Runs `text` as every process of `grid` on the reference evaluator.
std::vector<Literal> RunProcesses(const std::string& text, ProcessGrid grid, std::vector<std::vector<Literal>> args) {
  auto m = Module1(text);
  if (!m) return {};
  std::vector<const Module*> modules(static_cast<size_t>(grid.processes()), m.get());
  auto r = EvaluateProcesses(modules, args, grid);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : std::vector<Literal>{};
}

TEST(CollectivesReference, TheSpecsWorkedExamples) {
  // all_gather: [[1,2],[3,4]] and [[5,6],[7,8]] along dimension 1.
  auto r = RunProcesses(
      "HloModule m, replica_count=2\nENTRY e { x = s64[2,2] parameter(0)\n"
      " ROOT g = s64[2,4] all-gather(x), dimensions={1}, replica_groups={{0,1}} }\n",
      {2, 1}, {{S64s({2, 2}, {1, 2, 3, 4})}, {S64s({2, 2}, {5, 6, 7, 8})}});
  ASSERT_EQ(r.size(), 2u);
  for (const Literal& v : r) EXPECT_TRUE(v.Equal(S64s({2, 4}, {1, 2, 5, 6, 3, 4, 7, 8}))) << v.ToString();
  // all_reduce with add: [1,2,3,4] + [5,6,7,8].
  const std::string add = "add { a = s64[] parameter(0)\n b = s64[] parameter(1)\n ROOT s = s64[] add(a, b) }\n";
  r = RunProcesses("HloModule m\n" + add + "ENTRY e { x = s64[4] parameter(0)\n ROOT r = s64[4] all-reduce(x), to_apply=add, replica_groups={{0,1}} }\n",
                   {2, 1}, {{S64s({4}, {1, 2, 3, 4})}, {S64s({4}, {5, 6, 7, 8})}});
  ASSERT_EQ(r.size(), 2u);
  for (const Literal& v : r) EXPECT_TRUE(v.Equal(S64s({4}, {6, 8, 10, 12}))) << v.ToString();
  // reduce_scatter along dimension 1 of [[1,2,3,4],[5,6,7,8]] and [[9,10,11,12],[13,14,15,16]].
  r = RunProcesses("HloModule m\n" + add +
                       "ENTRY e { x = s64[2,4] parameter(0)\n ROOT r = s64[2,2] reduce-scatter(x), to_apply=add, dimensions={1}, "
                       "replica_groups={{0,1}} }\n",
                   {2, 1}, {{S64s({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}, {S64s({2, 4}, {9, 10, 11, 12, 13, 14, 15, 16})}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[0].Equal(S64s({2, 2}, {10, 12, 18, 20}))) << r[0].ToString();
  EXPECT_TRUE(r[1].Equal(S64s({2, 2}, {14, 16, 22, 24}))) << r[1].ToString();
  // collective_permute: pairs {0->1, 1->2}; process 0 has no source, zeros.
  r = RunProcesses("HloModule m\nENTRY e { x = s64[2] parameter(0)\n ROOT p = s64[2] collective-permute(x), source_target_pairs={{0,1},{1,2}} }\n",
                   {3, 1}, {{S64s({2}, {1, 2})}, {S64s({2}, {3, 4})}, {S64s({2}, {5, 6})}});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(r[0].Equal(S64s({2}, {0, 0}))) << r[0].ToString();
  EXPECT_TRUE(r[1].Equal(S64s({2}, {1, 2}))) << r[1].ToString();
  EXPECT_TRUE(r[2].Equal(S64s({2}, {3, 4}))) << r[2].ToString();
  // all_to_all: split dimension 1 into 2, concatenate along 0.
  r = RunProcesses(
      "HloModule m\nENTRY e { x = s64[2,4] parameter(0)\n"
      " ROOT a = s64[4,2] all-to-all(x), split_dimension=1, concat_dimension=0, split_count=2, replica_groups={{0,1}} }\n",
      {2, 1}, {{S64s({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}, {S64s({2, 4}, {9, 10, 11, 12, 13, 14, 15, 16})}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[0].Equal(S64s({4, 2}, {1, 2, 5, 6, 9, 10, 13, 14}))) << r[0].ToString();
  EXPECT_TRUE(r[1].Equal(S64s({4, 2}, {3, 4, 7, 8, 11, 12, 15, 16}))) << r[1].ToString();
  // replica-id and partition-id on 2 × 2.
  r = RunProcesses("HloModule m\nENTRY e { r = u32[] replica-id()\n p = u32[] partition-id()\n ROOT t = (u32[], u32[]) tuple(r, p) }\n",
                   {2, 2}, {{}, {}, {}, {}});
  ASSERT_EQ(r.size(), 4u);
  for (int64_t p = 0; p < 4; ++p) {
    EXPECT_EQ(r[p].tuple_elements()[0].Get(0).u, static_cast<uint64_t>(p / 2));
    EXPECT_EQ(r[p].tuple_elements()[1].Get(0).u, static_cast<uint64_t>(p % 2));
  }
}

Literal S32s(std::vector<int64_t> dims, std::vector<int64_t> values) {
  Literal l(Shape(ElementType::kS32, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) l.Set(static_cast<int64_t>(i), Scalar::Int(ElementType::kS32, values[i]));
  return l;
}

TEST(CollectivesReference, RaggedAllToAllAsTheSpecShowsIt) {
  const std::string text =
      "HloModule m, replica_count=2\nENTRY e { input = s64[3] parameter(0)\n output = s64[4] parameter(1)\n"
      " io = s32[2] parameter(2)\n ss = s32[2] parameter(3)\n oo = s32[2] parameter(4)\n rs = s32[2] parameter(5)\n"
      " ROOT r = s64[4] ragged-all-to-all(input, output, io, ss, oo, rs), replica_groups={{0,1}} }\n";
  // The spec's example: replica 0 gets [1, 3, 0, 0], replica 1 [2, 2, 4, 0].
  auto r = RunProcesses(text, {2, 1},
                        {{S64s({3}, {1, 2, 2}), S64s({4}, {0, 0, 0, 0}), S32s({2}, {0, 1}), S32s({2}, {1, 2}), S32s({2}, {0, 0}),
                          S32s({2}, {1, 1})},
                         {S64s({3}, {3, 4, 0}), S64s({4}, {0, 0, 0, 0}), S32s({2}, {0, 1}), S32s({2}, {1, 1}), S32s({2}, {1, 2}),
                          S32s({2}, {2, 1})}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[0].Equal(S64s({4}, {1, 3, 0, 0}))) << r[0].ToString();
  EXPECT_TRUE(r[1].Equal(S64s({4}, {2, 2, 4, 0}))) << r[1].ToString();
  // [group, updates] offsets: two updates to each member, rows of two; the
  // output keeps what no update writes (9s).
  const std::string two =
      "HloModule m, replica_count=2\nENTRY e { input = s64[4,2] parameter(0)\n output = s64[4,2] parameter(1)\n"
      " io = s32[2,2] parameter(2)\n ss = s32[2,2] parameter(3)\n oo = s32[2,2] parameter(4)\n rs = s32[2,2] parameter(5)\n"
      " ROOT r = s64[4,2] ragged-all-to-all(input, output, io, ss, oo, rs), replica_groups={} }\n";
  const Literal nines = S64s({4, 2}, {9, 9, 9, 9, 9, 9, 9, 9});
  r = RunProcesses(two, {2, 1},
                   {{S64s({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), nines, S32s({2, 2}, {0, 1, 2, 3}), S32s({2, 2}, {1, 1, 1, 0}),
                     S32s({2, 2}, {0, 2, 0, 0}), S32s({2, 2}, {1, 1, 1, 1})},
                    {S64s({4, 2}, {10, 11, 12, 13, 14, 15, 16, 17}), nines, S32s({2, 2}, {0, 1, 2, 3}), S32s({2, 2}, {1, 0, 1, 1}),
                     S32s({2, 2}, {1, 0, 1, 3}), S32s({2, 2}, {1, 1, 1, 1})}});
  ASSERT_EQ(r.size(), 2u);
  // Replica 0: its rows 0 and 1 at 0 and 2, replica 1's row 0 at 1.
  EXPECT_TRUE(r[0].Equal(S64s({4, 2}, {0, 1, 10, 11, 2, 3, 9, 9}))) << r[0].ToString();
  // Replica 1: replica 0's row 2 at 0, its own rows 2 and 3 at 1 and 3.
  EXPECT_TRUE(r[1].Equal(S64s({4, 2}, {4, 5, 14, 15, 9, 9, 16, 17}))) << r[1].ToString();
  // A send past the output's end.
  auto m = Module1(text);
  ASSERT_NE(m, nullptr);
  auto bad = EvaluateProcesses(
      {m.get(), m.get()},
      {{S64s({3}, {1, 2, 2}), S64s({4}, {0, 0, 0, 0}), S32s({2}, {0, 1}), S32s({2}, {1, 2}), S32s({2}, {0, 3}), S32s({2}, {1, 1})},
       {S64s({3}, {3, 4, 0}), S64s({4}, {0, 0, 0, 0}), S32s({2}, {0, 1}), S32s({2}, {1, 1}), S32s({2}, {1, 2}), S32s({2}, {2, 1})}},
      {2, 1});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("process 0 sends rows [1, 1+2) of s64[3] to rows from 3 of s64[4]: out of range"),
            std::string::npos)
      << bad.status().message();
  // Offsets that are not [group] or [group, updates] integers.
  auto shape = ParseAndVerifyHlo(
      "HloModule m\nENTRY e { i = f32[3] parameter(0)\n o = f32[4] parameter(1)\n a = f32[2] parameter(2)\n"
      " ROOT r = f32[4] ragged-all-to-all(i, o, a, a, a, a) }\n");
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.status().message().find("offsets and sizes must be integer arrays"), std::string::npos) << shape.status().message();
}

TEST(CollectivesReference, LoopsMeetTripByTrip) {
  // Each trip all-reduces the counter's square: 3 trips over 2 replicas.
  const std::string text =
      "HloModule m, replica_count=2\n"
      "add { a = s64[] parameter(0)\n b = s64[] parameter(1)\n ROOT s = s64[] add(a, b) }\n"
      "cond { s = (s64[], s64[]) parameter(0)\n i = s64[] get-tuple-element(s), index=0\n n = s64[] constant(3)\n"
      " ROOT c = pred[] compare(i, n), direction=LT }\n"
      "body { s = (s64[], s64[]) parameter(0)\n i = s64[] get-tuple-element(s), index=0\n x = s64[] get-tuple-element(s), index=1\n"
      " r = s64[] all-reduce(x), to_apply=add\n one = s64[] constant(1)\n j = s64[] add(i, one)\n ROOT t = (s64[], s64[]) tuple(j, r) }\n"
      "ENTRY e { x = s64[] parameter(0)\n z = s64[] constant(0)\n t = (s64[], s64[]) tuple(z, x)\n"
      " w = (s64[], s64[]) while(t), condition=cond, body=body\n ROOT r = s64[] get-tuple-element(w), index=1 }\n";
  auto r = RunProcesses(text, {2, 1}, {{S64s({}, {1})}, {S64s({}, {2})}});
  ASSERT_EQ(r.size(), 2u);
  // 1+2 = 3, then 6, then 12.
  for (const Literal& v : r) EXPECT_EQ(v.Get(0).s, 12) << v.ToString();
}

TEST(CollectivesReference, ProcessesThatNeverMeetFailInsteadOfHanging) {
  // Replica 0 leaves the loop after one trip, replica 1 after two: its
  // second all-reduce has nobody to meet.
  const std::string text =
      "HloModule m, replica_count=2\n"
      "add { a = s64[] parameter(0)\n b = s64[] parameter(1)\n ROOT s = s64[] add(a, b) }\n"
      "cond { s = (s64[], s64[]) parameter(0)\n i = s64[] get-tuple-element(s), index=0\n r = u32[] replica-id()\n"
      " c = s64[] convert(r)\n one = s64[] constant(1)\n n = s64[] add(c, one)\n ROOT lt = pred[] compare(i, n), direction=LT }\n"
      "body { s = (s64[], s64[]) parameter(0)\n i = s64[] get-tuple-element(s), index=0\n x = s64[] get-tuple-element(s), index=1\n"
      " r = s64[] all-reduce(x), to_apply=add\n one = s64[] constant(1)\n j = s64[] add(i, one)\n ROOT t = (s64[], s64[]) tuple(j, r) }\n"
      "ENTRY e { x = s64[] parameter(0)\n z = s64[] constant(0)\n t = (s64[], s64[]) tuple(z, x)\n"
      " w = (s64[], s64[]) while(t), condition=cond, body=body\n ROOT r = s64[] get-tuple-element(w), index=1 }\n";
  auto m = Module1(text);
  ASSERT_NE(m, nullptr);
  auto r = EvaluateProcesses({m.get(), m.get()}, {{S64s({}, {1})}, {S64s({}, {2})}}, {2, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ended without reaching it"), std::string::npos) << r.status().message();
  // Two processes each waiting to receive what the other never sends.
  const std::string recv =
      "HloModule m\nENTRY e { t = token[] after-all()\n r = (s64[2], u32[], token[]) recv(t), channel_id=7\n"
      " d = (s64[2], token[]) recv-done(r), channel_id=7\n ROOT v = s64[2] get-tuple-element(d), index=0 }\n";
  auto m2 = Module1(recv);
  ASSERT_NE(m2, nullptr);
  r = EvaluateProcesses({m2.get(), m2.get()}, {{}, {}}, {2, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("deadlocked"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("recv %r (channel 7)"), std::string::npos) << r.status().message();
  // A wrong process count is an error, not a crash.
  EXPECT_FALSE(EvaluateProcesses({m2.get()}, {{}, {}}, {2, 1}).ok());
}

TEST(CollectivesReference, ShapesThatDisagreeWithTheGroupAreErrors) {
  // all-gather over 3 replicas cannot give 2× its operand.
  auto m = Module1("HloModule m\nENTRY e { x = f32[2] parameter(0)\n ROOT g = f32[4] all-gather(x), dimensions={0}, replica_groups={} }\n");
  ASSERT_NE(m, nullptr);
  Literal x(Shape(ElementType::kF32, {2}));
  auto r = EvaluateProcesses({m.get(), m.get(), m.get()}, {{x}, {x}, {x}}, {3, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("with a group of 3 processes the result is f32[6]"), std::string::npos) << r.status().message();
  // reduce-scatter whose dimension does not split over the group.
  auto bad = ParseAndVerifyHlo(
      "HloModule m\nadd { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
      "ENTRY e { x = f32[3] parameter(0)\n ROOT g = f32[1] reduce-scatter(x), to_apply=add, dimensions={0}, replica_groups={{0,1}} }\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("does not scatter f32[3]"), std::string::npos) << bad.status().message();
  // A collective on a lone process of a group of two.
  auto lone = Module1(AllReduce(", replica_groups={{0,1}}"));
  ASSERT_NE(lone, nullptr);
  auto alone = EvaluateModule(*lone, {Literal(Shape(ElementType::kF32, {4}))});
  ASSERT_FALSE(alone.ok());
  EXPECT_NE(alone.status().message().find("replica id 1"), std::string::npos) << alone.status().message();
}

TEST(RunParallel, EachProcessGetsItsProgramAndBadListsAreErrors) {
  const std::string head = R"(module @m {
  func.func @id(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  func.func @neg(%x: tensor<2xf32>) -> tensor<2xf32> {
    %n = stablehlo.negate %x : tensor<2xf32>
    return %n : tensor<2xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
)";
  const std::string good = head +
                           "    %r:4 = \"interpreter.run_parallel\"(%a, %a, %a, %a) {programs = [[@id, @neg], [@neg, @id]]} : "
                           "(tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> "
                           "(tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)\n    func.return\n  }\n}\n";
  auto program = ReadStablehlo(good, true);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_EQ(program->grid.replicas, 2);
  EXPECT_EQ(program->grid.partitions, 2);
  ASSERT_EQ(program->processes.size(), 4u);
  std::vector<const Module*> modules;
  for (const auto& m : program->processes) modules.push_back(m.get());
  auto r = EvaluateProcesses(modules, {{}, {}, {}, {}}, program->grid);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Processes (0,0) and (1,1) run @id, (0,1) and (1,0) @neg.
  EXPECT_EQ((*r)[0].tuple_elements()[0].Get(1).re, 2.0);
  EXPECT_EQ((*r)[1].tuple_elements()[0].Get(1).re, -2.0);
  EXPECT_EQ((*r)[2].tuple_elements()[0].Get(0).re, -1.0);
  EXPECT_EQ((*r)[3].tuple_elements()[0].Get(0).re, 1.0);
  // Replicas with different numbers of partitions.
  const std::string uneven = head +
                             "    %r:4 = \"interpreter.run_parallel\"(%a, %a, %a, %a) {programs = [[@id], [@neg, @id, @id]]} : "
                             "(tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> "
                             "(tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)\n    func.return\n  }\n}\n";
  auto bad = ReadStablehlo(uneven, true);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("the same number of partitions each"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace vkxla
