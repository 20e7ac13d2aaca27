// Scatter in one pass over the updates (plan/scatter_config.h): combiners
// the device applies atomically (add, min, max, and, or, xor on s32 and
// u32; add, min and max on f32), every other commutative combiner on types
// of at most 32 bits by compare-and-swap, a combiner that returns the
// update by last-update-wins, and any combiner under unique_indices.
// Against the reference evaluator with heavy collisions and windows that
// fall outside, in two result layouts; NaN and signed zeros for f32 min and
// max; f32 add where the device lacks f32 atomics; empty and size-1
// inputs; 17M colliding updates counted exactly.
#include <gtest/gtest.h>

#include "frontends/hlo_text.h"
#include "plan/scatter_config.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class ScatterOnePass : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

std::string CombinerText(const std::string& type, const std::string& op) {
  return "%comb (a: " + type + "[], b: " + type + "[]) -> " + type + "[] {\n  %a = " + type + "[] parameter(0)\n  %b = " +
         type + "[] parameter(1)\n  ROOT %r = " + type + "[] " + op + "\n}\n";
}

// Windows of 2x3 updates at 40 random starts in a 6x8 result: most
// elements take several updates, and starts of -1 or 7 fall outside.
std::string WindowScatter(const std::string& type, const std::string& op, const std::string& layout,
                          const std::string& extra = "") {
  return "HloModule scatter_" + type + "\n" + CombinerText(type, op) +
         "ENTRY %e {\n"
         "  %x = " + type + "[6,8]{1,0} parameter(0)\n"
         "  %i = s32[40,2] parameter(1)\n"
         "  %u = " + type + "[40,2,3] parameter(2)\n"
         "  ROOT %s = " + type + "[6,8]" + layout + " scatter(%x, %i, %u), update_window_dims={1,2},"
         " inserted_window_dims={}, scatter_dims_to_operand_dims={1,0}, index_vector_dim=1, to_apply=%comb" + extra +
         "\n}\n";
}

int KernelsFor(const Module& m, const TargetFeatures& target) {
  const Instruction* s = m.entry()->root();
  return ChooseScatterMode(*s, s->shape, target) == ScatterConfig::Mode::kOwner ? 1 : 2;
}

TEST_F(ScatterOnePass, EveryAtomicCombinerMatchesReference) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"add(%a, %b)", {"s32", "u32", "f32"}}, {"maximum(%a, %b)", {"s32", "u32", "f32"}},
      {"minimum(%b, %a)", {"s32", "u32", "f32"}}, {"and(%a, %b)", {"s32", "u32"}},
      {"or(%a, %b)", {"s32", "u32"}}, {"xor(%b, %a)", {"s32", "u32"}}};
  int trial = 0;
  for (const auto& [op, types] : cases)
    for (const std::string& type : types)
      for (const std::string layout : {"{1,0}", "{0,1:T(2,4)}"}) {
        const std::string text = WindowScatter(type, op, layout);
        SCOPED_TRACE(text);
        auto m = ParseAndVerifyHlo(text);
        ASSERT_TRUE(m.ok()) << m.status().ToString();
        const int kernels = KernelsFor(**m, TestDevice().target());
        // Only f32 add depends on the device (VK_EXT_shader_atomic_float).
        if (op != "add(%a, %b)" || type != "f32" || TestDevice().target().float32_atomic_add) {
          EXPECT_EQ(kernels, 2);
        }
        std::mt19937_64 rng(++trial);
        const auto shapes = (*m)->EntryProgramShape().parameters;
        RunAndCompareWith(**m, {ExactSumLiteral(shapes[0], rng), RandomIndices(shapes[1], -1, 7, rng),
                                ExactSumLiteral(shapes[2], rng)},
                          kernels);
      }
}

// f32 max keeps NaN whichever order the updates land in, and +0 over -0;
// min likewise with -0. The operand's own NaN (of either sign) counts.
TEST_F(ScatterOnePass, FloatMinMaxOrderNanAndSignedZeros) {
  const std::string entry = "  %x = f32[4] constant({-nan, 0, -0, 1})\n  %i = s32[8,1] constant({{1}, {2}, {3}, {1}, {2}, {3}, {0}, {3}})\n"
                            "  %u = f32[8] constant({-0, 0, -5, 2, -3, nan, 7, -inf})\n";
  const std::string scatter = " scatter(%x, %i, %u), update_window_dims={}, inserted_window_dims={0},"
                              " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%comb\n";
  EXPECT_EQ(RunHloText(CombinerText("f32", "maximum(%a, %b)"), entry + "  ROOT %s = f32[4]" + scatter),
            "{nan, 2, 0, nan}");
  EXPECT_EQ(RunHloText(CombinerText("f32", "minimum(%a, %b)"), entry + "  ROOT %s = f32[4]" + scatter),
            "{-nan, -0, -3, -nan}");  // min's NaN is the negative one (the sign of a NaN is not specified)
}

// A device without VK_EXT_shader_atomic_float adds f32 by compare-and-swap:
// the same two kernels, the same values.
TEST_F(ScatterOnePass, FloatAddWithoutFloatAtomicsSwapsWords) {
  TargetFeatures masked = TestDevice().target();
  masked.float32_atomic_add = false;
  auto m = ParseAndVerifyHlo(WindowScatter("f32", "add(%a, %b)", "{0,1}"));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Instruction* s = (*m)->entry()->root();
  EXPECT_EQ(ChooseScatterMode(*s, s->shape, masked), ScatterConfig::Mode::kCompareSwap);
  std::mt19937_64 rng(7);
  const auto shapes = (*m)->EntryProgramShape().parameters;
  RunAndCompareWith(**m, {ExactSumLiteral(shapes[0], rng), RandomIndices(shapes[1], -1, 7, rng),
                          ExactSumLiteral(shapes[2], rng)},
                    2, &masked);
}

// Values whose combinations are exact in t whatever the order, for `op`
// applied at most three times (an operand element and two updates):
// floats from {-1, 0, 1} ({0.5, 1, 2} for the unsigned f8e8m0fnu, NaN
// among them for min and max), complex parts likewise, integers anywhere
// (wrapping is exact).
Literal OrderFreeLiteral(const Shape& shape, const std::string& op, std::mt19937_64& rng) {
  const ElementType t = shape.element_type();
  if (IsComplex(t)) {
    Literal l(shape);
    for (int64_t i = 0; i < l.element_count(); ++i)
      l.Set(i, Scalar::Complex(t, {double(int(rng() % 3) - 1), double(int(rng() % 3) - 1)}));
    return l;
  }
  if (!IsFloat(t)) return RandomLiteral(shape, rng, Opcode::kAdd);
  const bool exponent_only = t == ElementType::kF8E8M0FNU;
  const bool min_max = op.rfind("maximum", 0) == 0 || op.rfind("minimum", 0) == 0;
  Literal l(shape);
  for (int64_t i = 0; i < l.element_count(); ++i) {
    const int k = static_cast<int>(rng() % 4);
    double v = exponent_only ? std::ldexp(1.0, k % 3 - 1) : k == 3 ? 0.0 : k - 1.0;
    if (min_max && rng() % 8 == 0 && t != ElementType::kF4E2M1FN && t != ElementType::kF6E2M3FN &&
        t != ElementType::kF6E3M2FN)
      v = NAN;
    l.Set(i, Scalar::Float(t, v));
  }
  return l;
}

// Every commutative combiner on every element type that no atomic
// instruction covers runs as a compare-and-swap loop on the word holding
// the element, sub-word neighbours included (64-bit types where the device
// has 64-bit atomics): 96 updates into an 8x8 result, updates k and k + 72
// meeting, some falling outside, in two layouts, against the reference
// evaluator.
TEST_F(ScatterOnePass, CompareSwapCombinesEveryType) {
  int trial = 200;
  const TargetFeatures& target = TestDevice().target();
  for (ElementType t : kAllTypes) {
    if (t == ElementType::kC128) continue;
    if (BitWidth(t) == 64 && !target.int64_atomics) continue;
    const std::string type(ElementTypeName(t));
    std::vector<std::string> ops;
    if (t == ElementType::kPred) ops = {"or(%a, %b)", "and(%b, %a)", "xor(%a, %b)"};
    else if (IsComplex(t)) ops = {"add(%a, %b)", "multiply(%b, %a)"};
    else if (t == ElementType::kF8E8M0FNU) ops = {"maximum(%a, %b)", "minimum(%b, %a)"};
    else if (IsFloat(t)) ops = {"add(%a, %b)", "multiply(%b, %a)", "maximum(%a, %b)", "minimum(%a, %b)"};
    else ops = {"add(%a, %b)", "multiply(%a, %b)", "maximum(%b, %a)", "minimum(%a, %b)", "xor(%a, %b)"};
    for (const std::string& op : ops)
      for (const std::string layout : {"{1,0}", "{0,1}"}) {
        const std::string text = "HloModule cas_" + type + "\n" + CombinerText(type, op) +
                                 "ENTRY %e {\n  %x = " + type + "[8,8]" + layout + " parameter(0)\n"
                                 "  %i = s32[96,2] parameter(1)\n  %u = " + type + "[96] parameter(2)\n"
                                 "  ROOT %s = " + type + "[8,8]" + layout + " scatter(%x, %i, %u), update_window_dims={},"
                                 " inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1,"
                                 " to_apply=%comb\n}\n";
        SCOPED_TRACE(text);
        auto m = ParseAndVerifyHlo(text);
        ASSERT_TRUE(m.ok()) << m.status().ToString();
        const Instruction* s = (*m)->entry()->root();
        const ScatterConfig::Mode mode = ChooseScatterMode(*s, s->shape, TestDevice().target());
        EXPECT_NE(mode, ScatterConfig::Mode::kOwner);
        if (BitWidth(t) != 32 || op.rfind("multiply", 0) == 0) {
          EXPECT_EQ(mode, ScatterConfig::Mode::kCompareSwap);
        }
        Literal indices(Shape(ElementType::kS32, {96, 2}));
        for (int64_t k = 0; k < 96; ++k) {
          indices.Set(2 * k, Scalar::Int(ElementType::kS32, (k * 5) % 9));  // row 8 falls outside
          indices.Set(2 * k + 1, Scalar::Int(ElementType::kS32, (k * 3) % 8));
        }
        std::mt19937_64 rng(++trial);
        const auto shapes = (*m)->EntryProgramShape().parameters;
        RunAndCompareWith(**m, {OrderFreeLiteral(shapes[0], op, rng), indices, OrderFreeLiteral(shapes[2], op, rng)}, 2);
      }
  }
}

// unique_indices=true: any combiner (here not commutative) on any type,
// sub-word ones included, in one pass without atomics on the values.
TEST_F(ScatterOnePass, UniqueIndicesAnyCombinerAndType) {
  int trial = 50;
  for (ElementType t : kAllTypes) {
    const std::string type(ElementTypeName(t));
    const bool arithmetic = t != ElementType::kPred;
    const std::string text =
        "HloModule unique_" + type + "\n" +
        CombinerText(type, arithmetic ? "subtract(%b, %a)" : "xor(%a, %b)") +
        "ENTRY %e {\n  %x = " + type + "[5,7]{0,1} parameter(0)\n  %i = s32[4,1] constant({{3}, {0}, {6}, {2}})\n"
        "  %u = " + type + "[5,4]{1,0} parameter(1)\n"
        "  ROOT %s = " + type + "[5,7]{1,0} scatter(%x, %i, %u), update_window_dims={0}, inserted_window_dims={1},"
        " scatter_dims_to_operand_dims={1}, index_vector_dim=1, unique_indices=true, to_apply=%comb\n}\n";
    SCOPED_TRACE(text);
    auto m = ParseAndVerifyHlo(text);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    std::mt19937_64 rng(++trial);
    const auto shapes = (*m)->EntryProgramShape().parameters;
    RunAndCompareWith(**m, {RandomLiteral(shapes[0], rng, Opcode::kAdd), RandomLiteral(shapes[1], rng, Opcode::kAdd)}, 2);
  }
}

// A combiner that returns the update (JAX's .at[].set()) on every type:
// each element ends as the update with the highest scatter index covering
// it, as the owner kernel would leave it; windows of 2x3 at 40 random
// starts collide, some fall outside, in two layouts.
TEST_F(ScatterOnePass, ReplaceLastUpdateWinsOnEveryType) {
  int trial = 300;
  for (ElementType t : kAllTypes) {
    const std::string type(ElementTypeName(t));
    for (const std::string layout : {"{1,0}", "{0,1}"}) {
      std::string text = WindowScatter(type, "add(%a, %b)", layout);
      // The combiner: its root is the update parameter itself.
      const std::string root = "  %b = " + type + "[] parameter(1)\n  ROOT %r = " + type + "[] add(%a, %b)\n";
      text.replace(text.find(root), root.size(), "  ROOT %b = " + type + "[] parameter(1)\n");
      SCOPED_TRACE(text);
      auto m = ParseAndVerifyHlo(text);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      const Instruction* s = (*m)->entry()->root();
      EXPECT_EQ(ChooseScatterMode(*s, s->shape, TestDevice().target()), ScatterConfig::Mode::kLastWins);
      std::mt19937_64 rng(++trial);
      const auto shapes = (*m)->EntryProgramShape().parameters;
      RunAndCompareWith(**m, {RandomLiteral(shapes[0], rng, Opcode::kAdd), RandomIndices(shapes[1], -1, 7, rng),
                              RandomLiteral(shapes[2], rng, Opcode::kAdd)},
                        4);
    }
  }
}

// 1M updates of their own position into 1000 elements: element e ends as
// the last update aimed at it, 999000 + e.
TEST_F(ScatterOnePass, ReplaceWithAMillionCollidingUpdates) {
  const std::string text = "HloModule set\n%rep (a: s32[], b: s32[]) -> s32[] {\n  %a = s32[] parameter(0)\n  ROOT %b = s32[] parameter(1)\n}\n"
                           "ENTRY %e {\n  %z = s32[] constant(-1)\n  %x = s32[1000] broadcast(%z), dimensions={}\n"
                           "  %n = s32[1000000,1] iota(), iota_dimension=0\n  %k = s32[] constant(1000)\n"
                           "  %kb = s32[1000000,1] broadcast(%k), dimensions={}\n  %i = s32[1000000,1] remainder(%n, %kb)\n"
                           "  %u = s32[1000000] iota(), iota_dimension=0\n"
                           "  ROOT %s = s32[1000] scatter(%x, %i, %u), update_window_dims={}, inserted_window_dims={0},"
                           " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%rep\n}\n";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  auto got = CompileAndRun(*m, {});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (int64_t e = 0; e < 1000; ++e) ASSERT_EQ(got->Get(e).s, 999000 + e) << e;
}

// For an atomic (s32 add) and a compare-and-swap combiner (bf16 multiply).
TEST_F(ScatterOnePass, EmptyAndSizeOneInputs) {
  const std::string dims = " update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0},"
                           " index_vector_dim=1, to_apply=%comb\n";
  for (const auto& [type, op] : {std::pair<std::string, std::string>{"s32", "add"}, {"bf16", "multiply"}}) {
    SCOPED_TRACE(type);
    const std::string comb = CombinerText(type, op + "(%a, %b)");
    // No updates: the operand comes back.
    EXPECT_EQ(RunHloText(comb, "  %x = " + type + "[3] constant({1, 2, 3})\n  %i = s32[0,1] constant({})\n  %u = " + type +
                                   "[0] constant({})\n  ROOT %s = " + type + "[3] scatter(%x, %i, %u)," + dims),
              "{1, 2, 3}");
    // One element, one update, and one that falls outside.
    EXPECT_EQ(RunHloText(comb, "  %x = " + type + "[1] constant({5})\n  %i = s32[2,1] constant({{0}, {1}})\n  %u = " + type +
                                   "[2] constant({4, 100})\n  ROOT %s = " + type + "[1] scatter(%x, %i, %u)," + dims),
              op == "add" ? "{9}" : "{20}");
  }
}

// 17M updates of 1 into 1000 counters: more invocations than one grid
// dimension holds (65535 workgroups of 256), and every atomic lands.
TEST_F(ScatterOnePass, SeventeenMillionCollidingUpdatesCountExactly) {
  const std::string text = "HloModule count\n" + CombinerText("u32", "add(%a, %b)") +
                           "ENTRY %e {\n  %z = u32[] constant(0)\n  %x = u32[1000] broadcast(%z), dimensions={}\n"
                           "  %n = s32[17000000,1] iota(), iota_dimension=0\n  %k = s32[] constant(1000)\n"
                           "  %kb = s32[17000000,1] broadcast(%k), dimensions={}\n  %i = s32[17000000,1] remainder(%n, %kb)\n"
                           "  %one = u32[] constant(1)\n  %u = u32[17000000] broadcast(%one), dimensions={}\n"
                           "  ROOT %s = u32[1000] scatter(%x, %i, %u), update_window_dims={}, inserted_window_dims={0},"
                           " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%comb\n}\n";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  auto got = CompileAndRun(*m, {});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (int64_t k = 0; k < 1000; ++k) ASSERT_EQ(got->Get(k).u, 17000u) << k;
}

// 4M updates of 1 into 1000 u16 counters, two to a 32-bit word: the
// compare-and-swap loop retries until every update lands, neighbours'
// included.
TEST_F(ScatterOnePass, FourMillionCollidingSubWordUpdatesCountExactly) {
  const std::string text = "HloModule count16\n" + CombinerText("u16", "add(%a, %b)") +
                           "ENTRY %e {\n  %z = u16[] constant(0)\n  %x = u16[1000] broadcast(%z), dimensions={}\n"
                           "  %n = s32[4000000,1] iota(), iota_dimension=0\n  %k = s32[] constant(1000)\n"
                           "  %kb = s32[4000000,1] broadcast(%k), dimensions={}\n  %i = s32[4000000,1] remainder(%n, %kb)\n"
                           "  %one = u16[] constant(1)\n  %u = u16[4000000] broadcast(%one), dimensions={}\n"
                           "  ROOT %s = u16[1000] scatter(%x, %i, %u), update_window_dims={}, inserted_window_dims={0},"
                           " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%comb\n}\n";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  const Instruction* s = m->entry()->root();
  EXPECT_EQ(ChooseScatterMode(*s, s->shape, TestDevice().target()), ScatterConfig::Mode::kCompareSwap);
  auto got = CompileAndRun(*m, {});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (int64_t k = 0; k < 1000; ++k) ASSERT_EQ(got->Get(k).u, 4000u) << k;
}

}  // namespace
}  // namespace vkxla
