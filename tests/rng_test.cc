// RngBitGenerator against known answers and the reference: Random123's
// published ThreeFry-2x32-20 and Philox-4x32-10 vectors (through XLA's
// state layout), the spec's example, the bits XLA's CPU backend gave JAX
// for a state (jax export_back_compat_test_data, 2023-06-17), every output
// type on odd shapes and other layouts bit for bit against the evaluator,
// the state's chaining within a program and across runs (two calls give
// the bits of one), the carry into a 128-bit Philox counter, fusion into
// readers, the StableHLO forms and the builder, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"
#include "frontends/xla_builder.h"
#include "ops/evaluator.h"
#include "ops/rng_bit_generator.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class Rng : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

std::string U64List(const std::vector<uint64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

// A module returning rng-bit-generator's (state, bits) for a constant state.
std::string RngModule(const std::string& algorithm, const std::vector<uint64_t>& state, const std::string& bits) {
  const std::string st = "u64[" + std::to_string(state.size()) + "]";
  return "HloModule rng\nENTRY main {\n  s = " + st + " constant({" + U64List(state) + "})\n  ROOT r = (" + st + ", " +
         bits + ") rng-bit-generator(s), algorithm=" + algorithm + "\n}\n";
}

// Runs it; the device's tuple.
Literal RunRng(const std::string& algorithm, const std::vector<uint64_t>& state, const std::string& bits) {
  auto module = ParseOrFail(RngModule(algorithm, state, bits));
  if (!module) return Literal();
  StatusOr<Literal> got = CompileAndRun(*module, {});
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  return got.ok() ? *got : Literal();
}

std::vector<uint64_t> Bits(const Literal& l) {
  std::vector<uint64_t> v;
  for (int64_t i = 0; i < l.element_count(); ++i) v.push_back(l.Get(i).Bits());
  return v;
}

// Every element's bits equal.
void ExpectSameBits(const Literal& got, const Literal& want, const std::string& what) {
  ASSERT_EQ(got.shape().ToString(false), want.shape().ToString(false)) << what;
  int reported = 0;
  for (int64_t i = 0; i < want.element_count(); ++i)
    if (got.Get(i).Bits() != want.Get(i).Bits() && reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " has bits " << std::hex << got.Get(i).Bits() << ", expected "
                    << want.Get(i).Bits();
}

// Random123's kat_vectors, threefry2x32_20 and philox4x32_10.
struct ThreeFryVector {
  std::array<uint32_t, 2> counter, key, out;
};
struct PhiloxVector {
  std::array<uint32_t, 4> counter;
  std::array<uint32_t, 2> key;
  std::array<uint32_t, 4> out;
};
const ThreeFryVector kThreeFry[] = {
    {{0, 0}, {0, 0}, {0x6b200159, 0x99ba4efe}},
    {{0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x1cb996fc, 0xbb002be7}},
    {{0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}, {0xc4923a9c, 0x483df7a0}}};
const PhiloxVector kPhilox[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}, {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}};

uint64_t Join(uint32_t low, uint32_t high) { return low | static_cast<uint64_t>(high) << 32; }

TEST(RngReference, PublishedVectors) {
  for (const ThreeFryVector& v : kThreeFry) EXPECT_EQ(ThreeFry2x32(v.counter, v.key), v.out);
  for (const PhiloxVector& v : kPhilox) EXPECT_EQ(Philox4x32(v.counter, v.key), v.out);
}

// State [key, counter]: u32[2] is one ThreeFry block; state [key, low,
// high]: u32[4] is one Philox block.
TEST_F(Rng, PublishedVectorsThroughXlaStateLayout) {
  for (const ThreeFryVector& v : kThreeFry) {
    Literal r = RunRng("rng_three_fry", {Join(v.key[0], v.key[1]), Join(v.counter[0], v.counter[1])}, "u32[2]");
    ASSERT_TRUE(r.shape().IsTuple());
    EXPECT_EQ(Bits(r.tuple_elements()[1]), (std::vector<uint64_t>{v.out[0], v.out[1]}));
    EXPECT_EQ(Bits(r.tuple_elements()[0]), (std::vector<uint64_t>{Join(v.key[0], v.key[1]), Join(v.counter[0], v.counter[1]) + 1}));
  }
  for (const PhiloxVector& v : kPhilox) {
    const uint64_t low = Join(v.counter[0], v.counter[1]), high = Join(v.counter[2], v.counter[3]);
    Literal r = RunRng("rng_philox", {Join(v.key[0], v.key[1]), low, high}, "u32[4]");
    ASSERT_TRUE(r.shape().IsTuple());
    EXPECT_EQ(Bits(r.tuple_elements()[1]), (std::vector<uint64_t>{v.out[0], v.out[1], v.out[2], v.out[3]}));
    // The all-ones counter wraps: its high word takes the carry.
    const uint64_t next = low + 1;
    EXPECT_EQ(Bits(r.tuple_elements()[0]), (std::vector<uint64_t>{Join(v.key[0], v.key[1]), next, high + (next < low ? 1 : 0)}));
  }
}

// stablehlo_spec.md, rng_bit_generator.
TEST_F(Rng, SpecExample) {
  Literal r = RunRng("rng_three_fry", {1, 2}, "u64[2,2]");
  ASSERT_TRUE(r.shape().IsTuple());
  EXPECT_EQ(Bits(r.tuple_elements()[0]), (std::vector<uint64_t>{1, 6}));
  EXPECT_EQ(Bits(r.tuple_elements()[1]), (std::vector<uint64_t>{9236835810183407956ull, 16087790271692313299ull,
                                                                 18212823393184779219ull, 2658481902456610144ull}));
}

// jax.lax.rng_bit_generator(key=[42, 43, 44, 45] as u32, shape=(60, 4),
// RNG_DEFAULT) on XLA's CPU backend, rows 0, 10, ..., 50: the state is the
// key's words as two u64 (little-endian), and the default is Philox.
TEST_F(Rng, DefaultMatchesXlaCpu) {
  const std::vector<uint64_t> state = {Join(42, 43), Join(44, 45)};
  for (const char* algorithm : {"rng_default", "rng_philox"}) {
    auto module = ParseOrFail("HloModule jax\nENTRY main {\n  s = u64[2] constant({" + U64List(state) +
                              "})\n  r = (u64[2], u32[60,4]) rng-bit-generator(s), algorithm=" + algorithm +
                              "\n  b = u32[60,4] get-tuple-element(r), index=1\n"
                              "  ROOT rows = u32[6,4] slice(b), slice={[0:60:10], [0:4]}\n}\n");
    ASSERT_TRUE(module);
    StatusOr<Literal> got = CompileAndRun(*module, {});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(Bits(*got), (std::vector<uint64_t>{2427392780, 1458059130, 393278117,  4094008499, 2979149501, 2789479602,
                                                 236667834,  2209180022, 3272265009, 654898663,  3518128447, 3522413436,
                                                 3152133794, 2429726816, 183393703,  2087683200, 2517633375, 3263052868,
                                                 344980918,  3676396031, 3594828247, 2571774884, 3751275505, 2435848784}))
        << algorithm;
  }
}

// Every type the op takes, on shapes that split each way (a scalar, odd
// and even dims, no even dim, unit dims) and in a column-major layout,
// bit for bit against the evaluator.
TEST_F(Rng, EveryTypeShapeAndLayoutMatchesReference) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {7}, {6}, {3, 5}, {5, 4, 3}, {2, 1, 3}, {3, 8}, {33, 17}, {1, 1}};
  const struct {
    const char* algorithm;
    std::vector<uint64_t> state;
  } generators[] = {{"rng_three_fry", {0x0123456789abcdefull, 0xfffffffffffffff0ull}},
                    {"rng_philox", {0x0123456789abcdefull, 0xfffffffffffffffeull, 7}},
                    {"rng_philox", {99, 12345}},
                    {"rng_default", {5, 6}}};
  for (ElementType t : kAllTypes) {
    if (t == ElementType::kPred || IsComplex(t)) continue;
    for (const auto& g : generators)
      for (size_t k = 0; k < shapes.size(); ++k) {
        const std::vector<int64_t>& dims = shapes[k];
        std::string bits = std::string(ElementTypeName(t)) + "[";
        for (size_t d = 0; d < dims.size(); ++d) bits += (d ? "," : "") + std::to_string(dims[d]);
        bits += "]";
        // Alternate shapes take a column-major layout.
        if (k % 2 == 1 && dims.size() >= 2) {
          bits += "{";
          for (size_t d = 0; d < dims.size(); ++d) bits += (d ? "," : "") + std::to_string(d);
          bits += "}";
        }
        const std::string what = std::string(g.algorithm) + " " + bits;
        auto module = ParseOrFail(RngModule(g.algorithm, g.state, bits));
        ASSERT_TRUE(module) << what;
        StatusOr<Literal> want = EvaluateModule(*module, {});
        StatusOr<Literal> got = CompileAndRun(*module, {});
        ASSERT_TRUE(want.ok()) << want.status().ToString();
        ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
        ExpectSameBits(got->tuple_elements()[0], want->tuple_elements()[0], what + " state");
        ExpectSameBits(got->tuple_elements()[1], want->tuple_elements()[1], what + " bits");
      }
  }
}

// Chained in one program and across runs: the second call continues where
// the first stopped, so a ThreeFry u64 vector of 7 then 9 is the one of 16,
// and Philox u32 of 12 then 20 is the one of 32.
TEST_F(Rng, StateChainsWithinAndAcrossRuns) {
  const struct {
    const char* algorithm;
    const char* state;
    const char* type;
    int first, second;
  } cases[] = {{"rng_three_fry", "u64[2]", "u64", 7, 9}, {"rng_philox", "u64[3]", "u32", 12, 20}};
  for (const auto& c : cases) {
    const std::string st = c.state, t = c.type, n1 = std::to_string(c.first), n2 = std::to_string(c.second),
                      all = std::to_string(c.first + c.second), a = c.algorithm;
    auto chained = ParseOrFail("HloModule chain\nENTRY main {\n  s = " + st + " parameter(0)\n  r1 = (" + st + ", " + t + "[" +
                               n1 + "]) rng-bit-generator(s), algorithm=" + a + "\n  s1 = " + st +
                               " get-tuple-element(r1), index=0\n  b1 = " + t + "[" + n1 +
                               "] get-tuple-element(r1), index=1\n  r2 = (" + st + ", " + t + "[" + n2 +
                               "]) rng-bit-generator(s1), algorithm=" + a + "\n  s2 = " + st +
                               " get-tuple-element(r2), index=0\n  b2 = " + t + "[" + n2 +
                               "] get-tuple-element(r2), index=1\n  b = " + t + "[" + all +
                               "] concatenate(b1, b2), dimensions={0}\n  ROOT out = (" + st + ", " + t + "[" + all +
                               "]) tuple(s2, b)\n}\n");
    auto whole = ParseOrFail("HloModule whole\nENTRY main {\n  s = " + st + " parameter(0)\n  ROOT r = (" + st + ", " + t +
                             "[" + all + "]) rng-bit-generator(s), algorithm=" + a + "\n}\n");
    ASSERT_TRUE(chained && whole);
    Literal state(Shape(ElementType::kU64, {st == "u64[2]" ? 2 : 3}));
    for (int64_t i = 0; i < state.element_count(); ++i) state.Set(i, Scalar::UInt(ElementType::kU64, 1000 + 77 * i));
    auto exe_chained = Executable::Compile(*chained, TestDevice());
    auto exe_whole = Executable::Compile(*whole, TestDevice());
    ASSERT_TRUE(exe_chained.ok() && exe_whole.ok()) << exe_chained.status().ToString() << exe_whole.status().ToString();
    StatusOr<Literal> one = (*exe_whole)->Run({state});
    StatusOr<Literal> two = (*exe_chained)->Run({state});
    ASSERT_TRUE(one.ok() && two.ok()) << one.status().ToString() << two.status().ToString();
    ExpectSameBits(two->tuple_elements()[1], one->tuple_elements()[1], a + " chained in one program");
    ExpectSameBits(two->tuple_elements()[0], one->tuple_elements()[0], a + " state after both");
    // Across runs: the state one run returns feeds the next.
    StatusOr<Literal> next = (*exe_whole)->Run({one->tuple_elements()[0]});
    StatusOr<Literal> want = EvaluateModule(*whole, {one->tuple_elements()[0]});
    ASSERT_TRUE(next.ok() && want.ok());
    ExpectSameBits(next->tuple_elements()[1], want->tuple_elements()[1], a + " second run");
    EXPECT_NE(Bits(next->tuple_elements()[1]), Bits(one->tuple_elements()[1])) << a;
  }
}

// JAX's uniform floats from bits: the bits fuse into the conversion (one
// kernel), and a million elements cover many workgroups.
TEST_F(Rng, BitsFuseIntoReaders) {
  auto module = ParseOrFail(R"(HloModule uniform
ENTRY main {
  s = u64[2] parameter(0)
  r = (u64[2], u32[1000,1001]) rng-bit-generator(s), algorithm=rng_three_fry
  b = u32[1000,1001] get-tuple-element(r), index=1
  nine = u32[] constant(9)
  shift = u32[1000,1001] broadcast(nine), dimensions={}
  m = u32[1000,1001] shift-right-logical(b, shift)
  one_bits = u32[] constant(1065353216)
  ob = u32[1000,1001] broadcast(one_bits), dimensions={}
  o = u32[1000,1001] or(m, ob)
  f = f32[1000,1001] bitcast-convert(o)
  one = f32[] constant(1)
  of = f32[1000,1001] broadcast(one), dimensions={}
  ROOT u = f32[1000,1001] subtract(f, of)
}
)");
  ASSERT_TRUE(module);
  Literal state(Shape(ElementType::kU64, {2}));
  state.Set(0, Scalar::UInt(ElementType::kU64, 0));
  state.Set(1, Scalar::UInt(ElementType::kU64, 42));
  Literal got = RunAndCompareWith(*module, {state}, /*expected_kernels=*/1);
  ASSERT_EQ(got.element_count(), 1000 * 1001);
  double sum = 0;
  for (int64_t i = 0; i < got.element_count(); ++i) {
    const double x = got.Get(i).re;
    ASSERT_TRUE(x >= 0.0 && x < 1.0) << i;
    sum += x;
  }
  EXPECT_NEAR(sum / static_cast<double>(got.element_count()), 0.5, 0.002);
}

// Bits read by a product's operand loads: the load function calls the
// generator's rounds, which must be declared before it (helpers went out
// by name, load_a before threefry2x32: a glslang error; a random program
// found it).
TEST_F(Rng, BitsFuseIntoAProductsOperand) {
  for (const char* algorithm : {"rng_three_fry", "rng_philox"}) {
    SCOPED_TRACE(algorithm);
    auto module = ParseOrFail(std::string("HloModule dot_bits\nENTRY main {\n  s = u64[2] parameter(0)\n"
                                          "  w = u32[7,5] parameter(1)\n  r = (u64[2], u32[5]) rng-bit-generator(s), algorithm=") +
                              algorithm +
                              "\n  b = u32[5] get-tuple-element(r), index=1\n"
                              "  ROOT d = u32[7] dot(b, w), lhs_contracting_dims={0}, rhs_contracting_dims={1}\n}\n");
    ASSERT_TRUE(module);
    Literal state(Shape(ElementType::kU64, {2})), w(Shape(ElementType::kU32, {7, 5}));
    state.Set(0, Scalar::UInt(ElementType::kU64, 7));
    state.Set(1, Scalar::UInt(ElementType::kU64, 3));
    for (int64_t i = 0; i < 35; ++i) w.Set(i, Scalar::UInt(ElementType::kU32, static_cast<uint64_t>(i % 4)));
    RunAndCompareWith(*module, {state, w});
  }
}

// Two generators read at the kernel's own elements: each hoists its blocks
// before the element loop, side by side (u8 takes 4 Philox blocks and 8
// ThreeFry blocks per invocation).
TEST_F(Rng, TwoGeneratorsInOneKernel) {
  auto module = ParseOrFail(R"(HloModule two
ENTRY main {
  s = u64[2] parameter(0)
  p = u64[3] parameter(1)
  r = (u64[2], u8[3,70]) rng-bit-generator(s), algorithm=rng_three_fry
  q = (u64[3], u8[3,70]) rng-bit-generator(p), algorithm=rng_philox
  a = u8[3,70] get-tuple-element(r), index=1
  b = u8[3,70] get-tuple-element(q), index=1
  ROOT x = u8[3,70] xor(a, b)
}
)");
  ASSERT_TRUE(module);
  Literal s(Shape(ElementType::kU64, {2})), p(Shape(ElementType::kU64, {3}));
  for (int64_t i = 0; i < 2; ++i) s.Set(i, Scalar::UInt(ElementType::kU64, 5 + i));
  for (int64_t i = 0; i < 3; ++i) p.Set(i, Scalar::UInt(ElementType::kU64, 50 + i));
  RunAndCompareWith(*module, {s, p}, /*expected_kernels=*/1);
  // Past what one binding holds: an error naming the array, before anything is allocated.
  auto huge = ParseOrFail("HloModule huge\nENTRY main {\n  s = u64[2] constant({1, 2})\n"
                          "  r = (u64[2], u32[4294967296]) rng-bit-generator(s), algorithm=rng_philox\n"
                          "  ROOT b = u32[4294967296] get-tuple-element(r), index=1\n}\n");
  ASSERT_TRUE(huge);
  StatusOr<Literal> got = CompileAndRun(*huge, {});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("u32[4294967296]"), std::string::npos) << got.status().ToString();
}

TEST_F(Rng, StablehloFormsAndBuilder) {
  auto read = ReadStablehlo(R"(func.func @main(%s: tensor<3xui64>) -> (tensor<3xui64>, tensor<5x3xf32>) {
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<5x3xui32>)
  %1:2 = "stablehlo.rng_bit_generator"(%0#0) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> (tensor<3xui64>, tensor<5x3xf32>)
  func.return %1#0, %1#1 : tensor<3xui64>, tensor<5x3xf32>
}
)",
                            false);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  Literal state(Shape(ElementType::kU64, {3}));
  for (int64_t i = 0; i < 3; ++i) state.Set(i, Scalar::UInt(ElementType::kU64, 11 * (i + 1)));
  StatusOr<Literal> want = EvaluateModule(*read->module, {state});
  StatusOr<Literal> got = CompileAndRun(*read->module, {state});
  ASSERT_TRUE(want.ok() && got.ok()) << want.status().ToString() << got.status().ToString();
  // 15 u32 use 4 blocks, twice.
  EXPECT_EQ(Bits(got->tuple_elements()[0]), (std::vector<uint64_t>{11, 22 + 8, 33}));
  ExpectSameBits(got->tuple_elements()[1], want->tuple_elements()[1], "stablehlo");

  XlaBuilder b("built");
  XlaOp s = b.Parameter(0, Shape(ElementType::kU64, {2}), "s");
  XlaOp rng = b.RngBitGenerator(RngAlgorithm::kThreeFry, s, Shape(ElementType::kS16, {9}));
  StatusOr<std::unique_ptr<Module>> built = b.Build(rng);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  Literal s2(Shape(ElementType::kU64, {2}));
  s2.Set(0, Scalar::UInt(ElementType::kU64, 3));
  s2.Set(1, Scalar::UInt(ElementType::kU64, 4));
  StatusOr<Literal> bw = EvaluateModule(**built, {s2});
  StatusOr<Literal> bg = CompileAndRun(**built, {s2});
  ASSERT_TRUE(bw.ok() && bg.ok()) << bw.status().ToString() << bg.status().ToString();
  ExpectSameBits(bg->tuple_elements()[1], bw->tuple_elements()[1], "builder");
  // s16[9] splits nothing even: the largest dim halves to 5 blocks.
  EXPECT_EQ(Bits(bg->tuple_elements()[0]), (std::vector<uint64_t>{3, 9}));
}

TEST_F(Rng, BadInputsAreClearErrors) {
  ExpectHloError("", "s = u64[3] constant({1, 2, 3})\nROOT r = (u64[3], u32[4]) rng-bit-generator(s), algorithm=rng_three_fry\n",
                 {"rng-bit-generator", "rng_three_fry", "u64[2]", "u64[3]"});
  ExpectHloError("", "s = u64[4] constant({1, 2, 3, 4})\nROOT r = (u64[4], u32[4]) rng-bit-generator(s), algorithm=rng_philox\n",
                 {"rng-bit-generator", "u64[4]"});
  ExpectHloError("", "s = u32[2] constant({1, 2})\nROOT r = (u32[2], u32[4]) rng-bit-generator(s), algorithm=rng_philox\n",
                 {"rng-bit-generator", "state", "u32[2]"});
  ExpectHloError("", "s = u64[2] constant({1, 2})\nROOT r = (u64[2], pred[4]) rng-bit-generator(s), algorithm=rng_philox\n",
                 {"rng-bit-generator", "pred[4]"});
  ExpectHloError("", "s = u64[2] constant({1, 2})\nROOT r = (u64[2], c64[4]) rng-bit-generator(s), algorithm=rng_philox\n",
                 {"rng-bit-generator", "c64[4]"});
  ExpectHloError("", "s = u64[2] constant({1, 2})\nROOT r = (u64[2], u32[4]) rng-bit-generator(s), algorithm=mersenne\n",
                 {"rng-bit-generator", "algorithm", "mersenne"});
  ExpectHloError("", "s = u64[2] constant({1, 2})\nROOT r = u32[4] rng-bit-generator(s), algorithm=rng_philox\n",
                 {"rng-bit-generator", "tuple", "u32[4]"});
  auto bad = ReadStablehlo(R"(func.func @main(%s: tensor<2xui64>) -> tensor<4xui32> {
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = MERSENNE : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  func.return %0#1 : tensor<4xui32>
}
)",
                           false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("MERSENNE"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("2:"), std::string::npos) << bad.status().ToString();
}

}  // namespace
}  // namespace vkxla
