// Doubles in software (codegen/spirv_float64_lowering.h), for devices
// without shaderFloat64: every f64 op on this device with its shaderFloat64
// left unused, against the reference evaluator (add, subtract, multiply,
// divide, square root and the conversions bit for bit, subnormals, NaNs and
// infinities included); c128, reductions, a sort and a matrix product;
// and the pass's refusals.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "codegen/shader_library.h"
#include "codegen/spirv_compiler.h"
#include "frontends/hlo_text.h"
#include "ops/evaluator.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

TargetFeatures WithoutFloat64() {
  TargetFeatures t = TestDevice().target();
  t.float64 = false;
  return t;
}

// Random bit patterns (every exponent, a quarter subnormal) with the edges
// first: zeros, the smallest and largest subnormal and normal, one,
// infinities, NaNs and values whose operations round to ties.
Literal Operand(int which, int64_t n, std::mt19937_64& rng) {
  const double edges[] = {0.0, -0.0, 5e-324, 2.2250738585072009e-308, 2.2250738585072014e-308, 1.7976931348623157e308,
                          1.0, -1.0, 1.0000000000000002, 0.5, 3.0, 0.1, -7.5, 1e300, 1e-300, HUGE_VAL, -HUGE_VAL, NAN,
                          9007199254740993.0, 4503599627370497.5, 2.5, -2.5};
  constexpr int kEdges = sizeof(edges) / sizeof(edges[0]);
  Literal x = RandomBitPatterns(ElementType::kF64, n, rng, 4);
  for (int64_t i = 0; i < n && i < kEdges * kEdges; ++i)
    x.Set(i, Scalar::Float(ElementType::kF64, edges[which == 0 ? i / kEdges : i % kEdges]));
  return x;
}

void ExpectSameAsReference(const std::string& hlo, const std::vector<Literal>& args, Opcode op, const std::string& what) {
  ExpectHloMatchesReferenceOn(WithoutFloat64(), hlo, args, op, what);
}

std::string Head(const std::string& type) {
  return "HloModule soft\nENTRY e {\n  x = " + type + " parameter(0)\n  y = " + type + " parameter(1)\n";
}

void ExpectArithmeticCorrectlyRounded(const TargetFeatures& target) {
  auto ExpectSameAsReference = [&](const std::string& hlo, const std::vector<Literal>& args, Opcode op, const std::string& what) {
    ExpectHloMatchesReferenceOn(target, hlo, args, op, what);
  };
  const int64_t n = 1 << 14;
  std::mt19937_64 rng(64);
  const std::vector<Literal> args = {Operand(0, n, rng), Operand(1, n, rng)};
  const std::string type = "f64[" + std::to_string(n) + "]";
  for (const auto& [op, code] : {std::pair{"add", Opcode::kAdd}, {"subtract", Opcode::kSubtract}, {"multiply", Opcode::kMultiply},
                                 {"divide", Opcode::kDivide}, {"maximum", Opcode::kMaximum}, {"minimum", Opcode::kMinimum}})
    ExpectSameAsReference(Head(type) + "  ROOT r = " + type + " " + op + "(x, y)\n}\n", args, code, std::string(op));
  for (const auto& [op, code] : {std::pair{"sqrt", Opcode::kSqrt}, {"negate", Opcode::kNegate}, {"abs", Opcode::kAbs},
                                 {"sign", Opcode::kSign}, {"floor", Opcode::kFloor}, {"ceil", Opcode::kCeil},
                                 {"round-nearest-even", Opcode::kRoundNearestEven}, {"round-nearest-afz", Opcode::kRoundNearestAfz}})
    ExpectSameAsReference(Head(type) + "  ROOT r = " + type + " " + op + "(x)\n}\n", args, code, std::string(op));
  for (const char* direction : {"EQ", "NE", "LT", "LE", "GT", "GE"})
    ExpectSameAsReference(Head(type) + "  ROOT r = pred[" + std::to_string(n) + "] compare(x, y), direction=" + direction + "\n}\n",
                          args, Opcode::kCompare, std::string("compare ") + direction);
  ExpectSameAsReference(Head(type) + "  p = pred[" + std::to_string(n) + "] compare(x, y), direction=LT\n  ROOT r = " + type +
                            " select(p, x, y)\n}\n",
                        args, Opcode::kSelect, "select");
}

TEST(Float64Soft, ArithmeticIsCorrectlyRounded) { ExpectArithmeticCorrectlyRounded(WithoutFloat64()); }

// The library inlined into each kernel, as GPUs get it
// (TargetFeatures::soft_float_calls is llvmpipe's alone): the same bits.
TEST(Float64Soft, InlinedLibraryRoundsTheSame) {
  TargetFeatures t = WithoutFloat64();
  t.soft_float_calls = false;
  ExpectArithmeticCorrectlyRounded(t);
}

// The math library's double paths run on the software operations: within
// the suite's f64 tolerance of the reference.
TEST(Float64Soft, TranscendentalsWithinTolerance) {
  const int64_t n = 256;
  std::mt19937_64 rng(65);
  Literal x(Shape(ElementType::kF64, {n})), y(Shape(ElementType::kF64, {n}));
  for (int64_t i = 0; i < n; ++i) {
    x.Set(i, RandomScalar(ElementType::kF64, rng, Opcode::kExp));
    y.Set(i, RandomScalar(ElementType::kF64, rng, Opcode::kExp));
  }
  const std::string type = "f64[" + std::to_string(n) + "]";
  for (const auto& [op, code] : {std::pair{"exponential", Opcode::kExp}, {"log", Opcode::kLog}, {"tanh", Opcode::kTanh},
                                 {"sine", Opcode::kSin}, {"cbrt", Opcode::kCbrt}, {"rsqrt", Opcode::kRsqrt}})
    ExpectSameAsReference(Head(type) + "  ROOT r = " + type + " " + op + "(x)\n}\n", {x, y}, code, std::string(op));
  for (const auto& [op, code] : {std::pair{"power", Opcode::kPower}, {"remainder", Opcode::kRemainder}, {"atan2", Opcode::kAtan2}})
    ExpectSameAsReference(Head(type) + "  ROOT r = " + type + " " + op + "(x, y)\n}\n", {x, y}, code, std::string(op));
}

// Conversions both ways between f64 and every other type, from random bit
// patterns: rounded once, truncated toward zero, NaNs and infinities kept.
TEST(Float64Soft, ConversionsToAndFromEveryType) {
  const int64_t n = 1 << 10;
  for (ElementType other : kAllTypes) {
    if (other == ElementType::kF64 || IsComplex(other)) continue;
    std::mt19937_64 rng(static_cast<uint64_t>(other) * 5);
    for (const auto& [from, to] : {std::pair{ElementType::kF64, other}, std::pair{other, ElementType::kF64}}) {
      const Literal x = from == ElementType::kF64 ? Operand(0, n, rng) : RandomBitPatterns(from, n, rng);
      const std::string what = std::string(ElementTypeName(from)) + " -> " + std::string(ElementTypeName(to));
      ExpectSameAsReference("HloModule c\nENTRY e {\n  x = " + std::string(ElementTypeName(from)) + "[" + std::to_string(n) +
                                "] parameter(0)\n  ROOT r = " + std::string(ElementTypeName(to)) + "[" + std::to_string(n) +
                                "] convert(x)\n}\n",
                            {x}, Opcode::kConvert, what);
    }
  }
}

// Beyond elementwise: a row reduction, a sort, a matrix product and c128
// arithmetic, whose kernels combine, compare and accumulate doubles.
TEST(Float64Soft, ReductionsSortsProductsAndComplex) {
  std::mt19937_64 rng(66);
  // Sums and products exact in any order (the reference's order is not the kernels').
  const Literal matrix = ExactSumLiteral(Shape(ElementType::kF64, {48, 40}), rng);
  ExpectSameAsReference("HloModule s\nadd {\n  a = f64[] parameter(0)\n  b = f64[] parameter(1)\n  ROOT c = f64[] add(a, b)\n}\n"
                        "ENTRY e {\n  x = f64[48,40] parameter(0)\n  z = f64[] constant(0)\n"
                        "  ROOT r = f64[48] reduce(x, z), dimensions={1}, to_apply=add\n}\n",
                        {matrix}, Opcode::kAdd, "row sums of f64[48,40]");
  const Literal x = Operand(0, 4096, rng);
  ExpectSameAsReference("HloModule s\nlt {\n  a = f64[] parameter(0)\n  b = f64[] parameter(1)\n"
                        "  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER\n}\n"
                        "ENTRY e {\n  x = f64[4096] parameter(0)\n  ROOT r = f64[4096] sort(x), dimensions={0}, to_apply=lt\n}\n",
                        {x}, Opcode::kSort, "sort of f64[4096]");
  Literal other(Shape(ElementType::kF64, {40, 24}));
  for (int64_t i = 0; i < other.element_count(); ++i)
    other.Set(i, Scalar::Float(ElementType::kF64, static_cast<double>(static_cast<int64_t>(rng() % 17) - 8)));
  ExpectSameAsReference("HloModule d\nENTRY e {\n  x = f64[48,40] parameter(0)\n  y = f64[40,24] parameter(1)\n"
                        "  ROOT r = f64[48,24] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
                        {matrix, other}, Opcode::kDot, "f64[48,40] x f64[40,24]");
  const Literal a = RandomLiteral(Shape(ElementType::kC128, {256}), rng, Opcode::kMultiply);
  const Literal b = RandomLiteral(Shape(ElementType::kC128, {256}), rng, Opcode::kMultiply);
  for (const auto& [op, code] : {std::pair{"multiply", Opcode::kMultiply}, {"divide", Opcode::kDivide}, {"add", Opcode::kAdd}})
    ExpectSameAsReference(Head("c128[256]") + "  ROOT r = c128[256] " + op + "(x, y)\n}\n", {a, b}, code,
                          std::string(op) + " c128");
  for (const auto& [op, code] : {std::pair{"exponential", Opcode::kExp}, {"sqrt", Opcode::kSqrt}, {"abs", Opcode::kAbs}}) {
    const std::string result = std::string(op) == "abs" ? "f64[256]" : "c128[256]";
    ExpectSameAsReference(Head("c128[256]") + "  ROOT r = " + result + " " + op + "(x)\n}\n", {a, b}, code,
                          std::string(op) + " c128");
  }
}

// fma rounds once: the matrix product's kernel accumulates with it, so a
// contraction over two terms is fma(x1, y1, fma(x0, y0, 0)), computed here
// with the host's fma (and differing from the twice-rounded sum).
TEST(Float64Soft, FusedMultiplyAddRoundsOnce) {
  const int64_t n = 512;
  std::mt19937_64 rng(67);
  Literal x(Shape(ElementType::kF64, {n, 2})), y(Shape(ElementType::kF64, {2, 4}));
  std::uniform_real_distribution<double> unit(-1, 1);
  for (int64_t i = 0; i < 2 * n; ++i) x.Set(i, Scalar::Float(ElementType::kF64, std::ldexp(unit(rng), static_cast<int>(rng() % 40) - 20)));
  for (int64_t i = 0; i < 8; ++i) y.Set(i, Scalar::Float(ElementType::kF64, unit(rng)));
  auto m = ParseAndVerifyHlo("HloModule d\nENTRY e {\n  x = f64[512,2] parameter(0)\n  y = f64[2,4] parameter(1)\n"
                             "  ROOT r = f64[512,4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto exe = Executable::Compile(**m, TestDevice(), WithoutFloat64());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto got = (*exe)->Run({x, y});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  int fused_differs = 0, failures = 0;
  for (int64_t i = 0; i < n && failures < 5; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      const double x0 = x.Get(2 * i).re, x1 = x.Get(2 * i + 1).re, y0 = y.Get(j).re, y1 = y.Get(4 + j).re;
      const double fused = std::fma(x1, y1, std::fma(x0, y0, 0.0));
      fused_differs += fused != x1 * y1 + x0 * y0;
      const double device = got->Get(i * 4 + j).re;
      if (std::memcmp(&device, &fused, 8) != 0 && ++failures)
        ADD_FAILURE() << "element " << i << "," << j << ": device " << device << ", fma " << fused;
    }
  EXPECT_GT(fused_differs, 0) << "no element tells fma from a multiply and an add";
}

// What the pass cannot express is an error naming f64 emulation, never a
// kernel; plain double arithmetic leaves no Float64 capability behind.
TEST(Float64Soft, RefusesWhatItCannotLower) {
  LibraryNeeds needs;
  needs.float64_soft = true;
  const std::string library = ShaderLibrarySource(needs, false, false);
  const std::string head = "#version 450\n#extension GL_EXT_control_flow_attributes : require\n"
                           "layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint v[]; };\n" + library +
                           "void main() {\n  if (f64s_never != 0u) f64s_keep();\n  double a = packDouble2x32(uvec2(v[0], v[1]));\n";
  const uint32_t vk12 = (1u << 22) | (2u << 12);
  auto frexp_kernel = CompileGlslToSpirv(head + "  int e;\n  a = frexp(a, e);\n  uvec2 w = unpackDouble2x32(a);\n  v[0] = w.x + uint(e);\n}\n",
                                         vk12, true, {}, false, true);
  ASSERT_FALSE(frexp_kernel.ok());
  EXPECT_NE(frexp_kernel.status().message().find("f64 emulation"), std::string::npos) << frexp_kernel.status().ToString();
  auto vectors = CompileGlslToSpirv(head + "  dvec3 c = dvec3(a);\n  v[0] = uint(c.z);\n}\n", vk12, true, {}, false, true);
  ASSERT_FALSE(vectors.ok());
  EXPECT_NE(vectors.status().message().find("vector of 3 doubles"), std::string::npos) << vectors.status().ToString();
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
}

}  // namespace
}  // namespace vkxla
