#include "plan/rng_expansion.h"

#include "ops/rng_bit_generator.h"
#include "ops/slice_and_padding.h"
#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

bool IsTupleRng(const Instruction& i) { return i.opcode == Opcode::kRngBitGenerator && i.shape.IsTuple(); }

StatusOr<Instruction*> Split(Computation& c, const Instruction& rng, const std::vector<Instruction*>& operands) {
  ASSIGN_OR_RETURN(RngBitsPlan plan, PlanRngBits(rng));
  int next = 0;
  auto add = [&](Opcode op, Shape shape, std::vector<Instruction*> ops) {
    return AddDerived(c, rng, "rng", next, op, std::move(shape), std::move(ops));
  };
  Instruction* state = operands.at(0);
  const Shape word(ElementType::kU64, {1});
  auto element = [&](int64_t i) {
    Instruction* s = add(Opcode::kSlice, word, {state});
    s->other_attributes.emplace_back("slice", SliceText({SliceDimension{i, i + 1, 1}}));
    return s;
  };
  Instruction* blocks = add(Opcode::kConstant, word, {});
  blocks->literal = Literal(word);
  blocks->literal->Set(0, Scalar::UInt(ElementType::kU64, plan.blocks));
  Instruction* low = element(1);
  Instruction* advanced = add(Opcode::kAdd, word, {low, blocks});
  std::vector<Instruction*> parts = {element(0), advanced};
  if (plan.state_size == 3) {
    Instruction* wrapped = add(Opcode::kCompare, Shape(ElementType::kPred, {1}), {advanced, low});
    wrapped->direction = ComparisonDirection::kLt;
    wrapped->comparison_type = ComparisonType::kUnsigned;
    parts.push_back(add(Opcode::kAdd, word, {element(2), add(Opcode::kConvert, word, {wrapped})}));
  }
  Instruction* next_state = add(Opcode::kConcatenate, rng.shape.tuple_shapes()[0], std::move(parts));
  next_state->dimensions = std::vector<int64_t>{0};
  Instruction* bits = add(Opcode::kRngBitGenerator, rng.shape.tuple_shapes()[1], {state});
  bits->other_attributes = rng.other_attributes;
  return add(Opcode::kTuple, rng.shape, {next_state, bits});
}

}  // namespace

StatusOr<std::shared_ptr<const Module>> ExpandRngBitGenerators(const Module& module) {
  return RewriteModule(module, IsTupleRng, Split);
}

}  // namespace vkxla
