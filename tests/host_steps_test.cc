// Host work between submissions: infeed and outfeed through the device's
// queues (in program order, inside loops too), and custom calls that run a
// registered host function, each compared with the reference evaluator.
#include <gtest/gtest.h>

#include <numeric>

#include "frontends/hlo_text.h"
#include "frontends/xla_builder.h"
#include "frontends/stablehlo_reader.h"
#include "ops/custom_call_registry.h"
#include "ops/evaluator.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class HostSteps : public ::testing::Test {
 protected:
  void TearDown() override {
    ExpectNoValidationMessages();
    // Leave the shared device's queues empty for the next test.
    while (TestDevice().infeed().Pop()) {
    }
    while (TestDevice().outfeed().Pop()) {
    }
  }
};

Literal F32s(std::vector<double> v) {
  Literal l(Shape(ElementType::kF32, {static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) l.Set(static_cast<int64_t>(i), Scalar::Float(ElementType::kF32, v[i]));
  return l;
}

// Runs `text` on the device with `infeed` queued and on the reference with
// the same values; compares the results and the outfeed values.
Literal RunWithFeeds(const std::string& text, const std::vector<Literal>& args, const std::vector<Literal>& infeed,
                     size_t outfeed_values) {
  auto m = ParseAndVerifyHlo(text);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return Literal();
  EvaluationFeeds feeds;
  for (const Literal& l : infeed) feeds.infeed.push_back(l);
  auto want = EvaluateModule(**m, args, feeds);
  EXPECT_TRUE(want.ok()) << want.status().ToString();
  auto exe = Executable::Compile(**m, TestDevice());
  EXPECT_TRUE(exe.ok()) << exe.status().ToString();
  if (!want.ok() || !exe.ok()) return Literal();
  for (const Literal& l : infeed) TestDevice().infeed().Push(l);
  auto got = (*exe)->Run(args);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  if (!got.ok()) return Literal();
  ExpectClose(*got, *want, Opcode::kAdd, "result");
  EXPECT_EQ(feeds.outfeed.size(), outfeed_values);
  for (size_t k = 0; k < feeds.outfeed.size(); ++k) {
    std::optional<Literal> v = TestDevice().outfeed().Pop();
    EXPECT_TRUE(v.has_value()) << "outfeed value " << k;
    if (v) ExpectClose(*v, feeds.outfeed[k], Opcode::kAdd, "outfeed " + std::to_string(k));
  }
  EXPECT_FALSE(TestDevice().outfeed().Pop().has_value());
  EXPECT_EQ(TestDevice().infeed().size(), 0u);
  return *got;
}

TEST_F(HostSteps, InfeedAndOutfeedInProgramOrder) {
  const std::string text =
      "HloModule feeds\nENTRY %e {\n  %tok = token[] after-all()\n"
      "  %in1 = (f32[3], token[]) infeed(%tok)\n  %x = f32[3] get-tuple-element(%in1), index=0\n"
      "  %t1 = token[] get-tuple-element(%in1), index=1\n  %y = f32[3] add(%x, %x)\n"
      "  %t2 = token[] outfeed(%y, %t1), outfeed_shape=f32[3]\n"
      "  %in2 = (f32[3], token[]) infeed(%t2)\n  %z = f32[3] get-tuple-element(%in2), index=0\n"
      "  %t3 = token[] get-tuple-element(%in2), index=1\n  %s = f32[3] multiply(%x, %z)\n"
      "  %t4 = token[] outfeed(%s, %t3), outfeed_shape=f32[3]\n  ROOT %r = f32[3] subtract(%z, %x)\n}\n";
  Literal r = RunWithFeeds(text, {}, {F32s({1, 2, 3}), F32s({10, 20, 30})}, 2);
  EXPECT_EQ(r.ValuesToString(), "{9, 18, 27}");
}

// Tokens in the entry's result (XLA's hlo_to_mhlo tests return after-all()
// alone): they hold no data and come back as tokens beside the arrays, as
// the reference gives them (assembling them from the array leaves crashed).
TEST_F(HostSteps, TokensInTheResult) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ENTRY e {\n  ROOT t = token[] after-all()\n}\n", "token"},
      {"ENTRY e {\n  p = f32[2] parameter(0)\n  t = token[] after-all()\n  n = f32[2] negate(p)\n"
       "  ROOT r = (token[], f32[2], token[], f32[2]) tuple(t, p, t, n)\n}\n",
       "(token, {1, -2}, token, {-1, 2})"},
  };
  for (const auto& [text, values] : cases) {
    auto m = ParseAndVerifyHlo(text);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    std::vector<Literal> args;
    if (!(*m)->entry()->parameters().empty()) args.push_back(F32s({1, -2}));
    auto want = EvaluateModule(**m, args);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto got = CompileAndRun(**m, args);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->ValuesToString(), values);
    EXPECT_EQ(got->ValuesToString(), want->ValuesToString());
    EXPECT_EQ(got->shape().ToString(false), want->shape().ToString(false));
  }
}

// Each trip of a counted loop reads one value and writes a running sum; the
// state carries a token, as ordered effects do.
TEST_F(HostSteps, FeedsInsideALoop) {
  const std::string state = "(s32[], f32[2], token[])";
  const std::string text =
      "HloModule loop_feeds\n"
      "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(5)\n"
      "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
      "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %acc = f32[2] get-tuple-element(%p), index=1\n"
      "  %tok = token[] get-tuple-element(%p), index=2\n  %in = (f32[2], token[]) infeed(%tok)\n"
      "  %v = f32[2] get-tuple-element(%in), index=0\n  %t1 = token[] get-tuple-element(%in), index=1\n"
      "  %acc2 = f32[2] add(%acc, %v)\n  %t2 = token[] outfeed(%acc2, %t1), outfeed_shape=f32[2]\n"
      "  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n  ROOT %t = " + state + " tuple(%i2, %acc2, %t2)\n}\n"
      "ENTRY %e {\n  %z = s32[] constant(0)\n  %a = f32[2] parameter(0)\n  %tok = token[] after-all()\n"
      "  %t = " + state + " tuple(%z, %a, %tok)\n  %w = " + state + " while(%t), condition=%cond, body=%body\n"
      "  ROOT %r = f32[2] get-tuple-element(%w), index=1\n}\n";
  std::vector<Literal> values;
  for (int k = 0; k < 5; ++k) values.push_back(F32s({1.0 + k, 100.0 * k}));
  Literal r = RunWithFeeds(text, {F32s({0.5, 0})}, values, 5);
  EXPECT_EQ(r.ValuesToString(), "{15.5, 1000}");
}

TEST_F(HostSteps, AnEmptyInfeedQueueIsAnError) {
  auto m = ParseAndVerifyHlo("HloModule m\nENTRY %e {\n  %tok = token[] after-all()\n"
                             "  %in = (s32[2], token[]) infeed(%tok)\n  ROOT %x = s32[2] get-tuple-element(%in), index=0\n}\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto exe = Executable::Compile(**m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto r = (*exe)->Run({});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("infeed %in"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("queue is empty"), std::string::npos) << r.status().ToString();
  // A value of another shape is an error naming both.
  TestDevice().infeed().Push(F32s({1, 2}));
  r = (*exe)->Run({});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("f32[2]"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("s32[2]"), std::string::npos) << r.status().ToString();
}

// A running sum, doubled when backend_config says scale=2; it insists on
// the typed-FFI api_version it is declared with.
Status ScaledCumsum(const std::vector<Literal>& in, const CustomCallContext& c, std::vector<Literal>& out) {
  if (c.api_version != 4) return InvalidArgument("expected the typed FFI version");
  const double scale = c.backend_config == "\"scale=2\"" ? 2 : 1;
  Literal r(Shape(ElementType::kF32, in[0].shape().dims()));
  double sum = 0;
  for (int64_t i = 0; i < r.element_count(); ++i) {
    sum += in[0].Get(i).re;
    r.Set(i, Scalar::Float(ElementType::kF32, scale * sum));
  }
  out.push_back(std::move(r));
  return OkStatus();
}

bool RegisterScaledCumsum() {
  static const bool ok = RegisterHostCustomCall("test_scaled_cumsum", ScaledCumsum).ok();
  return ok;
}

// Host functions: a running sum scaled by backend_config, and one with two
// results; device work on both sides of each call.
TEST_F(HostSteps, RegisteredHostCustomCalls) {
  static const bool registered = [] {
    const bool a = RegisterScaledCumsum();
    Status b = RegisterHostCustomCall(
        "test_min_max", [](const std::vector<Literal>& in, const CustomCallContext&, std::vector<Literal>& out) {
          double lo = 1e300, hi = -1e300;
          for (const Literal& l : in)
            for (int64_t i = 0; i < l.element_count(); ++i) {
              lo = std::min(lo, static_cast<double>(l.Get(i).s));
              hi = std::max(hi, static_cast<double>(l.Get(i).s));
            }
          out.push_back(Literal::ScalarOf(Scalar::Int(ElementType::kS32, static_cast<int64_t>(lo))));
          out.push_back(Literal::ScalarOf(Scalar::Int(ElementType::kS32, static_cast<int64_t>(hi))));
          return OkStatus();
        });
    return a && b.ok();
  }();
  ASSERT_TRUE(registered);
  EXPECT_FALSE(RegisterHostCustomCall("test_min_max", [](const std::vector<Literal>&, const CustomCallContext&,
                                                          std::vector<Literal>&) { return OkStatus(); })
                   .ok());  // a name is registered once
  const std::string text =
      "HloModule host_calls\nENTRY %e {\n  %x = f32[6] parameter(0)\n  %a = s32[4] parameter(1)\n  %b = s32[2] parameter(2)\n"
      "  %n = f32[6] negate(%x)\n"
      "  %c = f32[6] custom-call(%n), custom_call_target=\"test_scaled_cumsum\", api_version=API_VERSION_TYPED_FFI,"
      " backend_config=\"scale=2\", output_to_operand_aliasing={{}: (0, {})}\n"
      "  %m = (s32[], s32[]) custom-call(%a, %b), custom_call_target=\"test_min_max\"\n"
      "  %lo = s32[] get-tuple-element(%m), index=0\n  %hi = s32[] get-tuple-element(%m), index=1\n"
      "  %d = s32[] subtract(%hi, %lo)\n  %e = f32[6] add(%c, %c)\n  ROOT %r = (f32[6], s32[]) tuple(%e, %d)\n}\n";
  Literal a(Shape(ElementType::kS32, {4})), b(Shape(ElementType::kS32, {2}));
  const int av[] = {5, -7, 3, 9}, bv[] = {-20, 4};
  for (int i = 0; i < 4; ++i) a.Set(i, Scalar::Int(ElementType::kS32, av[i]));
  for (int i = 0; i < 2; ++i) b.Set(i, Scalar::Int(ElementType::kS32, bv[i]));
  Literal r = RunWithFeeds(text, {F32s({1, 2, 3, 4, 5, 6}), a, b}, {}, 0);
  EXPECT_EQ(r.ValuesToString(), "({-4, -12, -24, -40, -60, -84}, 29)");
}

// Send and recv with host transfers: values come and go on channels.
TEST_F(HostSteps, SendAndRecvWithTheHost) {
  const std::string text =
      "HloModule channels\nENTRY %e {\n  %tok = token[] after-all()\n"
      "  %recv = (f32[3], u32[], token[]) recv(%tok), channel_id=3, is_host_transfer=true\n"
      "  %done = (f32[3], token[]) recv-done(%recv), channel_id=3, is_host_transfer=true\n"
      "  %x = f32[3] get-tuple-element(%done), index=0\n  %t = token[] get-tuple-element(%done), index=1\n"
      "  %y = f32[3] add(%x, %x)\n"
      "  %send = (f32[3], u32[], token[]) send(%y, %t), channel_id=4, is_host_transfer=true\n"
      "  %sent = token[] send-done(%send), channel_id=4, is_host_transfer=true\n"
      "  %one = f32[] constant(1)\n  %ob = f32[3] broadcast(%one), dimensions={}\n  ROOT %r = f32[3] add(%y, %ob)\n}\n";
  auto m = ParseAndVerifyHlo(text);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EvaluationFeeds feeds;
  feeds.to_device[3].push_back(F32s({1, -2, 4}));
  auto want = EvaluateModule(**m, {}, feeds);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto exe = Executable::Compile(**m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto empty = (*exe)->Run({});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("nothing was sent to channel 3"), std::string::npos) << empty.status().ToString();
  TestDevice().to_device(3).Push(F32s({1, -2, 4}));
  auto got = (*exe)->Run({});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectClose(*got, *want, Opcode::kAdd, "result");
  EXPECT_EQ(got->ValuesToString(), "{3, -3, 9}");
  std::optional<Literal> sent = TestDevice().from_device(4).Pop();
  ASSERT_TRUE(sent.has_value());
  EXPECT_EQ(sent->ValuesToString(), "{2, -4, 8}");
  ASSERT_EQ(feeds.from_device[4].size(), 1u);
  EXPECT_EQ(feeds.from_device[4][0].ValuesToString(), "{2, -4, 8}");
}

// An elementwise GLSL custom call fuses with its neighbours into one
// kernel; the reference evaluator runs its host reference.
TEST_F(HostSteps, GlslCustomCallsFuse) {
  static const bool registered =
      RegisterGlslCustomCall("test_glsl_mix", {"test_glsl_mix", "int test_glsl_mix(int a, int b) { return a * 3 - b; }",
                                               [](const std::vector<Scalar>& v) {
                                                 return Scalar::Int(ElementType::kS32, v[0].s * 3 - v[1].s);
                                               }})
          .ok();
  ASSERT_TRUE(registered);
  EXPECT_FALSE(RegisterGlslCustomCall("test_glsl_bad", {"missing", "int other(int a) { return a; }", nullptr}).ok());
  for (const char* layout : {"{1,0}", "{0,1}"}) {
    SCOPED_TRACE(layout);
    auto m = ParseAndVerifyHlo(std::string("HloModule glsl\nENTRY %e {\n  %x = s32[2,3]") + layout +
                               " parameter(0)\n  %y = s32[2,3] parameter(1)\n"
                               "  %c = s32[2,3] custom-call(%x, %y), custom_call_target=\"test_glsl_mix\"\n"
                               "  ROOT %r = s32[2,3] add(%c, %x)\n}\n");
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    RunAndCompare(**m, 7, /*expected_kernels=*/1);
  }
  // Not elementwise: an error naming both shapes.
  auto bad = ParseAndVerifyHlo("HloModule m\nENTRY %e {\n  %x = s32[2,3] parameter(0)\n  %y = s32[3] parameter(1)\n"
                               "  ROOT %c = s32[2,3] custom-call(%x, %y), custom_call_target=\"test_glsl_mix\"\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("s32[3]"), std::string::npos) << bad.status().ToString();
}

TEST_F(HostSteps, CustomCallErrorsNameTheTarget) {
  static const bool registered = RegisterHostCustomCall(
      "test_wrong_shape", [](const std::vector<Literal>&, const CustomCallContext&, std::vector<Literal>& out) {
        out.push_back(F32s({1, 2, 3}));
        return OkStatus();
      }).ok();
  ASSERT_TRUE(registered);
  auto m = ParseAndVerifyHlo("HloModule m\nENTRY %e {\n  %x = f32[2] parameter(0)\n"
                             "  ROOT %c = f32[2] custom-call(%x), custom_call_target=\"test_wrong_shape\"\n}\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto exe = Executable::Compile(**m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto r = (*exe)->Run({F32s({1, 2})});
  ASSERT_FALSE(r.ok());
  for (const char* w : {"custom-call", "%c", "test_wrong_shape", "f32[3]", "f32[2]"})
    EXPECT_NE(r.status().message().find(w), std::string::npos) << r.status().ToString();
  auto unknown = ParseAndVerifyHlo("HloModule m\nENTRY %e {\n  %x = f32[2] parameter(0)\n"
                                   "  ROOT %c = f32[2] custom-call(%x), custom_call_target=\"nobody_registered_this\"\n}\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("\"nobody_registered_this\" is not registered"), std::string::npos)
      << unknown.status().ToString();
}

// The same ops from StableHLO: infeed's (values..., token), outfeed of
// values and a token, a custom_call with its api_version as a number.
TEST_F(HostSteps, FromStablehlo) {
  const std::string text = R"(func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %tok = stablehlo.after_all : !stablehlo.token
  %v, %t1 = "stablehlo.infeed"(%tok) : (!stablehlo.token) -> (tensor<3xf32>, !stablehlo.token)
  %s = stablehlo.add %x, %v : tensor<3xf32>
  %t2 = "stablehlo.outfeed"(%s, %t1) : (tensor<3xf32>, !stablehlo.token) -> !stablehlo.token
  %c = stablehlo.custom_call @test_scaled_cumsum(%s) {backend_config = "scale=2", api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  func.return %c : tensor<3xf32>
})";
  ASSERT_TRUE(RegisterScaledCumsum());
  auto program = ReadStablehlo(text, /*with_checks=*/false);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  auto exe = Executable::Compile(*program->module, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  TestDevice().infeed().Push(F32s({10, 20, 30}));
  auto got = (*exe)->Run({F32s({1, 2, 3})});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->ValuesToString(), "{22, 66, 132}");
  std::optional<Literal> out = TestDevice().outfeed().Pop();
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->ValuesToString(), "{11, 22, 33}");
}

// Host transfers from StableHLO, generic form as JAX writes it: recv on
// one channel, send on another.
TEST_F(HostSteps, SendAndRecvFromStablehlo) {
  const std::string text = R"(func.func @main() -> tensor<2xi32> {
  %tok = stablehlo.after_all : !stablehlo.token
  %v, %t1 = "stablehlo.recv"(%tok) {channel_handle = #stablehlo.channel_handle<handle = 7, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  %d = stablehlo.multiply %v, %v : tensor<2xi32>
  %t2 = "stablehlo.send"(%d, %t1) {channel_handle = #stablehlo.channel_handle<handle = 8, type = 2>, is_host_transfer = true} : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
  func.return %d : tensor<2xi32>
})";
  auto program = ReadStablehlo(text, /*with_checks=*/false);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  auto exe = Executable::Compile(*program->module, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  Literal v(Shape(ElementType::kS32, {2}));
  v.Set(0, Scalar::Int(ElementType::kS32, -3));
  v.Set(1, Scalar::Int(ElementType::kS32, 5));
  TestDevice().to_device(7).Push(v);
  auto got = (*exe)->Run({});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->ValuesToString(), "{9, 25}");
  std::optional<Literal> sent = TestDevice().from_device(8).Pop();
  ASSERT_TRUE(sent.has_value());
  EXPECT_EQ(sent->ValuesToString(), "{9, 25}");
  // The same from the builder.
  XlaBuilder b("channels");
  XlaOp tok = b.AfterAll({});
  XlaOp recv = b.RecvFromHost(tok, Shape(ElementType::kS32, {2}), 7);
  XlaOp value = b.GetTupleElement(recv, 0);
  XlaOp d = Mul(value, value);
  b.SendToHost(d, b.GetTupleElement(recv, 1), 8);
  auto built = b.Build(d);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  auto built_exe = Executable::Compile(**built, TestDevice());
  ASSERT_TRUE(built_exe.ok()) << built_exe.status().ToString();
  TestDevice().to_device(7).Push(v);
  got = (*built_exe)->Run({});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->ValuesToString(), "{9, 25}");
  sent = TestDevice().from_device(8).Pop();
  ASSERT_TRUE(sent.has_value());
  EXPECT_EQ(sent->ValuesToString(), "{9, 25}");
  // Without a channel handle: an error naming the op and the line.
  auto bad = ReadStablehlo(R"(func.func @main() -> !stablehlo.token {
  %tok = stablehlo.after_all : !stablehlo.token
  %x = stablehlo.constant dense<1> : tensor<i32>
  %t = "stablehlo.send"(%x, %tok) {is_host_transfer = true} : (tensor<i32>, !stablehlo.token) -> !stablehlo.token
  func.return %t : !stablehlo.token
})",
                           /*with_checks=*/false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("stablehlo.send needs channel_handle"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("4:"), std::string::npos) << bad.status().ToString();
}

}  // namespace
}  // namespace vkxla
