// The installed public API (include/vkxla/): typed arrays, compiling HLO
// text and StableHLO, running, and the errors a caller sees.
#include <gtest/gtest.h>

#include <complex>
#include <vector>

#include "vkxla/vkxla.h"

namespace vkxla {
namespace {

TEST(PublicArray, TypedValuesKeepTheirTypeAndDims) {
  StatusOr<Array> a = Array::FromValues(std::vector<int16_t>{1, -2, 3, -4, 5, -6}, {3, 2});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->type(), ElementType::kS16);
  EXPECT_EQ(a->ShapeString(), "s16[3,2]");
  EXPECT_EQ(a->element_count(), 6);
  StatusOr<std::span<const int16_t>> v = a->values<int16_t>();
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(std::vector<int16_t>(v->begin(), v->end()), (std::vector<int16_t>{1, -2, 3, -4, 5, -6}));
  StatusOr<std::span<const float>> wrong = a->values<float>();
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "the array is s16[3,2], its values are not f32");

  const Array c = Array::Scalar(std::complex<double>(1.5, -2));
  EXPECT_EQ(c.ShapeString(), "c128[]");
  EXPECT_EQ((*c.values<std::complex<double>>())[0], std::complex<double>(1.5, -2));
  StatusOr<Array> p = Array::FromValues(std::vector<bool>{true, false, true}, {3});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->ShapeString(), "pred[3]");
  EXPECT_EQ(std::vector<uint8_t>(p->bytes().begin(), p->bytes().end()), (std::vector<uint8_t>{1, 0, 1}));
}

TEST(PublicArray, BadSizesAndValuesAreErrorsNamingTheShape) {
  StatusOr<Array> short_data = Array::FromValues(std::vector<float>{1, 2, 3}, {2, 2});
  ASSERT_FALSE(short_data.ok());
  EXPECT_EQ(short_data.status().message(), "f32[2,2] needs 16 bytes (4 elements), 12 were given");
  StatusOr<Array> negative = Array::FromBytes(ElementType::kF32, {-1, 2}, {});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(), "f32[-1,2] has a negative dimension");
  StatusOr<Array> huge = Array::FromBytes(ElementType::kF32, {int64_t{1} << 40, int64_t{1} << 40}, {});
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kResourceExhausted);
  StatusOr<Array> s4 = Array::FromBytes(ElementType::kS4, {3}, {0x07, 0xF8, 0x08});
  ASSERT_FALSE(s4.ok());
  EXPECT_EQ(s4.status().message(), "s4[3] element 2 is 8, outside s4's range [-8, 7]");
  StatusOr<Array> pred = Array::FromBytes(ElementType::kPred, {2}, {1, 2});
  ASSERT_FALSE(pred.ok());
  EXPECT_EQ(pred.status().message(), "pred[2] element 1 is 2, outside pred's range [0, 1]");
  StatusOr<Array> token = Array::FromBytes(ElementType::kToken, {}, {});
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().message(), "an array cannot hold elements of type token");
}

TEST(PublicArray, ConvertedFollowsConvertElementType) {
  StatusOr<Array> f = Array::FromValues(std::vector<float>{1.00390625f, 1.01171875f, -2.5f, 300.75f}, {4});
  ASSERT_TRUE(f.ok());
  StatusOr<Array> bf16 = f->Converted(ElementType::kBF16);
  ASSERT_TRUE(bf16.ok());
  // bf16 bits: 1 + 2^-8 ties to even (1.0 = 0x3F80), 1 + 3·2^-8 rounds up to 0x3F82.
  const uint16_t* bits = reinterpret_cast<const uint16_t*>(bf16->bytes().data());
  EXPECT_EQ(bits[0], 0x3F80);
  EXPECT_EQ(bits[1], 0x3F82);
  StatusOr<Array> back = bf16->Converted(ElementType::kF32);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back->values<float>())[2], -2.5f);
  StatusOr<Array> s8 = f->Converted(ElementType::kS8);
  ASSERT_TRUE(s8.ok());
  // 300.75 truncates to 300, which saturates at 127.
  EXPECT_EQ((*s8->values<int8_t>())[3], 127);
  StatusOr<Array> wide = Array::FromValues(std::vector<int32_t>{300, -129}, {2});
  StatusOr<Array> narrow = wide->Converted(ElementType::kS8);
  ASSERT_TRUE(narrow.ok());
  EXPECT_EQ((*narrow->values<int8_t>())[0], 44);  // integers wrap
  EXPECT_EQ((*narrow->values<int8_t>())[1], 127);
  EXPECT_EQ((*s8->values<int8_t>())[2], -2);
}

class PublicRuntime : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    StatusOr<Runtime> r = Runtime::Open();
    ASSERT_TRUE(r.ok()) << r.status().message();
    runtime_ = new Runtime(std::move(r).value());
  }
  static void TearDownTestSuite() {
    delete runtime_;
    runtime_ = nullptr;
  }
  static Runtime* runtime_;
};
Runtime* PublicRuntime::runtime_ = nullptr;

TEST_F(PublicRuntime, DescribesItsDeviceAsListDevicesDoes) {
  StatusOr<std::vector<DeviceDescription>> devices = ListDevices();
  ASSERT_TRUE(devices.ok());
  ASSERT_FALSE(devices->empty());
  EXPECT_EQ(runtime_->device().name, (*devices)[runtime_->device().index].name);
  EXPECT_NE(runtime_->device().capabilities.find("f64:"), std::string::npos);
  EXPECT_FALSE(Version().empty());
}

TEST_F(PublicRuntime, HloTextWithATupleResult) {
  StatusOr<CompiledModule> m = runtime_->Compile(R"(HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  n = s32[] parameter(1)
  nf = f32[] convert(n)
  b = f32[3] broadcast(nf), dimensions={}
  s = f32[3] multiply(x, b)
  ROOT r = (f32[3], s32[]) tuple(s, n)
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->parameters().size(), 2u);
  EXPECT_EQ(m->parameters()[0].ToString(), "f32[3]");
  EXPECT_EQ(m->parameters()[1].ToString(), "s32[]");
  EXPECT_EQ(m->results().size(), 2u);
  StatusOr<std::vector<Array>> out =
      m->Run({*Array::FromValues(std::vector<float>{1, -2, 0.5f}, {3}), Array::Scalar(int32_t{3})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 2u);
  const std::span<const float> s = *(*out)[0].values<float>();
  EXPECT_EQ(std::vector<float>(s.begin(), s.end()), (std::vector<float>{3, -6, 1.5f}));
  EXPECT_EQ((*(*out)[1].values<int32_t>())[0], 3);
}

// A tuple parameter takes its arrays as arguments in order, a token none;
// a token in the result gives no array.
TEST_F(PublicRuntime, TupleAndTokenParametersTakeTheirArrays) {
  StatusOr<CompiledModule> m = runtime_->Compile(R"(HloModule m
ENTRY e {
  t = token[] parameter(0)
  p = (f32[2], s32[]) parameter(1)
  x = f32[2] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  nf = f32[] convert(n)
  b = f32[2] broadcast(nf), dimensions={}
  s = f32[2] multiply(x, b)
  ROOT r = (token[], f32[2]) tuple(t, s)
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->parameters().size(), 2u);
  EXPECT_EQ(m->parameters()[0].ToString(), "f32[2]");
  EXPECT_EQ(m->parameters()[1].ToString(), "s32[]");
  ASSERT_EQ(m->results().size(), 1u);
  StatusOr<std::vector<Array>> out = m->Run({*Array::FromValues(std::vector<float>{1, -2}, {2}), Array::Scalar(int32_t{3})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 1u);
  const std::span<const float> s = *(*out)[0].values<float>();
  EXPECT_EQ(std::vector<float>(s.begin(), s.end()), (std::vector<float>{3, -6}));
  StatusOr<std::vector<Array>> swapped = m->Run({Array::Scalar(int32_t{3}), *Array::FromValues(std::vector<float>{1, -2}, {2})});
  ASSERT_FALSE(swapped.ok());
  EXPECT_NE(swapped.status().message().find("argument 0 is s32[] but the parameter is f32[2]"), std::string::npos)
      << swapped.status().message();
}

// A shape-polymorphic export (jax.export with a symbolic dim and an
// ordered-effects token) compiles for the arrays CompileOptions gives.
TEST_F(PublicRuntime, PolymorphicStablehloCompilesForTheArgumentsGiven) {
  const char* text = R"(
func.func public @main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<?x2xf32>) -> (!stablehlo.token, tensor<?x2xf32>) {
  %0 = stablehlo.negate %arg1 : tensor<?x2xf32>
  return %arg0, %0 : !stablehlo.token, tensor<?x2xf32>
})";
  CompileOptions options;
  options.argument_specs = {ArraySpec{ElementType::kF32, {3, 2}}};
  StatusOr<CompiledModule> m = runtime_->Compile(text, options);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->parameters().size(), 1u);
  EXPECT_EQ(m->parameters()[0].ToString(), "f32[3,2]");
  StatusOr<std::vector<Array>> out = m->Run({*Array::FromValues(std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 1u);
  const std::span<const float> s = *(*out)[0].values<float>();
  EXPECT_EQ(std::vector<float>(s.begin(), s.end()), (std::vector<float>{-1, -2, -3, -4, -5, -6}));
  StatusOr<CompiledModule> none = runtime_->Compile(text);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("shape-polymorphic"), std::string::npos) << none.status().message();
  options.argument_specs.push_back(ArraySpec{ElementType::kF32, {1}});
  StatusOr<CompiledModule> two = runtime_->Compile(text, options);
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("the entry takes 1 arrays; 2 were given"), std::string::npos) << two.status().message();
}

// A dump's elided constant ({...}) runs as zeros, and Compile says so on
// stderr, naming it.
TEST_F(PublicRuntime, ElidedConstantsRunAsZerosWithANote) {
  testing::internal::CaptureStderr();
  StatusOr<CompiledModule> m = runtime_->Compile("HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n"
                                                 "  w.3 = f32[2] constant({...})\n  ROOT r = f32[2] add(x, w.3)\n}\n");
  const std::string note = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_NE(note.find("vkxla: note: constant %w.3 elided in the text ({...}); filled with zeros"), std::string::npos) << note;
  StatusOr<std::vector<Array>> out = m->Run({*Array::FromValues(std::vector<float>{1.5f, -2}, {2})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::span<const float> r = *(*out)[0].values<float>();
  EXPECT_EQ(std::vector<float>(r.begin(), r.end()), (std::vector<float>{1.5f, -2}));
}

TEST_F(PublicRuntime, ReplicatedModulesRunEveryProcess) {
  StatusOr<CompiledModule> m = runtime_->Compile(R"(HloModule psum, replica_count=2
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2] parameter(0)
  r = f32[2] all-reduce(x), to_apply=sum
  i = u32[] replica-id()
  ROOT t = (f32[2], u32[]) tuple(r, i)
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->processes(), 2);
  const std::vector<std::vector<Array>> args{{*Array::FromValues(std::vector<float>{1, 2}, {2})},
                                             {*Array::FromValues(std::vector<float>{10, 20}, {2})}};
  StatusOr<std::vector<std::vector<Array>>> out = m->RunProcesses(args);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 2u);
  for (uint32_t p = 0; p < 2; ++p) {
    const std::span<const float> s = *(*out)[p][0].values<float>();
    EXPECT_EQ(std::vector<float>(s.begin(), s.end()), (std::vector<float>{11, 22}));
    EXPECT_EQ((*(*out)[p][1].values<uint32_t>())[0], p);
  }
  StatusOr<std::vector<Array>> one = m->Run({*Array::FromValues(std::vector<float>{1, 2}, {2})});
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.status().message().find("call RunProcesses"), std::string::npos) << one.status().message();
  EXPECT_FALSE(m->RunProcesses(std::span<const std::vector<Array>>(args.data(), 1)).ok());
}

TEST_F(PublicRuntime, StablehloTextPicksTheNamedFunction) {
  const char* text = R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @square(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.multiply %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
})";
  CompileOptions options;
  options.function = "square";
  StatusOr<CompiledModule> m = runtime_->Compile(text, options);
  ASSERT_TRUE(m.ok()) << m.status().message();
  StatusOr<std::vector<Array>> out = m->Run({*Array::FromValues(std::vector<float>{3, -0.5f}, {2})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*(*out)[0].values<float>())[0], 9);
  EXPECT_EQ((*(*out)[0].values<float>())[1], 0.25);
}

TEST_F(PublicRuntime, BuilderMakesWhatRuntimeCompiles) {
  // relu(x · w + b), then the row sums: dot, broadcasting add, maximum, reduce.
  Builder b("dense");
  const Op x = b.Parameter(0, ElementType::kF32, {2, 3});
  const Op w = b.Parameter(1, ElementType::kF32, {3, 2});
  const Op bias = b.Constant(*Array::FromValues(std::vector<float>{0.5f, -10}, {2}));
  const Op sum = b.Binary("add", b.Dot(x, w, {1}, {0}), bias, {1});
  const Op relu = b.Binary("maximum", sum, b.Constant(Array::Scalar(0.0f)));
  const Op rows = b.Reduce(relu, b.Constant(Array::Scalar(0.0f)), "add", {1});
  EXPECT_EQ(*b.Dims(relu), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(*b.Dims(rows), (std::vector<int64_t>{2}));
  StatusOr<BuiltModule> built = b.Build(b.Tuple({relu, rows}));
  ASSERT_TRUE(built.ok()) << built.status().message();
  EXPECT_NE(built->ToHloText().find("dot("), std::string::npos) << built->ToHloText();
  StatusOr<CompiledModule> m = runtime_->Compile(*built);
  ASSERT_TRUE(m.ok()) << m.status().message();
  StatusOr<std::vector<Array>> out = m->Run({*Array::FromValues(std::vector<float>{1, 2, 3, -1, 0, 1}, {2, 3}),
                                              *Array::FromValues(std::vector<float>{1, 0, 0, 1, 1, 1}, {3, 2})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // x·w = {{4, 5}, {0, 1}}; + bias = {{4.5, -5}, {0.5, -9}}; relu; row sums 4.5 and 0.5.
  const std::span<const float> r = *(*out)[0].values<float>();
  EXPECT_EQ(std::vector<float>(r.begin(), r.end()), (std::vector<float>{4.5f, 0, 0.5f, 0}));
  const std::span<const float> s = *(*out)[1].values<float>();
  EXPECT_EQ(std::vector<float>(s.begin(), s.end()), (std::vector<float>{4.5f, 0.5f}));
}

TEST(PublicBuilder, ErrorsStickAndNameWhatWentWrong) {
  Builder b("bad");
  const Op x = b.Parameter(0, ElementType::kF32, {2, 3});
  const Op y = b.Parameter(1, ElementType::kF32, {3, 2});
  b.Binary("add", x, y);  // shapes that do not broadcast
  EXPECT_FALSE(b.status().ok());
  EXPECT_NE(b.status().message().find("f32[2,3]"), std::string::npos) << b.status().message();
  StatusOr<BuiltModule> built = b.Build(x);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().message(), b.status().message());

  Builder names("names");
  const Op p = names.Parameter(0, ElementType::kF32, {4});
  names.Unary("frobnicate", p);
  EXPECT_EQ(names.status().message(), "builder: 'frobnicate' is not a unary elementwise op (negate, exponential, tanh, ...)");
  Builder directions("directions");
  const Op q = directions.Parameter(0, ElementType::kS32, {4});
  directions.Compare(q, q, "LESS");
  EXPECT_EQ(directions.status().message(), "builder: comparison direction 'LESS' is not one of EQ, NE, LT, LE, GT, GE");
  Builder reductions("reductions");
  const Op r = reductions.Parameter(0, ElementType::kF32, {4});
  reductions.Reduce(r, reductions.Constant(Array::Scalar(0.0f)), "subtract", {0});
  EXPECT_EQ(reductions.status().message(),
            "builder: 'subtract' is not a reduction (add, multiply, maximum, minimum, and, or)");

  // Malformed and huge shapes are errors before anything is built or allocated.
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{-1, 2}, std::vector<int64_t>{int64_t{1} << 40, int64_t{1} << 40}}) {
    Builder shapes("shapes");
    const Op big = shapes.Parameter(0, ElementType::kF32, dims);
    StatusOr<BuiltModule> built_big = shapes.Build(shapes.Unary("negate", big));
    ASSERT_FALSE(built_big.ok()) << dims[0];
    EXPECT_NE(built_big.status().message().find(dims[0] < 0 ? "negative dimension size -1" : "has more than 2^48 elements"),
              std::string::npos)
        << built_big.status().message();
    Builder iotas("iotas");
    EXPECT_FALSE(iotas.Build(iotas.Iota(ElementType::kS32, dims, 0)).ok()) << dims[0];
  }

  Builder other("other");
  Builder mine("mine");
  const Op theirs = other.Parameter(0, ElementType::kF32, {4});
  mine.Parameter(0, ElementType::kF32, {4});
  mine.Parameter(1, ElementType::kF32, {4});
  mine.Unary("negate", Op());
  EXPECT_EQ(mine.status().message(),
            "builder: an Op that this Builder did not make (a default Op, or another Builder's)");
  EXPECT_TRUE(other.Build(theirs).ok());
  EXPECT_EQ(other.Build(theirs).status().message(), "builder: Build was already called; the builder is spent");
}

TEST_F(PublicRuntime, SubByteIntegersArriveSignExtended) {
  StatusOr<CompiledModule> m = runtime_->Compile("HloModule m\nENTRY e {\n  x = s4[4] parameter(0)\n  ROOT n = s4[4] negate(x)\n}");
  ASSERT_TRUE(m.ok()) << m.status().message();
  StatusOr<std::vector<Array>> out = m->Run({*Array::FromValues(std::vector<int8_t>{-8, -1, 3, 7}, {4})});
  ASSERT_FALSE(out.ok());  // int8 values are s8, not s4
  EXPECT_EQ(out.status().message(), "argument 0 is s8[4] but the parameter is s4[4]");
  out = m->Run({*Array::FromBytes(ElementType::kS4, {4}, {0xF8, 0xFF, 0x03, 0x07})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::span<const uint8_t> b = (*out)[0].bytes();
  // -(-8) wraps to -8 in four bits.
  EXPECT_EQ(std::vector<uint8_t>(b.begin(), b.end()), (std::vector<uint8_t>{0xF8, 0x01, 0xFD, 0xF9}));
  StatusOr<Array> widened = (*out)[0].Converted(ElementType::kS8);
  ASSERT_TRUE(widened.ok());
  EXPECT_EQ((*widened->values<int8_t>())[3], -7);
}

TEST_F(PublicRuntime, ErrorsNameTheArgumentTheShapesAndThePosition) {
  StatusOr<CompiledModule> m = runtime_->Compile("HloModule m\nENTRY e {\n  ROOT x = f32[2,3] parameter(0)\n}");
  ASSERT_TRUE(m.ok()) << m.status().message();
  StatusOr<std::vector<Array>> none = m->Run(std::span<const Array>());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "the module takes 1 arguments, 0 were given");
  StatusOr<std::vector<Array>> wrong = m->Run({*Array::FromValues(std::vector<float>(6), {3, 2})});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "argument 0 is f32[3,2] but the parameter is f32[2,3]");

  StatusOr<CompiledModule> bad = runtime_->Compile("HloModule m\nENTRY e {\n  ROOT x = f32[2] frobnicate()\n}");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("3:", 0), 0u) << bad.status().message();
  CompileOptions options;
  options.function = "main";
  StatusOr<CompiledModule> hlo_with_function = runtime_->Compile("HloModule m\nENTRY e {\n  ROOT c = f32[] constant(1)\n}", options);
  ASSERT_FALSE(hlo_with_function.ok());
  EXPECT_NE(hlo_with_function.status().message().find("names a StableHLO function"), std::string::npos);
  StatusOr<CompiledModule> missing = runtime_->CompileFile("/nonexistent/model.hlo");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  RuntimeOptions negative;
  negative.device = -7;
  StatusOr<Runtime> no_device = Runtime::Open(negative);
  ASSERT_FALSE(no_device.ok());
  EXPECT_EQ(no_device.status().message(), "device index -7 is negative (see ListDevices())");
}

}  // namespace
}  // namespace vkxla
