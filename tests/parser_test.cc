#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "frontends/hlo_text.h"
#include "ir/hlo_parser.h"
#include "ir/element_type.h"
#include "ir/hlo_printer.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

constexpr const char* kModule = R"(HloModule elementwise, entry_computation_layout={(f32[2,3]{1,0}, f32[3]{0})->(f32[2,3]{0,1}, pred[2,3]{1,0})}

ENTRY %main (x: f32[2,3], v: f32[3]) -> (f32[2,3], pred[2,3]) {
  %x = f32[2,3]{1,0} parameter(0)
  %v = f32[3]{0} parameter(1)
  %b = f32[2,3]{1,0} broadcast(f32[3]{0} %v), dimensions={1}
  %c = f32[2,3]{1,0} constant({ {1, -2.5, inf}, {-inf, nan, 0.125} })
  %s = f32[2,3]{1,0} add(f32[2,3]{1,0} %x, f32[2,3]{1,0} %b)
  %e = f32[2,3]{1,0} exponential(f32[2,3]{1,0} %s), result_accuracy={tolerance={atol=0,rtol=0,ulps=2}}
  %m = f32[2,3]{1,0} maximum(f32[2,3]{1,0} %e, f32[2,3]{1,0} %c)
  %p = pred[2,3]{1,0} compare(f32[2,3]{1,0} %m, f32[2,3]{1,0} %x), direction=LT, type=TOTALORDER
  ROOT %t = (f32[2,3]{1,0}, pred[2,3]{1,0}) tuple(f32[2,3]{1,0} %m, pred[2,3]{1,0} %p)
}
)";

TEST(ElementTypes, IntegerRangesAreTheTypesOwn) {
  EXPECT_EQ(IntegerMin(ElementType::kS4), -8);
  EXPECT_EQ(IntegerMax(ElementType::kS4), 7u);
  EXPECT_EQ(IntegerMin(ElementType::kU4), 0);
  EXPECT_EQ(IntegerMax(ElementType::kU4), 15u);
  EXPECT_EQ(IntegerMin(ElementType::kS2), -2);
  EXPECT_EQ(IntegerMax(ElementType::kU2), 3u);
  EXPECT_EQ(IntegerMin(ElementType::kS8), -128);
  EXPECT_EQ(IntegerMax(ElementType::kU16), 65535u);
  EXPECT_EQ(IntegerMin(ElementType::kS64), INT64_MIN);
  EXPECT_EQ(IntegerMax(ElementType::kS64), static_cast<uint64_t>(INT64_MAX));
  EXPECT_EQ(IntegerMax(ElementType::kU64), UINT64_MAX);
  EXPECT_EQ(IntegerMin(ElementType::kPred), 0);
  EXPECT_EQ(IntegerMax(ElementType::kPred), 1u);
}

TEST(HloParser, RoundTripIsIdentical) {
  auto m = ParseAndVerifyHlo(kModule);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  std::string printed = PrintHloModule(**m);
  auto again = ParseAndVerifyHlo(printed);
  ASSERT_TRUE(again.ok()) << again.status().ToString() << "\n" << printed;
  EXPECT_EQ(PrintHloModule(**again), printed);
  EXPECT_NE(printed.find("direction=LT, type=TOTALORDER"), std::string::npos);
  EXPECT_NE(printed.find("{1, -2.5, inf}"), std::string::npos);
}

TEST(HloParser, LayoutsParseAndPrint) {
  for (const char* text : {"f32[3,5]{1,0:T(2,2)}", "f32[4,8]{1,0:T(2,4)(2,1)}", "f32[2,7,8]{2,1,0:T(2,*,3)}",
                           "s4[123,456]{1,0:T(2,128)E(4)}", "f32[<=10]{0}", "(f32[], s32[2]{0})", "token[]"}) {
    auto s = ParseShape(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.status().ToString();
    EXPECT_EQ(s->ToString(), text);
  }
}

TEST(HloParser, BadLayoutsAreClearErrors) {
  struct Case { const char* text; const char* expect; } cases[] = {
      {"f32[3,5]{1,1}", "not a permutation"},
      {"f32[3,5]{1,0:T(0,2)}", "size 0"},
      {"f32[3]{0:T(2,2)}", "more dimensions than the rank"},
      {"f32[3,5]{1,0:T(2,*)}", "minor-most"},
  };
  for (const auto& c : cases) {
    auto s = ParseShape(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.status().message().find(c.expect), std::string::npos) << s.status().message();
  }
}

TEST(HloParser, SyntaxErrorHasLineColumnAndCaret) {
  auto m = ParseHloText("HloModule m\n\nENTRY %e {\n  %x = f32[2] parameter(0)\n  ROOT %y = f32[2] add(%x %x)\n}\n");
  ASSERT_FALSE(m.ok());
  const std::string& msg = m.status().message();
  EXPECT_EQ(msg.rfind("5:", 0), 0u) << msg;
  EXPECT_NE(msg.find("expected ')'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("^"), std::string::npos) << msg;
}

TEST(HloParser, UndefinedOperandNamesIt) {
  auto m = ParseHloText("HloModule m\nENTRY %e {\n  ROOT %y = f32[2] negate(%nope)\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("undefined value '%nope'"), std::string::npos) << m.status().message();
}

TEST(HloParser, UnknownOpcode) {
  auto m = ParseHloText("HloModule m\nENTRY %e {\n  ROOT %y = f32[2] frobnicate()\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("unknown opcode 'frobnicate'"), std::string::npos);
}

TEST(HloVerifier, ShapeMismatchQuotesShapes) {
  auto m = ParseAndVerifyHlo(
      "HloModule m\nENTRY %e {\n  %a = f32[3,5] parameter(0)\n  %b = f32[5,3] parameter(1)\n"
      "  ROOT %c = f32[3,5] add(%a, %b)\n}\n");
  ASSERT_FALSE(m.ok());
  const std::string& msg = m.status().message();
  EXPECT_NE(msg.find("f32[3,5]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f32[5,3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("%c"), std::string::npos) << msg;
  EXPECT_EQ(msg.rfind("5:", 0), 0u) << msg;
}

TEST(HloVerifier, WrongOperandCount) {
  auto m = ParseAndVerifyHlo("HloModule m\nENTRY %e {\n  %a = f32[3] parameter(0)\n  ROOT %c = f32[3] add(%a)\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("expects 2 operands, got 1"), std::string::npos) << m.status().message();
}

TEST(HloVerifier, UnsupportedTypeNamesOpAndType) {
  auto m = ParseAndVerifyHlo("HloModule m\nENTRY %e {\n  %a = s32[3] parameter(0)\n  ROOT %c = s32[3] exponential(%a)\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("exponential"), std::string::npos);
  EXPECT_NE(m.status().message().find("s32[3]"), std::string::npos);
}


// ---------------------------------------------------------------- dumps
// The syntax of XLA's own dumps (--xla_dump_to, HloModule::ToString) and
// of HLO strings in XLA's tests: each snippet is parsed, its meaning
// inspected, and it is run on the device against the reference evaluator.

class HloDumps : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

Literal Values(const std::string& text, const Shape& shape) {
  auto l = ParseLiteral(text, shape);
  EXPECT_TRUE(l.ok()) << l.status().ToString();
  return l.ok() ? std::move(*l) : Literal(shape);
}

// Parses and verifies `text`, runs it on the device and on the reference
// evaluator; the device's values as text (empty on a failure, reported).
std::string RunDump(const std::string& text, const std::vector<Literal>& args) {
  std::unique_ptr<Module> m = ParseOrFail(text);
  if (!m) return "";
  return RunAndCompareWith(*m, args).ValuesToString();
}

const Instruction* Named(const Module& m, const std::string& name) {
  for (const auto& c : m.computations())
    if (const Instruction* i = c->Find(name)) return i;
  ADD_FAILURE() << "no instruction %" << name;
  return nullptr;
}

std::string Attribute(const Instruction* inst, const std::string& key) {
  if (!inst) return "";
  for (const auto& [k, v] : inst->other_attributes)
    if (k == key) return v;
  return "(none)";
}

const Shape kF32x3(ElementType::kF32, {3});
const Shape kF32x2x3(ElementType::kF32, {2, 3});

// Text that starts with a computation: the entry is the ENTRY computation,
// else the last one, and the module is named after it, as XLA does.
TEST_F(HloDumps, ModuleWithoutHeader) {
  const std::string with_entry = R"(%sum.1 (x.2: f32[], y.3: f32[]) -> f32[] {
  %x.2 = f32[] parameter(0)
  %y.3 = f32[] parameter(1)
  ROOT %add.4 = f32[] add(%x.2, %y.3)
}

ENTRY %main.5 (Arg_0.1: f32[2,3]) -> f32[2] {
  %Arg_0.1 = f32[2,3]{1,0} parameter(0)
  %constant.2 = f32[] constant(0)
  ROOT %reduce.3 = f32[2]{0} reduce(%Arg_0.1, %constant.2), dimensions={1}, to_apply=%sum.1
}
)";
  std::unique_ptr<Module> m = ParseOrFail(with_entry);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name(), "module_main.5");
  EXPECT_EQ(m->entry()->name(), "main.5");
  EXPECT_EQ(RunDump(with_entry, {Values("{{1, 2, 3}, {4, 5, 6}}", kF32x2x3)}), "{6, 15}");

  const std::string last_is_entry = R"(twice {
  a = f32[3] parameter(0)
  ROOT d = f32[3] add(a, a)
}

main {
  p = f32[3] parameter(0)
  ROOT c = f32[3] call(p), to_apply=twice
}
)";
  m = ParseOrFail(last_is_entry);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry()->name(), "main");
  EXPECT_EQ(m->name(), "module_main");
  EXPECT_EQ(RunDump(last_is_entry, {Values("{1, -2, 0.5}", kF32x3)}), "{2, -4, 1}");

  struct Case { const char* text; const char* expect; } empty[] = {
      {"", "1:1: expected 'HloModule' or a computation"},
      {"  // nothing\n", "2:1: expected 'HloModule' or a computation"},
      {"HloModule m\n", "2:1: the module has no computations"},
  };
  for (const Case& c : empty) {
    auto bad = ParseHloText(c.text);
    ASSERT_FALSE(bad.ok()) << c.text;
    EXPECT_EQ(bad.status().message().rfind(c.expect, 0), 0u) << bad.status().message();
  }
}

// Every module attribute XLA writes after the name. Only
// entry_computation_layout changes anything here; the rest are read.
TEST_F(HloDumps, ModuleAttributes) {
  const std::string text = R"(HloModule jit_step, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, must-alias) }, buffer_donor={ (1, {}) }, alias_passthrough_params=true, entry_computation_layout={(f32[3]{0}, f32[3]{0})->(f32[3]{0}, f32[3]{0})}, allow_spmd_sharding_propagation_to_parameters={false,false}, allow_spmd_sharding_propagation_to_output={true}, replica_count=1, num_partitions=1, frontend_attributes={fingerprint_before_lhs="3f1a",xla.sdy.meshes="{mesh = #sdy.mesh<[\"x\"=1]>}"}

ENTRY %main.6 (Arg_0.1: f32[3], Arg_1.2: f32[3]) -> (f32[3], f32[3]) {
  %Arg_0.1 = f32[3]{0} parameter(0)
  %Arg_1.2 = f32[3]{0} parameter(1)
  %add.3 = f32[3]{0} add(%Arg_0.1, %Arg_1.2)
  %multiply.4 = f32[3]{0} multiply(%Arg_0.1, %Arg_1.2)
  ROOT %tuple.5 = (f32[3]{0}, f32[3]{0}) tuple(%add.3, %multiply.4)
}
)";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name(), "jit_step");
  ASSERT_TRUE(m->entry_layout().has_value());
  EXPECT_EQ(m->entry_layout()->ToString(), "(f32[3]{0}, f32[3]{0})->(f32[3]{0}, f32[3]{0})");
  EXPECT_EQ(RunDump(text, {Values("{1, 2, 3}", kF32x3), Values("{10, 20, 30}", kF32x3)}), "({11, 22, 33}, {10, 40, 90})");
  // A header attribute without its value is a located error.
  auto bad = ParseHloText("HloModule m, is_scheduled=\nENTRY %e {\n  ROOT %p = f32[] parameter(0)\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("1:27: expected an attribute value", 0), 0u) << bad.status().message();
}

// fusion is a call of its fused computation, whatever its kind; fusions
// nest (a fusion inside a fused computation).
TEST_F(HloDumps, FusionRunsItsFusedComputation) {
  const std::string text = R"(HloModule fusions, entry_computation_layout={(f32[2,3]{1,0}, f32[3]{0})->(f32[2,3]{1,0}, f32[2]{0}, f32[2,3]{1,0})}

%add.f32 (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %add = f32[] add(%x, %y)
}

%fused_negate (param_0.3: f32[2,3]) -> f32[2,3] {
  %param_0.3 = f32[2,3]{1,0} parameter(0)
  ROOT %negate.1 = f32[2,3]{1,0} negate(%param_0.3)
}

%fused_computation (param_0: f32[2,3], param_1.1: f32[3]) -> f32[2,3] {
  %param_0 = f32[2,3]{1,0} parameter(0)
  %param_1.1 = f32[3]{0} parameter(1)
  %broadcast.1 = f32[2,3]{1,0} broadcast(%param_1.1), dimensions={1}
  %multiply.1 = f32[2,3]{1,0} multiply(%param_0, %broadcast.1)
  ROOT %fusion.1 = f32[2,3]{1,0} fusion(%multiply.1), kind=kLoop, calls=%fused_negate
}

%fused_reduce (param_0.1: f32[2,3]) -> f32[2] {
  %param_0.1 = f32[2,3]{1,0} parameter(0)
  %constant.1 = f32[] constant(0)
  ROOT %reduce.1 = f32[2]{0} reduce(%param_0.1, %constant.1), dimensions={1}, to_apply=%add.f32
}

%fused_dot (param_0.2: f32[2,3], param_1.2: f32[3,3]) -> f32[2,3] {
  %param_0.2 = f32[2,3]{1,0} parameter(0)
  %param_1.2 = f32[3,3]{1,0} parameter(1)
  ROOT %dot.1 = f32[2,3]{1,0} dot(%param_0.2, %param_1.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

%triton_square (param_0.4: f32[2,3]) -> f32[2,3] {
  %param_0.4 = f32[2,3]{1,0} parameter(0)
  ROOT %multiply.2 = f32[2,3]{1,0} multiply(%param_0.4, %param_0.4)
}

ENTRY %main (p0: f32[2,3], p1: f32[3]) -> (f32[2,3], f32[2], f32[2,3]) {
  %p0 = f32[2,3]{1,0} parameter(0)
  %p1 = f32[3]{0} parameter(1)
  %loop_fusion = f32[2,3]{1,0} fusion(%p0, %p1), kind=kLoop, calls=%fused_computation
  %input_fusion = f32[2]{0} fusion(%loop_fusion), kind=kInput, calls=%fused_reduce
  %w = f32[3,3]{1,0} constant({ {1, 0, 0}, {0, 2, 0}, {0, 0, 3} })
  %output_fusion = f32[2,3]{1,0} fusion(%p0, %w), kind=kOutput, calls=%fused_dot
  %custom_fusion = f32[2,3]{1,0} fusion(%output_fusion), kind=kCustom, calls=%triton_square, backend_config={"fusion_backend_config":{"kind":"__triton","block_level_fusion_config":{"output_tiles":[{"sizes":["1","3"]}]}}}
  ROOT %tuple = (f32[2,3]{1,0}, f32[2]{0}, f32[2,3]{1,0}) tuple(%loop_fusion, %input_fusion, %custom_fusion)
}
)";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  const Instruction* loop = Named(*m, "loop_fusion");
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->opcode, Opcode::kCall);
  ASSERT_EQ(loop->called_computations.size(), 1u);
  EXPECT_EQ(loop->called_computations[0].first, "to_apply");
  EXPECT_EQ(loop->called_computations[0].second->name(), "fused_computation");
  EXPECT_EQ(Attribute(loop, "kind"), "kLoop");
  EXPECT_EQ(Attribute(Named(*m, "input_fusion"), "kind"), "kInput");
  EXPECT_EQ(Attribute(Named(*m, "output_fusion"), "kind"), "kOutput");
  EXPECT_EQ(Attribute(Named(*m, "custom_fusion"), "kind"), "kCustom");
  EXPECT_EQ(Named(*m, "fusion.1")->opcode, Opcode::kCall);
  const std::string want = "({{-1, -20, -300}, {-4, -50, -600}}, {-321, -654}, {{1, 16, 81}, {16, 100, 324}})";
  const std::vector<Literal> args = {Values("{{1, 2, 3}, {4, 5, 6}}", kF32x2x3), Values("{1, 10, 100}", kF32x3)};
  EXPECT_EQ(RunDump(text, args), want);
  // Printed as the call it is, kind= kept; that text runs the same.
  const std::string printed = PrintHloModule(*m);
  EXPECT_NE(printed.find("call(f32[2,3]{1,0} %p0, f32[3]{0} %p1), to_apply=%fused_computation, kind=kLoop"), std::string::npos) << printed;
  EXPECT_EQ(RunDump(printed, args), want);
  // A fusion names exactly one fused computation.
  auto bad = ParseHloText("HloModule m\nENTRY %e {\n  %p = f32[2] parameter(0)\n  ROOT %f = f32[2] fusion(%p), kind=kLoop\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("4:20: fusion %f needs one calls=%computation", 0), 0u) << bad.status().message();
}

// metadata, backend_config (a JSON dict or a string with escapes),
// sharding, frontend_attributes, statistics, origin and
// parameter_replication are kept verbatim and change nothing: values with
// commas, nested braces, escaped quotes and line breaks inside braces.
TEST_F(HloDumps, DescriptiveAttributesAreKeptVerbatim) {
  const std::string text = R"(HloModule attrs

ENTRY %main.9 (Arg_0.1: f32[3], Arg_1.2: f32[3], Arg_2.3: s32[]) -> (f32[3], s32[]) {
  %Arg_0.1 = f32[3]{0} parameter(0), parameter_replication={false}, sharding={devices=[2,1]0,1}, metadata={op_name="x"}
  %Arg_1.1 = f32[3]{0} parameter(1), parameter_replication={true}
  %Arg_2.1 = s32[] parameter(2), sharding={maximal device=0}
  %Arg_1.2 = (f32[3]{0}, s32[]) tuple(%Arg_1.1, %Arg_2.1), sharding={{replicated}, {maximal device=0}}, frontend_attributes={a="1", b="2"}
  %get-tuple-element.3 = f32[3]{0} get-tuple-element(%Arg_1.2), index=0, sharding={devices=[2]<=[2]}
  %add.4 = f32[3]{0} add(%Arg_0.1, %get-tuple-element.3), metadata={op_type="AddV2" op_name="jit(f)/add, \"quoted\" {braced}" source_file="/tmp/a b, c.py" source_line=12 source_end_line=12 source_column=4 source_end_column=9}, backend_config={"operation_queue_id":"0","wait_on_operation_queues":[],"force_earliest_schedule":false}
  %negate.5 = f32[3]{0} negate(%add.4), backend_config="{\"known_trip_count\":{\"n\":\"1\"},\"odd\":\"}{,\"}", frontend_attributes={_xla_compute_type="host",_xla_stream_annotation="1"}, statistics={visualizing_index=1,stat-index-1=0.5}
  %exponential.6 = f32[3]{0} exponential(%negate.5), frontend_attributes={
    _xla_send_recv_source_target_pairs="{{0,1}}"
  }, origin={{"exp"}}, sharding={replicated}
  %get-tuple-element.7 = s32[] get-tuple-element(%Arg_1.2), index=1
  ROOT %tuple.8 = (f32[3]{0}, s32[]) tuple(%exponential.6, %get-tuple-element.7), sharding={{replicated}, {replicated}}
}
)";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  const Instruction* add = Named(*m, "add.4");
  EXPECT_EQ(Attribute(add, "metadata"),
            R"({op_type="AddV2" op_name="jit(f)/add, \"quoted\" {braced}" source_file="/tmp/a b, c.py" source_line=12 source_end_line=12 source_column=4 source_end_column=9})");
  EXPECT_EQ(Attribute(add, "backend_config"), R"({"operation_queue_id":"0","wait_on_operation_queues":[],"force_earliest_schedule":false})");
  const Instruction* negate = Named(*m, "negate.5");
  EXPECT_EQ(Attribute(negate, "backend_config"), R"("{\"known_trip_count\":{\"n\":\"1\"},\"odd\":\"}{,\"}")");
  EXPECT_EQ(Attribute(negate, "frontend_attributes"), R"({_xla_compute_type="host",_xla_stream_annotation="1"})");
  EXPECT_EQ(Attribute(negate, "statistics"), "{visualizing_index=1,stat-index-1=0.5}");
  const Instruction* exp = Named(*m, "exponential.6");
  EXPECT_EQ(Attribute(exp, "frontend_attributes"), "{\n    _xla_send_recv_source_target_pairs=\"{{0,1}}\"\n  }");
  EXPECT_EQ(Attribute(exp, "origin"), R"({{"exp"}})");
  EXPECT_EQ(Attribute(exp, "sharding"), "{replicated}");
  EXPECT_EQ(Attribute(Named(*m, "Arg_1.2"), "sharding"), "{{replicated}, {maximal device=0}}");
  EXPECT_EQ(Attribute(Named(*m, "Arg_1.1"), "parameter_replication"), "{true}");
  EXPECT_EQ(Attribute(Named(*m, "Arg_1.2"), "frontend_attributes"), R"({a="1", b="2"})");
  EXPECT_EQ(Attribute(Named(*m, "Arg_0.1"), "sharding"), "{devices=[2,1]0,1}");
  EXPECT_EQ(Attribute(Named(*m, "get-tuple-element.3"), "sharding"), "{devices=[2]<=[2]}");
  EXPECT_EQ(RunDump(text, {Values("{-1, -2, -3}", kF32x3), Values("{1, 2, 3}", kF32x3), Values("7", Shape(ElementType::kS32, {}))}),
            "({1, 1, 1}, 7)");
  // An attribute whose braces or quotes never close is a located error.
  auto bad = ParseHloText("HloModule m\nENTRY %e {\n  ROOT %p = f32[] parameter(0), metadata={op_name=\"x}\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("3:42: unterminated attribute value", 0), 0u) << bad.status().message();
}

// control-predecessors={...} orders ops that share no value: the names are
// checked and kept, the values are what the data edges say.
TEST_F(HloDumps, ControlPredecessors) {
  const std::string text = R"(HloModule deps

ENTRY %main (p0: f32[3], p1: f32[3]) -> (f32[3], f32[3]) {
  %p0 = f32[3]{0} parameter(0)
  %p1 = f32[3]{0} parameter(1)
  %add-dependency = f32[3]{0} add(%p0, %p1)
  %log = f32[3]{0} log(%p0)
  %mul = f32[3]{0} multiply(%p0, %p1), control-predecessors={%add-dependency, %log}
  %sub = f32[3]{0} subtract(%p0, %p1), channel_id=1,
      control-predecessors={%mul}
  ROOT %t = (f32[3]{0}, f32[3]{0}) tuple(%mul, %sub), control-predecessors={}
}
)";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  EXPECT_EQ(Attribute(Named(*m, "mul"), "control-predecessors"), "{%add-dependency, %log}");
  EXPECT_EQ(Attribute(Named(*m, "sub"), "control-predecessors"), "{%mul}");
  EXPECT_EQ(RunDump(text, {Values("{1, 2, 3}", kF32x3), Values("{4, 5, 6}", kF32x3)}), "({4, 10, 18}, {-3, -3, -3})");
  auto bad = ParseHloText(
      "HloModule m\nENTRY %e {\n  %p = f32[] parameter(0)\n  ROOT %n = f32[] negate(%p), control-predecessors={%p, %later}\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("4:57: undefined instruction '%later' in control-predecessors=", 0), 0u)
      << bad.status().message();
}

// XLA writes /*index=N*/ before every fifth operand and tuple element.
TEST_F(HloDumps, IndexCommentsInOperandsAndTupleShapes) {
  const std::string text = R"(HloModule seven, entry_computation_layout={(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[])->(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[])}

ENTRY %main.15 (Arg_0.1: f32[], Arg_1.2: f32[], Arg_2.3: f32[], Arg_3.4: f32[], Arg_4.5: f32[], /*index=5*/Arg_5.6: f32[], Arg_6.7: f32[]) -> (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[]) {
  %Arg_0.1 = f32[] parameter(0)
  %Arg_1.2 = f32[] parameter(1)
  %Arg_2.3 = f32[] parameter(2)
  %Arg_3.4 = f32[] parameter(3)
  %Arg_4.5 = f32[] parameter(4)
  %Arg_5.6 = f32[] parameter(5)
  %Arg_6.7 = f32[] parameter(6)
  %negate.8 = f32[] negate(%Arg_5.6)
  ROOT %tuple.9 = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[]) tuple(f32[] %Arg_6.7, f32[] %Arg_5.6, f32[] %Arg_4.5, f32[] %Arg_3.4, f32[] %Arg_2.3, /*index=5*/f32[] %negate.8, f32[] %Arg_0.1)
}
)";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry()->root()->operands.size(), 7u);
  EXPECT_EQ(m->entry()->root()->shape.tuple_shapes().size(), 7u);
  std::vector<Literal> args;
  for (int i = 0; i < 7; ++i) args.push_back(Literal::ScalarOf(Scalar::Float(ElementType::kF32, i + 1)));
  EXPECT_EQ(RunDump(text, args), "(7, 6, 5, 4, 3, -6, 1)");
  // The comment is only a comment: an unterminated one ends the text.
  auto bad = ParseHloText("HloModule m\nENTRY %e {\n  %p = f32[] parameter(0)\n  ROOT %t = (f32[]) tuple(/*index=0%p)\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("expected an operand"), std::string::npos) << bad.status().message();
}

// constant({...}): a value left out of the dump runs as zeros; the module
// keeps their names for the note its loader prints (vkxla run, after its
// --constant values; the library's Compile). The parser prints nothing.
TEST_F(HloDumps, ElidedConstantsAreZerosWithANote) {
  const std::string text = R"(HloModule big_weights

ENTRY %main (x: f32[2,3]) -> (f32[2,3], s32[]) {
  %x = f32[2,3]{1,0} parameter(0)
  %weights.1 = f32[2,3]{1,0} constant({...}), metadata={op_type="Const" op_name="w"}
  %bias.2 = f32[2,3]{1,0} constant({...})
  %count = s32[] constant(0)
  %add = f32[2,3]{1,0} add(%x, %weights.1)
  %sum = f32[2,3]{1,0} add(%add, %bias.2)
  ROOT %t = (f32[2,3]{1,0}, s32[]) tuple(%sum, %count)
}
)";
  testing::internal::CaptureStderr();
  std::unique_ptr<Module> m = ParseOrFail(text);
  const std::string note = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(m);
  EXPECT_EQ(note, "");
  EXPECT_EQ(m->elided_constants(), (std::vector<std::string>{"weights.1", "bias.2"}));
  EXPECT_EQ(ElidedConstantsNote(*m), "constants %weights.1, %bias.2 elided in the text ({...}); filled with zeros (vkxla run --constant NAME=@values.npy gives values)");
  m->GiveElidedConstant("weights.1");
  EXPECT_EQ(ElidedConstantsNote(*m), "constant %bias.2 elided in the text ({...}); filled with zeros (vkxla run --constant NAME=@values.npy gives values)");
  ASSERT_TRUE(Named(*m, "weights.1")->literal.has_value());
  EXPECT_EQ(Named(*m, "weights.1")->literal->ValuesToString(), "{{0, 0, 0}, {0, 0, 0}}");
  EXPECT_EQ(RunAndCompareWith(*m, {Values("{{1, 2, 3}, {4, 5, 6}}", kF32x2x3)}).ValuesToString(), "({{1, 2, 3}, {4, 5, 6}}, 0)");
  // No note for a module with every value written.
  std::unique_ptr<Module> written = ParseOrFail(kModule);
  ASSERT_TRUE(written);
  EXPECT_EQ(ElidedConstantsNote(*written), "");
  // "{...}" stands for a value, not for part of one.
  auto partial = ParseHloText("HloModule m\nENTRY %e {\n  ROOT %c = f32[2,2] constant({ {...}, {1, 2} })\n}\n");
  ASSERT_FALSE(partial.ok());
  EXPECT_NE(partial.status().message().find("3:"), std::string::npos) << partial.status().message();
  // An elided constant too large to hold is refused before it is made.
  auto huge = ParseHloText("HloModule m\nENTRY %e {\n  ROOT %c = f32[1000000,1000000] constant({...})\n}\n");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("3:"), std::string::npos) << huge.status().message();
}

// The rest of what real dumps hold: names without '%' and with dots and
// dashes, spaces in dimension lists, layouts with tiles and the layout
// attributes that place bytes around the elements (L, M, SC) or describe
// all-dense dimensions (D, #, *), computations with execution_thread,
// instructions broken over lines.
// Computations written in line where an attribute names one (XLA prints
// them so with full bodies): calls=, to_apply=, condition=, body= and
// each of branch_computations=, nested in one another too.
TEST_F(HloDumps, InlineComputations) {
  const std::string text = R"(HloModule inline

%double (d: f32[3]) -> f32[3] {
  %d = f32[3]{0} parameter(0)
  ROOT %dd = f32[3]{0} add(%d, %d)
}

ENTRY %main (p0: f32[3], p1: s32[]) -> (f32[3], f32[], f32[3], s32[]) {
  %p0 = f32[3]{0} parameter(0)
  %p1 = s32[] parameter(1)
  %fusion = f32[3]{0} fusion(f32[3]{0} %p0), kind=kLoop, calls=
{
  %param_0 = f32[3]{0} parameter(0)
  %inner = f32[3]{0} fusion(%param_0), kind=kLoop, calls={
    %q = f32[3]{0} parameter(0)
    ROOT %n = f32[3]{0} negate(%q)
  }
  ROOT %m = f32[3]{0} multiply(%inner, %param_0)
}
  %zero = f32[] constant(0)
  %sum = f32[] reduce(%p0, %zero), dimensions={0}, to_apply={
    %a = f32[] parameter(0)
    %b = f32[] parameter(1)
    ROOT %c = f32[] add(%a, %b)
  }
  %branch = f32[3]{0} conditional(%p1, %p0, %p0), branch_computations={
{
  tmp_0 = f32[3]{0} parameter(0)
  ROOT tmp_1 = f32[3]{0} ceil(tmp_0)
},
%double
}
  %i0 = s32[] constant(0)
  %loop = s32[] while(%i0), condition={
    %ci = s32[] parameter(0)
    %limit = s32[] constant(5)
    ROOT %lt = pred[] compare(%ci, %limit), direction=LT
  }, body={
    %bi = s32[] parameter(0)
    %one = s32[] constant(1)
    ROOT %next = s32[] add(%bi, %one)
  }
  ROOT %t = (f32[3]{0}, f32[], f32[3]{0}, s32[]) tuple(%fusion, %sum, %branch, %loop)
}
)";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  const Instruction* fusion = Named(*m, "fusion");
  ASSERT_TRUE(fusion);
  ASSERT_EQ(fusion->called_computations.size(), 1u);
  EXPECT_EQ(fusion->called_computations[0].second->name(), "fusion.calls");
  EXPECT_EQ(Named(*m, "inner")->called_computations[0].second->name(), "inner.calls");
  const Instruction* branch = Named(*m, "branch");
  ASSERT_EQ(branch->called_computations.size(), 2u);
  EXPECT_EQ(branch->called_computations[0].second->name(), "branch.branch_computations");
  EXPECT_EQ(branch->called_computations[1].second->name(), "double");
  EXPECT_EQ(m->entry()->name(), "main");
  const Literal x = Values("{1.5, -2, 3}", kF32x3);
  EXPECT_EQ(RunDump(text, {x, Values("0", Shape(ElementType::kS32, {}))}), "({-2.25, -4, -9}, 2.5, {2, -2, 3}, 5)");
  EXPECT_EQ(RunDump(text, {x, Values("1", Shape(ElementType::kS32, {}))}), "({-2.25, -4, -9}, 2.5, {3, -4, 6}, 5)");
  // A body with no instructions, or one that never closes, is a located
  // error, and so is nesting past the bound (no deep recursion).
  struct Case {
    std::string text, expect;
  } cases[] = {
      {"ENTRY %e {\n  %p = f32[2] parameter(0)\n  ROOT %f = f32[2] fusion(%p), kind=kLoop, calls={ }\n}\n",
       "3:50: computation 'f.calls' is empty"},
      {"ENTRY %e {\n  %p = f32[2] parameter(0)\n  ROOT %f = f32[2] fusion(%p), kind=kLoop, calls={\n  %q = f32[2] parameter(0)\n",
       "5:1: unexpected end of input in computation 'f.calls'"},
      {"ENTRY %e {\n  %p = f32[2] parameter(0)\n  ROOT %f = f32[2] fusion(%p), kind=kLoop, calls=%nowhere\n}\n",
       "3:50: undefined computation '%nowhere' in calls="},
  };
  std::string deep = "ENTRY %e {\n  %p = f32[2] parameter(0)\n";
  for (int i = 0; i < 100; ++i) deep += "  ROOT %f" + std::to_string(i) + " = f32[2] fusion(%p), kind=kLoop, calls={\n  %p = f32[2] parameter(0)\n";
  for (const Case& c : cases) {
    auto bad = ParseHloText(c.text);
    ASSERT_FALSE(bad.ok()) << c.text;
    EXPECT_EQ(bad.status().message().rfind(c.expect, 0), 0u) << bad.status().message();
  }
  auto too_deep = ParseHloText(deep);
  ASSERT_FALSE(too_deep.ok());
  EXPECT_NE(too_deep.status().message().find("computations written in line nest deeper than 64 levels"), std::string::npos)
      << too_deep.status().message();
}

// Shapes left out where they follow from the operands, as XLA's parser
// infers them (its tests and hand-written HLO do this).
TEST_F(HloDumps, ShapesLeftOutAreInferred) {
  const std::string text = R"(HloModule inferred
add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = add(a, b)
}

ENTRY e {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  m = multiply(x, y)
  t = transpose(m), dimensions={1,0}
  z = f32[] constant(0)
  r = reduce(t, z), dimensions={1}, to_apply=add_f
  c = compare(x, y), direction=LT
  s = select(c, x, y)
  tu = tuple(r, s)
  ROOT g = get-tuple-element(tu), index=1
})";
  auto m = ParseAndVerifyHlo(text);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(Named(**m, "m")->shape.ToString(false), "f32[2,3]");
  EXPECT_EQ(Named(**m, "t")->shape.ToString(false), "f32[3,2]");
  EXPECT_EQ(Named(**m, "r")->shape.ToString(false), "f32[3]");
  EXPECT_EQ(Named(**m, "c")->shape.ToString(false), "pred[2,3]");
  EXPECT_EQ(Named(**m, "tu")->shape.ToString(false), "(f32[3], f32[2,3])");
  EXPECT_EQ(RunDump(text, {Values("{{1, 5, 3}, {-4, 0, 6}}", kF32x2x3), Values("{{2, 4, 3}, {-5, 1, 7}}", kF32x2x3)}),
            "{{1, 4, 3}, {-5, 0, 6}}");
  struct Case {
    std::string text, expect;
  } cases[] = {
      {"ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT b = broadcast(x), dimensions={0}\n}\n",
       "3:12: broadcast %b needs its shape written: it does not follow from its operands"},
      {"ENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[3] parameter(1)\n  ROOT a = add(x, y)\n}\n", "4:12: "},
      {"ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT p = parameter(1)\n}\n", "3:12: parameter %p needs its shape written"},
  };
  for (const Case& c : cases) {
    auto bad = ParseAndVerifyHlo(c.text);
    ASSERT_FALSE(bad.ok()) << c.text;
    EXPECT_EQ(bad.status().message().rfind(c.expect, 0), 0u) << bad.status().message();
  }
  // Instructions written in place of their operands, with or without a
  // shape, nested; each gets a name of its own.
  const std::string nested = R"(ENTRY e {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  ROOT r = add(maximum(x, negate(y)), f32[2,3] multiply(x, y))
})";
  auto n = ParseAndVerifyHlo(nested);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(Named(**n, "maximum.anon")->shape.ToString(false), "f32[2,3]");
  EXPECT_EQ(Named(**n, "negate.anon")->opcode, Opcode::kNegate);
  EXPECT_EQ(RunDump(nested, {Values("{{1, 5, 3}, {-4, 0, 6}}", kF32x2x3), Values("{{2, 4, 3}, {-5, 1, 7}}", kF32x2x3)}),
            "{{3, 25, 12}, {25, 0, 48}}");
  std::string deep = "ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT r = ";
  for (int i = 0; i < 80; ++i) deep += "negate(";
  deep += "x" + std::string(80, ')') + "\n}\n";
  auto too_deep = ParseAndVerifyHlo(deep);
  ASSERT_FALSE(too_deep.ok());
  EXPECT_NE(too_deep.status().message().find("instructions written as operands nest deeper than 64 levels"), std::string::npos)
      << too_deep.status().message();
  // The parser alone (no shape rules below the ops layer) says what is missing.
  auto bare = ParseHloText("ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT n = negate(x)\n}\n");
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.status().message().rfind("3:12: expected the shape of %n before negate", 0), 0u) << bare.status().message();
}

// A broadcast of a scalar may leave out dimensions={} (XLA's GPU emitter
// tests write `broadcast(zero)`); an operand with dims still needs them.
TEST_F(HloDumps, ScalarBroadcastWithoutDimensions) {
  const std::string text = R"(ENTRY e {
  x = f32[3] parameter(0)
  two = f32[] constant(2)
  b = f32[3] broadcast(two)
  ROOT m = f32[3] multiply(x, b)
})";
  auto m = ParseAndVerifyHlo(text);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_TRUE(Named(**m, "b")->dimensions.has_value());
  EXPECT_TRUE(Named(**m, "b")->dimensions->empty());
  EXPECT_EQ(RunDump(text, {Values("{1, -2, 0.5}", kF32x3)}), "{2, -4, 1}");
  auto bad = ParseAndVerifyHlo("ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT b = f32[3,2] broadcast(x)\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("broadcast %b (3:8): needs dimensions={...}"), std::string::npos) << bad.status().message();
}

// XLA's HLO has opcodes for acos, acosh, asin, asinh, atanh and sinh (its
// codegen tests write `acos(p0)`); they are read as the ops of their CHLO
// decompositions (which tests/chlo_test.cc checks closely), here in f32 and
// f64 within 4 ULP of the C library's functions; `domain` is its operand.
// An unknown name is still an error.
TEST_F(HloDumps, XlaInverseTrigonometricOpcodes) {
  const std::vector<std::pair<std::string, double (*)(double)>> ops = {
      {"acos", [](double x) { return std::acos(x); }},   {"acosh", [](double x) { return std::acosh(x); }},
      {"asin", [](double x) { return std::asin(x); }},   {"asinh", [](double x) { return std::asinh(x); }},
      {"atanh", [](double x) { return std::atanh(x); }}, {"sinh", [](double x) { return std::sinh(x); }}};
  const std::vector<double> xs = {-2.5, -1, -0.75, -0.1, 0, 0.3, 0.99, 1, 1.5, 4, 20};
  for (const ElementType t : {ElementType::kF32, ElementType::kF64}) {
    const std::string ty(ElementTypeName(t)), shape = ty + "[" + std::to_string(xs.size()) + "]";
    std::string body, tuple, shapes;
    for (const auto& [op, fn] : ops) {
      body += "  " + op + "_r = " + shape + " " + op + "(x)\n";
      tuple += (tuple.empty() ? "" : ", ") + op + "_r";
      shapes += (shapes.empty() ? "" : ", ") + shape;
    }
    const std::string text =
        "ENTRY e {\n  x = " + shape + " parameter(0)\n" + body + "  ROOT t = (" + shapes + ") tuple(" + tuple + ")\n}\n";
    std::unique_ptr<Module> m = ParseOrFail(text);
    ASSERT_TRUE(m);
    Literal x(Shape(t, {static_cast<int64_t>(xs.size())}));
    for (size_t i = 0; i < xs.size(); ++i) x.Set(static_cast<int64_t>(i), Scalar::Float(t, xs[i]));
    StatusOr<Literal> got = CompileAndRun(*m, {x});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const std::vector<const Literal*> leaves = got->Leaves();
    ASSERT_EQ(leaves.size(), ops.size());
    const double ulp = t == ElementType::kF32 ? std::ldexp(1.0, -23) : std::ldexp(1.0, -52);
    for (size_t k = 0; k < ops.size(); ++k)
      for (size_t i = 0; i < xs.size(); ++i) {
        const double want = ops[k].second(xs[i]), value = leaves[k]->Get(static_cast<int64_t>(i)).re;
        if (std::isnan(want) || std::isinf(want)) {
          EXPECT_TRUE(std::isnan(want) ? std::isnan(value) : value == want) << ty << " " << ops[k].first << "(" << xs[i] << ") = " << value;
        } else {
          EXPECT_LE(std::abs(value - want), 4 * ulp * std::max(std::abs(want), 1e-30))
              << ty << " " << ops[k].first << "(" << xs[i] << ") = " << value << ", want " << want;
        }
      }
  }
  // `domain` (a sharding domain's boundary, on an array or a tuple) is its operand.
  const std::string domains = R"(ENTRY e {
  a = f32[3] parameter(0)
  b = s32[] parameter(1)
  da = f32[3] domain(a), domain={kind="sharding", entry={maximal device=1}, exit={}}
  t = (f32[3], s32[]) tuple(da, b)
  dt = (f32[3], s32[]) domain(t), domain={kind="sharding", entry={maximal device=0}, exit={replicated}}
  ROOT g = f32[3] get-tuple-element(dt), index=0
})";
  EXPECT_EQ(RunDump(domains, {Values("{1, -2, 0.5}", kF32x3), Values("4", Shape(ElementType::kS32, {}))}), "{1, -2, 0.5}");
  auto bad = ParseAndVerifyHlo("ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT a = f32[2] arccos(x)\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown opcode 'arccos'"), std::string::npos) << bad.status().message();
}

// NaNs with a payload, as XLA prints every NaN but the plain quiet one:
// the mantissa field's bits, kept exactly (a signalling NaN included).
TEST_F(HloDumps, NanPayloads) {
  auto bits = [](const std::string& text, ElementType t) -> std::string {
    auto l = ParseLiteral(text, Shape(t, {}));
    if (!l.ok()) return l.status().message().substr(0, l.status().message().find('\n'));  // without the caret
    uint64_t b = 0;
    std::memcpy(&b, l->bytes().data(), ByteWidth(t));
    char out[24];
    std::snprintf(out, sizeof out, "0x%llx", static_cast<unsigned long long>(b));
    return out;
  };
  EXPECT_EQ(bits("nan", ElementType::kF32), "0x7fc00000");
  EXPECT_EQ(bits("nan(0x1)", ElementType::kF32), "0x7f800001");
  EXPECT_EQ(bits("-nan(0x7fffff)", ElementType::kF32), "0xffffffff");
  EXPECT_EQ(bits("nan(0x400001)", ElementType::kF32), "0x7fc00001");
  EXPECT_EQ(bits("nan(0x3ff)", ElementType::kF16), "0x7fff");
  EXPECT_EQ(bits("-nan(0x1)", ElementType::kBF16), "0xff81");
  EXPECT_EQ(bits("nan(0x8000000000001)", ElementType::kF64), "0x7ff8000000000001");
  EXPECT_EQ(bits("nan(0x1)", ElementType::kF8E5M2), "0x7d");
  EXPECT_EQ(bits("nan(0x0)", ElementType::kF32), "1:5: NaN payload 0x0 is out of range for f32 (1 to 0x7fffff)");
  EXPECT_EQ(bits("nan(0x800000)", ElementType::kF32), "1:5: NaN payload 0x800000 is out of range for f32 (1 to 0x7fffff)");
  EXPECT_EQ(bits("nan(0x10000000000000000)", ElementType::kF64),
            "1:5: NaN payload 0x10000000000000000 is out of range for f64 (1 to 0xfffffffffffff)");
  EXPECT_EQ(bits("nan(12)", ElementType::kF32), "1:5: expected a hexadecimal NaN payload 0x...");
  EXPECT_EQ(bits("nan(0x1)", ElementType::kF8E4M3FN), "1:1: f8e4m3fn has one NaN: it does not take a payload nan(0x..)");
  // On the device: a constant's NaNs reach the result bit for bit.
  const std::string text = R"(HloModule nans
ENTRY %e {
  %c = f32[4]{0} constant({nan, nan(0x1), -nan(0x7fffff), 1})
  ROOT %b = u32[4]{0} bitcast-convert(%c)
})";
  EXPECT_EQ(RunDump(text, {}), "{2143289344, 2139095041, 4294967295, 1065353216}");
}

TEST_F(HloDumps, DumpStyleNamesLayoutsAndComputationAttributes) {
  const std::string text = R"(HloModule jit_f.7, entry_computation_layout={(f32[8,128]{1,0:T(8,128)L(1024)}, s32[3]{0})->(f32[8]{0}, s32[])}

region_0.3 {
  Arg_0.4 = f32[] parameter(0)
  Arg_1.5 = f32[] parameter(1)
  ROOT maximum.6 = f32[] maximum(Arg_0.4, Arg_1.5)
}, execution_thread="main"

%sum-s32.1 (a: s32[], b: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %add = s32[] add(s32[] %a, s32[] %b)
}, execution_thread="sparsecore"

ENTRY %main.10 (Arg_0.1: f32[8,128], Arg_1.2: s32[3]) -> (f32[8], s32[]) {
  %Arg_0.1 = f32[8, 128]{1,0:T(8,128)L(1024)} parameter(0), parameter_replication={false}, origin={{"x"}}
  %Arg_1.2 = s32[3]{0:T(256)D(D)#(s32)*(s32)M(8)SC(0:2)} parameter(1)
  %constant.7 = f32[]{:T(128)S(1)} constant(-inf)
  %reduce.8 = f32[8]{0:T(256)}
      reduce(f32[8,128]{1,0:T(8,128)L(1024)} %Arg_0.1, f32[]{:T(128)S(1)} %constant.7),
      dimensions={1}, to_apply=region_0.3
  %c0 = s32[] constant(0)
  %r.9 = s32[] reduce(%Arg_1.2, %c0), dimensions={0}, to_apply=%sum-s32.1
  ROOT %tuple.10 = (f32[8]{0}, s32[]) tuple(%reduce.8, %r.9)
}
)";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  EXPECT_EQ(Named(*m, "Arg_0.1")->shape.ToString(), "f32[8,128]{1,0:T(8,128)}");
  EXPECT_EQ(Named(*m, "Arg_1.2")->shape.ToString(), "s32[3]{0:T(256)}");
  Literal x(Shape(ElementType::kF32, {8, 128}));
  Literal row_max(Shape(ElementType::kF32, {8}));
  for (int64_t r = 0; r < 8; ++r) {
    double best = -INFINITY;
    for (int64_t c = 0; c < 128; ++c) {
      const double v = static_cast<double>((r * 7 + c * 13) % 101) - 50.5;
      x.Set(r * 128 + c, Scalar::Float(ElementType::kF32, v));
      best = std::max(best, v);
    }
    row_max.Set(r, Scalar::Float(ElementType::kF32, best));
  }
  EXPECT_EQ(RunDump(text, {x, Values("{5, -2, 40}", Shape(ElementType::kS32, {3}))}),
            "(" + row_max.ValuesToString() + ", 43)");
  // Layout attributes that change where elements lie, or that vkxla has
  // no meaning for, are errors naming them.
  struct Case { const char* text; const char* expect; } cases[] = {
      {"f32[4]{0:D(C)}", "1:12: sparse layouts are not supported (dimension level 'C')"},
      {"f32[4]{0:P(f32[8])}", "1:10: unknown layout attribute"},
      {"f32[4]{0:L(x)}", "1:12: expected an integer"},
  };
  for (const Case& c : cases) {
    auto s = ParseShape(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().message().rfind(c.expect, 0), 0u) << s.status().message();
  }
}

}  // namespace
}  // namespace vkxla
