// The plan layer without a device: which kernels a module becomes on
// canned targets (lavapipe, a desktop GPU, a phone), what each fuses, where
// buffers live and share memory, where barriers go, and how long loops are
// cut to fit a driver's limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <set>

#include "frontends/hlo_text.h"
#include "plan/barriers.h"
#include "ir/hlo_parser.h"
#include "ops/convolution.h"
#include "plan/buffer_assignment.h"
#include "plan/conv_expansion.h"
#include "plan/fusion.h"
#include "plan/matmul_config.h"
#include "plan/memory_report.h"
#include "plan/submission_split.h"
#include "plan/planner.h"
#include "plan/target_profiles.h"

namespace vkxla {
namespace {

const char* kAdd = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\n";
const char* kAddS32 = "add {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT r = s32[] add(a, b)\n}\n";
const char* kMax = "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] maximum(a, b)\n}\n";

const char* kSoftmax = R"(
ENTRY main {
  x = f32[256,512] parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[256] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[256,512] broadcast(mx), dimensions={0}
  d = f32[256,512] subtract(x, mb)
  e = f32[256,512] exponential(d)
  z = f32[] constant(0)
  s = f32[256] reduce(e, z), dimensions={1}, to_apply=add
  sb = f32[256,512] broadcast(s), dimensions={0}
  ROOT y = f32[256,512] divide(e, sb)
})";

const char* kLayerNorm = R"(
ENTRY main {
  x = f32[256,512] parameter(0)
  g = f32[512] parameter(1)
  b = f32[512] parameter(2)
  z = f32[] constant(0)
  inv = f32[] constant(0.001953125)
  invb = f32[256] broadcast(inv), dimensions={}
  s = f32[256] reduce(x, z), dimensions={1}, to_apply=add
  mean = f32[256] multiply(s, invb)
  mb = f32[256,512] broadcast(mean), dimensions={0}
  c = f32[256,512] subtract(x, mb)
  c2 = f32[256,512] multiply(c, c)
  ss = f32[256] reduce(c2, z), dimensions={1}, to_apply=add
  var = f32[256] multiply(ss, invb)
  eps = f32[] constant(1e-05)
  epsb = f32[256] broadcast(eps), dimensions={}
  ve = f32[256] add(var, epsb)
  r = f32[256] rsqrt(ve)
  rb = f32[256,512] broadcast(r), dimensions={0}
  nrm = f32[256,512] multiply(c, rb)
  gb = f32[256,512] broadcast(g), dimensions={1}
  bb = f32[256,512] broadcast(b), dimensions={1}
  sc = f32[256,512] multiply(nrm, gb)
  ROOT y = f32[256,512] add(sc, bb)
})";

std::unique_ptr<Module> Parse(const std::string& computations, const std::string& entry) {
  auto m = ParseAndVerifyHlo("HloModule m\n\n" + computations + entry);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(*m) : nullptr;
}

struct Planned {
  std::unique_ptr<Module> module;
  Program program;
};

Planned PlanText(const std::string& computations, const std::string& entry, const TargetFeatures& target) {
  Planned p;
  p.module = Parse(computations, entry);
  if (!p.module) return p;
  auto program = PlanModule(*p.module, target);
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  if (program.ok()) p.program = std::move(*program);
  return p;
}

std::vector<TargetFeatures> AllTargets() { return {LavapipeTarget(), DesktopGpuTarget(), PhoneTarget()}; }

// "kind %hero -> outputs" for each group, to compare whole plans at once.
std::vector<std::string> Groups(const Program& p) {
  std::vector<std::string> out;
  for (const FusionGroup& g : p.groups) {
    std::string s = std::string(KernelKindName(g.kind)) + " %" + g.hero->name + " ->";
    for (const GroupOutput& o : g.outputs) s += " " + o.value.ToString();
    out.push_back(s);
  }
  return out;
}

bool Fuses(const FusionGroup& g, const std::string& name) {
  return std::any_of(g.fused.begin(), g.fused.end(), [&](const Instruction* i) { return i->name == name; });
}

const FusionGroup* GroupWriting(const Program& p, const std::string& name) {
  for (const FusionGroup& g : p.groups)
    for (const GroupOutput& o : g.outputs)
      if (o.value.inst->name == name) return &g;
  return nullptr;
}

std::set<std::string> InputNames(const Program& p, const FusionGroup& g) {
  std::set<std::string> names;
  for (int b : g.inputs) names.insert(p.buffers[b].name);
  return names;
}

// Softmax over rows of `cols` elements, as kSoftmax.
std::string SoftmaxEntry(int64_t rows, int64_t cols) {
  std::string text = kSoftmax;
  for (const std::string from : {"256,512", "[256]"}) {
    const std::string to = from[0] == '[' ? "[" + std::to_string(rows) + "]" : std::to_string(rows) + "," + std::to_string(cols);
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  }
  return text;
}

TEST(PlanFusion, SoftmaxIsOneRowKernel) {
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    Planned p = PlanText(std::string(kAdd) + kMax, kSoftmax, t);
    ASSERT_EQ(Groups(p.program), (std::vector<std::string>{"row %mx -> %y"}));
    const FusionGroup& g = p.program.groups[0];
    for (const char* name : {"mb", "d", "e", "s", "sb"}) EXPECT_TRUE(Fuses(g, name)) << name;
    EXPECT_EQ(InputNames(p.program, g), (std::set<std::string>{"%x"}));
    const RowConfig& c = std::get<RowConfig>(g.config);
    ASSERT_EQ(c.reduces.size(), 2u);
    EXPECT_EQ(c.reduces[0]->name, "mx");
    EXPECT_EQ(c.reduces[1]->name, "s");
    EXPECT_EQ(c.rows, 256);
    EXPECT_EQ(c.length, 512);
    // Rows are unit-stride: 4 elements a trip. A CPU driver walks 256 rows
    // a lane a row, SIMD-width rows a workgroup; a GPU takes enough
    // invocations for the row.
    EXPECT_EQ(c.per_trip, 4);
    EXPECT_EQ(c.local_size, t.cpu ? 1 : 128);
    EXPECT_EQ(c.rows_per_group, t.cpu ? std::max<int64_t>(t.subgroup_size, 8) : 1);
    EXPECT_EQ(c.trips, t.cpu ? 128 : 1);
    EXPECT_EQ(g.kernels[0].invocations, 256u * static_cast<uint64_t>(c.local_size));
    EXPECT_EQ(g.kernels[0].local_size, c.local_size * c.rows_per_group);
    // exp(x - max) is kept from the sum's walk for the division's.
    ASSERT_NE(c.cached, nullptr);
    EXPECT_EQ(c.cached->name, "e");
    EXPECT_EQ(p.program.DispatchCount(), 1);
  }
}

// 16-bit rows take a vector of 8 elements a trip.
TEST(PlanFusion, SixteenBitRowsTakeEightElementsATrip) {
  std::string add = kAdd, max = kMax, softmax = kSoftmax;
  for (std::string* s : {&add, &max, &softmax})
    for (size_t at = s->find("f32"); at != std::string::npos; at = s->find("f32", at)) s->replace(at, 3, "bf16");
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    Planned p = PlanText(add + max, softmax, t);
    ASSERT_EQ(Groups(p.program), (std::vector<std::string>{"row %mx -> %y"}));
    const RowConfig& c = std::get<RowConfig>(p.program.groups[0].config);
    EXPECT_EQ(c.per_trip, 8);
    EXPECT_EQ(c.vector_bits, 16);
    EXPECT_EQ(c.trips * c.local_size * c.per_trip, 512);
  }
}

// A lane a row on a CPU needs rows for every core (kMinLanePerRowRows)
// and keeps a whole row of 4096 of exp(x - max); a GPU never.
TEST(PlanFusion, CpuRowKernelsWalkALaneARowWhereRowsAreMany) {
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    for (const int64_t rows : {kMinLanePerRowRows - 1, kMinLanePerRowRows, int64_t{4096}}) {
      Planned p = PlanText(std::string(kAdd) + kMax, SoftmaxEntry(rows, 4096), t);
      ASSERT_EQ(Groups(p.program), (std::vector<std::string>{"row %mx -> %y"}));
      const RowConfig& c = std::get<RowConfig>(p.program.groups[0].config);
      const bool lane_per_row = t.cpu && rows >= kMinLanePerRowRows;
      EXPECT_EQ(c.rows_per_group > 1, lane_per_row) << rows;
      EXPECT_EQ(c.local_size == 1, lane_per_row) << rows;
      EXPECT_GE(p.program.groups[0].kernels[0].invocations, static_cast<uint64_t>(rows * c.local_size));
      if (lane_per_row) {
        ASSERT_NE(c.cached, nullptr);
        EXPECT_EQ(c.trips * c.per_trip, 4096);
      }
    }
  }
}

TEST(PlanFusion, SoftmaxOverLongRowsWritesTheExponentialOnceFromTheSumsKernel) {
  // Rows past kMaxRowLength: the max, the sum that also writes exp(x - max)
  // as it reads it, the division.
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    Planned p = PlanText(std::string(kAdd) + kMax, SoftmaxEntry(64, kMaxRowLength + 1), t);
    ASSERT_EQ(Groups(p.program), (std::vector<std::string>{"reduce %mx -> %mx", "reduce %s -> %s %e", "loop %y -> %y"}));
    const FusionGroup& sum = p.program.groups[1];
    EXPECT_TRUE(Fuses(sum, "e") && Fuses(sum, "d") && Fuses(sum, "mb"));
    const FusionGroup& div = p.program.groups[2];
    EXPECT_FALSE(Fuses(div, "e"));  // read, not recomputed
    EXPECT_EQ(InputNames(p.program, div), (std::set<std::string>{"%e", "%s"}));
    EXPECT_EQ(p.program.DispatchCount(), 3);
  }
  // At the limit, one row kernel whose invocations' loops stay in budget
  // (a lane a row on a CPU only where its three walks do: past 5461
  // elements, several lanes a row).
  for (const TargetFeatures& t : AllTargets()) {
    Planned p = PlanText(std::string(kAdd) + kMax, SoftmaxEntry(64, kMaxRowLength), t);
    ASSERT_EQ(Groups(p.program), (std::vector<std::string>{"row %mx -> %y"}));
    const RowConfig& c = std::get<RowConfig>(p.program.groups[0].config);
    EXPECT_EQ(c.rows_per_group, 1);
    EXPECT_EQ(c.trips * c.local_size * c.per_trip, kMaxRowLength);
    EXPECT_LE(RowKernelTrips(kMaxRowLength, 2, 16, t), static_cast<int64_t>(t.max_loop_trips));
  }
}

// The loop budget counts what members read inline from before the first
// reduce too: softmax of erf(p) over 16384-element rows (100 trips an erf)
// would pass it, so it keeps the unfused plan; of exp(p), it fits.
TEST(PlanFusion, RowKernelsCountTheLoopsOfWhatTheyReadInline) {
  for (const char* f : {"erf", "exponential"}) {
    SCOPED_TRACE(f);
    std::string entry = SoftmaxEntry(4, kMaxRowLength);
    const std::string param = "x = f32[4,16384] parameter(0)\n";
    entry.replace(entry.find(param), param.size(),
                  "p = f32[4,16384] parameter(0)\n  x = f32[4,16384] " + std::string(f) + "(p)\n");
    Planned p = PlanText(std::string(kAdd) + kMax, entry, LavapipeTarget());
    ASSERT_FALSE(p.program.groups.empty());
    EXPECT_EQ(p.program.groups[0].kind == KernelKind::kRow, std::string(f) == "exponential");
  }
}

TEST(PlanFusion, LayerNormIsOneRowKernel) {
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    Planned p = PlanText(kAdd, kLayerNorm, t);
    ASSERT_EQ(Groups(p.program), (std::vector<std::string>{"row %s -> %y"}));
    const FusionGroup& g = p.program.groups[0];
    for (const char* name : {"mean", "c", "ss", "var", "r", "rb", "gb"}) EXPECT_TRUE(Fuses(g, name)) << name;
    EXPECT_EQ(InputNames(p.program, g), (std::set<std::string>{"%x", "%g", "%b"}));
    const RowConfig& c = std::get<RowConfig>(g.config);
    ASSERT_EQ(c.reduces.size(), 2u);
    EXPECT_EQ(c.reduces[1]->name, "ss");
    EXPECT_EQ(c.cached, nullptr);  // (x - mean)^2 costs less than keeping it
  }
}

// Layer norm as flax writes it (use_fast_variance): the mean and the mean
// of squares are two reduces of x that read no member of each other; the
// second joins the first one's row kernel as a stage rather than starting
// a row kernel of its own (each would have computed the other inline).
TEST(PlanFusion, FastVarianceLayerNormIsOneRowKernelOfTwoReduces) {
  const std::string entry =
      "ENTRY main {\n  x = f32[8,256] parameter(0)\n  z = f32[] constant(0)\n  inv = f32[] constant(0.00390625)\n"
      "  invb = f32[8] broadcast(inv), dimensions={}\n  s = f32[8] reduce(x, z), dimensions={1}, to_apply=add\n"
      "  mean = f32[8] multiply(s, invb)\n  x2 = f32[8,256] multiply(x, x)\n"
      "  s2 = f32[8] reduce(x2, z), dimensions={1}, to_apply=add\n  mean2 = f32[8] multiply(s2, invb)\n"
      "  msq = f32[8] multiply(mean, mean)\n  var = f32[8] subtract(mean2, msq)\n  r = f32[8] rsqrt(var)\n"
      "  mb = f32[8,256] broadcast(mean), dimensions={0}\n  rb = f32[8,256] broadcast(r), dimensions={0}\n"
      "  c = f32[8,256] subtract(x, mb)\n  ROOT y = f32[8,256] multiply(c, rb)\n}\n";
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    Planned p = PlanText(kAdd, entry, t);
    ASSERT_EQ(Groups(p.program), (std::vector<std::string>{"row %s -> %y"}));
    const RowConfig& c = std::get<RowConfig>(p.program.groups[0].config);
    ASSERT_EQ(c.reduces.size(), 2u);
    EXPECT_EQ(c.reduces[1]->name, "s2");
    EXPECT_EQ(p.program.DispatchCount(), 1);
    // The mean of squares also a result of its own: it cannot join (a row
    // result read outside the kernel), and the row kernel still forms
    // without it, reading it from its own reduce.
    std::string also = entry;
    also.replace(also.find("  ROOT y = f32[8,256] multiply(c, rb)"), std::string("  ROOT y = f32[8,256] multiply(c, rb)").size(),
                 "  y = f32[8,256] multiply(c, rb)\n  ROOT t = (f32[8,256], f32[8]) tuple(y, s2)");
    Planned q = PlanText(kAdd, also, t);
    ASSERT_EQ(Groups(q.program), (std::vector<std::string>{"reduce %s2 -> %s2", "row %s -> %y"}));
    EXPECT_EQ(std::get<RowConfig>(q.program.groups[1].config).reduces.size(), 1u);
  }
}

// What keeps reduces out of a row kernel: each module below would read a
// row result outside the kernel, another row's values, a value written
// after it, or needs an order the stages do not keep.
TEST(PlanFusion, RowKernelsOnlyWhereEveryReadStaysInTheRow) {
  const std::string concat = "cat {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] subtract(a, b)\n}\n";
  const std::string head = "ENTRY main {\n  x = f32[64,128] parameter(0)\n  z = f32[] constant(0)\n";
  const std::string tail = "  rb = f32[64,128] broadcast(r), dimensions={0}\n";
  struct Case {
    const char* why;
    std::string entry;
    std::vector<std::string> groups;
  };
  const std::vector<Case> cases = {
      {"the row result is also a result",
       head + "  r = f32[64] reduce(x, z), dimensions={1}, to_apply=add\n" + tail +
           "  y = f32[64,128] subtract(x, rb)\n  ROOT t = (f32[64,128], f32[64]) tuple(y, r)\n}\n",
       {"reduce %r -> %r", "loop %y -> %y"}},
      {"rows across the unit-stride dim",
       head + "  r = f32[128] reduce(x, z), dimensions={0}, to_apply=add\n"
              "  rb = f32[64,128] broadcast(r), dimensions={1}\n  ROOT y = f32[64,128] subtract(x, rb)\n}\n",
       {"reduce %r -> %r", "loop %y -> %y"}},
      {"a fold that is not one commutative op",
       head + "  r = f32[64] reduce(x, z), dimensions={1}, to_apply=cat\n" + tail + "  ROOT y = f32[64,128] subtract(x, rb)\n}\n",
       {"reduce %r -> %r", "loop %y -> %y"}},
      {"a member reads another row through a reverse of a member",
       head + "  r = f32[64] reduce(x, z), dimensions={1}, to_apply=add\n" + tail +
           "  y = f32[64,128] subtract(x, rb)\n  v = f32[64,128] reverse(y), dimensions={0}\n"
           "  ROOT w = f32[64,128] add(y, v)\n}\n",
       {"reduce %r -> %r", "loop %w -> %w"}},
      {"a row value read elsewhere is an output",
       head + "  r = f32[64] reduce(x, z), dimensions={1}, to_apply=add\n" + tail +
           "  y = f32[64,128] subtract(x, rb)\n  v = f32[128,64] transpose(y), dimensions={1,0}\n"
           "  ROOT t = (f32[64,128], f32[128,64]) tuple(y, v)\n}\n",
       {"row %r -> %y", "loop %v -> %v"}},
      // A kernel runs at its last member's place: v would read y before
      // the kernel wrote it (w joins after v).
      {"an output read before the kernel's last member",
       head + "  r = f32[64] reduce(x, z), dimensions={1}, to_apply=add\n" + tail +
           "  y = f32[64,128] subtract(x, rb)\n  v = f32[128,64] transpose(y), dimensions={1,0}\n"
           "  w = f32[64,128] multiply(x, rb)\n  ROOT t = (f32[128,64], f32[64,128]) tuple(v, w)\n}\n",
       {"reduce %r -> %r", "loop %v -> %v", "loop %w -> %w"}},
      // a is r's kernel's: s2's kernel does not take it too (it would read r
      // inline: an internal error).
      {"a reader in an earlier row kernel",
       head + "  r = f32[64] reduce(x, z), dimensions={1}, to_apply=add\n" + tail +
           "  e = f32[64,128] exponential(x)\n  s2 = f32[] reduce(e, z), dimensions={0,1}, to_apply=add\n"
           "  sb2 = f32[64,128] broadcast(s2), dimensions={}\n  ROOT a = f32[64,128] add(rb, sb2)\n}\n",
       {"row %s2 -> %sb2", "row %r -> %a"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    Planned p = PlanText(std::string(kAdd) + concat, c.entry, LavapipeTarget());
    EXPECT_EQ(Groups(p.program), c.groups);
  }
}

TEST(PlanFusion, ReductionFeedingElementwiseOps) {
  const std::string entry = R"(
ENTRY main {
  x = f32[64,128] parameter(0)
  z = f32[] constant(0)
  r = f32[64] reduce(x, z), dimensions={1}, to_apply=add
  c2 = f32[] constant(2)
  two = f32[64] broadcast(c2), dimensions={}
  ROOT y = f32[64] multiply(r, two)
})";
  Planned p = PlanText(kAdd, entry, LavapipeTarget());
  EXPECT_EQ(Groups(p.program), (std::vector<std::string>{"reduce %r -> %y"}));
  // Read by an op of another shape, the reduction is written and read back.
  const std::string bcast = R"(
ENTRY main {
  x = f32[64,128] parameter(0)
  z = f32[] constant(0)
  r = f32[64] reduce(x, z), dimensions={1}, to_apply=add
  rb = f32[64,128] broadcast(r), dimensions={0}
  ROOT y = f32[64,128] subtract(x, rb)
})";
  // Broadcast back along its rows, it is one row kernel with the subtraction.
  Planned q = PlanText(kAdd, bcast, LavapipeTarget());
  EXPECT_EQ(Groups(q.program), (std::vector<std::string>{"row %r -> %y"}));
  EXPECT_EQ(InputNames(q.program, q.program.groups[0]), (std::set<std::string>{"%x"}));
}

TEST(PlanFusion, TransposeFeedingAReductionReadsThroughIt) {
  // The reduced dim of the transpose is x's unit-stride dim: the reduce
  // walks rows of x, fused, with no transposed copy in memory.
  const std::string entry = R"(
ENTRY main {
  x = f32[64,128]{1,0} parameter(0)
  t = f32[128,64] transpose(x), dimensions={1,0}
  z = f32[] constant(0)
  ROOT r = f32[64] reduce(t, z), dimensions={0}, to_apply=add
})";
  for (const TargetFeatures& target : AllTargets()) {
    Planned p = PlanText(kAdd, entry, target);
    ASSERT_EQ(p.program.groups.size(), 1u);
    EXPECT_TRUE(Fuses(p.program.groups[0], "t"));
    const auto& c = std::get<ReduceConfig>(p.program.groups[0].config);
    EXPECT_EQ(c.mode, ReduceConfig::Mode::kRows);
    EXPECT_EQ(c.unit, 0);  // t's dim 0 is x's dim 1
  }
}

TEST(PlanFusion, ExpensiveValueUnderABroadcastIsWrittenOnce) {
  // log(v) would be computed 512 times per element inside the consumer.
  const std::string entry = R"(
ENTRY main {
  v = f32[256] parameter(0)
  x = f32[256,512] parameter(1)
  l = f32[256] log(v)
  lb = f32[256,512] broadcast(l), dimensions={0}
  ROOT y = f32[256,512] add(x, lb)
})";
  Planned p = PlanText("", entry, LavapipeTarget());
  EXPECT_EQ(Groups(p.program), (std::vector<std::string>{"loop %l -> %l", "loop %y -> %y"}));
  // A cheap one is recomputed.
  const std::string cheap = R"(
ENTRY main {
  v = f32[256] parameter(0)
  x = f32[256,512] parameter(1)
  n = f32[256] negate(v)
  nb = f32[256,512] broadcast(n), dimensions={0}
  ROOT y = f32[256,512] add(x, nb)
})";
  Planned q = PlanText("", cheap, LavapipeTarget());
  EXPECT_EQ(Groups(q.program), (std::vector<std::string>{"loop %y -> %y"}));
}

// A transformer's feed-forward half: gelu(x W1 + b) W2 as BERT writes it,
// x (1 + erf(x / sqrt(2))) / 2, reads the biased product twice; the graph
// splits and joins again inside the first matmul's epilogue (no kernel of
// its own for the gelu), and the second matmul, reading it from memory,
// walks its contraction unsplit: the erf's cost stayed in the kernel that
// wrote it (counting it split the 1024 steps 86 ways on lavapipe).
TEST(PlanFusion, GeluJoinsTheMatmulEpilogueAndItsReaderDoesNotPayForIt) {
  const std::string entry = R"(
ENTRY main {
  x = f32[128,256] parameter(0)
  w1 = f32[256,1024] parameter(1)
  b1 = f32[1024] parameter(2)
  w2 = f32[1024,256] parameter(3)
  h = f32[128,1024] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[128,1024] broadcast(b1), dimensions={1}
  hb = f32[128,1024] add(h, bb)
  r = f32[] constant(0.70710678)
  rb = f32[128,1024] broadcast(r), dimensions={}
  hs = f32[128,1024] multiply(hb, rb)
  e = f32[128,1024] erf(hs)
  one = f32[] constant(1)
  ob = f32[128,1024] broadcast(one), dimensions={}
  e1 = f32[128,1024] add(e, ob)
  half = f32[] constant(0.5)
  hf = f32[128,1024] broadcast(half), dimensions={}
  hh = f32[128,1024] multiply(hb, hf)
  gelu = f32[128,1024] multiply(hh, e1)
  ROOT f = f32[128,256] dot(gelu, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  for (const TargetFeatures& target : AllTargets()) {
    SCOPED_TRACE(target.device_name);
    Planned p = PlanText("", entry, target);
    ASSERT_TRUE(p.module);
    ASSERT_EQ(Groups(p.program), (std::vector<std::string>{"matmul %h -> %gelu", "matmul %f -> %f"}));
    for (const char* name : {"hb", "hs", "e", "e1", "hh"}) EXPECT_TRUE(Fuses(p.program.groups[0], name)) << name;
    // At most the chunks of 256 steps that spread a small product over a
    // GPU; one on lavapipe, whose 8 workgroups already fill its cores.
    const int64_t splits = std::get<MatmulConfig>(p.program.groups[1].config).splits;
    EXPECT_LE(splits, 4);
    if (target.cpu) EXPECT_EQ(splits, 1);
  }
}

// An epilogue ends where a value is read beyond it: here the biased
// product feeds the relu and, separately, a reduce, so only the bias joins
// the matmul and the relu runs where the sum does not reach.
TEST(PlanFusion, EpilogueEndsAtAValueReadBeyondIt) {
  const std::string computations = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
)";
  const std::string entry = R"(
ENTRY main {
  x = f32[64,32] parameter(0)
  w = f32[32,48] parameter(1)
  b = f32[48] parameter(2)
  h = f32[64,48] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[64,48] broadcast(b), dimensions={1}
  hb = f32[64,48] add(h, bb)
  z = f32[] constant(0)
  zb = f32[64,48] broadcast(z), dimensions={}
  relu = f32[64,48] maximum(hb, zb)
  s = f32[64] reduce(hb, z), dimensions={1}, to_apply=add
  ROOT t = (f32[64,48], f32[64]) tuple(relu, s)
})";
  Planned p = PlanText(computations, entry, LavapipeTarget());
  ASSERT_TRUE(p.module);
  const FusionGroup* g = GroupWriting(p.program, "hb");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->kind, KernelKind::kMatmul);
  EXPECT_FALSE(Fuses(*g, "relu"));
}

TEST(PlanFusion, MatmulLoadsHoldNoCostlyOpsAndTheEpilogueRunsAfterWhatItReads) {
  // Weights made in the graph (sine of an iota), a depthwise-like sum
  // over shifted slices, and a batch norm's rsqrt(var + eps) defined after
  // the dot: none of it is repeated in the matmul's unrolled loads, and the
  // kernel writing the rsqrt runs before the matmul whose epilogue reads it.
  const std::string entry = R"(
ENTRY main {
  x = f32[64,40] parameter(0)
  i = f32[1024] iota(), iota_dimension=0
  s = f32[1024] sine(i)
  w = f32[32,32] reshape(s)
  a0 = f32[64,32] slice(x), slice={[0:64], [0:32]}
  a1 = f32[64,32] slice(x), slice={[0:64], [1:33]}
  a2 = f32[64,32] slice(x), slice={[0:64], [2:34]}
  a3 = f32[64,32] slice(x), slice={[0:64], [3:35]}
  a4 = f32[64,32] slice(x), slice={[0:64], [4:36]}
  a5 = f32[64,32] slice(x), slice={[0:64], [5:37]}
  a6 = f32[64,32] slice(x), slice={[0:64], [6:38]}
  a7 = f32[64,32] slice(x), slice={[0:64], [7:39]}
  q1 = f32[64,32] multiply(a0, a1)
  q2 = f32[64,32] add(q1, a2)
  q3 = f32[64,32] multiply(q2, a3)
  q4 = f32[64,32] add(q3, a4)
  q5 = f32[64,32] multiply(q4, a5)
  q6 = f32[64,32] add(q5, a6)
  q7 = f32[64,32] multiply(q6, a7)
  q8 = f32[64,32] add(q7, a0)
  q9 = f32[64,32] multiply(q8, a1)
  q10 = f32[64,32] add(q9, a2)
  q11 = f32[64,32] multiply(q10, a3)
  q12 = f32[64,32] add(q11, a4)
  q13 = f32[64,32] multiply(q12, a5)
  q14 = f32[64,32] add(q13, a6)
  q15 = f32[64,32] multiply(q14, a7)
  q16 = f32[64,32] add(q15, a0)
  q17 = f32[64,32] multiply(q16, a1)
  d = f32[64,32] dot(q17, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  v = f32[32] parameter(1)
  r = f32[32] rsqrt(v)
  rb = f32[64,32] broadcast(r), dimensions={1}
  ROOT y = f32[64,32] multiply(d, rb)
})";
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    Planned p = PlanText("", entry, t);
    ASSERT_FALSE(p.program.groups.empty());
    std::vector<std::string> groups = Groups(p.program);
    auto position = [&](const std::string& g) {
      return std::find(groups.begin(), groups.end(), g) - groups.begin();
    };
    ASSERT_LT(position("loop %w -> %w"), static_cast<std::ptrdiff_t>(groups.size()));
    ASSERT_LT(position("loop %q17 -> %q17"), static_cast<std::ptrdiff_t>(groups.size()));
    ASSERT_LT(position("loop %r -> %r"), static_cast<std::ptrdiff_t>(groups.size()));
    const std::ptrdiff_t matmul = position("matmul %d -> %y");
    ASSERT_LT(matmul, static_cast<std::ptrdiff_t>(groups.size()));
    EXPECT_LT(position("loop %r -> %r"), matmul);
    EXPECT_LT(position("loop %w -> %w"), matmul);
    EXPECT_TRUE(Fuses(p.program.groups[static_cast<size_t>(position("loop %w -> %w"))], "s"));
    const FusionGroup& mm = p.program.groups[static_cast<size_t>(matmul)];
    EXPECT_FALSE(Fuses(mm, "s") || Fuses(mm, "w") || Fuses(mm, "r") || Fuses(mm, "q17"));
    EXPECT_TRUE(Fuses(mm, "rb"));
  }
}

// The convolution lowering the plan picks per shape.
ConvolutionLowering LoweringOf(const std::string& lhs, const std::string& rhs, const std::string& attributes) {
  // Parsed unverified: the result's shape comes from shape inference.
  auto m = ParseHloText("HloModule m\nENTRY main {\n  x = " + lhs + " parameter(0)\n  w = " + rhs +
                        " parameter(1)\n  ROOT c = f32[] convolution(x, w), " + attributes + "\n}\n");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return ConvolutionLowering::kNone;
  Instruction* c = (*m)->entry()->root();
  StatusOr<Shape> shape = InferConvolutionShape(*c);
  EXPECT_TRUE(shape.ok()) << shape.status().ToString();
  if (!shape.ok()) return ConvolutionLowering::kNone;
  c->shape = *shape;
  StatusOr<ConvolutionParams> p = ReadConvolution(*c);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  if (!p.ok()) return ConvolutionLowering::kNone;
  return ChooseConvolutionLowering(*p, c->operands[0]->shape, c->operands[1]->shape, c->shape);
}

TEST(PlanConvolution, LoweringPerShape) {
  using L = ConvolutionLowering;
  const std::string nhwc = "dim_labels=b01f_01io->b01f", same = "window={size=3x3 pad=1_1x1_1}, " + nhwc;
  struct Case {
    std::string lhs, rhs, attributes;
    L lowering;
  };
  const Case cases[] = {
      // Dense 3x3: Winograd in f32 with stride 1 and 16 features or more, an
      // implicit GEMM otherwise.
      {"f32[1,56,56,64]", "f32[3,3,64,64]", same, L::kWinograd},
      {"f16[1,56,56,64]", "f16[3,3,64,64]", same, L::kImplicitGemm},
      {"f32[1,56,56,64]", "f32[3,3,64,64]", "window={size=3x3 stride=2x2 pad=1_1x1_1}, " + nhwc, L::kImplicitGemm},
      {"f32[1,56,56,8]", "f32[3,3,8,64]", same, L::kImplicitGemm},
      {"f32[1,56,56,64]", "f32[3,3,64,64]", "window={size=3x3 pad=2_2x2_2 rhs_dilate=2x2}, " + nhwc, L::kImplicitGemm},
      {"f32[1,56,56,64]", "f32[5,5,64,64]", "window={size=5x5 pad=2_2x2_2}, " + nhwc, L::kImplicitGemm},
      // 16 x 12544 tiles x 128 features: 100 MiB of transformed tiles; a
      // 2048 x 2048 kernel: 256 MiB transformed.
      {"f32[1,224,224,128]", "f32[3,3,128,128]", same, L::kImplicitGemm},
      {"f32[1,8,8,2048]", "f32[3,3,2048,2048]", same, L::kImplicitGemm},
      // 1x1 (strided too): a plain matmul.
      {"f32[1,56,56,64]", "f32[1,1,64,128]", "window={size=1x1 stride=2x2}, " + nhwc, L::kOneByOne},
      // Depthwise (one input feature per group) and a single-feature input:
      // the direct sum over the window, up to 49 positions.
      {"f32[1,112,112,32]", "f32[3,3,1,32]", same + ", feature_group_count=32", L::kDirect},
      {"f32[1,28,28,1]", "f32[7,7,1,8]", "window={size=7x7}, " + nhwc, L::kDirect},
      {"f32[1,28,28,4]", "f32[9,9,1,4]", "window={size=9x9}, " + nhwc + ", feature_group_count=4", L::kImplicitGemm},
      // Grouped, batch-grouped (a weight gradient) and transposed
      // convolutions are GEMMs; a convolution with nothing to sum is zeros.
      {"f32[1,8,8,8]", "f32[3,3,4,8]", "window={size=3x3}, " + nhwc + ", feature_group_count=2", L::kImplicitGemm},
      {"f32[2,8,8,4]", "f32[3,3,4,8]", "window={size=3x3}, " + nhwc + ", batch_group_count=2", L::kImplicitGemm},
      {"f32[1,8,8,4]", "f32[3,3,4,4]", "window={size=3x3 pad=2_2x2_2 lhs_dilate=2x2}, " + nhwc, L::kImplicitGemm},
      {"f32[1,8,8,0]", "f32[3,3,0,4]", "window={size=3x3}, " + nhwc, L::kNone},
  };
  for (const Case& c : cases) EXPECT_EQ(LoweringOf(c.lhs, c.rhs, c.attributes), c.lowering) << c.lhs << " " << c.rhs << " " << c.attributes;
}

TEST(PlanConvolution, DepthwiseIsOneKernelReadingItsWeightsInPlace) {
  // Each window position's weight vector is a slice of w: read where it
  // lies (a copy would be one more dispatch and no fewer loads). bf16 and
  // s8 operands too, widened to the accumulator inside the products (a
  // copy of x in f32 and one of each position's weights were ten more
  // dispatches), with a bias and relu6 after (TensorFlow's bf16 MobileNets).
  for (const std::string t : {"f32", "bf16", "s8"}) {
    const std::string acc = t == "s8" ? "s32" : t;
    const std::string y = acc + "[1,112,112,32]";
    const std::string entry = "ENTRY main {\n  x = " + t + "[1,112,112,32] parameter(0)\n  w = " + t +
                              "[3,3,1,32] parameter(1)\n  b = " + acc + "[32] parameter(2)\n  c = " + y +
                              " convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                              "feature_group_count=32\n  bb = " + y + " broadcast(b), dimensions={3}\n  a = " + y +
                              " add(c, bb)\n  z = " + acc + "[] constant(0)\n  zb = " + y + " broadcast(z), dimensions={}\n  s = " +
                              acc + "[] constant(6)\n  sb = " + y + " broadcast(s), dimensions={}\n  ROOT r = " + y +
                              " clamp(zb, a, sb)\n}\n";
    for (const TargetFeatures& target : AllTargets()) {
      SCOPED_TRACE(t + " on " + target.device_name);
      Planned p = PlanText("", entry, target);
      ASSERT_EQ(p.program.groups.size(), 1u);
      EXPECT_EQ(p.program.groups[0].kind, KernelKind::kLoop);
      EXPECT_EQ(InputNames(p.program, p.program.groups[0]), (std::set<std::string>{"%x", "%w", "%b"}));
    }
  }
}

TEST(PlanConvolution, DepthwiseTakesStripsAlongTheWidthOnACpuDriver) {
  // Its window positions are shifted reads of one padded input: on
  // lavapipe an invocation takes up to 16 vectors (a pair of neighbours
  // along the features counting as two) along the width (a divisor of
  // it), which share their overlapping windows and weights, or, where the
  // window spans rows too, in 4 or 2 rows (divisors of the height) in
  // workgroups of 64; a plain elementwise kernel and a GPU keep one vector
  // each. Without 64-bit integers there are no pairs (their word is a
  // u64vec4).
  auto depthwise = [](int64_t h, int64_t w, const std::string& window = "size=3x3 pad=1_1x1_1") {
    const std::string x = "f32[1," + std::to_string(h) + "," + std::to_string(w) + ",32]";
    const std::string k = window.find("3x3") != std::string::npos ? "f32[3,3,1,32]" : "f32[1,3,1,32]";
    return "ENTRY main {\n  x = " + x + " parameter(0)\n  w = " + k + " parameter(1)\n  ROOT y = " + x +
           " convolution(x, w), window={" + window + "}, dim_labels=b01f_01io->b01f, feature_group_count=32\n}";
  };
  struct Strip {
    int columns, rows, pair;
    int64_t row_stride, invocations;
    uint32_t local_size;
  };
  auto strip = [](const Planned& p) {
    if (p.program.groups.size() != 1) return Strip{-1, -1, -1, -1, -1, 0};
    const LoopConfig& c = std::get<LoopConfig>(p.program.groups[0].config);
    const KernelLaunch& k = p.program.groups[0].kernels[0];
    return Strip{c.strip, c.strip_rows, c.pair, c.strip_row_stride, static_cast<int64_t>(k.invocations), k.local_size};
  };
  const Strip big = strip(PlanText("", depthwise(8, 112), LavapipeTarget()));
  EXPECT_EQ(big.columns, 4);
  EXPECT_EQ(big.rows, 2);
  EXPECT_EQ(big.pair, 2);
  EXPECT_EQ(big.row_stride, 112 * 8);  // vectors of one row of the output
  EXPECT_EQ(big.invocations, 8 * 112 * 8 / 16);
  EXPECT_EQ(big.local_size, 64u);
  TargetFeatures no_int64 = LavapipeTarget();
  no_int64.int64 = false;
  const Strip single = strip(PlanText("", depthwise(8, 112), no_int64));
  EXPECT_EQ(single.columns, 4);
  EXPECT_EQ(single.rows, 4);
  EXPECT_EQ(single.pair, 1);
  EXPECT_EQ(single.invocations, 8 * 112 * 8 / 16);
  const Strip small = strip(PlanText("", depthwise(6, 14), LavapipeTarget()));
  EXPECT_EQ(small.columns, 2);
  EXPECT_EQ(small.rows, 2);
  const Strip tall = strip(PlanText("", depthwise(7, 112), LavapipeTarget()));  // no rows: 8 pairs along the width
  EXPECT_EQ(tall.columns, 8);
  EXPECT_EQ(tall.rows, 1);
  EXPECT_EQ(strip(PlanText("", depthwise(7, 112), no_int64)).columns, 16);
  const Strip odd = strip(PlanText("", depthwise(7, 14), LavapipeTarget()));
  EXPECT_EQ(odd.columns, 2);
  EXPECT_EQ(odd.rows, 1);
  EXPECT_EQ(odd.pair, 2);
  EXPECT_EQ(odd.local_size, 256u);
  // A 1x3 window reads one row: strips along the width only.
  const Strip flat = strip(PlanText("", depthwise(8, 112, "size=1x3 pad=0_0x1_1"), LavapipeTarget()));
  EXPECT_EQ(flat.columns, 8);
  EXPECT_EQ(flat.rows, 1);
  EXPECT_EQ(strip(PlanText("", depthwise(8, 7), LavapipeTarget())).columns, 1);
  const Strip gpu = strip(PlanText("", depthwise(8, 112), DesktopGpuTarget()));
  EXPECT_EQ(gpu.columns, 1);
  EXPECT_EQ(gpu.pair, 1);
  EXPECT_EQ(strip(PlanText("", "ENTRY main {\n  x = f32[8,64,32] parameter(0)\n  y = f32[8,64,32] parameter(1)\n"
                               "  ROOT z = f32[8,64,32] add(x, y)\n}",
                           LavapipeTarget()))
                .columns,
            1);
}

// Strips of narrow elements (bf16 and f16: 8 to a vector, s8: 16) are
// written out element by element, at most 32 copies of the element's code
// and no pairs; an 8-bit float, whose decoding is a long function, keeps
// the element loop and the f32 strips' shape. Without a strip, a plain
// f16 add writes its pair of vectors out; an exp is too long to copy.
TEST(PlanConvolution, NarrowDepthwiseStripsAreWrittenOut) {
  auto config = [](const std::string& t) {
    const std::string x = t + "[1,112,112,32]";
    const Planned p = PlanText("", "ENTRY main {\n  x = " + x + " parameter(0)\n  w = " + t + "[3,3,1,32] parameter(1)\n  ROOT y = " +
                                       x + " convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                                           "feature_group_count=32\n}", LavapipeTarget());
    EXPECT_EQ(p.program.groups.size(), 1u);
    return p.program.groups.empty() ? LoopConfig{} : std::get<LoopConfig>(p.program.groups[0].config);
  };
  const LoopConfig bf16 = config("bf16");
  EXPECT_TRUE(bf16.written_out);
  EXPECT_EQ(bf16.strip * bf16.strip_rows * bf16.pair * bf16.per_vector, kMaxWrittenOutStripElements);
  EXPECT_EQ(bf16.pair, 1);
  const LoopConfig s8 = config("s8");
  EXPECT_TRUE(s8.written_out);
  EXPECT_EQ(s8.strip * s8.strip_rows * s8.pair * s8.per_vector, kMaxWrittenOutStripElements);
  const LoopConfig f16 = config("f16");
  EXPECT_TRUE(f16.written_out);
  EXPECT_EQ(f16.strip * f16.strip_rows * f16.pair * f16.per_vector, kMaxWrittenOutStripElements);
  const LoopConfig f8 = config("f8e4m3fn");
  EXPECT_FALSE(f8.written_out);
  EXPECT_EQ(f8.strip * f8.strip_rows * f8.pair, 16);
  EXPECT_FALSE(config("f32").written_out);
  auto elementwise = [](const std::string& op) {
    const Planned p = PlanText("", "ENTRY main {\n  x = f16[64,32] parameter(0)\n  y = f16[64,32] parameter(1)\n  ROOT z = f16[64,32] " +
                                       op + "\n}", LavapipeTarget());
    EXPECT_EQ(p.program.groups.size(), 1u);
    return p.program.groups.empty() ? LoopConfig{} : std::get<LoopConfig>(p.program.groups[0].config);
  };
  EXPECT_TRUE(elementwise("add(x, y)").written_out);
  EXPECT_FALSE(elementwise("exponential(x)").written_out);
}

// On a CPU driver with 64-bit integers every vector-mode kernel stores
// two neighbouring vectors as one u64vec4 word, where both are whole: an
// output of a multiple of 8 words (f32) or 16 halves; odd sizes and GPUs
// store vectors alone.
TEST(PlanLoop, CpuDriversStorePairsOfVectors) {
  auto loop = [](const std::string& type, const std::string& dims, const TargetFeatures& target) {
    const std::string x = type + "[" + dims + "]";
    const Planned p = PlanText("", "ENTRY main {\n  x = " + x + " parameter(0)\n  y = " + x + " parameter(1)\n  ROOT z = " + x +
                                       " add(x, y)\n}", target);
    if (p.program.groups.size() != 1) return std::make_pair(-1, int64_t{-1});
    const LoopConfig& c = std::get<LoopConfig>(p.program.groups[0].config);
    return std::make_pair(c.pair, static_cast<int64_t>(p.program.groups[0].kernels[0].invocations));
  };
  EXPECT_EQ(loop("f32", "64,32", LavapipeTarget()), std::make_pair(2, int64_t{64 * 32 / 8}));
  EXPECT_EQ(loop("bf16", "64,32", LavapipeTarget()), std::make_pair(2, int64_t{64 * 32 / 16}));
  EXPECT_EQ(loop("s64", "6,4", LavapipeTarget()), std::make_pair(2, int64_t{6 * 4 / 4}));
  EXPECT_EQ(loop("f32", "12", LavapipeTarget()), std::make_pair(1, int64_t{3}));  // a pair would reach past the end
  EXPECT_EQ(loop("f32", "64,32", DesktopGpuTarget()), std::make_pair(1, int64_t{64 * 32 / 4}));
  TargetFeatures no_int64 = LavapipeTarget();
  no_int64.int64 = false;
  EXPECT_EQ(loop("f32", "64,32", no_int64), std::make_pair(1, int64_t{64 * 32 / 4}));
}

TEST(PlanConvolution, ImplicitGemmWritesNoIm2colBuffer) {
  // The windows are a gather fused into the matmul's loads: no buffer of
  // the window-expanded input (9x the input) is planned, only the
  // windows' start indices (read by every element, so written once). (The
  // highest precision keeps Winograd's transforms out.)
  const std::string entry = R"(
ENTRY main {
  x = f32[8,56,56,64] parameter(0)
  w = f32[3,3,64,64] parameter(1)
  ROOT c = f32[8,56,56,64] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, operand_precision={highest,highest}
})";
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    Planned p = PlanText("", entry, t);
    ASSERT_EQ(p.program.groups.size(), 2u);
    EXPECT_EQ(p.program.groups[0].kind, KernelKind::kLoop);
    EXPECT_EQ(p.program.groups[1].kind, KernelKind::kMatmul);
    const int64_t input = int64_t{8} * 56 * 56 * 64 * 4;
    for (const BufferDecl& b : p.program.buffers) {
      if (b.name != "%x" && b.name != "%w" && b.name != "%c.conv6" && b.name.find("staging") == std::string::npos) {
        EXPECT_LT(b.bytes, input / 100) << b.name;
      }
    }
  }
}

// How lavapipe's matmul reads a convolution's windows (plan/vector_source.h).
const MatmulConfig* ConvolutionMatmul(const Planned& p) {
  for (const FusionGroup& g : p.program.groups)
    if (g.kind == KernelKind::kMatmul) return &std::get<MatmulConfig>(g.config);
  return nullptr;
}

TEST(PlanConvolution, WindowsAreReadAsVectorsAlongTheFeatures) {
  // Through the gather, the pad and the reshape of the input: blocks of
  // features lie together in x's buffer, one address and padding test per
  // block of up to 4 vectors. Where they do not (features along no unit
  // stride, NCHW; or fewer than a vector but at least a third of one,
  // padded to one) the padded input is written first and its windows read
  // as vectors (fusion rule 6b); features that are no whole vectors
  // otherwise are read an element at a time.
  struct Case {
    std::string x, w, y, attributes;
    MatmulConfig::Read lhs;
    int64_t k_block;
  };
  const std::string nhwc = "dim_labels=b01f_01io->b01f";
  const Case cases[] = {
      {"f32[1,56,56,64]", "f32[3,3,64,64]", "f32[1,56,56,64]",
       "window={size=3x3 pad=1_1x1_1}, " + nhwc + ", operand_precision={highest,highest}", MatmulConfig::Read::kAlongK, 16},
      {"f32[2,9,7,8]", "f32[3,3,8,12]", "f32[2,5,7,12]", "window={size=3x3 stride=2x1 pad=0_2x1_1}, " + nhwc,
       MatmulConfig::Read::kAlongK, 8},
      {"f32[2,9,7,4]", "f32[3,3,4,12]", "f32[2,5,7,12]", "window={size=3x3 pad=-1_1x1_1 rhs_dilate=2x1}, " + nhwc,
       MatmulConfig::Read::kAlongK, 4},
      {"f16[2,9,7,32]", "f16[3,3,32,8]", "f16[2,9,7,8]", "window={size=3x3 pad=1_1x1_1}, " + nhwc, MatmulConfig::Read::kAlongK, 32},
      {"f32[1,8,8,16]", "f32[3,3,8,8]", "f32[1,8,8,8]", "window={size=3x3 pad=1_1x1_1}, " + nhwc + ", feature_group_count=2",
       MatmulConfig::Read::kAlongK, 8},
      {"f32[2,9,7,6]", "f32[3,3,6,12]", "f32[2,9,7,12]", "window={size=3x3 pad=1_1x1_1}, " + nhwc, MatmulConfig::Read::kElements, 1},
      {"f32[1,64,56,56]", "f32[64,64,3,3]", "f32[1,64,56,56]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, operand_precision={highest,highest}",
       MatmulConfig::Read::kAlongK, 16},
      {"f32[1,224,224,3]", "f32[3,3,3,32]", "f32[1,112,112,32]", "window={size=3x3 stride=2x2 pad=1_1x1_1}, " + nhwc,
       MatmulConfig::Read::kAlongK, 4},
      {"bf16[1,30,30,3]", "bf16[3,3,3,8]", "bf16[1,15,15,8]", "window={size=3x3 stride=2x2 pad=0_1x0_1}, " + nhwc,
       MatmulConfig::Read::kAlongK, 8},
      {"f32[1,16,16,5]", "f32[3,3,5,8]", "f32[1,16,16,8]", "window={size=3x3 pad=1_1x1_1}, " + nhwc, MatmulConfig::Read::kElements, 1},
      {"s8[1,16,16,3]", "s8[3,3,3,8]", "s32[1,16,16,8]", "window={size=3x3 pad=1_1x1_1}, " + nhwc, MatmulConfig::Read::kElements, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x + " " + c.w + " " + c.attributes);
    Planned p = PlanText("", "ENTRY main {\n  x = " + c.x + " parameter(0)\n  w = " + c.w + " parameter(1)\n  ROOT c = " + c.y +
                                 " convolution(x, w), " + c.attributes + "\n}",
                         LavapipeTarget());
    const MatmulConfig* m = ConvolutionMatmul(p);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->lhs, c.lhs);
    if (c.lhs == MatmulConfig::Read::kAlongK) {
      EXPECT_EQ(m->k_block[0], c.k_block);
    }
  }
}

// The memory report adds each class's buffers; the peak is the arenas, where
// temporaries whose live ranges do not meet share bytes.
// The watchdog split: estimates grow with bytes and a matmul's work; a
// program under the budget is one submission, one over it is cut where the
// running total would pass it.
TEST(PlanSubmissions, CutWhereTheEstimatePassesTheBudget) {
  const std::string entry = R"(ENTRY main {
  a = f32[512,512] parameter(0)
  b = f32[512,512] parameter(1)
  d = f32[512,512] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[512,512] exponential(d)
  ROOT f = f32[512,512] dot(e, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  TargetFeatures target = LavapipeTarget();
  Planned p = PlanText("", entry, target);
  ASSERT_TRUE(p.module);
  double matmul = 0, loop = 0;
  int cuts = 0;
  for (const Step& s : p.program.steps) {
    cuts += s.submit_before;
    const auto* d = std::get_if<DispatchStep>(&s.op);
    if (!d) continue;
    const double t = EstimateStepMicros(p.program, s);
    (p.program.groups[d->group].kind == KernelKind::kMatmul ? matmul : loop) = t;
  }
  EXPECT_EQ(cuts, 0);
  // 2*512^3 operations at 2e10 per second: at least 13 ms.
  EXPECT_GE(matmul, 2.0 * 512 * 512 * 512 / target.estimated_ops_per_second * 1e6);
  EXPECT_GT(matmul, loop);
  EXPECT_GE(EstimateMicros(p.program, p.program.steps), 2 * matmul + loop);
  // A budget of one matmul and a bit: each matmul starts a submission.
  target.submission_budget_ms = matmul * 1.5 / 1000;
  Planned tight = PlanText("", entry, target);
  int tight_cuts = 0;
  for (const Step& s : tight.program.steps) tight_cuts += s.submit_before;
  EXPECT_GE(tight_cuts, 1);
  EXPECT_LE(tight_cuts, static_cast<int>(tight.program.steps.size()) - 1);
}

TEST(PlanMemoryReport, ClassesAndPeakBeforeRunning) {
  Planned p = PlanText("", R"(ENTRY main {
  x = f32[1024] parameter(0)
  c = f32[1024] constant({...})
  a = f32[1024] add(x, c)
  r = f32[1024] reduce-precision(a), exponent_bits=5, mantissa_bits=2
  e = f32[1024] exponential(r)
  ROOT s = f32[1024] sine(e)
})", LavapipeTarget());
  ASSERT_TRUE(p.module);
  const MemoryReport r = ReportMemory(p.program);
  ASSERT_EQ(r.classes.size(), 5u);
  EXPECT_EQ(r.classes[0].name, "arguments");
  EXPECT_EQ(r.classes[0].bytes, 4096u);
  EXPECT_EQ(r.classes[1].bytes, 4096u);  // the result
  EXPECT_EQ(r.classes[3].bytes, 4096u);  // the constant
  EXPECT_EQ(r.classes[4].name, "staging");
  EXPECT_EQ(r.classes[4].bytes, 8192u);  // the argument's and the result's host copies
  EXPECT_EQ(r.classes[4].host_bytes, 8192u);
  EXPECT_EQ(r.device_peak, p.program.PeakBytes(MemoryKind::kDevice));
  EXPECT_EQ(r.device_peak + r.host_peak, 5u * 4096);  // nothing shares bytes here
  const std::string text = r.ToString();
  EXPECT_NE(text.find("arguments: 4.0 KiB in 1 buffer\n"), std::string::npos) << text;
  EXPECT_NE(text.find("peak device memory: "), std::string::npos) << text;
  // Too large for the device: refused before allocating, naming the sizes.
  EXPECT_TRUE(CheckFitsDeviceMemory(p.program, r.device_peak, "phone").ok());
  Status s = CheckFitsDeviceMemory(p.program, 4096, "phone");
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("needs 8.0 KiB of device memory at its peak (arguments 4.0 KiB, results 4.0 KiB), more than "
                             "phone's largest device-local heap (4.0 KiB)"),
            std::string::npos)
      << s.message();
}

TEST(PlanVectorSource, IndexMapsWhoseSideOperandsReadTheChainAreReadByElements) {
  // A gather whose start indices come from its own operand: code
  // generation computes the chain's addresses, so the indices must not
  // be computed through it.
  auto module = Parse("", R"(
ENTRY main {
  x = s32[4,32] parameter(0)
  j = s32[4,1] parameter(1)
  own = s32[4,1] slice(x), slice={[0:4], [0:1]}
  g_own = s32[4,32] gather(x, own), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,32}
  g = s32[4,32] gather(x, j), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,32}
  z = s32[] constant(0)
  padded = s32[6,40] pad(g, z), padding=1_1x8_0
  misaligned = s32[6,40] pad(g, z), padding=1_1x2_6
  ROOT t = (s32[4,32], s32[4,32], s32[6,40], s32[6,40]) tuple(g_own, g, padded, misaligned)
})");
  ASSERT_TRUE(module);
  const Computation& e = *module->entry();
  const MaterializedLayoutFn in_memory = [](const Instruction* n) -> std::optional<Layout> {
    if (n->opcode == Opcode::kParameter) return n->shape.layout_or_default();
    return std::nullopt;
  };
  EXPECT_FALSE(FindVectorSource(e.Find("g_own"), 1, 4, in_memory));
  std::optional<VectorSource> g = FindVectorSource(e.Find("g"), 1, 16, in_memory);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->value, e.Find("x"));
  EXPECT_EQ(g->chain, std::vector<const Instruction*>{e.Find("g")});
  EXPECT_FALSE(FindVectorSource(e.Find("g"), 0, 4, in_memory));  // the gathered dim
  std::optional<VectorSource> padded = FindVectorSource(e.Find("padded"), 1, 8, in_memory);
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->pad, e.Find("padded"));
  EXPECT_FALSE(FindVectorSource(e.Find("padded"), 1, 16, in_memory));  // a block across the low edge
  EXPECT_FALSE(FindVectorSource(e.Find("misaligned"), 1, 4, in_memory));
  EXPECT_TRUE(FindVectorSource(e.Find("misaligned"), 1, 2, in_memory));
}

TEST(PlanBuffers, ChainOfKernelsThatCannotFuseNeedsTwoTemporaries) {
  // Ten reduce-windows in a row: each value dies once the next is written.
  std::string entry = "ENTRY main {\n  x0 = f32[4096] parameter(0)\n  z = f32[] constant(0)\n";
  for (int i = 1; i <= 10; ++i)
    entry += std::string(i == 10 ? "  ROOT " : "  ") + "x" + std::to_string(i) + " = f32[4096] reduce-window(x" +
             std::to_string(i - 1) + ", z), window={size=3 pad=1_1}, to_apply=add\n";
  entry += "}\n";
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    Planned p = PlanText(kAdd, entry, t);
    ASSERT_EQ(p.program.groups.size(), 10u);
    std::set<uint64_t> temporaries;
    for (const BufferDecl& b : p.program.buffers)
      if (b.kind == BufferKind::kTemporary) temporaries.insert(b.offset);
    EXPECT_EQ(p.program.buffers.size(), 13u);  // x0 and its staging, 9 temporaries, the result and its staging
    EXPECT_LE(temporaries.size(), 2u);
    // The parameter dies after the first kernel, the result is born at the
    // last: two slices in all.
    EXPECT_EQ(p.program.PeakBytes(MemoryKind::kDevice), 2u * 4096 * 4);
  }
}

TEST(PlanBuffers, PeakMemoryIsKnownBeforeAllocation) {
  const std::string entry = "ENTRY main {\n  x = f32[1000] parameter(0)\n  ROOT y = f32[1000] exponential(x)\n}\n";
  for (const TargetFeatures& t : AllTargets()) {
    Planned p = PlanText("", entry, t);
    // x lives from its upload to the kernel, y from the kernel to its
    // download: both at once on the device, aligned to the target.
    const uint64_t slice = 4000, aligned = (slice + t.min_storage_buffer_offset_alignment - 1) /
                                              std::max<uint64_t>(16, t.min_storage_buffer_offset_alignment) *
                                              std::max<uint64_t>(16, t.min_storage_buffer_offset_alignment);
    EXPECT_EQ(p.program.PeakBytes(MemoryKind::kDevice), aligned + slice);
    EXPECT_EQ(p.program.PeakBytes(MemoryKind::kHost), aligned + slice);  // two staging buffers
    for (const BufferDecl& b : p.program.buffers) EXPECT_EQ(b.offset % t.min_storage_buffer_offset_alignment, 0u);
  }
}

TEST(PlanBuffers, BufferOverTheBindingLimitIsAClearError) {
  const std::string entry = "ENTRY main {\n  x = f32[40000000] parameter(0)\n  ROOT y = f32[40000000] negate(x)\n}\n";
  auto m = Parse("", entry);
  auto p = PlanModule(*m, PhoneTarget());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("maxStorageBufferRange"), std::string::npos) << p.status().ToString();
  EXPECT_NE(p.status().message().find("160000000"), std::string::npos) << p.status().ToString();
}

// A program by hand: buffers in one arena, steps that touch them.
Program HandProgram(const std::vector<std::pair<uint64_t, uint64_t>>& slices) {
  Program p;
  p.arenas.push_back({MemoryKind::kDevice, 1 << 20});
  for (const auto& [offset, bytes] : slices) {
    BufferDecl b;
    b.arena = 0;
    b.offset = offset;
    b.bytes = bytes;
    p.buffers.push_back(b);
  }
  return p;
}

Step Touching(std::vector<int> reads, std::vector<int> writes) {
  Step s;
  s.op = FillStep{};
  s.reads = std::move(reads);
  s.writes = std::move(writes);
  return s;
}

TEST(PlanBarriers, DerivedFromTheBytesEachStepTouches) {
  // b0..b3 apart; b4 shares b1's bytes.
  Program p = HandProgram({{0, 256}, {256, 256}, {512, 256}, {768, 256}, {256, 128}});
  p.steps = {Touching({0}, {1}),   // 0
             Touching({0}, {2}),   // 1: independent of 0: no barrier
             Touching({1}, {3}),   // 2: reads what 0 wrote
             Touching({2}, {}),    // 3: 2's barrier covered 1's write
             Touching({}, {4}),    // 4: overwrites bytes 2 read (b1 under another name)
             Touching({}, {4}),    // 5: writes what 4 wrote
             Touching({0}, {})};   // 6: reads nothing written since
  DeriveBarriers(p);
  std::vector<bool> got;
  for (const Step& s : p.steps) got.push_back(s.barrier_before);
  EXPECT_EQ(got, (std::vector<bool>{false, false, true, false, true, true, false}));
  EXPECT_EQ(p.BarrierCount(), 3);
}

TEST(PlanBarriers, IndependentKernelsRunBackToBack) {
  const std::string entry = R"(
ENTRY main {
  x = f32[4096] parameter(0)
  z = f32[] constant(0)
  a = f32[4096] reduce-window(x, z), window={size=3 pad=1_1}, to_apply=add
  b = f32[4096] reduce-window(x, z), window={size=5 pad=2_2}, to_apply=add
  ROOT t = (f32[4096], f32[4096]) tuple(a, b)
})";
  Planned p = PlanText(kAdd, entry, LavapipeTarget());
  // upload | a, b | downloads: a barrier after the upload and one before the downloads.
  ASSERT_EQ(p.program.steps.size(), 5u);
  EXPECT_TRUE(p.program.steps[1].barrier_before);
  EXPECT_FALSE(p.program.steps[2].barrier_before);
  EXPECT_TRUE(p.program.steps[3].barrier_before);
  EXPECT_FALSE(p.program.steps[4].barrier_before);
}

// Per-invocation loop trips must stay under the target's budget however
// long the reduction, window, scan or scatter (lavapipe silently cuts
// loops past 65535 trips in all).
TEST(PlanLoops, LongReductionsAreCutIntoChunks) {
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    for (const int64_t n : {int64_t{4194303}, int64_t{16777215}, int64_t{30000000}}) {
      const std::string s = std::to_string(n);
      Planned p = PlanText(kAdd, "ENTRY main {\n  x = f32[" + s + "] parameter(0)\n  z = f32[] constant(0)\n"
                                 "  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add\n}\n", t);
      if (n * 4 > static_cast<int64_t>(t.max_storage_buffer_range)) continue;
      ASSERT_EQ(p.program.groups.size(), 1u);
      const auto& c = std::get<ReduceConfig>(p.program.groups[0].config);
      EXPECT_GT(c.chunks, 1);
      EXPECT_LE((c.chunk_steps + c.L - 1) / c.L, static_cast<int64_t>(t.max_loop_trips));
      EXPECT_LE(c.parts.back(), kPartialsPerFold);
      EXPECT_EQ(p.program.DispatchCount(), static_cast<int>(c.parts.size()) + 1);
    }
    // Rows of 10M: each row in chunks too.
    Planned rows = PlanText(kAddS32, "ENTRY main {\n  x = s32[2,10000000] parameter(0)\n  z = s32[] constant(0)\n"
                                  "  ROOT r = s32[2] reduce(x, z), dimensions={1}, to_apply=add\n}\n", t);
    if (rows.program.groups.empty()) continue;
    const auto& c = std::get<ReduceConfig>(rows.program.groups[0].config);
    EXPECT_LE((c.chunk_steps + c.L - 1) / c.L, static_cast<int64_t>(t.max_loop_trips));
  }
}

TEST(PlanLoops, LongWindowsScansAndScattersRunInPasses) {
  const TargetFeatures t = LavapipeTarget();
  Planned window = PlanText(kAdd, "ENTRY main {\n  x = f32[200000] parameter(0)\n  z = f32[] constant(0)\n"
                                  "  ROOT r = f32[100001] reduce-window(x, z), window={size=100000}, to_apply=add\n}\n", t);
  const auto& w = std::get<WindowConfig>(window.program.groups[0].config);
  EXPECT_GE(w.passes, 7);
  EXPECT_LE(w.chunk, static_cast<int64_t>(t.max_loop_trips));
  EXPECT_EQ(window.program.DispatchCount(), w.passes);

  // A scan along 10M: the parallel prefix and the sequential loop both in segments.
  const std::string scan_fn =
      "f (x: f32[], c: f32[]) -> (f32[], f32[]) {\n  x = f32[] parameter(0)\n  c = f32[] parameter(1)\n"
      "  s = f32[] add(c, x)\n  ROOT t = (f32[], f32[]) tuple(s, s)\n}\n";
  for (const char* associative : {"true", "false"}) {
    Planned scan = PlanText(scan_fn, "ENTRY main {\n  x = f32[10000000] parameter(0)\n  z = f32[] constant(0)\n"
                                     "  ROOT r = (f32[10000000], f32[]) scan(x, z), scan_dimension=0, is_reverse=false,"
                                     " is_associative=" + std::string(associative) + ", to_apply=f\n}\n", t);
    ASSERT_EQ(scan.program.groups.size(), 1u);
    const auto& c = std::get<ScanConfig>(scan.program.groups[0].config);
    EXPECT_EQ(c.parallel, std::string(associative) == "true");
    EXPECT_GT(c.passes, 1);
    EXPECT_LE(c.parallel ? c.segment / c.L * 10 : c.segment, static_cast<int64_t>(t.max_loop_trips));
    EXPECT_EQ(scan.program.DispatchCount(), c.passes);
  }
  // 100k updates into 10 elements, with a combiner no atomic does.
  const char* first = "first {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] subtract(a, b)\n}\n";
  Planned scatter = PlanText(first, "ENTRY main {\n  x = f32[10] parameter(0)\n  i = s32[100000,1] parameter(1)\n"
                                    "  u = f32[100000] parameter(2)\n  ROOT s = f32[10] scatter(x, i, u), update_window_dims={},"
                                    " inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1,"
                                    " to_apply=first\n}\n", t);
  const auto& sc = std::get<ScatterConfig>(scatter.program.groups[0].config);
  EXPECT_EQ(sc.mode, ScatterConfig::Mode::kOwner);
  EXPECT_EQ(sc.updates, 100000);
  EXPECT_GE(sc.passes, 7);
  EXPECT_LE(sc.chunk, static_cast<int64_t>(t.max_loop_trips));
}

// Scatter runs in one pass over the updates where the combiner is one
// commutative op on a type of at most 32 bits (an atomic, or a
// compare-and-swap loop) or the indices are unique; elsewhere each result
// element walks the updates.
TEST(PlanConfigs, ScatterModesPerCombinerTypeAndTarget) {
  // op "replace": the combiner returns the update.
  auto mode = [](const std::string& type, const std::string& op, const TargetFeatures& t, const std::string& extra = "") {
    const std::string text = op == "replace" ? "comb {\n  a = " + type + "[] parameter(0)\n  ROOT b = " + type + "[] parameter(1)\n}\n"
                                             : "comb {\n  a = " + type + "[] parameter(0)\n  b = " + type +
                                                   "[] parameter(1)\n  ROOT r = " + type + "[] " + op + "(a, b)\n}\n";
    Planned p = PlanText(text, "ENTRY main {\n  x = " + type + "[1000] parameter(0)\n  i = s32[16000,1] parameter(1)\n"
                               "  u = " + type + "[16000] parameter(2)\n  ROOT s = " + type + "[1000] scatter(x, i, u),"
                               " update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0},"
                               " index_vector_dim=1" + extra + ", to_apply=comb\n}\n", t);
    const auto& c = std::get<ScatterConfig>(p.program.groups[0].config);
    if (c.mode != ScatterConfig::Mode::kOwner) {
      EXPECT_EQ(c.update_invocations, 16000u);
      // Copy the operand, then the updates (last-update-wins: clear the
      // winners too, claim, store).
      EXPECT_EQ(p.program.DispatchCount(), c.mode == ScatterConfig::Mode::kLastWins ? 4 : 2);
    }
    return c.mode;
  };
  using M = ScatterConfig::Mode;
  const TargetFeatures lavapipe = LavapipeTarget(), phone = PhoneTarget(), gpu = DesktopGpuTarget();
  for (const TargetFeatures* t : {&lavapipe, &phone, &gpu}) {
    EXPECT_EQ(mode("s32", "add", *t), M::kAtomic);
    EXPECT_EQ(mode("u32", "maximum", *t), M::kAtomic);
    EXPECT_EQ(mode("s32", "xor", *t), M::kAtomic);
    EXPECT_EQ(mode("f32", "minimum", *t), M::kAtomic);  // ordered integer atomics on the bits
    EXPECT_EQ(mode("s32", "multiply", *t), M::kCompareSwap);  // no atomic multiply
    EXPECT_EQ(mode("f16", "add", *t), M::kCompareSwap);       // elements share words
    EXPECT_EQ(mode("bf16", "maximum", *t), M::kCompareSwap);
    EXPECT_EQ(mode("u8", "or", *t), M::kCompareSwap);
    EXPECT_EQ(mode("s32", "subtract", *t), M::kOwner);  // not commutative
    EXPECT_EQ(mode("bf16", "replace", *t), M::kLastWins);
    EXPECT_EQ(mode("c128", "replace", *t), M::kLastWins);  // any type: a plain store
    EXPECT_EQ(mode("f16", "subtract", *t, ", unique_indices=true"), M::kUnique);
  }
  // f32 add is one atomic with VK_EXT_shader_atomic_float; the phone lacks
  // it and swaps words.
  EXPECT_EQ(mode("f32", "add", lavapipe), M::kAtomic);
  EXPECT_EQ(mode("f32", "add", gpu), M::kAtomic);
  EXPECT_EQ(mode("f32", "add", phone), M::kCompareSwap);
  // 64-bit elements swap 64-bit words where the device has 64-bit atomics.
  TargetFeatures no_atomic64 = lavapipe;
  no_atomic64.int64_atomics = false;
  for (const std::string type : {"f64", "s64", "u64", "c64"}) {
    EXPECT_EQ(mode(type, "add", lavapipe), M::kCompareSwap) << type;
    EXPECT_EQ(mode(type, "add", gpu), M::kCompareSwap) << type;
    EXPECT_EQ(mode(type, "add", no_atomic64), M::kOwner) << type;
  }
  EXPECT_EQ(mode("c128", "add", gpu), M::kOwner);  // 128-bit elements
}

// topk over a line of 1M runs as a radix select where its key has radix
// images and k is at most kMaxSelectK: one clear, a count and a pick per
// 8-bit digit of the composite (the key's 32 bits, then the index's 20),
// a gather and a rank; the permutation holds k a line. Keys without images
// (f8) take rounds over blocks of 1024 (every sort line at most 4096
// long); short lines keep their one sort.
TEST(PlanConfigs, TopKOfLongLinesSelectsOrRunsInRounds) {
  auto topk = [](const std::string& type, int64_t n) {
    return "ENTRY main {\n  x = " + type + "[" + std::to_string(n) + "] parameter(0)\n  ROOT t = (" + type + "[64], s32[64]) topk(x), k=64, largest=true\n}\n";
  };
  for (const TargetFeatures& t : {LavapipeTarget(), DesktopGpuTarget(), PhoneTarget()}) {
    SCOPED_TRACE(t.device_name);
    Planned p = PlanText("", topk("f32", 1048576), t);
    std::vector<const SortConfig*> sorts;
    for (const FusionGroup& g : p.program.groups)
      if (const auto* c = std::get_if<SortConfig>(&g.config)) sorts.push_back(c);
    ASSERT_EQ(sorts.size(), 1u);
    EXPECT_EQ(sorts[0]->algorithm, SortConfig::Algorithm::kRadixSelect);
    EXPECT_EQ(sorts[0]->select_k, 64);
    EXPECT_EQ(sorts[0]->passes.size(), 1u + 2 * (4 + 3) + 2);
    EXPECT_EQ(PermutationShape(*sorts[0]).element_count(), 64);
    Planned f8 = PlanText("", topk("f8e4m3fn", 1048576), t);
    int rounds = 0;
    for (const FusionGroup& g : f8.program.groups)
      if (const auto* c = std::get_if<SortConfig>(&g.config)) {
        ++rounds;
        EXPECT_LE(c->length, 4096);
        EXPECT_NE(c->algorithm, SortConfig::Algorithm::kRadixSelect);
      }
    EXPECT_EQ(rounds, 4);  // 1M -> 65536 -> 4096 -> 256 candidates -> the 64
    Planned short_line = PlanText("", topk("f32", 2048), t);
    std::vector<int64_t> lengths;
    for (const FusionGroup& g : short_line.program.groups)
      if (const auto* c = std::get_if<SortConfig>(&g.config)) {
        lengths.push_back(c->length);
        EXPECT_EQ(c->algorithm, SortConfig::Algorithm::kRadix);
      }
    EXPECT_EQ(lengths, std::vector<int64_t>{2048});
  }
}

// Comparators that order keys run as a radix sort, a digit a pass (8 bits
// on a CPU, 4 on GPUs), with three kernels a pass (one for lines of one
// tile) and the last pass writing plane 0; anything else is a block merge.
TEST(PlanConfigs, SortRunsAsRadixWhereTheComparatorOrdersKeys) {
  auto cmp = [](const std::string& ty, const std::string& root) {
    return "less {\n  a = " + ty + "[] parameter(0)\n  b = " + ty + "[] parameter(1)\n  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n" +
           root + "}\n";
  };
  auto sort = [](const std::string& ty, int64_t n) {
    const std::string k = ty + "[" + std::to_string(n) + "]", v = "s32[" + std::to_string(n) + "]";
    return "ENTRY main {\n  k = " + k + " parameter(0)\n  v = " + v + " iota(), iota_dimension=0\n  ROOT s = (" + k + ", " + v +
           ") sort(k, v), dimensions={0}, to_apply=less\n}\n";
  };
  auto configs = [](const Planned& p) {
    std::vector<SortConfig> c;
    for (const FusionGroup& g : p.program.groups)
      if (const auto* s = std::get_if<SortConfig>(&g.config)) c.push_back(*s);
    return c;
  };
  using A = SortConfig::Algorithm;
  const std::string total_lt = "  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER\n";
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    std::vector<SortConfig> c = configs(PlanText(cmp("f32", total_lt), sort("f32", 1 << 20), t));
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].algorithm, A::kRadix);
    ASSERT_EQ(c[0].radix_keys.size(), 1u);
    EXPECT_TRUE(c[0].radix_keys[0].total_order);
    EXPECT_FALSE(c[0].radix_keys[0].descending);
    EXPECT_EQ(c[0].radix_bits, t.cpu ? 8 : 4);
    EXPECT_EQ(c[0].passes.size(), t.cpu ? 12u : 24u);  // count, scan, place per digit
    EXPECT_EQ(c[0].passes.back().push_constants[3] & 1u, 0u);  // the last pass writes the permutation
    const uint64_t shared = ((c[0].RadixDigitValues() + 1) * c[0].radix_lanes + c[0].RadixDigitValues()) * 4;
    EXPECT_LE(shared, t.max_shared_memory_bytes);
    // b > a is a < b; half floats and small integers take fewer digits.
    c = configs(PlanText(cmp("f16", "  ROOT r = pred[] compare(b, a), direction=GT\n"), sort("f16", 100000), t));
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].algorithm, A::kRadix);
    EXPECT_FALSE(c[0].radix_keys[0].descending);
    EXPECT_EQ(c[0].radix_keys[0].bits, 19);
    c = configs(PlanText(cmp("s8", "  ROOT r = pred[] compare(a, b), direction=GT\n"), sort("s8", 100000), t));
    EXPECT_TRUE(c[0].radix_keys[0].descending);
    EXPECT_EQ(c[0].passes.size(), t.cpu ? 3u : 6u);
    // The payload as the key.
    c = configs(PlanText(cmp("f32", "  ROOT r = pred[] compare(c, d), direction=LT\n"), sort("f32", 100000), t));
    EXPECT_EQ(c[0].radix_keys[0].operand, 1);
    // Not a key order: a computed key, a non-strict comparison, f8 keys,
    // a key compared with another operand's value. (A complex operand
    // rides along with an s32 key.)
    for (const auto& [ty, root] : std::vector<std::pair<std::string, std::string>>{
             {"f32", "  x = f32[] abs(a)\n  y = f32[] abs(b)\n  ROOT r = pred[] compare(x, y), direction=LT\n"},
             {"f32", "  ROOT r = pred[] compare(a, b), direction=LE\n"},
             {"f8e4m3fn", "  ROOT r = pred[] compare(a, b), direction=LT\n"},
             {"c64", "  ROOT r = pred[] compare(c, d), direction=LT\n"},
             {"s32", "  ROOT r = pred[] compare(a, d), direction=LT\n"}}) {
      c = configs(PlanText(cmp(ty, root), sort(ty, 100000), t));
      ASSERT_EQ(c.size(), 1u) << root;
      EXPECT_EQ(c[0].algorithm, ty == "c64" ? A::kRadix : A::kBlockMerge) << root;
    }
    // Images past the binding limit (2 planes of 20M words > 128 MiB): a
    // block merge, whose two planes of indices are buffers of their own
    // and each fits.
    Planned big = PlanText(cmp("u32", "  ROOT r = pred[] compare(a, b), direction=LT\n"), sort("u32", 20000000), t);
    c = configs(big);
    EXPECT_EQ(c[0].algorithm, t.max_storage_buffer_range >= (uint64_t{20000000} * 8) ? A::kRadix : A::kBlockMerge);
    for (const BufferDecl& b : big.program.buffers) EXPECT_LE(b.bytes, t.max_storage_buffer_range) << b.name;
    // A block merge of 1M: blocks of 16 an invocation sorts on a CPU, of
    // what shared memory holds a workgroup sorts on a GPU, then a
    // merge pass per doubling, alternating planes, the last into the
    // permutation.
    c = configs(PlanText(cmp("f32", "  x = f32[] abs(a)\n  y = f32[] abs(b)\n  ROOT r = pred[] compare(x, y), direction=LT\n"),
                         sort("f32", 1 << 20), t));
    EXPECT_EQ(c[0].run_sort, t.cpu);
    int64_t block = 2048;  // an index and two 4-byte keys an element, in at most 16 KiB
    while (block * 12 > std::min<int64_t>(t.max_shared_memory_bytes, 16384)) block >>= 1;
    EXPECT_EQ(c[0].block, t.cpu ? kCpuRunSort : block);
    EXPECT_EQ(c[0].merge_chunk, t.cpu ? kCpuMergeChunk : kGpuMergeChunk);
    EXPECT_EQ(c[0].padded, 1 << 20);
    ASSERT_EQ(c[0].passes.size(), static_cast<size_t>(1 + 20 - std::countr_zero(static_cast<uint64_t>(c[0].block))));
    for (size_t p = 1; p < c[0].passes.size(); ++p) {
      EXPECT_EQ(c[0].passes[p].push_constants[0], static_cast<uint32_t>(c[0].block << (p - 1)));
      EXPECT_EQ(c[0].passes[p].kernel, (c[0].passes.size() - 1 - p) % 2 == 0 ? 2 : 1);
    }
    // Short lines: a lane a line (no barriers), or a tile a line; either
    // way only the placing kernel runs.
    for (int64_t n : {16, 1000, 3000}) {
      Planned p = PlanText(cmp("f32", total_lt), sort("f32", n), t);
      c = configs(p);
      EXPECT_EQ(c[0].algorithm, A::kRadix);
      EXPECT_EQ(c[0].radix_lane_per_line, n <= (t.cpu ? 1024 : 64)) << n;
      EXPECT_EQ(c[0].RadixTiles(), 1) << n;
      for (const SortConfig::Pass& pass : c[0].passes) EXPECT_EQ(pass.kernel, 2);
      EXPECT_EQ(c[0].radix_bits, t.cpu && n < 256 ? 4 : t.cpu ? 8 : 4);
    }
  }
}

TEST(PlanConfigs, RowAndColumnSumsPerTarget) {
  const std::string rows = "ENTRY main {\n  x = f32[4096,4096] parameter(0)\n  z = f32[] constant(0)\n"
                           "  ROOT r = f32[4096] reduce(x, z), dimensions={1}, to_apply=add\n}\n";
  const std::string cols = "ENTRY main {\n  x = f32[4096,4096] parameter(0)\n  z = f32[] constant(0)\n"
                           "  ROOT r = f32[4096] reduce(x, z), dimensions={0}, to_apply=add\n}\n";
  // lavapipe streams a row per lane; a GPU shares each row among 64 lanes.
  Planned lavapipe = PlanText(kAdd, rows, LavapipeTarget());
  const auto& lp = std::get<ReduceConfig>(lavapipe.program.groups[0].config);
  EXPECT_EQ(lp.mode, ReduceConfig::Mode::kRows);
  EXPECT_TRUE(lp.row_vectors);
  EXPECT_EQ(lp.L, 1);
  EXPECT_EQ(lp.chunks, 1);
  Planned desktop = PlanText(kAdd, rows, DesktopGpuTarget());
  const auto& gpu = std::get<ReduceConfig>(desktop.program.groups[0].config);
  EXPECT_EQ(gpu.L, 64);
  // Columns fold blocks of 16 rows into partials everywhere.
  for (const TargetFeatures& t : AllTargets()) {
    Planned p = PlanText(kAdd, cols, t);
    const auto& c = std::get<ReduceConfig>(p.program.groups[0].config);
    EXPECT_EQ(c.mode, ReduceConfig::Mode::kColumnBlocks);
    EXPECT_EQ(c.parts, (std::vector<int64_t>{256, 16}));
  }
}

std::string MatmulEntry(const std::string& t, int64_t m, int64_t k, int64_t n) {
  const std::string x = t + "[" + std::to_string(m) + "," + std::to_string(k) + "]",
                    w = t + "[" + std::to_string(k) + "," + std::to_string(n) + "]",
                    r = t + "[" + std::to_string(m) + "," + std::to_string(n) + "]";
  return "ENTRY main {\n  x = " + x + " parameter(0)\n  w = " + w + " parameter(1)\n  ROOT d = " + r +
         " dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
}

TEST(PlanConfigs, MatmulTilesPerTarget) {
  auto config = [](const Planned& p) { return std::get<MatmulConfig>(GroupWriting(p.program, "d")->config); };
  // lavapipe: 8 x 8 register blocks read as texel vectors (the lhs along
  // k, the rhs along n), the eight lanes along n one subgroup each loading
  // its own lhs rows, 64 lanes, no shared memory; products in 2 x 4
  // sub-blocks with the steps inner.
  const MatmulConfig lp = config(PlanText("", MatmulEntry("f32", 1024, 1024, 1024), LavapipeTarget()));
  EXPECT_EQ(lp.thread_m * 100 + lp.thread_n, 808);
  EXPECT_EQ(lp.threads_n, 8);
  EXPECT_FALSE(lp.share_lhs);
  EXPECT_EQ(lp.sub_m * 10 + lp.sub_n, 24);
  EXPECT_EQ(lp.k_step, 4);
  EXPECT_EQ(lp.lhs, MatmulConfig::Read::kAlongK);
  EXPECT_EQ(lp.rhs, MatmulConfig::Read::kAlongFree);
  EXPECT_EQ(lp.local_size, 64u);
  EXPECT_EQ(lp.tile_k, 0);
  EXPECT_EQ(lp.splits, 1);
  EXPECT_FALSE(lp.flat_blocks);  // whole 64 x 64 tiles, near one another in the cache
  EXPECT_EQ(lp.workgroups, 256u);
  // Tiles that would pad or be few (MobileNet's 14x14x576 -> 96): blocks
  // taken in order, one padded
  // block at most (25 x 12 of them, not 4 x 2 tiles of 8 x 8), in
  // workgroups of 8 that make at least 32 for llvmpipe's threads instead
  // of a split contraction.
  const MatmulConfig few = config(PlanText("", MatmulEntry("f32", 196, 576, 96), LavapipeTarget()));
  EXPECT_TRUE(few.flat_blocks);
  EXPECT_EQ(few.blocks_m * 1000 + few.blocks_n, 25012);
  EXPECT_EQ(few.local_size, 8u);
  EXPECT_EQ(few.workgroups, 38u);
  EXPECT_EQ(few.splits, 1);
  // 8-bit operands keep 16 x 16 blocks: a texel holds 16 columns of them.
  const MatmulConfig bytes = config(PlanText("", "ENTRY main {\n  x = s8[1024,1024] parameter(0)\n  w = s8[1024,1024] parameter(1)\n"
                                                 "  ROOT d = s32[1024,1024] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
                                             LavapipeTarget()));
  EXPECT_EQ(bytes.thread_m * 100 + bytes.thread_n, 1616);
  EXPECT_EQ(bytes.rhs, MatmulConfig::Read::kAlongFree);
  // Narrow results with the rhs read by elements (546 columns hold no
  // whole vectors of 8 bf16): 8 x 8 blocks where the result packs in a few
  // integer ops (bf16, 8- and 16-bit integers), 4 x 4 for f16's rounding.
  for (const auto& [type, block] : {std::pair<std::string, int64_t>{"bf16", 808}, {"s16", 808}, {"u8", 808}, {"f16", 404}}) {
    SCOPED_TRACE(type);
    const MatmulConfig narrow = config(PlanText("", MatmulEntry(type, 100, 1024, 546), LavapipeTarget()));
    EXPECT_EQ(narrow.rhs, MatmulConfig::Read::kElements);
    EXPECT_EQ(narrow.thread_m * 100 + narrow.thread_n, block);
  }
  // Vectors from storage buffers (VKXLA_MASK=texel): 32 x 16 blocks, the
  // lanes along n sharing the lhs rows, products in 2 x 4 sub-blocks.
  TargetFeatures storage = LavapipeTarget();
  storage.max_texel_buffer_elements = 0;
  const MatmulConfig sh = config(PlanText("", MatmulEntry("f32", 1024, 1024, 1024), storage));
  EXPECT_EQ(sh.thread_m * 100 + sh.thread_n, 3216);
  EXPECT_TRUE(sh.share_lhs);
  EXPECT_EQ(sh.sub_m * 10 + sh.sub_n, 24);
  // The lhs read an element at a time through a fused convert: texels or
  // not, the lanes share its rows.
  EXPECT_TRUE(config(PlanText("", "ENTRY main {\n  x = s32[64,64] parameter(0)\n  cx = f32[64,64] convert(x)\n"
                                  "  w = f32[64,64] parameter(1)\n  ROOT d = f32[64,64] dot(cx, w), "
                                  "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
                              LavapipeTarget()))
                  .share_lhs);
  // Without subgroup broadcasts (VKXLA_MASK=subgroup), or where the lanes
  // along n are not one subgroup, every lane loads its rows: 16 x 16.
  for (const uint32_t subgroup : {8u, 16u}) {
    TargetFeatures t = storage;
    t.subgroup_size = subgroup;
    if (subgroup == 8) t.subgroup_broadcast = false;
    const MatmulConfig u = config(PlanText("", MatmulEntry("f32", 1024, 1024, 1024), t));
    EXPECT_FALSE(u.share_lhs);
    EXPECT_EQ(u.thread_m * 100 + u.thread_n, 1616);
    EXPECT_EQ(u.sub_m * 10 + u.sub_n, 24);
  }
  // Short rows: blocks stay as tall as the result; rows split among the
  // lanes only where each gets a whole number of them.
  const MatmulConfig short_rows = config(PlanText("", MatmulEntry("f32", 17, 64, 40), storage));
  EXPECT_EQ(short_rows.thread_m * 100 + short_rows.thread_n, 808);  // 40 columns: no whole vectors of 16
  EXPECT_TRUE(short_rows.share_lhs);
  // Too few columns for eight lanes along n: no subgroup of them.
  EXPECT_FALSE(config(PlanText("", MatmulEntry("f32", 64, 64, 24), storage)).share_lhs);
  EXPECT_FALSE(config(PlanText("", MatmulEntry("f32", 3, 64, 40), storage)).share_lhs);
  EXPECT_FALSE(config(PlanText("", MatmulEntry("s64", 64, 64, 64), storage)).share_lhs);
  // GPUs (desktop and phone alike): 64 x 64 tiles staged 16 steps at a
  // time through shared memory, 4 x 4 blocks of 256 invocations; where
  // both dims fill 128 and the accumulators are 32-bit, 128 x 128 tiles of
  // 8 x 8 blocks in quads, 8 steps a slice, split-K to 256 workgroups.
  for (const TargetFeatures& t : {DesktopGpuTarget(), PhoneTarget()}) {
    SCOPED_TRACE(t.device_name);
    const MatmulConfig s = config(PlanText("", MatmulEntry("f32", 64, 1024, 1024), t));
    EXPECT_EQ(s.tile_k, 16);
    EXPECT_FALSE(s.quads);
    EXPECT_EQ(s.tile_m * 1000 + s.tile_n, 64064);
    EXPECT_EQ(s.local_size, 256u);
    EXPECT_FALSE(s.flat_blocks);
    EXPECT_EQ(s.sub_m, 0);  // sub-blocks are a CPU register file's answer
    const MatmulConfig g = config(PlanText("", MatmulEntry("f32", 1024, 1024, 1024), t));
    EXPECT_TRUE(g.quads);
    EXPECT_EQ(g.tile_k, 8);
    EXPECT_EQ(g.tile_m * 1000 + g.tile_n, 128128);
    EXPECT_EQ(g.thread_m * 10 + g.thread_n, 88);
    EXPECT_EQ(g.local_size, 256u);
    EXPECT_EQ(g.splits, 4);
    EXPECT_EQ(g.workgroups, 256u);
    EXPECT_FALSE(g.share_lhs);
    // Enough 256 x 128 tiles to fill the device: those, 16 steps a slice,
    // where the device runs 512 invocations a workgroup (not a phone).
    // A contraction past the loop budget splits in quads too: no
    // invocation walks more slices than the budget allows.
    const MatmulConfig deep = config(PlanText("", MatmulEntry("f32", 128, 200000, 128), t));
    EXPECT_TRUE(deep.quads);
    EXPECT_GT(deep.splits, 1);
    EXPECT_LE(deep.k_chunk / deep.tile_k * 4, static_cast<int64_t>(t.max_loop_trips));  // 2 + a load a step, at most
    const MatmulConfig big = config(PlanText("", MatmulEntry("f32", 4096, 4096, 4096), t));
    EXPECT_EQ(big.splits, 1);  // 512 or 1024 tiles, and 4096 steps within the loop budget
    EXPECT_TRUE(big.quads);
    if (t.max_workgroup_invocations >= 512) {
      EXPECT_EQ(big.tile_m * 1000 + big.tile_n, 256128);
      EXPECT_EQ(big.tile_k, 16);
      EXPECT_EQ(big.local_size, 512u);
    } else {
      EXPECT_EQ(big.tile_m * 1000 + big.tile_n, 128128);
    }
    EXPECT_TRUE(config(PlanText("", MatmulEntry("s32", 1024, 1024, 1024), t)).quads);
    // Too few 128 x 128 tiles to occupy a GPU (4, a contraction too short to
    // split): 64 x 64 tiles.
    EXPECT_FALSE(config(PlanText("", MatmulEntry("f32", 256, 256, 256), t)).quads);
    EXPECT_FALSE(config(PlanText("", MatmulEntry("f32", 3136, 24, 144), t)).quads);
    for (const char* wide : {"f64", "c64", "s64", "pred"})
      EXPECT_FALSE(config(PlanText("", MatmulEntry(wide, 1024, 1024, 1024), t)).quads) << wide;
    // A matrix-vector product gives each row a subgroup-wide team along k.
    const MatmulConfig v = config(PlanText("", MatmulEntry("f32", 4096, 4096, 1), t));
    EXPECT_EQ(v.tile_k, 0);
    EXPECT_EQ(v.k_lanes, t.subgroup_size);
    EXPECT_EQ(v.tile_m * v.k_lanes, 256);
  }
  // f16 x f16 on a device with f16 cooperative matrices: the staged tiles
  // run on them (f32 and bf16 operands, and devices without them, do not).
  EXPECT_TRUE(config(PlanText("", MatmulEntry("f16", 256, 256, 256), DesktopGpuTarget())).cooperative);
  // Large enough for quads: those (faster on the H200 than the cooperative
  // tiles).
  const MatmulConfig f16_large = config(PlanText("", MatmulEntry("f16", 1024, 1024, 1024), DesktopGpuTarget()));
  EXPECT_TRUE(f16_large.quads);
  EXPECT_FALSE(f16_large.cooperative);
  EXPECT_TRUE(config(PlanText("", MatmulEntry("f16", 1024, 1024, 1024), PhoneTarget())).quads);
  // The tuning's shape wherever a GPU stages (m and n at least 32), also
  // below 128.
  {
    TargetFeatures tuned = DesktopGpuTarget();
    tuned.matmul_tuning = {8, 32, 16, 512};
    const MatmulConfig q = config(PlanText("", MatmulEntry("f32", 64, 4096, 512), tuned));  // m, k, n
    EXPECT_TRUE(q.quads);
    EXPECT_EQ(q.tile_m * 1000 + q.tile_n, 64256);
    EXPECT_EQ(q.tile_k, 16);
    EXPECT_EQ(q.workgroups, 2u * 16u);  // 2 tiles, split as far as chunks of 256 steps go
    // A shape past the device's limits gives way to the plan's 128 x 128.
    TargetFeatures phone = PhoneTarget();
    phone.matmul_tuning = {32, 32, 16, 0};  // 1024 invocations: a phone runs 256
    const MatmulConfig own = config(PlanText("", MatmulEntry("f32", 1024, 1024, 1024), phone));
    EXPECT_TRUE(own.quads);
    EXPECT_EQ(own.tile_m * 1000 + own.tile_n, 128128);
  }
  EXPECT_FALSE(config(PlanText("", MatmulEntry("f32", 256, 256, 256), DesktopGpuTarget())).cooperative);
  EXPECT_FALSE(config(PlanText("", MatmulEntry("bf16", 256, 256, 256), DesktopGpuTarget())).cooperative);
  EXPECT_FALSE(config(PlanText("", MatmulEntry("f16", 8, 256, 256), DesktopGpuTarget())).cooperative);  // not staged
  EXPECT_FALSE(config(PlanText("", MatmulEntry("f16", 256, 256, 256), PhoneTarget())).cooperative);
  EXPECT_FALSE(config(PlanText("", MatmulEntry("f16", 256, 256, 256), LavapipeTarget())).cooperative);
  // c128 accumulators need 32 KiB of staged slices: the desktop stages, a
  // phone's 16 KiB cannot (and it has no f64 anyway).
  EXPECT_EQ(config(PlanText("", MatmulEntry("c128", 256, 256, 256), DesktopGpuTarget())).tile_k, 16);
  // A long contraction splits so that no invocation's loop passes the
  // budget; a short one over few tiles splits for parallelism.
  for (const TargetFeatures& t : AllTargets()) {
    SCOPED_TRACE(t.device_name);
    const MatmulConfig c = config(PlanText("", MatmulEntry("f32", 8, 1000000, 8), t));
    EXPECT_GT(c.splits, 1);
    EXPECT_LE(c.k_chunk, static_cast<int64_t>(t.max_loop_trips));  // steps one invocation walks
    EXPECT_EQ(c.splits, (1000000 + c.k_chunk - 1) / c.k_chunk);
  }
}

TEST(PlanProgram, PrintsGroupsBuffersAndSteps) {
  Planned p = PlanText(std::string(kAdd) + kMax, SoftmaxEntry(64, kMaxRowLength + 1), LavapipeTarget());
  const std::string text = p.program.ToString();
  for (const char* want : {"groups:", "g1 reduce %s -> %s (b", "%e (b", "buffers:", "steps (3 dispatches",
                           "barrier", "memory: device"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  if (getenv("PRINT_PLAN")) std::printf("%s", text.c_str());
}

TEST(PlanProgram, CollectivesAreProcessHostSteps) {
  // Every op has a kernel or steps now (the check naming an op without
  // either stays as a safety net); collectives and the process ids are
  // host steps between copies to and from host memory.
  auto m = Parse("add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n",
                 "ENTRY main {\n  x = f32[4] parameter(0)\n  y = f32[4] exponential(x)\n"
                 "  r = f32[4] all-reduce(y), to_apply=add\n  g = f32[8] all-gather(r), dimensions={0}, replica_groups={{0,1}}\n"
                 "  i = u32[] replica-id()\n  ROOT t = (f32[8], u32[]) tuple(g, i)\n}\n");
  ASSERT_TRUE(m);
  auto p = PlanModule(*m, LavapipeTarget());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  std::vector<std::string> ops;
  for (const Step& s : p->steps)
    if (const auto* h = std::get_if<HostStep>(&s.op)) {
      EXPECT_EQ(h->kind, HostStep::Kind::kProcess) << h->op->name;
      ops.push_back(h->op->name);
      for (int b : h->inputs) EXPECT_EQ(p->buffers[b].memory, MemoryKind::kHost);
      for (int b : h->outputs) EXPECT_EQ(p->buffers[b].memory, MemoryKind::kHost);
    }
  EXPECT_EQ(ops, (std::vector<std::string>{"r", "g", "i"}));
  EXPECT_NE(p->ToString().find("host process op %r"), std::string::npos) << p->ToString();
}

TEST(PlanProgram, CollectivesThatMayRunOnTheDeviceKeepItsBuffersWithTheirStagingSetAside) {
  // A sum all-reduced with operand and result laid out alike, and an
  // all-gather (bytes moved between buffers), keep their device buffers
  // (the members run them there when they share the device); their copies
  // to and from host memory are set aside for when they do not. A result
  // laid out otherwise and a max stage as before.
  auto m = Parse("add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
                 "max { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] maximum(a, b) }\n",
                 "ENTRY main {\n  x = f32[4,6]{1,0} parameter(0)\n  y = f32[4,6]{1,0} exponential(x)\n"
                 "  r = f32[4,6]{1,0} all-reduce(y), to_apply=add\n  t = f32[4,6]{0,1} all-reduce(y), to_apply=add\n"
                 "  u = f32[4,6]{1,0} all-reduce(y), to_apply=max\n  g = f32[8,6] all-gather(r), dimensions={0}, replica_groups={{0,1}}\n"
                 "  ROOT o = (f32[8,6], f32[4,6]{0,1}, f32[4,6]{1,0}) tuple(g, t, u)\n}\n");
  ASSERT_TRUE(m);
  auto p = PlanModule(*m, LavapipeTarget());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  std::map<std::string, const HostStep*> host;
  size_t copies = 0;
  for (const Step& s : p->steps) {
    if (const auto* h = std::get_if<HostStep>(&s.op)) host[h->op->name] = h;
    copies += std::holds_alternative<CopyStep>(s.op) ? 1 : 0;
  }
  ASSERT_EQ(host.size(), 4u) << p->ToString();
  for (const char* on_device : {"r", "g"}) {
    const HostStep& h = *host.at(on_device);
    ASSERT_EQ(h.device_inputs.size(), 1u) << on_device;
    ASSERT_EQ(h.device_outputs.size(), 1u) << on_device;
    EXPECT_EQ(p->buffers[h.device_inputs[0]].memory, MemoryKind::kDevice);
    EXPECT_EQ(p->buffers[h.device_outputs[0]].memory, MemoryKind::kDevice);
    ASSERT_EQ(h.stage_in.size(), 1u) << on_device;
    ASSERT_EQ(h.stage_out.size(), 1u) << on_device;
    EXPECT_EQ(std::get<CopyStep>(h.stage_in[0].op).src, h.device_inputs[0]);
    EXPECT_EQ(std::get<CopyStep>(h.stage_in[0].op).dst, h.inputs[0]);
    EXPECT_EQ(std::get<CopyStep>(h.stage_out[0].op).src, h.outputs[0]);
    EXPECT_EQ(std::get<CopyStep>(h.stage_out[0].op).dst, h.device_outputs[0]);
  }
  for (const char* staged : {"t", "u"}) {
    EXPECT_TRUE(host.at(staged)->device_inputs.empty()) << staged;
    EXPECT_TRUE(host.at(staged)->stage_in.empty()) << staged;
  }
  // t and u each copy in and out in the plan's own steps; r and g do not.
  EXPECT_GE(copies, 4u) << p->ToString();
  EXPECT_NE(p->ToString().find("host process op %r (on the device"), std::string::npos) << p->ToString();
}

}  // namespace
}  // namespace vkxla
