// Doubles as pairs of f32 (VKXLA_F64=pairs, shaders/float64_pairs.glsl):
// not IEEE, so each result is held to what the form promises against the
// reference evaluator's binary64: arithmetic within a few units of 2^-48
// (of the operands' size where a sum cancels), rounding to integers,
// compares and conversions exact inside the range, f32's exponent range
// at the edges, and arrays that only move keeping every bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "codegen/shader_library.h"
#include "codegen/spirv_compiler.h"
#include "frontends/hlo_text.h"
#include "ops/evaluator.h"
#include "runtime/capabilities.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

TargetFeatures Pairs() {
  TargetFeatures t = TestDevice().target();
  t.float64 = false;
  t.float64_pairs = true;
  return t;
}

// Random doubles with all 52 fraction bits set at random, magnitudes
// 2^-60 to 2^60, either sign; the edges first.
Literal Operand(int which, int64_t n, std::mt19937_64& rng) {
  // (Products and quotients of these stay inside f32's exponent range.)
  const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3.0, 2.5, -7.5, 1e15, -1e-15, HUGE_VAL, -HUGE_VAL, NAN, 3.0};
  constexpr int kEdges = sizeof(edges) / sizeof(edges[0]);
  Literal x(Shape(ElementType::kF64, {n}));
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  for (int64_t i = 0; i < n; ++i) {
    double v = std::ldexp(unit(rng), static_cast<int>(rng() % 121) - 60) * (rng() % 2 ? -1 : 1);
    if (i < kEdges * kEdges) v = edges[which == 0 ? i / kEdges : i % kEdges];
    x.Set(i, Scalar::Float(ElementType::kF64, v));
  }
  return x;
}

struct Results {
  Literal got, want;
};

Results RunBoth(const std::string& hlo, const std::vector<Literal>& args, const TargetFeatures& target = Pairs()) {
  auto m = ParseAndVerifyHlo(hlo);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return {};
  auto want = EvaluateModule(**m, args);
  EXPECT_TRUE(want.ok()) << want.status().ToString();
  auto exe = Executable::Compile(**m, TestDevice(), target);
  EXPECT_TRUE(exe.ok()) << exe.status().ToString();
  if (!want.ok() || !exe.ok()) return {};
  auto got = (*exe)->Run(args);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  if (!got.ok()) return {};
  return {std::move(*got), std::move(*want)};
}

std::string Unary(const std::string& type, const std::string& op, const std::string& result = "") {
  return "HloModule p\nENTRY e {\n  x = " + type + " parameter(0)\n  ROOT r = " + (result.empty() ? type : result) + " " + op + "(x)\n}\n";
}
std::string Binary(const std::string& type, const std::string& op) {
  return "HloModule p\nENTRY e {\n  x = " + type + " parameter(0)\n  y = " + type + " parameter(1)\n  ROOT r = " + type + " " + op +
         "(x, y)\n}\n";
}

// `got` within `ulps` units of 2^-48 of `scale` from `want` (or of 2^-100:
// below it the low f32 loses bits to f32's subnormals); NaNs, infinities
// and zeros (with their signs) exactly.
void ExpectNear(const Literal& got, const Literal& want, double ulps, const std::function<double(int64_t)>& scale, const std::string& what) {
  ASSERT_EQ(got.element_count(), want.element_count()) << what;
  int failures = 0;
  for (int64_t i = 0; i < want.element_count() && failures < 5; ++i) {
    const double g = got.Get(i).re, w = want.Get(i).re;
    bool ok;
    if (std::isnan(w) || std::isinf(w) || w == 0) {
      ok = (std::isnan(w) && std::isnan(g)) || (g == w && std::signbit(g) == std::signbit(w));
      if (w == 0 && !ok) ok = std::fabs(g) <= ulps * std::ldexp(scale(i), -48) && scale(i) > 0;  // a cancelled sum
    } else {
      ok = std::fabs(g - w) <= ulps * std::ldexp(std::max({std::fabs(w), scale(i), std::ldexp(1.0, -100)}), -48);
    }
    if (!ok && ++failures) ADD_FAILURE() << what << " element " << i << ": device " << g << ", reference " << w;
  }
}

void ExpectArithmeticWithin48Bits(const TargetFeatures& target) {
  const int64_t n = 4096;
  std::mt19937_64 rng(81);
  const Literal x = Operand(0, n, rng), y = Operand(1, n, rng);
  const std::string type = "f64[" + std::to_string(n) + "]";
  auto sum_scale = [&](int64_t i) { return std::fabs(x.Get(i).re) + std::fabs(y.Get(i).re); };
  auto none = [](int64_t) { return 0.0; };
  for (const char* op : {"add", "subtract"}) {
    Results r = RunBoth(Binary(type, op), {x, y}, target);
    ExpectNear(r.got, r.want, 6, sum_scale, op);
  }
  for (const auto& [op, ulps] : {std::pair{"multiply", 6.0}, {"divide", 12.0}, {"maximum", 1.0}, {"minimum", 1.0}}) {
    Results r = RunBoth(Binary(type, op), {x, y}, target);
    ExpectNear(r.got, r.want, ulps, none, op);
  }
  for (const auto& [op, ulps] : {std::pair{"sqrt", 8.0}, {"rsqrt", 16.0}, {"negate", 1.0}, {"abs", 1.0}, {"sign", 0.0}}) {
    Results r = RunBoth(Unary(type, op), {x}, target);
    ExpectNear(r.got, r.want, ulps, none, op);
  }
}

TEST(Float64Pairs, ArithmeticWithin48Bits) { ExpectArithmeticWithin48Bits(Pairs()); }

// The library inlined into each kernel, as GPUs get it (calls are kept
// for llvmpipe alone, TargetFeatures::soft_float_calls): the optimizer
// must keep every `precise` step of the error-free transformations.
TEST(Float64Pairs, InlinedLibraryAgrees) {
  TargetFeatures t = Pairs();
  t.soft_float_calls = false;
  ExpectArithmeticWithin48Bits(t);
}

// Zeros take IEEE's signs; sums that cancel exactly give +0.
TEST(Float64Pairs, SignedZeros) {
  Literal x(Shape(ElementType::kF64, {4})), y(Shape(ElementType::kF64, {4}));
  const double xs[] = {-0.0, 1.0, -0.0, 0.1}, ys[] = {-0.0, -1.0, 0.0, -0.1};
  for (int i = 0; i < 4; ++i) {
    x.Set(i, Scalar::Float(ElementType::kF64, xs[i]));
    y.Set(i, Scalar::Float(ElementType::kF64, ys[i]));
  }
  auto none = [](int64_t) { return 0.0; };
  for (const char* op : {"add", "multiply"}) {
    Results r = RunBoth(Binary("f64[4]", op), {x, y});
    ExpectNear(r.got, r.want, 4, none, op);
  }
}

// Integers and their halves: floor, ceil and both roundings exact, ties
// included, up to 2^40 (past f32's 2^24, where the low f32 holds the units).
TEST(Float64Pairs, RoundingToIntegersIsExact) {
  const int64_t n = 2048;
  std::mt19937_64 rng(82);
  Literal x(Shape(ElementType::kF64, {n}));
  const double fractions[] = {0.0, 0.25, 0.5, 0.75, 0.125, 0.9375};
  for (int64_t i = 0; i < n; ++i) {
    const double k = static_cast<double>(rng() % (uint64_t{1} << (rng() % 41)));
    const double v = (k + fractions[i % 6]) * (i % 4 < 2 ? 1 : -1);
    x.Set(i, Scalar::Float(ElementType::kF64, v));
  }
  auto none = [](int64_t) { return 0.0; };
  for (const char* op : {"floor", "ceil", "round-nearest-even", "round-nearest-afz"}) {
    Results r = RunBoth(Unary("f64[2048]", op), {x});
    ExpectNear(r.got, r.want, 0, none, op);
  }
}

// Compares tell apart what 48 bits hold: equal operands, operands 2^-40
// apart relative, and unrelated ones; NaNs unordered.
TEST(Float64Pairs, ComparesExact) {
  const int64_t n = 3072;
  std::mt19937_64 rng(83);
  const Literal x = Operand(0, n, rng);
  Literal y = Operand(1, n, rng);
  for (int64_t i = 256; i < n; ++i) {
    const double v = x.Get(i).re;
    if (i % 3 == 0) y.Set(i, Scalar::Float(ElementType::kF64, v));
    if (i % 3 == 1) y.Set(i, Scalar::Float(ElementType::kF64, v * (1 + std::ldexp(i % 2 ? 1.0 : -1.0, -40))));
  }
  for (const char* direction : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    Results r = RunBoth("HloModule c\nENTRY e {\n  x = f64[3072] parameter(0)\n  y = f64[3072] parameter(1)\n  ROOT r = pred[3072] compare(x, y), direction=" +
                        std::string(direction) + "\n}\n",
                    {x, y});
    ExpectClose(r.got, r.want, Opcode::kCompare, std::string("compare ") + direction);
  }
}

// Conversions: from every integer of at most 47 bits and every f32 exactly;
// to f32 correctly rounded; to integers truncated exactly.
TEST(Float64Pairs, ConversionsExactWithinRange) {
  const int64_t n = 1024;
  std::mt19937_64 rng(84);
  auto none = [](int64_t) { return 0.0; };
  for (ElementType from : {ElementType::kS32, ElementType::kU32, ElementType::kS64, ElementType::kU64, ElementType::kF32,
                           ElementType::kS8, ElementType::kU16, ElementType::kBF16, ElementType::kF16}) {
    Literal x = RandomBitPatterns(from, n, rng);
    if (from == ElementType::kS64 || from == ElementType::kU64)
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = static_cast<int64_t>(rng() >> 17) * (from == ElementType::kS64 && i % 2 ? -1 : 1);
        x.Set(i, Scalar::Int(from, v));
      }
    if (from == ElementType::kF32 && !Pairs().f32_subnormals_kept)  // a flushing target's pairs hold no subnormal
      for (int64_t i = 0; i < n; ++i)
        if (!(std::fabs(x.Get(i).re) >= std::ldexp(1.0, -126))) x.Set(i, Scalar::Float(from, std::ldexp(1.0, -90)));
    const std::string name(ElementTypeName(from));
    Results r = RunBoth(Unary(name + "[1024]", "convert", "f64[1024]"), {x});
    ExpectNear(r.got, r.want, 0, none, name + " -> f64");
  }
  // Integers below 2^40 plus 127/256 (48 significant bits at most), either
  // sign, then the edges.
  Literal d(Shape(ElementType::kF64, {n}));
  const double edges[] = {0.0, -0.0, HUGE_VAL, -HUGE_VAL, NAN, 1e20, -1e20};
  for (int64_t i = 0; i < n; ++i) {
    const double k = static_cast<double>(rng() % (uint64_t{1} << (rng() % 41))) + 127.0 / 256;
    d.Set(i, Scalar::Float(ElementType::kF64, i < 7 ? edges[i] : i % 2 ? -k : k));
  }
  for (ElementType to : {ElementType::kF32, ElementType::kS32, ElementType::kU32, ElementType::kS64, ElementType::kU64, ElementType::kS8,
                         ElementType::kBF16}) {
    const std::string name(ElementTypeName(to));
    Results r = RunBoth(Unary("f64[1024]", "convert", name + "[1024]"), {d});
    ExpectClose(r.got, r.want, Opcode::kConvert, "f64 -> " + name);
  }
}

// The math library's double algorithms on pair arithmetic: within 2^-40
// relative, far looser than IEEE's few ulps and far tighter than f32.
TEST(Float64Pairs, TranscendentalsWithin40Bits) {
  const int64_t n = 256;
  std::mt19937_64 rng(85);
  Literal x(Shape(ElementType::kF64, {n})), y(Shape(ElementType::kF64, {n}));
  std::uniform_real_distribution<double> u(-20, 20), positive(0.01, 30);
  for (int64_t i = 0; i < n; ++i) {
    x.Set(i, Scalar::Float(ElementType::kF64, u(rng)));
    y.Set(i, Scalar::Float(ElementType::kF64, positive(rng)));
  }
  auto none = [](int64_t) { return 0.0; };
  // Sine and cosine near their zeros: the error of reducing x, relative to x.
  const std::function<double(int64_t)> argument = [&](int64_t i) { return std::fabs(x.Get(i).re); };
  for (const char* op : {"exponential", "tanh", "sine", "cosine", "logistic"}) {
    Results r = RunBoth(Unary("f64[256]", op), {x});
    ExpectNear(r.got, r.want, 256, std::string(op) == "sine" || std::string(op) == "cosine" ? argument : std::function<double(int64_t)>(none), op);
  }
  for (const char* op : {"log", "cbrt", "log-plus-one"}) {
    Results r = RunBoth(Unary("f64[256]", op), {y});
    ExpectNear(r.got, r.want, 256, none, op);
  }
  Results p = RunBoth(Binary("f64[256]", "power"), {y, x});
  ExpectNear(p.got, p.want, 4096, none, "power");  // x log y magnifies log's error by up to 20 log 30
  Results a = RunBoth(Binary("f64[256]", "atan2"), {x, y});
  ExpectNear(a.got, a.want, 256, none, "atan2");
}

// f32's exponent range: past it infinities and zeros, as documented; inside
// it, near both ends, the values. Every double a kernel touches is a pair,
// moved ones too: those a pair holds (48-bit significands inside the
// range) keep every bit through a transpose.
TEST(Float64Pairs, RangeIsF32sAndMovedArraysKeepTheirBits) {
  Literal x(Shape(ElementType::kF64, {6})), one(Shape(ElementType::kF64, {6}));
  const double xs[] = {1e300, -1e300, 1e-300, 1e38, 1e-30, 5e-324};
  for (int i = 0; i < 6; ++i) {
    x.Set(i, Scalar::Float(ElementType::kF64, xs[i]));
    one.Set(i, Scalar::Float(ElementType::kF64, 1.0));
  }
  Results r = RunBoth(Binary("f64[6]", "multiply"), {x, one});
  ASSERT_EQ(r.got.element_count(), 6);
  EXPECT_EQ(r.got.Get(0).re, HUGE_VAL);
  EXPECT_EQ(r.got.Get(1).re, -HUGE_VAL);
  EXPECT_EQ(r.got.Get(2).re, 0.0);
  EXPECT_NEAR(r.got.Get(3).re, 1e38, 1e38 * std::ldexp(1.0, -47));
  EXPECT_NEAR(r.got.Get(4).re, 1e-30, 1e-30 * std::ldexp(1.0, -47));
  EXPECT_EQ(r.got.Get(5).re, 0.0);
  std::mt19937_64 rng(86);
  Literal m(Shape(ElementType::kF64, {64, 48}));
  for (int64_t i = 0; i < m.element_count(); ++i) {
    const double significand = static_cast<double>((rng() >> 16) | (uint64_t{1} << 47));
    m.Set(i, Scalar::Float(ElementType::kF64, std::ldexp(significand, static_cast<int>(rng() % 170) - 140) * (i % 2 ? -1 : 1)));
  }
  Results t = RunBoth("HloModule t\nENTRY e {\n  x = f64[64,48] parameter(0)\n  ROOT r = f64[48,64] transpose(x), dimensions={1,0}\n}\n", {m});
  ASSERT_EQ(t.got.element_count(), t.want.element_count());
  for (int64_t i = 0; i < t.want.element_count(); ++i) ASSERT_EQ(t.got.Get(i).Bits(), t.want.Get(i).Bits()) << "element " << i;
}

// Reductions and products whose sums are exact in 48 bits match exactly.
TEST(Float64Pairs, ReductionsAndProducts) {
  std::mt19937_64 rng(87);
  Literal a(Shape(ElementType::kF64, {48, 40})), b(Shape(ElementType::kF64, {40, 24}));
  for (int64_t i = 0; i < a.element_count(); ++i)
    a.Set(i, Scalar::Float(ElementType::kF64, std::ldexp(static_cast<double>(static_cast<int64_t>(rng() % 2000001) - 1000000), -10)));
  for (int64_t i = 0; i < b.element_count(); ++i)
    b.Set(i, Scalar::Float(ElementType::kF64, static_cast<double>(static_cast<int64_t>(rng() % 33) - 16)));
  auto none = [](int64_t) { return 0.0; };
  Results s = RunBoth("HloModule s\nadd {\n  a = f64[] parameter(0)\n  b = f64[] parameter(1)\n  ROOT c = f64[] add(a, b)\n}\n"
                  "ENTRY e {\n  x = f64[48,40] parameter(0)\n  z = f64[] constant(0)\n"
                  "  ROOT r = f64[48] reduce(x, z), dimensions={1}, to_apply=add\n}\n",
                  {a});
  ExpectNear(s.got, s.want, 0, none, "row sums");
  Results d = RunBoth("HloModule d\nENTRY e {\n  x = f64[48,40] parameter(0)\n  y = f64[40,24] parameter(1)\n"
                  "  ROOT r = f64[48,24] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
                  {a, b});
  ExpectNear(d.got, d.want, 0, none, "f64[48,40] x f64[40,24]");
}

TEST(Float64Pairs, ChosenByVkxlaF64) {
  DeviceInfo info;
  info.target.float64 = true;
  ASSERT_TRUE(ApplyFloat64Form("", info).ok());
  EXPECT_TRUE(info.target.float64);
  ASSERT_TRUE(ApplyFloat64Form("pairs", info).ok());
  EXPECT_FALSE(info.target.float64);
  EXPECT_TRUE(info.target.float64_pairs);
  ASSERT_TRUE(ApplyFloat64Form("soft", info).ok());
  EXPECT_FALSE(info.target.float64_pairs);
  const Status bad = ApplyFloat64Form("double-double", info);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("VKXLA_F64"), std::string::npos) << bad.ToString();
  EXPECT_NE(bad.message().find("pairs"), std::string::npos) << bad.ToString();
}

// The pass leaves no double behind, and names the form in what it refuses.
TEST(Float64Pairs, LoweringLeavesNoDoubles) {
  LibraryNeeds needs;
  needs.float64_pairs = true;
  const std::string head = "#version 450\n#extension GL_EXT_control_flow_attributes : require\n"
                           "layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint v[]; };\n" +
                           ShaderLibrarySource(needs, false, false) +
                           "void main() {\n  if (f64p_never != 0u) f64p_keep();\n  double a = packDouble2x32(uvec2(v[0], v[1]));\n";
  const uint32_t vk12 = (1u << 22) | (2u << 12);
  auto plain = CompileGlslToSpirv(head + "  a = sqrt(a * a / (a - 3.0lf)) + floor(a);\n  uvec2 w = unpackDouble2x32(a);\n"
                                         "  v[0] = w.x;\n  v[1] = w.y;\n}\n",
                                  vk12, true, {}, false, true);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  for (size_t at = 5; at < plain->size();) {
    const uint32_t words = (*plain)[at] >> 16, opcode = (*plain)[at] & 0xffff;
    EXPECT_FALSE(opcode == 17 && (*plain)[at + 1] == 10) << "OpCapability Float64 left";
    EXPECT_FALSE(opcode == 22 && (*plain)[at + 2] == 64) << "a 64-bit float type left";
    at += words ? words : 1;
  }
  auto vectors = CompileGlslToSpirv(head + "  dvec3 c = dvec3(a);\n  v[0] = uint(c.z);\n}\n", vk12, true, {}, false, true);
  ASSERT_FALSE(vectors.ok());
  EXPECT_NE(vectors.status().message().find("pairs of f32"), std::string::npos) << vectors.status().ToString();
}

}  // namespace
}  // namespace vkxla
