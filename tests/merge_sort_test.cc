// Sorts whose comparator is no key order (plan/radix_sort_keys.h finds
// none) run as a block merge (plan/sort_config.h): blocks sorted by each
// invocation on its own (a CPU's plan) or by a workgroup's network in
// shared memory (a GPU's and a phone's), then merge passes between two
// planes. Every case runs against the reference evaluator's
// std::stable_sort, most on the plans of all three.
#include <gtest/gtest.h>

#include <random>

#include "ir/element_type.h"
#include "ops/op_traits.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class MergeSort : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

// A comparator on key(a) < key(b) (|a| < |b| by default) for `ty` values
// with an s32 payload.
std::string KeyLess(const std::string& ty, ElementType compare, const std::string& key = "abs") {
  const std::string compare_type(ElementTypeName(compare));
  return "%key_lt (a: " + ty + "[], b: " + ty + "[], c: s32[], d: s32[]) -> pred[] {\n  %a = " + ty + "[] parameter(0)\n  %b = " + ty +
         "[] parameter(1)\n  %c = s32[] parameter(2)\n  %d = s32[] parameter(3)\n  %x = " + compare_type + "[] " + key + "(%a)\n  %y = " +
         compare_type + "[] " + key + "(%b)\n  ROOT %r = pred[] compare(%x, %y), direction=LT" +
         (IsFloat(compare) ? ", type=TOTALORDER" : "") + "\n}\n";
}

// The plan's invariants for a line of `n`: whole blocks and chunks,
// one merge pass per doubling of the runs from a block to the line, the
// last into the permutation.
void ExpectMergePlan(const SortConfig& c, int64_t n, const TargetFeatures& target) {
  EXPECT_EQ(c.algorithm, SortConfig::Algorithm::kBlockMerge);
  EXPECT_EQ(c.run_sort, target.cpu);
  EXPECT_GE(c.padded, n);
  EXPECT_EQ(c.padded % c.block, 0);
  EXPECT_EQ(c.padded % c.merge_chunk, 0);
  int merges = 0;
  for (int64_t run = c.block; run < c.padded; run <<= 1) ++merges;
  EXPECT_EQ(c.merges, merges);
  ASSERT_EQ(c.passes.size(), static_cast<size_t>(merges + 1));
  EXPECT_EQ(c.passes[0].kernel, 0);
  if (merges > 0) {
    EXPECT_EQ(c.passes.back().kernel, 2);
  }
  for (size_t p = 2; p < c.passes.size(); ++p) EXPECT_NE(c.passes[p].kernel, c.passes[p - 1].kernel) << "planes alternate";
}

// Lines of one element, shorter than a block, exactly a block, one past
// it, several blocks with a run left without a partner, and long; rows
// batched along either dim. Keys with many ties check stability.
TEST_F(MergeSort, LinesOfEveryLengthOnEveryTarget) {
  int trial = 0;
  for (const auto& [rows, n] : std::vector<std::pair<int64_t, int64_t>>{
           {5, 1}, {37, 3}, {300, 50}, {1, 17}, {4, 2048}, {3, 2049}, {2, 5000}, {7, 257}, {1, 100000}}) {
    const bool major = trial % 3 == 2;  // sort along dim 0 of the transposed shape
    const std::string shape = major ? std::to_string(n) + "," + std::to_string(rows) : std::to_string(rows) + "," + std::to_string(n);
    const std::string layout = trial % 2 ? "{0,1}" : "{1,0}";
    const std::string text = "HloModule merge\n" + KeyLess("f32", ElementType::kF32) + "ENTRY %e {\n  %x = f32[" + shape + "]" + layout +
                             " parameter(0)\n  %i = s32[" + shape + "] iota(), iota_dimension=" + (major ? "0" : "1") +
                             "\n  ROOT %s = (f32[" + shape + "], s32[" + shape + "]) sort(%x, %i), dimensions={" + (major ? "0" : "1") +
                             "}, to_apply=%key_lt\n}\n";
    SCOPED_TRACE(text);
    std::unique_ptr<Module> m = ParseOrFail(text);
    ASSERT_TRUE(m);
    std::mt19937_64 rng(40 + ++trial);
    Literal x(m->entry()->parameters()[0]->shape);
    for (int64_t i = 0; i < x.element_count(); ++i)
      x.Set(i, Scalar::Float(ElementType::kF32, static_cast<double>(static_cast<int64_t>(rng() % 41) - 20)));
    for (const TargetFeatures& target : KernelShapeTargets()) {
      SCOPED_TRACE(target.cpu ? "cpu" : "gpu, shared memory " + std::to_string(target.max_shared_memory_bytes));
      std::vector<SortConfig> configs = SortConfigsOf(*m, target);
      ASSERT_EQ(configs.size(), 1u);
      ExpectMergePlan(configs[0], n, target);
      RunAndCompareWith(*m, {x}, -1, &target);
    }
  }
}

// Every element type by a computed key: |a| for signed and floating types
// (TOTALORDER), the real part of complex ones (their magnitudes round
// differently on the device and the host), for unsigned ones and pred
// `a < b && a != b` (no pattern the radix sort knows), in three layouts.
TEST_F(MergeSort, EveryTypeByComputedKey) {
  const std::string layouts[] = {"{1,0}", "{0,1}", "{0,1:T(2,4)}"};
  int trial = 0;
  for (ElementType t : kAllTypes) {
    const std::string ty(ElementTypeName(t));
    std::string cmp;
    if (IsUnsignedInt(t) || t == ElementType::kPred) {
      cmp = "%key_lt (a: " + ty + "[], b: " + ty + "[], c: s32[], d: s32[]) -> pred[] {\n  %a = " + ty + "[] parameter(0)\n  %b = " + ty +
            "[] parameter(1)\n  %c = s32[] parameter(2)\n  %d = s32[] parameter(3)\n  %l = pred[] compare(%a, %b), direction=LT\n"
            "  %n = pred[] compare(%a, %b), direction=NE\n  ROOT %r = pred[] and(%l, %n)\n}\n";
    } else {
      cmp = IsComplex(t) ? KeyLess(ty, ComplexComponentType(t), "real") : KeyLess(ty, t);
    }
    const std::string& layout = layouts[trial % 3];
    const std::string text = "HloModule merge_" + ty + "\n" + cmp + "ENTRY %e {\n  %x = " + ty + "[3,2500]" + layout +
                             " parameter(0)\n  %i = s32[3,2500] iota(), iota_dimension=1\n  ROOT %s = (" + ty + "[3,2500], s32[3,2500]" +
                             layouts[(trial + 1) % 3] + ") sort(%x, %i), dimensions={1}, to_apply=%key_lt\n}\n";
    SCOPED_TRACE(text);
    std::unique_ptr<Module> m = ParseOrFail(text);
    ASSERT_TRUE(m);
    std::mt19937_64 rng(++trial);
    const Literal x = RandomLiteral(Shape(t, {3, 2500}), rng, Opcode::kAdd);
    // Every type on this device's plan, every third on a GPU's too.
    std::vector<TargetFeatures> targets = KernelShapeTargets();
    targets.resize(trial % 3 == 0 ? 2 : 1);
    for (const TargetFeatures& target : targets) {
      std::vector<SortConfig> configs = SortConfigsOf(*m, target);
      ASSERT_EQ(configs.size(), 1u);
      ExpectMergePlan(configs[0], 2500, target);
      RunAndCompareWith(*m, {x}, -1, &target);
    }
  }
}

// Several operands along the major dim: |a| descending, then the second
// operand ascending, keys read through a fused producer, and the sorted
// payload consumed by a fused multiply.
TEST_F(MergeSort, ComparatorOverTwoOperandsWithFusedProducerAndConsumer) {
  const std::string cmp = "%cmp (a: f32[], b: f32[], c: s32[], d: s32[]) -> pred[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
                          "  %c = s32[] parameter(2)\n  %d = s32[] parameter(3)\n  %x = f32[] abs(%a)\n  %y = f32[] abs(%b)\n"
                          "  %g = pred[] compare(%x, %y), direction=GT\n  %e = pred[] compare(%x, %y), direction=EQ\n"
                          "  %l = pred[] compare(%c, %d), direction=LT\n  %el = pred[] and(%e, %l)\n  ROOT %r = pred[] or(%g, %el)\n}\n";
  const std::string text = "HloModule merge_two\n" + cmp +
                           "ENTRY %e {\n  %p = f32[6000,3]{0,1} parameter(0)\n  %x = f32[6000,3] negate(%p)\n"
                           "  %v = s32[6000,3] parameter(1)\n  %s = (f32[6000,3], s32[6000,3]) sort(%x, %v), dimensions={0}, to_apply=%cmp\n"
                           "  %k = f32[6000,3] get-tuple-element(%s), index=0\n  %two = f32[] constant(2)\n"
                           "  %b = f32[6000,3] broadcast(%two), dimensions={}\n  %m = f32[6000,3] multiply(%k, %b)\n"
                           "  %w = s32[6000,3] get-tuple-element(%s), index=1\n  ROOT %t = (f32[6000,3], s32[6000,3]) tuple(%m, %w)\n}\n";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  std::mt19937_64 rng(77);
  Literal p(m->entry()->parameters()[0]->shape), v(m->entry()->parameters()[1]->shape);
  for (int64_t i = 0; i < p.element_count(); ++i) {
    p.Set(i, Scalar::Float(ElementType::kF32, static_cast<double>(static_cast<int64_t>(rng() % 201) - 100) / 4));
    v.Set(i, Scalar::Int(ElementType::kS32, static_cast<int64_t>(rng() % 7)));
  }
  for (const TargetFeatures& target : KernelShapeTargets()) {
    SCOPED_TRACE(target.cpu ? "cpu" : "gpu");
    RunAndCompareWith(*m, {p, v}, -1, &target);
  }
}

}  // namespace
}  // namespace vkxla
