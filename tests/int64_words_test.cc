// 64-bit integers as word pairs (codegen/spirv_int64_lowering.h), for
// devices without shaderInt64: every integer op, compare and conversion of
// s64 and u64 on this device with its shaderInt64 left unused, against the
// reference evaluator bit for bit; and the pass's refusals.
#include <gtest/gtest.h>

#include <random>

#include "codegen/shader_library.h"
#include "codegen/spirv_compiler.h"
#include "frontends/hlo_text.h"
#include "ops/evaluator.h"
#include "plan/planner.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

TargetFeatures WithoutInt64() {
  TargetFeatures t = TestDevice().target();
  t.int64 = t.int64_atomics = false;
  return t;
}

// Operands that reach every path of the word-pair functions: the extremes
// and the word boundaries against each other, then random bit patterns,
// values within 32 bits (division's native path), and high words of 0 or
// all ones over random low words.
Literal Operand(ElementType t, int which, int64_t n, std::mt19937_64& rng) {
  const uint64_t edges[] = {0, 1, ~uint64_t{0}, uint64_t{1} << 63, (uint64_t{1} << 63) - 1, uint64_t{1} << 32,
                            (uint64_t{1} << 32) - 1, 0xFFFFFFFF00000000ull, 3, 0x80000000ull, 63, 64};
  constexpr int kEdges = sizeof(edges) / sizeof(edges[0]);
  Literal x = RandomBitPatterns(t, n, rng);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t bits = x.Get(i).Bits();
    if (i < kEdges * kEdges) {
      bits = edges[which == 0 ? i / kEdges : i % kEdges];
    } else if (i % 4 == 1) {
      bits = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(bits)));
    } else if (i % 4 == 2) {
      bits = (bits & 0xFFFFFFFFu) | (rng() & 1 ? 0xFFFFFFFF00000000ull : 0);
    }
    x.Set(i, t == ElementType::kS64 ? Scalar::Int(t, static_cast<int64_t>(bits)) : Scalar::UInt(t, bits));
  }
  return x;
}

void ExpectSameAsReference(const std::string& hlo, const std::vector<Literal>& args, const std::string& what,
                           const TargetFeatures& target = WithoutInt64()) {
  ExpectHloMatchesReferenceOn(target, hlo, args, Opcode::kConvert, what);  // kConvert: bit for bit
}

TEST(Int64Words, EveryIntegerOpMatchesTheReference) {
  const int64_t n = 1024;
  for (ElementType t : {ElementType::kS64, ElementType::kU64}) {
    std::mt19937_64 rng(static_cast<uint64_t>(t) + 64);
    const std::vector<Literal> args = {Operand(t, 0, n, rng), Operand(t, 1, n, rng)};
    const std::string type = std::string(ElementTypeName(t)) + "[" + std::to_string(n) + "]";
    const std::string head = "HloModule words\nENTRY e {\n  x = " + type + " parameter(0)\n  y = " + type + " parameter(1)\n";
    for (const char* op : {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or", "xor",
                           "shift-left", "shift-right-logical", "shift-right-arithmetic", "power"})
      ExpectSameAsReference(head + "  ROOT r = " + type + " " + op + "(x, y)\n}\n", args, std::string(op) + " " + type);
    for (const char* op : {"negate", "abs", "sign", "not", "count-leading-zeros", "popcnt"}) {
      if (t == ElementType::kU64 && (std::string(op) == "abs" || std::string(op) == "sign")) continue;  // signed only
      ExpectSameAsReference(head + "  ROOT r = " + type + " " + op + "(x)\n}\n", args, std::string(op) + " " + type);
    }
    for (const char* direction : {"EQ", "NE", "LT", "LE", "GT", "GE"})
      ExpectSameAsReference(head + "  ROOT r = pred[" + std::to_string(n) + "] compare(x, y), direction=" + direction + "\n}\n",
                            args, std::string("compare ") + direction + " " + type);
    ExpectSameAsReference(head + "  lo = " + type + " minimum(x, y)\n  hi = " + type + " maximum(x, y)\n  c = " +
                              std::string(ElementTypeName(t)) + "[] constant(1234567890123)\n  b = " + type +
                              " broadcast(c), dimensions={}\n  ROOT r = " + type + " clamp(lo, b, hi)\n}\n",
                          args, "clamp " + type);
    ExpectSameAsReference(head + "  p = pred[" + std::to_string(n) + "] compare(x, y), direction=LT\n  ROOT r = " + type +
                              " select(p, x, y)\n}\n",
                          args, "select " + type);
  }
}

// Conversions both ways between s64/u64 and every other type, from random
// bit patterns (every float exponent, NaNs and infinities included).
TEST(Int64Words, ConversionsToAndFromEveryType) {
  const int64_t n = 1 << 10;
  for (ElementType wide : {ElementType::kS64, ElementType::kU64}) {
    for (ElementType other : kAllTypes) {
      if (other == wide || IsComplex(other)) continue;
      std::mt19937_64 rng(static_cast<uint64_t>(other) * 3 + static_cast<uint64_t>(wide));
      for (const auto& [from, to] : {std::pair{wide, other}, std::pair{other, wide}}) {
        const Literal x = from == wide ? Operand(from, 0, n, rng) : RandomBitPatterns(from, n, rng);
        const std::string what = std::string(ElementTypeName(from)) + " -> " + std::string(ElementTypeName(to));
        ExpectSameAsReference("HloModule c\nENTRY e {\n  x = " + std::string(ElementTypeName(from)) + "[" + std::to_string(n) +
                                  "] parameter(0)\n  ROOT r = " + std::string(ElementTypeName(to)) + "[" + std::to_string(n) +
                                  "] convert(x)\n}\n",
                              {x}, what);
      }
    }
  }
}

// Beyond elementwise: a reduction, a sort and a gather with s64 indices,
// whose kernels combine, compare and index with 64-bit integers.
TEST(Int64Words, ReductionsSortsAndIndexing) {
  std::mt19937_64 rng(7);
  const Literal x = Operand(ElementType::kS64, 0, 4096, rng);
  Literal matrix(Shape(ElementType::kS64, {64, 64}));
  for (int64_t i = 0; i < 4096; ++i) matrix.Set(i, x.Get(i));
  ExpectSameAsReference("HloModule s\nadd {\n  a = s64[] parameter(0)\n  b = s64[] parameter(1)\n  ROOT c = s64[] add(a, b)\n}\n"
                        "ENTRY e {\n  x = s64[64,64] parameter(0)\n  z = s64[] constant(0)\n"
                        "  ROOT r = s64[64] reduce(x, z), dimensions={1}, to_apply=add\n}\n",
                        {matrix}, "row sums of s64[64,64]");
  ExpectSameAsReference("HloModule s\nmax {\n  a = s64[] parameter(0)\n  b = s64[] parameter(1)\n  ROOT c = s64[] maximum(a, b)\n}\n"
                        "ENTRY e {\n  x = s64[4096] parameter(0)\n  z = s64[] constant(-9223372036854775808)\n"
                        "  ROOT r = s64[] reduce(x, z), dimensions={0}, to_apply=max\n}\n",
                        {x}, "maximum of s64[4096]");
  ExpectSameAsReference("HloModule s\nlt {\n  a = s64[] parameter(0)\n  b = s64[] parameter(1)\n"
                        "  ROOT c = pred[] compare(a, b), direction=LT\n}\n"
                        "ENTRY e {\n  x = s64[4096] parameter(0)\n  ROOT r = s64[4096] sort(x), dimensions={0}, to_apply=lt\n}\n",
                        {x}, "sort of s64[4096]");
  Literal indices(Shape(ElementType::kS64, {256, 1}));
  for (int64_t i = 0; i < 256; ++i) indices.Set(i, Scalar::Int(ElementType::kS64, static_cast<int64_t>(rng() % 5000) - 500));
  ExpectSameAsReference("HloModule g\nENTRY e {\n  x = s64[4096] parameter(0)\n  i = s64[256,1] parameter(1)\n"
                        "  ROOT r = s64[256] gather(x, i), offset_dims={}, collapsed_slice_dims={0}, start_index_map={0},"
                        " index_vector_dim=1, slice_sizes={1}\n}\n",
                        {x, indices}, "gather with s64 indices");
}

// Word pairs in arrays past the binding range (planned for a 1 MiB range
// here), which kernels reach through device addresses: the address is a
// uvec2 of its own, beside the pairs the lowering makes.
TEST(Int64Words, ArraysReachedByAddress) {
  TargetFeatures target = WithoutInt64();
  ASSERT_TRUE(target.buffer_device_address) << "this test plans arrays past the binding range, reached by address";
  target.max_storage_buffer_range = 1u << 20;
  const int64_t n = 300000;  // 2.4 MB an array
  const std::string type = "s64[" + std::to_string(n) + "]";
  const std::string hlo = "HloModule a\nadd {\n  a = s64[] parameter(0)\n  b = s64[] parameter(1)\n  ROOT c = s64[] add(a, b)\n}\n"
                          "ENTRY e {\n  x = " + type + " parameter(0)\n  y = " + type + " parameter(1)\n  p = " + type +
                          " multiply(x, y)\n  g = pred[" + std::to_string(n) + "] compare(p, x), direction=GT\n  s = " + type +
                          " select(g, p, y)\n  z = s64[] constant(0)\n  r = s64[] reduce(s, z), dimensions={0}, to_apply=add\n"
                          "  ROOT t = (" + type + ", s64[]) tuple(s, r)\n}\n";
  auto m = ParseAndVerifyHlo(hlo);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  StatusOr<Program> plan = PlanModule(**m, target);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  int addressed = 0;
  for (const BufferDecl& b : plan->buffers) addressed += b.addressed ? 1 : 0;
  EXPECT_GE(addressed, 3) << "x, y and s are past the range";
  std::mt19937_64 rng(11);
  ExpectSameAsReference(hlo, {Operand(ElementType::kS64, 0, n, rng), Operand(ElementType::kS64, 1, n, rng)},
                        "word pairs by address", target);
}

// What the pass cannot express is an error naming 64-bit emulation, never
// a kernel: 64-bit atomics and vectors of 64-bit integers.
TEST(Int64Words, RefusesWhatItCannotLower) {
  LibraryNeeds needs;
  needs.int64_words = true;
  const std::string library = ShaderLibrarySource(needs, false, false);
  const std::string head = "#version 450\n#extension GL_ARB_gpu_shader_int64 : require\n"
                           "#extension GL_EXT_control_flow_attributes : require\n";
  const std::string tail = "void main() {\n  if (i64w_never != 0u) i64w_keep();\n";
  const uint32_t vk12 = (1u << 22) | (2u << 12);
  auto vectors = CompileGlslToSpirv(head + "layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint v[]; };\n" +
                                        library + tail + "  u64vec2 a = u64vec2(v[0], v[1]);\n  a = a * a;\n  v[0] = uint(a.x + a.y);\n}\n",
                                    vk12, true, {}, true);
  ASSERT_FALSE(vectors.ok());
  EXPECT_NE(vectors.status().message().find("64-bit integer emulation"), std::string::npos) << vectors.status().ToString();
  EXPECT_NE(vectors.status().message().find("64-bit integers)"), std::string::npos) << vectors.status().ToString();
  auto atomics = CompileGlslToSpirv(head + "#extension GL_EXT_shader_atomic_int64 : require\nlayout(local_size_x = 1) in;\n"
                                           "layout(std430, binding = 0) buffer B { uint64_t v[]; };\n" +
                                        library + tail + "  atomicAdd(v[0], uint64_t(1));\n}\n",
                                    vk12, true, {}, true);
  ASSERT_FALSE(atomics.ok());
  EXPECT_NE(atomics.status().message().find("64-bit"), std::string::npos) << atomics.status().ToString();
  // The same kernel's plain arithmetic lowers: no Int64 capability (11) left.
  auto plain = CompileGlslToSpirv(head + "layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint v[]; };\n" +
                                      library + tail +
                                      "  int64_t a = int64_t(packUint2x32(uvec2(v[0], v[1])));\n  a = a * a / (a - 3l);\n"
                                      "  uvec2 w = unpackUint2x32(uint64_t(a));\n  v[0] = w.x;\n  v[1] = w.y;\n}\n",
                                  vk12, true, {}, true);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  for (size_t at = 5; at < plain->size();) {
    const uint32_t words = (*plain)[at] >> 16, opcode = (*plain)[at] & 0xffff;
    EXPECT_FALSE(opcode == 17 && (*plain)[at + 1] == 11) << "OpCapability Int64 left";
    EXPECT_FALSE(opcode == 21 && (*plain)[at + 2] == 64) << "a 64-bit integer type left";
    at += words ? words : 1;
  }
}

}  // namespace
}  // namespace vkxla
