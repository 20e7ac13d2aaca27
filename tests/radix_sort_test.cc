// Sorts whose comparator orders keys (plan/radix_sort_keys.h) run as a
// radix sort (plan/sort_config.h): every key type in both directions, NaN
// and -0.0 in total and partial order, stability among equal keys, JAX's
// lexicographic comparators over several keys, 64-bit keys, fused key
// producers, and the tiles of a GPU and a phone run on this device too,
// all against the reference evaluator's std::stable_sort.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>

#include "frontends/hlo_text.h"
#include "ir/element_type.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class RadixSort : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

// The one sort's configuration on this device (nullopt, and a failure, if
// the plan has not exactly one).
std::optional<SortConfig> OnlySortConfig(const Module& module) {
  std::vector<SortConfig> configs = SortConfigsOf(module, TestDevice().target());
  EXPECT_EQ(configs.size(), 1u);
  if (configs.size() != 1) return std::nullopt;
  return configs[0];
}

// Runs `text` on every tile target, expecting one radix sort in each plan.
void RunRadix(const std::string& text, const std::vector<Literal>& args, bool every_target = true) {
  SCOPED_TRACE(text);
  std::unique_ptr<Module> m = ParseOrFail(text);
  if (!m) return;
  for (const TargetFeatures& target : KernelShapeTargets()) {
    std::vector<SortConfig> configs = SortConfigsOf(*m, target);
    ASSERT_EQ(configs.size(), 1u);
    EXPECT_EQ(configs[0].algorithm, SortConfig::Algorithm::kRadix) << "cpu=" << target.cpu;
    RunAndCompareWith(*m, args, -1, &target);
    if (!every_target) return;
  }
}

std::string KeyAndIndexComparator(const std::string& ty, const std::string& direction, const std::string& type) {
  return "%cmp (a: " + ty + "[], b: " + ty + "[], c: s32[], d: s32[]) -> pred[] {\n  %a = " + ty + "[] parameter(0)\n  %b = " + ty +
         "[] parameter(1)\n  %c = s32[] parameter(2)\n  %d = s32[] parameter(3)\n  ROOT %r = pred[] compare(%a, %b), direction=" +
         direction + type + "\n}\n";
}

// Every type whose order maps to unsigned bits, ascending and descending,
// lines of several tiles (and a partial last one) in two layouts, random
// values with NaN, infinities and -0.0 mixed in (total order for floats).
TEST_F(RadixSort, EveryKeyTypeMatchesReference) {
  const char* layouts[] = {"{1,0}", "{0,1}"};
  int trial = 0;
  for (ElementType t : kAllTypes) {
    if (IsComplex(t)) continue;
    if (IsFloat(t) && t != ElementType::kF16 && t != ElementType::kBF16 && t != ElementType::kF32 && t != ElementType::kF64) continue;
    const std::string ty(ElementTypeName(t)), l = layouts[trial % 2];
    const bool descending = trial % 3 == 1;
    const std::string text = "HloModule radix_" + ty + "\n" + KeyAndIndexComparator(ty, descending ? "GT" : "LT", IsFloat(t) ? ", type=TOTALORDER" : "") +
                             "ENTRY %e {\n  %x = " + ty + "[2,9000]" + l + " parameter(0)\n  %i = s32[2,9000] iota(), iota_dimension=1\n"
                             "  ROOT %s = (" + ty + "[2,9000], s32[2,9000]" + l + ") sort(%x, %i), dimensions={1}, to_apply=%cmp\n}\n";
    std::mt19937_64 rng(++trial);
    // The tiles of a GPU and a phone for a few types; this device's for all.
    const bool every_target = t == ElementType::kF32 || t == ElementType::kS8 || t == ElementType::kBF16 || t == ElementType::kU64 ||
                              t == ElementType::kPred;
    RunRadix(text, {RandomLiteral(Shape(t, {2, 9000}), rng, Opcode::kAdd)}, every_target);
  }
}

// The spec's compare without TOTALORDER: -0.0 equals +0.0, so equal keys
// keep their order (stable), whatever their sign; few distinct values make
// long runs of ties across tiles.
TEST_F(RadixSort, StableAmongEqualKeys) {
  for (const std::string direction : {"LT", "GT"}) {
    const std::string text = "HloModule ties\n" + KeyAndIndexComparator("f32", direction, "") +
                             "ENTRY %e {\n  %x = f32[50000] parameter(0)\n  %i = s32[50000] iota(), iota_dimension=0\n"
                             "  ROOT %s = (f32[50000], s32[50000]) sort(%x, %i), dimensions={0}, is_stable=true, to_apply=%cmp\n}\n";
    std::mt19937_64 rng(direction == "LT" ? 3 : 4);
    Literal x(Shape(ElementType::kF32, {50000}));
    for (int64_t i = 0; i < x.element_count(); ++i) {
      const int v = static_cast<int>(rng() % 7) - 3;
      x.Set(i, Scalar::Float(ElementType::kF32, v == 0 && rng() % 2 ? -0.0 : static_cast<double>(v)));
    }
    RunRadix(text, {x});
  }
}

// JAX's comparator for several keys (lax.sort num_keys=3), written with
// operands in either order: an s32 key, then an f16 key in total order
// descending (b < a), then a u8 key; an f32 payload rides along.
TEST_F(RadixSort, LexicographicKeysAsJaxWritesThem) {
  const std::string cmp =
      "%lex (a: s32[], b: s32[], c: f16[], d: f16[], e: u8[], f: u8[], g: f32[], h: f32[]) -> pred[] {\n"
      "  %a = s32[] parameter(0)\n  %b = s32[] parameter(1)\n  %c = f16[] parameter(2)\n  %d = f16[] parameter(3)\n"
      "  %e = u8[] parameter(4)\n  %f = u8[] parameter(5)\n  %g = f32[] parameter(6)\n  %h = f32[] parameter(7)\n"
      "  %lt2 = pred[] compare(%e, %f), direction=LT\n"
      "  %eq1 = pred[] compare(%d, %c), direction=EQ, type=TOTALORDER\n  %and1 = pred[] and(%lt2, %eq1)\n"
      "  %lt1 = pred[] compare(%d, %c), direction=LT, type=TOTALORDER\n  %or1 = pred[] or(%and1, %lt1)\n"
      "  %eq0 = pred[] compare(%a, %b), direction=EQ\n  %and0 = pred[] and(%eq0, %or1)\n"
      "  %lt0 = pred[] compare(%a, %b), direction=LT\n  ROOT %r = pred[] or(%lt0, %and0)\n}\n";
  const std::string text = "HloModule lex\n" + cmp +
                           "ENTRY %e {\n  %k0 = s32[3000,4]{0,1} parameter(0)\n  %k1 = f16[3000,4] parameter(1)\n"
                           "  %k2 = u8[3000,4] parameter(2)\n  %p = f32[3000,4] parameter(3)\n"
                           "  ROOT %s = (s32[3000,4], f16[3000,4], u8[3000,4], f32[3000,4]{0,1}) sort(%k0, %k1, %k2, %p), dimensions={0}, "
                           "is_stable=true, to_apply=%lex\n}\n";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  std::optional<SortConfig> config = OnlySortConfig(*m);
  ASSERT_TRUE(config && config->radix_keys.size() == 3u);
  EXPECT_EQ(config->radix_keys[1].operand, 1);
  EXPECT_TRUE(config->radix_keys[1].descending);
  EXPECT_TRUE(config->radix_keys[1].total_order);
  std::mt19937_64 rng(11);
  // Few distinct values in the leading keys, so that the later ones decide.
  Literal k0(Shape(ElementType::kS32, {3000, 4})), k2(Shape(ElementType::kU8, {3000, 4}));
  for (int64_t i = 0; i < k0.element_count(); ++i) {
    k0.Set(i, Scalar::Int(ElementType::kS32, static_cast<int64_t>(rng() % 5) - 2));
    k2.Set(i, Scalar::Int(ElementType::kU8, static_cast<int64_t>(rng() % 4)));
  }
  Literal k1(Shape(ElementType::kF16, {3000, 4}));
  const double halves[] = {-1.5, -0.0, 0.0, 2.0, INFINITY, NAN, -NAN};
  for (int64_t i = 0; i < k1.element_count(); ++i) k1.Set(i, Scalar::Float(ElementType::kF16, halves[rng() % 7]));
  Literal payload = RandomLiteral(Shape(ElementType::kF32, {3000, 4}), rng, Opcode::kAdd);
  RunRadix(text, {k0, k1, k2, payload});
}

// Batched short rows: a lane sorts a row (rows up to 1024 on a CPU, 64 on
// a GPU), or a workgroup one tile; both with ties and specials, along
// either dim.
TEST_F(RadixSort, BatchedShortRows) {
  int trial = 0;
  for (const auto& [rows, n] : std::vector<std::pair<int64_t, int64_t>>{{300, 50}, {40, 700}, {3, 2}}) {
    for (int dim = 0; dim < 2; ++dim) {
      const std::string shape = dim == 1 ? std::to_string(rows) + "," + std::to_string(n) : std::to_string(n) + "," + std::to_string(rows);
      const std::string text = "HloModule rows\n" + KeyAndIndexComparator("f32", trial % 2 ? "GT" : "LT", ", type=TOTALORDER") +
                               "ENTRY %e {\n  %x = f32[" + shape + "] parameter(0)\n  %i = s32[" + shape + "] iota(), iota_dimension=" +
                               std::to_string(dim) + "\n  ROOT %s = (f32[" + shape + "], s32[" + shape + "]{0,1}) sort(%x, %i), dimensions={" +
                               std::to_string(dim) + "}, to_apply=%cmp\n}\n";
      std::mt19937_64 rng(++trial + 40);
      Literal x = RandomLiteral(Shape(ElementType::kF32, dim == 1 ? std::vector<int64_t>{rows, n} : std::vector<int64_t>{n, rows}), rng, Opcode::kAdd);
      for (int64_t i = 0; i < x.element_count(); i += 3) x.Set(i, Scalar::Float(ElementType::kF32, static_cast<double>(rng() % 3)));
      RunRadix(text, {x});
    }
  }
}

// Empty arrays and lines of one element: nothing to order (no radix
// passes), the values come back as they were.
TEST_F(RadixSort, EmptyAndSingleElementLines) {
  for (const std::string shape : {"0", "1", "2,0", "0,3", "3,1"}) {
    const std::string dim = shape.find(',') == std::string::npos ? "0" : "1";
    const std::string text = "HloModule tiny\n" + KeyAndIndexComparator("f32", "LT", ", type=TOTALORDER") + "ENTRY %e {\n  %x = f32[" +
                             shape + "] parameter(0)\n  %i = s32[" + shape + "] iota(), iota_dimension=" + dim + "\n  ROOT %s = (f32[" +
                             shape + "], s32[" + shape + "]) sort(%x, %i), dimensions={" + dim + "}, to_apply=%cmp\n}\n";
    SCOPED_TRACE(text);
    std::unique_ptr<Module> m = ParseOrFail(text);
    ASSERT_TRUE(m);
    std::mt19937_64 rng(3);
    RunAndCompareWith(*m, {RandomLiteral(m->entry()->parameters()[0]->shape, rng, Opcode::kAdd)});
  }
}

// 64-bit keys: two image words, digits from both.
TEST_F(RadixSort, SixtyFourBitKeys) {
  int trial = 0;
  for (ElementType t : {ElementType::kS64, ElementType::kU64, ElementType::kF64}) {
    const std::string ty(ElementTypeName(t));
    const std::string text = "HloModule wide_" + ty + "\n" + KeyAndIndexComparator(ty, trial % 2 ? "GT" : "LT", t == ElementType::kF64 ? ", type=TOTALORDER" : "") +
                             "ENTRY %e {\n  %x = " + ty + "[20000] parameter(0)\n  %i = s32[20000] iota(), iota_dimension=0\n"
                             "  ROOT %s = (" + ty + "[20000], s32[20000]) sort(%x, %i), dimensions={0}, to_apply=%cmp\n}\n";
    std::mt19937_64 rng(++trial + 20);
    RunRadix(text, {RandomLiteral(Shape(t, {20000}), rng, Opcode::kAdd)});
  }
}

// Keys computed by a fused producer (the first pass reads them through
// it), a result consumed by a fused consumer, and a key that is not the
// first operand.
TEST_F(RadixSort, FusedProducersAndConsumers) {
  const std::string cmp = "%second (a: f32[], b: f32[], c: s32[], d: s32[]) -> pred[] {\n  %a = f32[] parameter(0)\n"
                          "  %b = f32[] parameter(1)\n  %c = s32[] parameter(2)\n  %d = s32[] parameter(3)\n"
                          "  ROOT %r = pred[] compare(%c, %d), direction=GT\n}\n";
  const std::string text = "HloModule fused\n" + cmp +
                           "ENTRY %e {\n  %x = f32[70000] parameter(0)\n  %y = s32[70000] parameter(1)\n"
                           "  %k = s32[70000] negate(%y)\n"
                           "  %s = (f32[70000], s32[70000]) sort(%x, %k), dimensions={0}, to_apply=%second\n"
                           "  %v = f32[70000] get-tuple-element(%s), index=0\n  %w = f32[70000] add(%v, %v)\n"
                           "  %kk = s32[70000] get-tuple-element(%s), index=1\n  ROOT %t = (f32[70000], s32[70000]) tuple(%w, %kk)\n}\n";
  std::mt19937_64 rng(5);
  Literal y(Shape(ElementType::kS32, {70000}));
  for (int64_t i = 0; i < y.element_count(); ++i) y.Set(i, Scalar::Int(ElementType::kS32, static_cast<int64_t>(rng() % 100000) - 50000));
  RunRadix(text, {RandomLiteral(Shape(ElementType::kF32, {70000}), rng, Opcode::kAdd), y});
}

}  // namespace
}  // namespace vkxla
