// The runtime runs every kind of step a Program holds: fills, grids decided
// on the device (indirect dispatch), commands a library records itself,
// loops and branches decided by reading a value back, and long programs
// split into several submissions. Programs are planned from HLO, then
// edited here the way the plan's future passes will build them.
#include <gtest/gtest.h>

#include <cstring>

#include "frontends/hlo_text.h"
#include "plan/planner.h"
#include "runtime/executable.h"
#include "runtime/external_command.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class ProgramSteps : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

std::unique_ptr<Module> Parse(const std::string& text) { return ParseOrFail(text); }

int AddBuffer(Program& p, const std::string& name, MemoryKind memory, const Shape& shape) {
  BufferDecl b;
  b.name = name;
  b.kind = BufferKind::kScratch;
  b.memory = memory;
  b.shape = shape;
  b.shape.set_layout(b.shape.layout_or_default());
  b.bytes = 16;
  return p.AddBuffer(b);
}

Step Plain(decltype(Step::op) op, std::vector<int> reads, std::vector<int> writes) {
  Step s;
  s.op = std::move(op);
  s.reads = std::move(reads);
  s.writes = std::move(writes);
  return s;
}

// The program's upload, then `middle`, then its downloads: its own
// dispatches are replaced.
void Surround(Program& p, StepList middle) {
  StepList steps = {p.steps[0]};
  for (Step& s : middle) steps.push_back(std::move(s));
  for (size_t i = 1; i < p.steps.size(); ++i)
    if (std::holds_alternative<CopyStep>(p.steps[i].op)) steps.push_back(p.steps[i]);
  p.steps = std::move(steps);
}

// The index of the first step holding a dispatch of `group`.
size_t DispatchOf(const Program& p, int group) {
  for (size_t i = 0; i < p.steps.size(); ++i)
    if (const auto* d = std::get_if<DispatchStep>(&p.steps[i].op))
      if (d->group == group) return i;
  return p.steps.size();
}

const char* kAddOne = "HloModule add_one\nENTRY %e {\n  %x = f32[1024] parameter(0)\n  %one = f32[] constant(1)\n"
                      "  %b = f32[1024] broadcast(%one), dimensions={}\n  ROOT %y = f32[1024] add(%x, %b)\n}\n";

Literal Iota(int64_t n) {
  Literal l(Shape(ElementType::kF32, {n}));
  for (int64_t i = 0; i < n; ++i) l.Set(i, Scalar::Float(ElementType::kF32, double(i)));
  return l;
}

// Kernels that differ only in the instruction they compute (a chain of
// like products, a network's repeated layers) share one pipeline; each
// still reads and writes its own buffers.
TEST_F(ProgramSteps, LikeKernelsShareOnePipeline) {
  std::string text = "HloModule chain\nENTRY %e {\n  %x0 = f32[8,8] parameter(0)\n  %w = f32[8,8] parameter(1)\n";
  for (int i = 0; i < 5; ++i)
    text += "  %x" + std::to_string(i + 1) + " = f32[8,8] dot(%x" + std::to_string(i) +
            ", %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
  text += "  %t = f32[8,8] transpose(%x5), dimensions={1,0}\n  ROOT %r = f32[8,8] exponential(%t)\n}\n";
  std::unique_ptr<Module> m = Parse(text);
  ASSERT_TRUE(m);
  auto exe = Executable::Compile(*m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  EXPECT_EQ((*exe)->kernel_count(), 6);
  EXPECT_EQ((*exe)->kernel_sources().size(), 2u);  // the products' and the last one's
  RunAndCompare(*m, 3, 6);
}

TEST_F(ProgramSteps, FillsAndGridsDecidedOnTheDevice) {
  auto m = Parse(kAddOne);
  ASSERT_TRUE(m);
  for (const uint32_t groups : {0u, 1u}) {
    SCOPED_TRACE(groups);
    auto planned = PlanModule(*m, TestDevice().target());
    ASSERT_TRUE(planned.ok()) << planned.status().ToString();
    Program p = std::move(*planned);
    // The result starts as 1.0 everywhere; the grid (x, y, z) is filled with
    // `groups`: none runs nothing, one workgroup covers the 256 vectors.
    const int grid = AddBuffer(p, "grid", MemoryKind::kDevice, Shape(ElementType::kU32, {4}));
    const size_t at = DispatchOf(p, 0);
    ASSERT_LT(at, p.steps.size());
    const int y = p.groups[0].outputs[0].buffer;
    std::get<DispatchStep>(p.steps[at].op).indirect = grid;
    p.steps[at].reads.push_back(grid);
    p.steps.insert(p.steps.begin() + at, Plain(FillStep{grid, groups}, {}, {grid}));
    p.steps.insert(p.steps.begin() + at, Plain(FillStep{y, 0x3f800000u}, {}, {y}));
    ASSERT_TRUE(FinishProgram(p).ok());
    auto exe = Executable::FromProgram(*m, TestDevice(), std::move(p));
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    auto r = (*exe)->Run({Iota(1024)});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (int64_t i : {0, 1, 511, 1023}) EXPECT_EQ(r->Get(i).re, groups ? double(i + 1) : 1.0) << i;
  }
}

// A library's commands: this one fills its output with 2.0.
class FillWithTwos : public ExternalCommand {
 public:
  Status Record(VkCommandBuffer cb, const std::vector<BufferSlice>& reads, const std::vector<BufferSlice>& writes) override {
    for (const BufferSlice& w : writes) vkCmdFillBuffer(cb, w.buffer, w.offset, w.size, 0x40000000u);
    return OkStatus();
  }
};

TEST_F(ProgramSteps, ExternalCommandsRecordIntoTheProgram) {
  RegisterExternalCommand("test.fill_twos", [](Device&, const std::string& config) -> StatusOr<std::unique_ptr<ExternalCommand>> {
    if (config != "all") return InvalidArgument("unexpected config " + config);
    return std::unique_ptr<ExternalCommand>(new FillWithTwos());
  });
  auto m = Parse(kAddOne);
  ASSERT_TRUE(m);
  auto planned = PlanModule(*m, TestDevice().target());
  ASSERT_TRUE(planned.ok());
  Program p = std::move(*planned);
  // The library writes x in place of its upload.
  ASSERT_TRUE(std::holds_alternative<CopyStep>(p.steps[0].op));
  const int x = p.parameter_device[0];
  p.steps[0] = Plain(ExternalStep{"test.fill_twos", "all"}, {}, {x});
  ASSERT_TRUE(FinishProgram(p).ok());
  Program unknown = p;
  auto exe = Executable::FromProgram(*m, TestDevice(), std::move(p));
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto r = (*exe)->Run({Iota(1024)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->Get(0).re, 3.0);
  EXPECT_EQ(r->Get(1023).re, 3.0);
  // A step no library claims is an error naming it.
  std::get<ExternalStep>(unknown.steps[0].op).name = "test.nobody";
  auto bad = Executable::FromProgram(*m, TestDevice(), std::move(unknown));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("test.nobody"), std::string::npos);
}

const char* kCounter = "HloModule counter\nENTRY %e {\n  %x = s32[] parameter(0)\n  %n = s32[] constant(10)\n"
                       "  %c = pred[] compare(%x, %n), direction=LT\n  %one = s32[] constant(1)\n"
                       "  %y = s32[] add(%x, %one)\n  %two = s32[] constant(2)\n  %z = s32[] multiply(%x, %two)\n"
                       "  ROOT %t = (pred[], s32[], s32[]) tuple(%c, %y, %z)\n}\n";

int GroupWriting(const Program& p, const std::string& name) {
  for (const FusionGroup& g : p.groups)
    if (g.outputs[0].value.inst->name == name) return g.id;
  return -1;
}

TEST_F(ProgramSteps, LoopsDecidedByAValueReadBack) {
  // while (x < 10) x = x + 1, from x = 3: the condition's kernel writes c,
  // copied to a host buffer the runtime reads; the body's kernel writes y,
  // copied back into x.
  auto m = Parse(kCounter);
  ASSERT_TRUE(m);
  auto planned = PlanModule(*m, TestDevice().target());
  ASSERT_TRUE(planned.ok());
  Program p = std::move(*planned);
  const int gc = GroupWriting(p, "c"), gy = GroupWriting(p, "y");
  ASSERT_GE(gc, 0);
  ASSERT_GE(gy, 0);
  const int x = p.parameter_device[0], c = p.groups[gc].outputs[0].buffer, y = p.groups[gy].outputs[0].buffer;
  const int predicate = AddBuffer(p, "predicate", MemoryKind::kHost, Shape(ElementType::kPred, {}));
  WhileStep loop;
  loop.predicate = predicate;
  loop.condition = {p.steps[DispatchOf(p, gc)], Plain(CopyStep{c, predicate, 16}, {c}, {predicate})};
  loop.body = {p.steps[DispatchOf(p, gy)], Plain(CopyStep{y, x, 16}, {y}, {x})};
  Surround(p, {Plain(std::move(loop), {}, {})});
  ASSERT_TRUE(FinishProgram(p).ok());
  auto exe = Executable::FromProgram(*m, TestDevice(), std::move(p));
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  for (const int start : {3, 10, 12}) {
    auto r = (*exe)->Run({Literal::ScalarOf(Scalar::Int(ElementType::kS32, start))});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    // The last condition saw x = max(start, 10); y holds the last body's
    // x + 1 (its initial value when the body never ran is not read here).
    EXPECT_EQ(r->tuple_elements()[0].Get(0).pred(), false) << start;
    if (start < 10) {
      EXPECT_EQ(r->tuple_elements()[1].Get(0).s, 10) << start;
    }
  }
}

TEST_F(ProgramSteps, BranchesDecidedByAValueReadBack) {
  // conditional(x): branch 0 computes y = x + 1, branch 1 z = x * 2; an
  // index out of range takes the last branch. The selector is the
  // parameter's staging buffer, which the host writes.
  auto m = Parse(kCounter);
  ASSERT_TRUE(m);
  for (const int index : {0, 1, 7, -3}) {
    SCOPED_TRACE(index);
    auto planned = PlanModule(*m, TestDevice().target());
    ASSERT_TRUE(planned.ok());
    Program p = std::move(*planned);
    const int gy = GroupWriting(p, "y"), gz = GroupWriting(p, "z");
    const int y = p.groups[gy].outputs[0].buffer, z = p.groups[gz].outputs[0].buffer;
    ConditionalStep branch;
    branch.selector = p.parameter_staging[0];
    branch.branches = {{p.steps[DispatchOf(p, gy)]}, {p.steps[DispatchOf(p, gz)]}};
    Surround(p, {Plain(FillStep{y, 0}, {}, {y}), Plain(FillStep{z, 0}, {}, {z}), Plain(std::move(branch), {}, {})});
    ASSERT_TRUE(FinishProgram(p).ok());
    auto exe = Executable::FromProgram(*m, TestDevice(), std::move(p));
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    auto r = (*exe)->Run({Literal::ScalarOf(Scalar::Int(ElementType::kS32, index))});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const bool first = index == 0;
    EXPECT_EQ(r->tuple_elements()[1].Get(0).s, first ? index + 1 : 0);
    EXPECT_EQ(r->tuple_elements()[2].Get(0).s, first ? 0 : index * 2);
  }
}

TEST_F(ProgramSteps, LongProgramsSplitIntoSubmissions) {
  // Ten dependent kernels, at most three dispatches per submission: four
  // command buffers, and the same answer as one.
  std::string text = "HloModule chain\n%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
                     "  %b = f32[] parameter(1)\n  ROOT %r = f32[] add(%a, %b)\n}\nENTRY %e {\n"
                     "  %x0 = f32[256] parameter(0)\n  %z = f32[] constant(0)\n";
  for (int i = 1; i <= 10; ++i)
    text += std::string(i == 10 ? "  ROOT " : "  ") + "%x" + std::to_string(i) + " = f32[256] reduce-window(%x" +
            std::to_string(i - 1) + ", %z), window={size=3 pad=1_1}, to_apply=%add\n";
  text += "}\n";
  auto m = Parse(text);
  ASSERT_TRUE(m);
  TargetFeatures target = TestDevice().target();
  target.max_dispatches_per_submission = 3;
  auto split = Executable::Compile(*m, TestDevice(), target);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_EQ((*split)->command_buffer_count(), 4);
  std::mt19937_64 rng(3);
  const Literal x = RandomLiteral(Shape(ElementType::kF32, {256}), rng, Opcode::kAdd);
  auto got = (*split)->Run({x});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  auto whole = CompileAndRun(*m, {x});
  ASSERT_TRUE(whole.ok());
  ExpectClose(*got, *whole, Opcode::kAdd, "split program");
  // The watchdog budget cuts by estimated time too: under a budget smaller
  // than any step, each step is a submission of its own (the upload, ten
  // dispatches, the download), with the same answer.
  target = TestDevice().target();
  target.submission_budget_ms = 1e-9;
  auto cut = Executable::Compile(*m, TestDevice(), target);
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  EXPECT_EQ((*cut)->command_buffer_count(), 12);
  auto again = (*cut)->Run({x});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ExpectClose(*again, *whole, Opcode::kAdd, "program cut by the budget");
}

// A counted loop replays as many trips per submission as the budget holds:
// all of them under the default, one per submission under a tiny budget.
TEST_F(ProgramSteps, CountedLoopTripsPerSubmissionFollowTheBudget) {
  auto m = Parse(R"(HloModule loop
%cond (s: (s32[], f32[1024])) -> pred[] {
  %s = (s32[], f32[1024]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(40)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[1024])) -> (s32[], f32[1024]) {
  %s = (s32[], f32[1024]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %one = s32[] constant(1)
  %j = s32[] add(%i, %one)
  %x = f32[1024] get-tuple-element(%s), index=1
  %y = f32[1024] sine(%x)
  ROOT %t = (s32[], f32[1024]) tuple(%j, %y)
}
ENTRY %e {
  %x0 = f32[1024] parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[1024]) tuple(%zero, %x0)
  %w = (s32[], f32[1024]) while(%init), condition=%cond, body=%body
  ROOT %r = f32[1024] get-tuple-element(%w), index=1
})");
  ASSERT_TRUE(m);
  std::mt19937_64 rng(5);
  const Literal x = RandomLiteral(Shape(ElementType::kF32, {1024}), rng, Opcode::kSin);
  auto whole = Executable::Compile(*m, TestDevice());
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  auto want = (*whole)->Run({x});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  TargetFeatures target = TestDevice().target();
  target.submission_budget_ms = 1e-9;
  auto cut = Executable::Compile(*m, TestDevice(), target);
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  auto got = (*cut)->Run({x});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectClose(*got, *want, Opcode::kSin, "one trip per submission");
  EXPECT_LT((*whole)->last_run_submissions(), 10);
  EXPECT_GE((*cut)->last_run_submissions(), 40);
}

}  // namespace
}  // namespace vkxla
