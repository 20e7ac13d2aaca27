#include "plan/value_ref.h"

#include "ops/control_flow.h"

namespace vkxla {

ValueRef ValueRef::Of(const Instruction* read) {
  ValueRef v{read, -1};
  // get-tuple-element of a tuple instruction is the tuple's operand; of
  // any other tuple-shaped op, an element of it. Bounded by the nesting
  // (and the chain of forwarding ops, each a step towards the operands).
  for (;;) {
    if (ForwardsOperand(*v.inst) && !v.inst->operands.empty()) {
      v.inst = v.inst->operands[0];
    } else if (v.inst->opcode == Opcode::kTuple && v.index >= 0 &&
               v.index < static_cast<int64_t>(v.inst->operands.size())) {
      v = ValueRef{v.inst->operands[v.index], -1};
    } else if (v.inst->opcode == Opcode::kGetTupleElement && v.index < 0) {
      v = ValueRef{v.inst->operands[0], v.inst->tuple_index};
    } else {
      return v;
    }
  }
}

const Shape& ValueRef::shape() const {
  if (index < 0 || !inst->shape.IsTuple() || index >= static_cast<int64_t>(inst->shape.tuple_shapes().size()))
    return inst->shape;
  return inst->shape.tuple_shapes()[index];
}

std::string ValueRef::ToString() const {
  return "%" + inst->name + (index >= 0 ? "." + std::to_string(index) : "");
}

StatusOr<std::vector<ValueRef>> ValueLeaves(const Instruction* root) {
  std::vector<ValueRef> leaves;
  std::vector<const Instruction*> stack = {root};
  while (!stack.empty()) {
    const Instruction* n = stack.back();
    stack.pop_back();
    const ValueRef v = ValueRef::Of(n);
    if (v.index < 0 && v.inst->opcode == Opcode::kTuple) {
      for (size_t k = v.inst->operands.size(); k-- > 0;) stack.push_back(v.inst->operands[k]);
      continue;
    }
    if (v.shape().IsToken()) continue;
    if (v.shape().IsArray()) {
      leaves.push_back(v);
      continue;
    }
    if (v.index >= 0)
      return Unimplemented(std::string(OpcodeName(v.inst->opcode)) + " " + v.inst->Describe() + ": element " +
                           std::to_string(v.index) + " of " + v.inst->shape.ToString() +
                           " is a nested tuple, which is not supported yet");
    for (size_t k = 0; k < v.inst->shape.tuple_shapes().size(); ++k) {
      const Shape& e = v.inst->shape.tuple_shapes()[k];
      if (e.IsToken()) continue;
      if (!e.IsArray())
        return Unimplemented(std::string(OpcodeName(v.inst->opcode)) + " " + v.inst->Describe() + ": element " +
                             std::to_string(k) + " of " + v.inst->shape.ToString() +
                             " is a nested tuple, which is not supported yet");
      leaves.push_back(ValueRef{v.inst, static_cast<int64_t>(k)});
    }
  }
  return leaves;
}

}  // namespace vkxla
