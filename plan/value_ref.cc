#include "plan/value_ref.h"

namespace vkxla {

ValueRef ValueRef::Of(const Instruction* read) {
  ValueRef v{read, -1};
  // get-tuple-element of a tuple instruction is the tuple's operand; of
  // any other tuple-shaped op, an element of it. Bounded by the nesting.
  while (v.inst->opcode == Opcode::kGetTupleElement && v.index < 0) {
    const Instruction* x = v.inst->operands[0];
    if (x->opcode == Opcode::kTuple && v.inst->tuple_index >= 0 &&
        v.inst->tuple_index < static_cast<int64_t>(x->operands.size())) {
      v.inst = x->operands[v.inst->tuple_index];
    } else {
      v = ValueRef{x, v.inst->tuple_index};
    }
  }
  return v;
}

const Shape& ValueRef::shape() const {
  if (index < 0 || !inst->shape.IsTuple() || index >= static_cast<int64_t>(inst->shape.tuple_shapes().size()))
    return inst->shape;
  return inst->shape.tuple_shapes()[index];
}

std::string ValueRef::ToString() const {
  return "%" + inst->name + (index >= 0 ? "." + std::to_string(index) : "");
}

}  // namespace vkxla
