// topk of long lines as a radix select (plan/sort_config.h): every key type
// with radix images, largest and smallest first, NaN, infinities and -0.0
// in the total order, long runs of equal keys (ties go to the lowest
// index), k from 1 to kMaxSelectK, batched lines in two layouts, a fused
// key producer, and the tiles of a GPU and a phone run on this device,
// all against the reference evaluator.
#include <gtest/gtest.h>

#include <random>

#include "frontends/hlo_text.h"
#include "ir/element_type.h"
#include "plan/planner.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class TopKSelect : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

// This device's features, and as a GPU (256 lanes) and a phone would plan.
std::vector<TargetFeatures> Targets() {
  TargetFeatures gpu = TestDevice().target();
  gpu.cpu = false;
  TargetFeatures phone = gpu;
  phone.max_shared_memory_bytes = 16384;
  phone.max_workgroup_invocations = 128;
  return {TestDevice().target(), gpu, phone};
}

// Runs `text` (one topk) for each target, expecting a radix select, against
// the reference.
void RunSelect(const std::string& text, const std::vector<Literal>& args, bool every_target = true) {
  SCOPED_TRACE(text);
  std::unique_ptr<Module> m = ParseOrFail(text);
  if (!m) return;
  for (const TargetFeatures& target : Targets()) {
    StatusOr<Program> p = PlanModule(*m, target);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    int selects = 0;
    for (const FusionGroup& g : p->groups)
      if (const auto* c = std::get_if<SortConfig>(&g.config)) selects += c->algorithm == SortConfig::Algorithm::kRadixSelect;
    EXPECT_EQ(selects, 1) << "cpu=" << target.cpu;
    RunAndCompareWith(*m, args, -1, &target);
    if (!every_target) return;
  }
}

std::string TopK(const std::string& ty, const std::string& dims, const std::string& layout, int64_t k, bool largest,
                 const std::string& out_dims) {
  return "HloModule select_" + ty + "\nENTRY %e {\n  %x = " + ty + "[" + dims + "]" + layout + " parameter(0)\n  ROOT %t = (" + ty +
         "[" + out_dims + "], s32[" + out_dims + "]) topk(%x), k=" + std::to_string(k) + ", largest=" + (largest ? "true" : "false") +
         "\n}\n";
}

// Values drawn from a few per type, so that the k-th key has many equals
// around it; floats add NaN of both signs, infinities and both zeros.
Literal FewValues(const Shape& shape, std::mt19937_64& rng) {
  const ElementType t = shape.element_type();
  Literal l(shape);
  for (int64_t i = 0; i < l.element_count(); ++i) {
    const int pick = static_cast<int>(rng() % 12);
    if (IsFloat(t)) {
      const double special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0};
      l.Set(i, Scalar::Float(t, pick < 6 ? special[pick] : static_cast<double>(pick) - 8.5));
    } else {
      l.Set(i, RandomScalar(t, rng, Opcode::kAdd));
      if (pick < 8) l.Set(i, Scalar::Int(t, pick % 4));
    }
  }
  return l;
}

// Every key type, both directions, k of 1, 37 and 256, rows of 5000 and
// 4096 in two layouts.
TEST_F(TopKSelect, EveryKeyTypeMatchesReference) {
  const int64_t ks[] = {1, 37, 256};
  int trial = 0;
  for (ElementType t : kAllTypes) {
    if (IsComplex(t) || t == ElementType::kPred) continue;
    if (IsFloat(t) && t != ElementType::kF16 && t != ElementType::kBF16 && t != ElementType::kF32 && t != ElementType::kF64) continue;
    const std::string ty(ElementTypeName(t));
    const int64_t k = ks[trial % 3], n = trial % 2 ? 5000 : 4096;
    const bool largest = trial % 4 != 1;
    const std::string layout = trial % 2 ? "{1,0}" : "{0,1}";
    std::mt19937_64 rng(++trial);
    const bool every_target = t == ElementType::kF32 || t == ElementType::kS8 || t == ElementType::kU64 || t == ElementType::kBF16;
    RunSelect(TopK(ty, "3," + std::to_string(n), layout, k, largest, "3," + std::to_string(k)),
              {FewValues(Shape(t, {3, n}), rng)}, every_target);
  }
}

// One value everywhere: the k are the first k indices; and random f32 keys
// over a line of 1M, k = 64, as the benchmark runs it.
TEST_F(TopKSelect, AllEqualKeysAndOneLongLine) {
  Literal same(Shape(ElementType::kF32, {2, 6000}));
  for (int64_t i = 0; i < same.element_count(); ++i) same.Set(i, Scalar::Float(ElementType::kF32, 7.0));
  RunSelect(TopK("f32", "2,6000", "", 10, true, "2,10"), {same});
  std::mt19937_64 rng(5);
  RunSelect(TopK("f32", "1048576", "", 64, true, "64"), {RandomLiteral(Shape(ElementType::kF32, {1048576}), rng, Opcode::kAdd)},
            false);
}

// The key computed inline (the select reads it every pass) over batched
// rank-3 lines, smallest first.
TEST_F(TopKSelect, FusedKeyProducerOverBatchedLines) {
  const std::string text =
      "HloModule fused\nENTRY %e {\n  %x = f32[2,3,4500] parameter(0)\n  %y = f32[2,3,4500] parameter(1)\n"
      "  %d = f32[2,3,4500] subtract(%x, %y)\n  %a = f32[2,3,4500] abs(%d)\n"
      "  ROOT %t = (f32[2,3,20], s32[2,3,20]) topk(%a), k=20, largest=false\n}\n";
  std::mt19937_64 rng(9);
  RunSelect(text, {FewValues(Shape(ElementType::kF32, {2, 3, 4500}), rng), FewValues(Shape(ElementType::kF32, {2, 3, 4500}), rng)});
}

}  // namespace
}  // namespace vkxla
