// Replicated runs on the device: one executable per process on the test
// device (the processes share its queue), and on two devices (a second
// Device opened on the same GPU), each compared with the reference
// evaluator's processes: every collective over every element type and two
// layouts, replica groups in each strategy, permutations with missing
// sources, loops, and the errors of processes that never meet.
#include <gtest/gtest.h>

#include <random>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"
#include "ops/evaluator.h"
#include "runtime/device_collectives.h"
#include "runtime/replicated_executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class Collectives : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseAndVerifyHlo(text);
  EXPECT_TRUE(m.ok()) << m.status().ToString() << "\n" << text;
  return m.ok() ? std::move(*m) : nullptr;
}

// Random arguments for each process of `grid`.
std::vector<std::vector<Literal>> RandomArguments(const Module& m, ProcessGrid grid, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<Literal>> args(static_cast<size_t>(grid.processes()));
  for (auto& a : args)
    for (const Instruction* p : m.entry()->parameters()) a.push_back(RandomLiteral(p->shape, rng, Opcode::kAdd));
  return args;
}

// Runs `m` as every process of `grid` on `devices` and on the reference;
// expects the same values from each process.
void ExpectReplicatedMatchesReference(const Module& m, ProcessGrid grid, const std::vector<Device*>& devices, uint64_t seed,
                                      const std::string& what, std::unique_ptr<ReplicatedExecutable>* kept = nullptr) {
  const std::vector<std::vector<Literal>> args = RandomArguments(m, grid, seed);
  std::vector<const Module*> modules(static_cast<size_t>(grid.processes()), &m);
  auto want = EvaluateProcesses(modules, args, grid);
  ASSERT_TRUE(want.ok()) << what << ": " << want.status().ToString();
  auto exe = ReplicatedExecutable::Compile(m, devices, grid);
  ASSERT_TRUE(exe.ok()) << what << ": " << exe.status().ToString();
  auto got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
  ASSERT_EQ(got->size(), want->size());
  for (size_t p = 0; p < got->size(); ++p) ExpectClose((*got)[p], (*want)[p], Opcode::kCopy, what + " process " + std::to_string(p));
  if (kept) *kept = std::move(*exe);
}

// How many collectives each process of `exe`'s last run ran on the device.
std::vector<int64_t> OnDeviceRuns(ReplicatedExecutable& exe) {
  std::vector<int64_t> folds;
  for (int64_t p = 0; p < exe.grid().processes(); ++p) folds.push_back(exe.process(p).last_run_device_collectives());
  return folds;
}

std::string TypeName(ElementType t) {
  const std::string s = Shape::Scalar(t).ToString();
  return s.substr(0, s.find('['));
}

// One collective over operand `x` of type t (layout `layout`), as HLO text.
std::string CollectiveModule(const std::string& op, ElementType t, const std::string& layout) {
  const std::string ty = TypeName(t);
  const std::string combine = t == ElementType::kPred ? "or" : "add";
  const std::string reducer = "sum { a = " + ty + "[] parameter(0)\n b = " + ty + "[] parameter(1)\n ROOT s = " + ty + "[] " +
                              combine + "(a, b) }\n";
  std::string root;
  if (op == "all-reduce") {
    root = ty + "[4,6]" + layout + " all-reduce(x), to_apply=sum, replica_groups={{0,1},{2,3}}";
  } else if (op == "all-gather") {
    root = ty + "[4,12]" + layout + " all-gather(x), dimensions={1}, replica_groups={{0,2},{1,3}}";
  } else if (op == "reduce-scatter") {
    root = ty + "[2,6]" + layout + " reduce-scatter(x), to_apply=sum, dimensions={0}, replica_groups=[2,2]<=[4]";
  } else if (op == "all-to-all") {
    root = ty + "[4,6]" + layout + " all-to-all(x), dimensions={0}, replica_groups=[1,4]<=[4]";
  } else if (op == "collective-permute") {
    root = ty + "[4,6]" + layout + " collective-permute(x), source_target_pairs={{0,1},{1,2},{2,0}}";
  } else {
    root = ty + "[4,6]" + layout + " collective-broadcast(x), replica_groups={{3,0,1,2}}";
  }
  return "HloModule m, replica_count=4\n" + reducer + "ENTRY e { x = " + ty + "[4,6]" + layout + " parameter(0)\n ROOT r = " +
         root + " }\n";
}

TEST_F(Collectives, EveryOpEveryTypeTwoLayoutsMatchTheReference) {
  uint64_t seed = 1;
  for (const char* op : {"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute", "collective-broadcast"})
    for (ElementType t : kAllTypes) {
      for (const char* layout : {"{1,0}", "{0,1}"}) {
        const std::string what = std::string(op) + " " + TypeName(t) + layout;
        auto m = Parse(CollectiveModule(op, t, layout));
        ASSERT_NE(m, nullptr) << what;
        std::unique_ptr<ReplicatedExecutable> exe;
        ExpectReplicatedMatchesReference(*m, ProcessGrid{4, 1}, {&TestDevice()}, seed++, what, &exe);
        ASSERT_NE(exe, nullptr) << what;
        // What only moves elements is copied between the members' buffers
        // on the device they share (a permutation's target nobody sends to
        // filled with zeros there); reductions other than plain sums go
        // through host memory.
        if (MovesElementsOnly(*m->entry()->root())) {
          EXPECT_EQ(OnDeviceRuns(*exe), std::vector<int64_t>(4, 1)) << what;
        }
        if (std::string(op) == "reduce-scatter") {
          // Plain sums of natively computed types fold their blocks on the
          // device where each block is a run of whole 16-byte words (the
          // scattered dimension major-most: {1,0}).
          const TargetFeatures& target = TestDevice().target();
          const bool native = t == ElementType::kF64 ? target.float64 && !target.float64_pairs
                              : (t == ElementType::kS64 || t == ElementType::kU64) ? target.int64 : true;
          const bool whole_words = 12 * BitWidth(t) / 8 % 16 == 0;  // a member's block of f32[2,6]-like elements
          const int64_t runs = ScattersFold(*m->entry()->root()) && native && whole_words && std::string(layout) == "{1,0}" ? 1 : 0;
          EXPECT_EQ(OnDeviceRuns(*exe), std::vector<int64_t>(4, runs)) << what;
        }
      }
    }
}

TEST_F(Collectives, RaggedAllToAllEveryTypeTwoLayouts) {
  // 3 replicas: sender i puts its row j at row i of member j's output (the
  // offsets come from replica-id), over rows of 2x2 elements.
  uint64_t seed = 100;
  for (ElementType t : kAllTypes)
    for (const char* layout : {"{2,1,0}", "{0,1,2}"}) {
      const std::string ty = TypeName(t);
      const std::string text =
          "HloModule m, replica_count=3\nENTRY e { input = " + ty + "[3,2,2]" + layout + " parameter(0)\n output = " + ty +
          "[4,2,2]" + layout + " parameter(1)\n io = s32[3] iota(), iota_dimension=0\n one = s32[] constant(1)\n"
          " ss = s32[3] broadcast(one), dimensions={}\n r = u32[] replica-id()\n rs = s32[] convert(r)\n"
          " oo = s32[3] broadcast(rs), dimensions={}\n"
          " ROOT a = " + ty + "[4,2,2]" + layout + " ragged-all-to-all(input, output, io, ss, oo, ss), replica_groups={{0,1,2}} }\n";
      auto m = Parse(text);
      ASSERT_NE(m, nullptr) << ty;
      ExpectReplicatedMatchesReference(*m, ProcessGrid{3, 1}, {&TestDevice()}, seed++, "ragged-all-to-all " + ty + layout);
    }
}

TEST_F(Collectives, PartitionsAndTheirGroupStrategies) {
  // 2 replicas × 2 partitions: cross_replica, cross_replica_and_partition,
  // flattened ids and a cross-partition permute, with work before and after.
  const std::string text =
      "HloModule m, replica_count=2, num_partitions=2\n"
      "sum { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
      "ENTRY e { x = f32[8] parameter(0)\n y = f32[8] multiply(x, x)\n"
      " a = f32[8] all-reduce(y), to_apply=sum, replica_groups={}\n"
      " b = f32[8] all-reduce(a), to_apply=sum, replica_groups={{0,1}}, channel_id=1\n"
      " c = f32[16] all-gather(b), dimensions={0}, replica_groups={{0,3},{1,2}}, channel_id=2, use_global_device_ids=true\n"
      " d = f32[16] collective-permute(c), source_target_pairs={{1,0}}, channel_id=3\n"
      " r = u32[] replica-id()\n p = u32[] partition-id()\n"
      " rf = f32[] convert(r)\n pf = f32[] convert(p)\n ten = f32[] constant(10)\n id = f32[] multiply(rf, ten)\n"
      " i = f32[] add(id, pf)\n ib = f32[16] broadcast(i), dimensions={}\n ROOT o = f32[16] add(d, ib) }\n";
  auto m = Parse(text);
  ASSERT_NE(m, nullptr);
  ExpectReplicatedMatchesReference(*m, ProcessGrid{2, 2}, {&TestDevice()}, 7, "2x2 grid");
}

TEST_F(Collectives, AllReducesFoldedInPlaceMatchTheReference) {
  // Sums and products the members fold from each other's host buffers
  // (ProcessTransport::AllReduceInPlace): a tuple all-reduce, operands of
  // other types, dense and tiled or permuted layouts (those go through
  // dense copies), uneven shares (7 elements over 3 members), groups.
  uint64_t seed = 300;
  for (const char* combine : {"add", "multiply"})
    for (const char* layouts : {"{1,0}|{0}", "{0,1}|{0}", "{1,0:T(2,2)}|{0:T(4)}"}) {
      const std::string l = layouts, m2 = l.substr(0, l.find('|')), m1 = l.substr(l.find('|') + 1);
      const std::string c = combine;
      const std::string text =
          "HloModule m, replica_count=3\n"
          "fs { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] " + c + "(a, b) }\n"
          "is { a = s64[] parameter(0)\n b = s64[] parameter(1)\n ROOT s = s64[] " + c + "(a, b) }\n"
          "us { a = u32[] parameter(0)\n b = u32[] parameter(1)\n ROOT s = u32[] " + c + "(a, b) }\n"
          "ENTRY e { x = f32[5,3]" + m2 + " parameter(0)\n y = s64[7]" + m1 + " parameter(1)\n z = u32[4,2]" + m2 +
          " parameter(2)\n w = f32[2] parameter(3)\n"
          " at = (f32[5,3]" + m2 + ", f32[2]) all-reduce(x, w), to_apply=fs\n"
          " a = f32[5,3]" + m2 + " get-tuple-element(at), index=0\n v = f32[2] get-tuple-element(at), index=1\n"
          " b = s64[7]" + m1 + " all-reduce(y), to_apply=is, replica_groups={{2,0},{1}}\n"
          " d = u32[4,2]" + m2 + " all-reduce(z), to_apply=us, replica_groups={{1,2,0}}\n"
          " ROOT t = (f32[5,3]" + m2 + ", s64[7]" + m1 + ", u32[4,2]" + m2 + ", f32[2]) tuple(a, b, d, v) }\n";
      auto m = Parse(text);
      ASSERT_NE(m, nullptr) << text;
      ExpectReplicatedMatchesReference(*m, ProcessGrid{3, 1}, {&TestDevice()}, seed++, c + " " + layouts);
    }
}

TEST_F(Collectives, AllReducesFoldOnTheDeviceTheirMembersShare) {
  // Members on one device fold sums and products there, each a share of
  // every member's operand into every member's result, bit for bit the
  // reference's folds in group order: leaves of every natively folded type
  // (s64 and f64 where the device computes them; f16 and bf16 rounded at
  // every step, as the reference rounds), an even and an odd
  // number of 16-byte words, a tiled layout, groups; a max goes through
  // host memory.
  const TargetFeatures& target = TestDevice().target();
  const bool wide = target.int64 && target.float64 && !target.float64_pairs;
  uint64_t seed = 500;
  for (const char* combine : {"add", "multiply"})
    for (const char* layout : {"{1,0}", "{1,0:T(2,4)}"}) {
      const std::string c = combine, l = layout;
      std::string reducers, leaves, shapes;
      std::vector<std::string> types{"f32", "s32", "u32", "f16", "bf16"};
      if (wide) types.insert(types.end(), {"f64", "s64", "u64"});
      std::string entry = "ENTRY e {\n";
      for (size_t i = 0; i < types.size(); ++i) {
        const std::string& t = types[i];
        const std::string dims = i % 2 ? "[3,3]" : "[64,8]";  // an odd number of 16-byte words, or whole pairs
        reducers += t + "_" + c + " { a = " + t + "[] parameter(0)\n b = " + t + "[] parameter(1)\n ROOT s = " + t + "[] " + c +
                    "(a, b) }\n";
        entry += " x" + std::to_string(i) + " = " + t + dims + l + " parameter(" + std::to_string(i) + ")\n";
        entry += " r" + std::to_string(i) + " = " + t + dims + l + " all-reduce(x" + std::to_string(i) + "), to_apply=" + t + "_" +
                 c + (i == 1 ? ", replica_groups={{3,1},{0,2}}" : "") + "\n";
        leaves += std::string(i ? ", " : "") + "r" + std::to_string(i);
        shapes += std::string(i ? ", " : "") + t + dims + l;
      }
      entry += " m = f32[64,8]" + l + " all-reduce(x0), to_apply=f32_max\n";
      reducers += "f32_max { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] maximum(a, b) }\n";
      entry += " ROOT t = (" + shapes + ", f32[64,8]" + l + ") tuple(" + leaves + ", m)\n}\n";
      auto m = Parse("HloModule m, replica_count=4\n" + reducers + entry);
      ASSERT_NE(m, nullptr);
      std::unique_ptr<ReplicatedExecutable> exe;
      ExpectReplicatedMatchesReference(*m, ProcessGrid{4, 1}, {&TestDevice()}, seed++, c + " " + l, &exe);
      ASSERT_NE(exe, nullptr);
      EXPECT_EQ(OnDeviceRuns(*exe), std::vector<int64_t>(4, static_cast<int64_t>(types.size()))) << c << " " << l;
    }
}

TEST_F(Collectives, ReduceScattersFoldTheirBlocksOnTheDevice) {
  // Each member folds its block of every member's operand into its result:
  // blocks of two words (f32[8,4] over 4 members), of one word, a tuple of
  // two leaves in groups of two; blocks that are no whole number of 16-byte words
  // (f32[4,3]: 12 bytes each) go through host memory.
  const TargetFeatures& target = TestDevice().target();
  std::vector<std::string> types{"f32", "s32", "u32", "f16", "bf16"};
  if (target.int64 && target.float64 && !target.float64_pairs) types.insert(types.end(), {"f64", "s64", "u64"});
  uint64_t seed = 700;
  for (const std::string& t : types)
    for (const char* combine : {"add", "multiply"}) {
      const std::string c = combine;
      const std::string text = "HloModule m, replica_count=4\n" + t + "_" + c + " { a = " + t + "[] parameter(0)\n b = " + t +
                               "[] parameter(1)\n ROOT s = " + t + "[] " + c + "(a, b) }\n"
                               "ENTRY e { x = " + t + "[8,4] parameter(0)\n y = " + t + "[4,4] parameter(1)\n z = " + t +
                               "[4,3] parameter(2)\n"
                               " a = " + t + "[2,4] reduce-scatter(x), dimensions={0}, to_apply=" + t + "_" + c + "\n"
                               " b = (" + t + "[4,4], " + t + "[2,4]) reduce-scatter(x, y), dimensions={0}, replica_groups={{3,1},{0,2}},"
                               " to_apply=" + t + "_" + c + "\n"
                               " b0 = " + t + "[4,4] get-tuple-element(b), index=0\n b1 = " + t + "[2,4] get-tuple-element(b), index=1\n"
                               " d = " + t + "[1,4] reduce-scatter(y), dimensions={0}, to_apply=" + t + "_" + c + "\n"
                               " h = " + t + "[1,3] reduce-scatter(z), dimensions={0}, to_apply=" + t + "_" + c + "\n"
                               " ROOT r = (" + t + "[2,4], " + t + "[4,4], " + t + "[2,4], " + t + "[1,4], " + t + "[1,3]) tuple(a, b0, b1, d, h) }\n";
      auto m = Parse(text);
      ASSERT_NE(m, nullptr) << text;
      std::unique_ptr<ReplicatedExecutable> exe;
      ExpectReplicatedMatchesReference(*m, ProcessGrid{4, 1}, {&TestDevice()}, seed++, t + " " + c, &exe);
      ASSERT_NE(exe, nullptr);
      // a, b and d (16-bit: a and b, d's blocks being 8 bytes); h through the host.
      const int64_t runs = t == "f16" || t == "bf16" ? 2 : 3;
      EXPECT_EQ(OnDeviceRuns(*exe), std::vector<int64_t>(4, runs)) << t << " " << c;
    }
}

TEST_F(Collectives, TheDeviceFoldIsRefusedWhereItCannotBindOrCompute) {
  // What every member decides from the same list: one device, leaves
  // alike, each within one binding, at most 8 members, types computed
  // natively; otherwise the members stage through host memory.
  auto m = Parse("HloModule m, replica_count=2\n"
                 "fs { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
                 "is { a = s64[] parameter(0)\n b = s64[] parameter(1)\n ROOT s = s64[] multiply(a, b) }\n"
                 "ENTRY e { x = f32[64] parameter(0)\n y = s64[64] parameter(1)\n"
                 " r = f32[64] all-reduce(x), to_apply=fs\n q = s64[64] all-reduce(y), to_apply=is\n"
                 " ROOT t = (f32[64], s64[64]) tuple(r, q) }\n");
  ASSERT_NE(m, nullptr);
  const Instruction* f32_sum = m->entry()->Find("r");
  const Instruction* s64_product = m->entry()->Find("q");
  ASSERT_NE(f32_sum, nullptr);
  ASSERT_NE(s64_product, nullptr);
  TargetFeatures target;
  target.int64 = true;
  target.max_storage_buffer_range = 1024;
  int device_a = 0, device_b = 0;  // stand-ins: only their addresses are compared
  const auto* a = reinterpret_cast<const Device*>(&device_a);
  const auto* b = reinterpret_cast<const Device*>(&device_b);
  auto member = [](const Device* d, uint64_t bytes) {
    return DeviceMember{d, {BufferSlice{VK_NULL_HANDLE, 0, bytes}}, {BufferSlice{VK_NULL_HANDLE, bytes, bytes}}};
  };
  const DeviceMember one = member(a, 256), other = member(a, 256), elsewhere = member(b, 256), longer = member(a, 512),
                         wide = member(a, 2048);
  EXPECT_TRUE(CanFoldOnDevice(*f32_sum, target, {&one, &other}));
  EXPECT_TRUE(CanFoldOnDevice(*s64_product, target, {&one, &other}));
  EXPECT_FALSE(CanFoldOnDevice(*f32_sum, target, {&one, &elsewhere}));  // two devices
  EXPECT_FALSE(CanFoldOnDevice(*f32_sum, target, {&one, &longer}));     // leaves that differ
  EXPECT_FALSE(CanFoldOnDevice(*f32_sum, target, {&wide, &wide}));      // past one binding's range
  EXPECT_TRUE(CanFoldOnDevice(*f32_sum, target, std::vector<const DeviceMember*>(8, &one)));
  EXPECT_FALSE(CanFoldOnDevice(*f32_sum, target, std::vector<const DeviceMember*>(9, &one)));  // 18 bindings
  target.int64 = false;  // emulated 64-bit integers fold on the host
  EXPECT_FALSE(CanFoldOnDevice(*s64_product, target, {&one, &other}));
  EXPECT_TRUE(CanFoldOnDevice(*f32_sum, target, {&one, &other}));
}

TEST_F(Collectives, GroupsTooLargeToBindAllReduceThroughHostMemory) {
  // Nine members would bind 18 buffers: they stage through host memory.
  auto m = Parse("HloModule m, replica_count=9\nsum { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
                 "ENTRY e { x = f32[33] parameter(0)\n ROOT r = f32[33] all-reduce(x), to_apply=sum }\n");
  ASSERT_NE(m, nullptr);
  std::unique_ptr<ReplicatedExecutable> exe;
  ExpectReplicatedMatchesReference(*m, ProcessGrid{9, 1}, {&TestDevice()}, 21, "9 members", &exe);
  ASSERT_NE(exe, nullptr);
  EXPECT_EQ(OnDeviceRuns(*exe), std::vector<int64_t>(9, 0));
}

TEST_F(Collectives, TwoDevicesGiveTheSameAnswers) {
  // A second device opened on the same GPU (lavapipe opens twice): the
  // processes alternate between the two.
  auto second = Device::Open();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  auto m = Parse(CollectiveModule("all-reduce", ElementType::kF32, "{1,0}"));
  ASSERT_NE(m, nullptr);
  std::unique_ptr<ReplicatedExecutable> exe;
  ExpectReplicatedMatchesReference(*m, ProcessGrid{4, 1}, {&TestDevice(), second->get()}, 11, "all-reduce on two devices", &exe);
  ASSERT_NE(exe, nullptr);
  EXPECT_EQ(OnDeviceRuns(*exe), std::vector<int64_t>(4, 0));  // members on two devices stage through host memory
  m = Parse(CollectiveModule("all-to-all", ElementType::kS32, "{0,1}"));
  ASSERT_NE(m, nullptr);
  ExpectReplicatedMatchesReference(*m, ProcessGrid{4, 1}, {&TestDevice(), second->get()}, 12, "all-to-all on two devices");
}

TEST_F(Collectives, CollectivesInsideALoopMeetTripByTrip) {
  const std::string text =
      "HloModule m, replica_count=3\n"
      "sum { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
      "cond { s = (s32[], f32[5]) parameter(0)\n i = s32[] get-tuple-element(s), index=0\n n = s32[] constant(4)\n"
      " ROOT c = pred[] compare(i, n), direction=LT }\n"
      "body { s = (s32[], f32[5]) parameter(0)\n i = s32[] get-tuple-element(s), index=0\n x = f32[5] get-tuple-element(s), index=1\n"
      " h = f32[] constant(0.25)\n hb = f32[5] broadcast(h), dimensions={}\n y = f32[5] multiply(x, hb)\n"
      " r = f32[5] all-reduce(y), to_apply=sum\n one = s32[] constant(1)\n j = s32[] add(i, one)\n ROOT t = (s32[], f32[5]) tuple(j, r) }\n"
      "ENTRY e { x = f32[5] parameter(0)\n z = s32[] constant(0)\n t = (s32[], f32[5]) tuple(z, x)\n"
      " w = (s32[], f32[5]) while(t), condition=cond, body=body\n ROOT r = f32[5] get-tuple-element(w), index=1 }\n";
  auto m = Parse(text);
  ASSERT_NE(m, nullptr);
  ExpectReplicatedMatchesReference(*m, ProcessGrid{3, 1}, {&TestDevice()}, 5, "loop");
}

TEST_F(Collectives, ProcessesThatNeverMeetFailInsteadOfHanging) {
  // Only replica 0 reaches the all-reduce (a conditional on replica-id).
  const std::string text =
      "HloModule m, replica_count=2\n"
      "sum { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
      "yes { x = f32[3] parameter(0)\n ROOT r = f32[3] all-reduce(x), to_apply=sum }\n"
      "no { ROOT x = f32[3] parameter(0) }\n"
      "ENTRY e { x = f32[3] parameter(0)\n r = u32[] replica-id()\n z = u32[] constant(0)\n"
      " c = pred[] compare(r, z), direction=EQ\n ROOT o = f32[3] conditional(c, x, x), true_computation=yes, false_computation=no }\n";
  auto m = Parse(text);
  ASSERT_NE(m, nullptr);
  auto exe = ReplicatedExecutable::Compile(*m, {&TestDevice()}, ProcessGrid{2, 1});
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  Literal x(Shape(ElementType::kF32, {3}));
  auto r = (*exe)->Run({{x}, {x}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kAborted);
  EXPECT_NE(r.status().message().find("process 0 waits at all-reduce %r"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("ended without reaching it"), std::string::npos) << r.status().message();
  // The executable runs again afterwards, with a fresh rendezvous.
  EXPECT_FALSE((*exe)->Run({{x}, {x}}).ok());
  EXPECT_FALSE((*exe)->Run({{x}}).ok());  // one argument list for two processes
}

TEST_F(Collectives, AsyncPairsOfScheduledDumpsRunAsTheirCollectives) {
  // What XLA's scheduled dumps write: -start/-done pairs and async-start
  // around a called reduce-scatter.
  const std::string text =
      "HloModule jit_step, is_scheduled=true, replica_count=2\n"
      "%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\n"
      "%wrapped (p: f32[8]) -> f32[4] {\n  %p = f32[8]{0} parameter(0)\n"
      "  ROOT %rs = f32[4]{0} reduce-scatter(%p), replica_groups={{0,1}}, dimensions={0}, to_apply=%add\n}\n"
      "ENTRY %main (a: f32[8]) -> (f32[8], f32[16], f32[8], f32[4]) {\n  %a = f32[8]{0} parameter(0)\n"
      "  %ars = f32[8]{0} all-reduce-start(%a), replica_groups={{0,1}}, to_apply=%add\n"
      "  %ard = f32[8]{0} all-reduce-done(%ars)\n"
      "  %ags = (f32[8]{0}, f32[16]{0}) all-gather-start(%ard), replica_groups={{0,1}}, dimensions={0}\n"
      "  %agd = f32[16]{0} all-gather-done(%ags)\n"
      "  %cps = (f32[8]{0}, f32[8]{0}, u32[], u32[]) collective-permute-start(%a), source_target_pairs={{0,1},{1,0}}\n"
      "  %cpd = f32[8]{0} collective-permute-done(%cps)\n"
      "  %rss = ((f32[8]{0}), f32[4]{0}) async-start(%a), calls=%wrapped\n"
      "  %rsd = f32[4]{0} async-done(%rss)\n"
      "  ROOT %t = (f32[8]{0}, f32[16]{0}, f32[8]{0}, f32[4]{0}) tuple(%ard, %agd, %cpd, %rsd)\n}\n";
  auto m = Parse(text);
  ASSERT_NE(m, nullptr);
  ExpectReplicatedMatchesReference(*m, ProcessGrid{2, 1}, {&TestDevice()}, 21, "async pairs");
  auto exe = ReplicatedExecutable::Compile(*m, {&TestDevice()}, ProcessGrid{2, 1});
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  Literal a(Shape(ElementType::kF32, {8})), b(Shape(ElementType::kF32, {8}));
  for (int64_t i = 0; i < 8; ++i) {
    a.Set(i, Scalar::Float(ElementType::kF32, static_cast<double>(i + 1)));
    b.Set(i, Scalar::Float(ElementType::kF32, 10.0 * (i + 1)));
  }
  auto got = (*exe)->Run({{a}, {b}});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const auto& r0 = (*got)[0].tuple_elements();
  const auto& r1 = (*got)[1].tuple_elements();
  EXPECT_EQ(r0[0].Get(7).re, 88.0);   // all-reduce
  EXPECT_EQ(r1[1].Get(15).re, 88.0);  // all-gather of it
  EXPECT_EQ(r0[2].Get(0).re, 10.0);   // permuted from replica 1
  EXPECT_EQ(r1[3].Get(0).re, 55.0);   // replica 1's quarter of the scattered sum
  // A start may only be read by its done.
  auto bad = ParseAndVerifyHlo(
      "HloModule m\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(%x, %y)\n}\nENTRY %e {\n  %a = f32[8] parameter(0)\n"
      "  %ars = f32[8] all-reduce-start(%a), to_apply=%add\n  ROOT %n = f32[8] negate(%ars)\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("negate %n"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("which only its done may read"), std::string::npos) << bad.status().message();
}

TEST_F(Collectives, SendsAndReceivesFollowTheirSourceTargetPairs) {
  // A pipeline: replica i hands its value to i + 1 on one channel; replica
  // 0 is no target and receives zeros. Without pairs, a channel is shared.
  const std::string pairs = "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,2}}\"}";
  const std::string text =
      "HloModule pipeline, replica_count=3\nENTRY e {\n  x = f32[2] parameter(0)\n  t = token[] after-all()\n"
      "  s = (f32[2], u32[], token[]) send(x, t), channel_id=5, " + pairs + "\n"
      "  sd = token[] send-done(s), channel_id=5, " + pairs + "\n"
      "  r = (f32[2], u32[], token[]) recv(t), channel_id=5, " + pairs + "\n"
      "  rd = (f32[2], token[]) recv-done(r), channel_id=5, " + pairs + "\n"
      "  ROOT v = f32[2] get-tuple-element(rd), index=0\n}\n";
  auto m = Parse(text);
  ASSERT_NE(m, nullptr);
  ExpectReplicatedMatchesReference(*m, ProcessGrid{3, 1}, {&TestDevice()}, 31, "pipeline");
  auto exe = ReplicatedExecutable::Compile(*m, {&TestDevice()}, ProcessGrid{3, 1});
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  std::vector<std::vector<Literal>> args;
  for (int p = 0; p < 3; ++p) {
    Literal x(Shape(ElementType::kF32, {2}));
    x.Set(0, Scalar::Float(ElementType::kF32, 10.0 * (p + 1)));
    x.Set(1, Scalar::Float(ElementType::kF32, -1.0 * (p + 1)));
    args.push_back({std::move(x)});
  }
  auto got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)[0].Get(0).re, 0.0);
  EXPECT_EQ((*got)[1].Get(0).re, 10.0);
  EXPECT_EQ((*got)[2].Get(1).re, -2.0);
  // Bad pairs are errors naming them.
  auto bad = Parse("HloModule m, replica_count=2\nENTRY e {\n  t = token[] after-all()\n"
                   "  r = (f32[2], u32[], token[]) recv(t), channel_id=5, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0}}\"}\n"
                   "  rd = (f32[2], token[]) recv-done(r), channel_id=5\n  ROOT v = f32[2] get-tuple-element(rd), index=0\n}\n");
  ASSERT_NE(bad, nullptr);
  auto bad_exe = ReplicatedExecutable::Compile(*bad, {&TestDevice()}, ProcessGrid{2, 1});
  ASSERT_TRUE(bad_exe.ok()) << bad_exe.status().ToString();
  auto r = (*bad_exe)->Run({{}, {}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("_xla_send_recv_source_target_pairs must be pairs"), std::string::npos) << r.status().message();
}

TEST_F(Collectives, JaxPmapAndPartitionedExportsRunAsTheirProcesses) {
  // What jax.jit of a pmap'd psum writes (4 replicas), and an all_reduce
  // over 4 partitions with flattened ids; a global program that only
  // carries mhlo.num_partitions (no op meets across partitions) runs whole.
  const std::string all_reduce =
      R"(    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>EXTRA}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<3xf32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
)";
  auto module_text = [&](const std::string& grid, const std::string& extra, bool collective) {
    std::string body = collective ? all_reduce : "    %0 = stablehlo.negate %arg0 : tensor<3xf32>\n    return %0 : tensor<3xf32>\n  }\n}\n";
    const size_t at = body.find("EXTRA");
    if (at != std::string::npos) body.replace(at, 5, extra);
    return "module @jit_f attributes {" + grid +
           "} {\n  func.func public @main(%arg0: tensor<3xf32> {mhlo.layout_mode = \"default\"}) -> (tensor<3xf32> "
           "{jax.result_info = \"\"}) {\n" + body;
  };
  struct Case {
    std::string text;
    int64_t replicas, partitions;
  } cases[] = {
      {module_text("mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32", "", true), 4, 1},
      {module_text("mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32", ", use_global_device_ids", true), 1, 4},
      {module_text("mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32", "", false), 1, 1},
  };
  for (const Case& c : cases) {
    auto program = ReadStablehlo(c.text, false);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    EXPECT_EQ(program->module->replica_count(), c.replicas);
    EXPECT_EQ(program->module->num_partitions(), c.partitions);
    const ProcessGrid grid{c.replicas, c.partitions};
    ExpectReplicatedMatchesReference(*program->module, grid, {&TestDevice()}, 41, "JAX export " + grid.ToString());
  }
}

TEST_F(Collectives, StablehloRunParallelOnTheDevice) {
  // The interpreter's harness: two programs meet at an all_gather.
  const std::string text = R"(module @m {
  func.func @gather(%x: tensor<2xf32>) -> tensor<4xf32> {
    %r = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@gather], [@gather]]} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    check.expect_eq_const %r#0, dense<[3.0, 4.0, 1.0, 2.0]> : tensor<4xf32>
    func.return
  }
})";
  auto program = ReadStablehlo(text, true);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  ASSERT_EQ(program->processes.size(), 2u);
  EXPECT_EQ(program->grid.replicas, 2);
  std::vector<const Module*> modules{program->processes[0].get(), program->processes[1].get()};
  auto exe = ReplicatedExecutable::Compile(modules, {&TestDevice()}, program->grid);
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto got = (*exe)->Run({{}, {}});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (const Literal& r : *got) {
    const Literal& v = r.tuple_elements()[0];
    EXPECT_EQ(v.Get(0).re, 3.0);
    EXPECT_EQ(v.Get(3).re, 2.0);
  }
}

}  // namespace
}  // namespace vkxla
