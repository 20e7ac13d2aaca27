#include "plan/radix_sort_keys.h"

#include "ir/element_type.h"
#include "ir/module.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

// Bits of the unsigned image of `t`'s order; 0 where there is none.
// Half floats sort by their f32 widening's bits, whose low bits are zero
// (f16: 13, bf16: 16), so only the rest are digits.
int KeyBits(ElementType t) {
  switch (t) {
    case ElementType::kPred: return 1;
    case ElementType::kF16: return 19;
    case ElementType::kBF16: return 16;
    case ElementType::kF32: return 32;
    case ElementType::kF64: return 64;
    default: return IsInteger(t) ? BitWidth(t) : 0;
  }
}

class ComparatorMatcher {
 public:
  ComparatorMatcher(const Instruction& sort, const Computation& less) : sort_(sort), less_(less) {}

  std::optional<std::vector<RadixKey>> Match() {
    const Instruction* root = less_.root();
    std::vector<RadixKey> keys;
    // Iterative: each `or` adds a key and descends into its tie-break.
    for (size_t depth = 0; root && depth <= sort_.operands.size(); ++depth) {
      if (std::optional<RadixKey> k = Less(root)) {
        keys.push_back(*k);
        return Distinct(keys) ? std::optional(keys) : std::nullopt;
      }
      if (root->opcode != Opcode::kOr || root->operands.size() != 2) return std::nullopt;
      const Instruction* rest = nullptr;
      for (int first = 0; first < 2 && !rest; ++first) {
        std::optional<RadixKey> k = Less(root->operands[first]);
        const Instruction* tie = root->operands[1 - first];
        if (!k || tie->opcode != Opcode::kAnd || tie->operands.size() != 2) continue;
        for (int e = 0; e < 2 && !rest; ++e)
          if (Equal(tie->operands[e], *k)) {
            keys.push_back(*k);
            rest = tie->operands[1 - e];
          }
      }
      root = rest;
    }
    return std::nullopt;
  }

 private:
  // Parameter p of the comparator: operand p / 2's value of record a (even)
  // or b (odd).
  static int ParameterOf(const Instruction* i) { return i->opcode == Opcode::kParameter ? static_cast<int>(i->parameter_number) : -1; }

  // `a_k < b_k` or `a_k > b_k` (either operand order).
  std::optional<RadixKey> Less(const Instruction* c) const {
    if (c->opcode != Opcode::kCompare || c->operands.size() != 2) return std::nullopt;
    const int p = ParameterOf(c->operands[0]), q = ParameterOf(c->operands[1]);
    if (p < 0 || q < 0 || p / 2 != q / 2 || p == q || p / 2 >= static_cast<int>(sort_.operands.size())) return std::nullopt;
    bool descending;
    if (c->direction == ComparisonDirection::kLt) descending = false;
    else if (c->direction == ComparisonDirection::kGt) descending = true;
    else return std::nullopt;
    if (p > q) descending = !descending;  // b < a sorts descending
    RadixKey k;
    k.operand = p / 2;
    k.descending = descending;
    const ElementType t = sort_.operands[k.operand]->shape.element_type();
    k.bits = KeyBits(t);
    if (k.bits == 0 || !TypeMatches(c->comparison_type, t)) return std::nullopt;
    k.total_order = IsFloat(t) && c->comparison_type == ComparisonType::kTotalOrder;
    return k;
  }

  // `a_k == b_k` under the same order as `key`.
  bool Equal(const Instruction* c, const RadixKey& key) const {
    if (c->opcode != Opcode::kCompare || c->direction != ComparisonDirection::kEq || c->operands.size() != 2) return false;
    const int p = ParameterOf(c->operands[0]), q = ParameterOf(c->operands[1]);
    const ElementType t = sort_.operands[key.operand]->shape.element_type();
    return p >= 0 && q >= 0 && p != q && p / 2 == key.operand && q / 2 == key.operand && TypeMatches(c->comparison_type, t) &&
           (IsFloat(t) && c->comparison_type == ComparisonType::kTotalOrder) == key.total_order;
  }

  // The comparison type is the one the element type implies (or total order for floats).
  static bool TypeMatches(ComparisonType c, ElementType t) {
    switch (c) {
      case ComparisonType::kDefault: return true;
      case ComparisonType::kFloat: case ComparisonType::kTotalOrder: return IsFloat(t);
      case ComparisonType::kSigned: return IsSignedInt(t);
      case ComparisonType::kUnsigned: return IsUnsignedInt(t) || t == ElementType::kPred;
    }
    return false;
  }

  static bool Distinct(const std::vector<RadixKey>& keys) {
    for (size_t i = 0; i < keys.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (keys[i].operand == keys[j].operand) return false;
    return true;
  }

  const Instruction& sort_;
  const Computation& less_;
};

}  // namespace

std::optional<std::vector<RadixKey>> RadixKeysOf(const Instruction& sort) {
  for (const Instruction* o : sort.operands)
    for (int64_t d = 0; d < o->shape.rank(); ++d)
      if (o->shape.is_dynamic_dim(d)) return std::nullopt;  // the network knows run-time sizes; the passes do not
  if (sort.opcode == Opcode::kTopK) {
    // The largest (or smallest) first in total order, ties by index: a
    // stable sort, whose first k are read.
    StatusOr<TopKPlan> plan = PlanTopK(sort);
    if (!plan.ok() || sort.operands.empty()) return std::nullopt;
    RadixKey key;
    key.descending = plan->largest;
    key.total_order = true;
    key.bits = KeyBits(sort.operands[0]->shape.element_type());
    if (key.bits == 0) return std::nullopt;
    return std::vector<RadixKey>{key};
  }
  if (sort.opcode != Opcode::kSort || sort.called_computations.empty() || !sort.called_computations[0].second) return std::nullopt;
  return ComparatorMatcher(sort, *sort.called_computations[0].second).Match();
}

}  // namespace vkxla
