#include "frontends/async_collectives.h"

namespace vkxla {
namespace {

Status AsyncError(const Instruction& inst, const std::string& m) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": " + m);
}

// The value a start's done gives: all-reduce-start's own shape; element 1
// of the others' (operands, results, contexts...) tuples.
StatusOr<Shape> DoneValue(const Instruction& start) {
  if (start.opcode == Opcode::kAllReduceStart) return start.shape;
  if (!start.shape.IsTuple() || start.shape.tuple_shapes().size() < 2)
    return AsyncError(start, "its shape must be a tuple (operands, results, ...), got " + start.shape.ToString());
  return start.shape.tuple_shapes()[1];
}

}  // namespace

bool IsAsyncDoneOpcode(Opcode op) {
  return op == Opcode::kAllReduceDone || op == Opcode::kAllGatherDone || op == Opcode::kCollectivePermuteDone ||
         op == Opcode::kAsyncUpdate || op == Opcode::kAsyncDone;
}

Status MakeAsyncCollectivesSynchronous(Module& module) {
  // Only dones and updates may read a start (they pass its value on).
  for (const auto& computation : module.computations())
    for (const auto& owned : computation->instructions())
      if (!IsAsyncDoneOpcode(owned->opcode))
        for (const Instruction* o : owned->operands)
          if (o->opcode == Opcode::kAllReduceStart || o->opcode == Opcode::kAllGatherStart ||
              o->opcode == Opcode::kCollectivePermuteStart || o->opcode == Opcode::kAsyncStart)
            return AsyncError(*owned, "reads " + o->Describe() + ", which only its done may read");
  for (const auto& computation : module.computations()) {
    for (const auto& owned : computation->instructions()) {
      Instruction& inst = *owned;
      Opcode sync;
      switch (inst.opcode) {
        case Opcode::kAllReduceStart: sync = Opcode::kAllReduce; break;
        case Opcode::kAllGatherStart: sync = Opcode::kAllGather; break;
        case Opcode::kCollectivePermuteStart: sync = Opcode::kCollectivePermute; break;
        case Opcode::kAsyncStart: sync = Opcode::kCall; break;
        default: continue;
      }
      VKXLA_ASSIGN_OR_RETURN(Shape value, DoneValue(inst));
      if (inst.opcode == Opcode::kAsyncStart) {
        // async-start(...), calls=c: a call of c.
        bool found = false;
        for (auto& [key, c] : inst.called_computations)
          if (key == "calls") {
            key = "to_apply";
            found = true;
          }
        if (!found) return AsyncError(inst, "needs calls=COMPUTATION");
      }
      inst.opcode = sync;
      inst.shape = value;
    }
  }
  // Dones now read the value itself.
  for (const auto& computation : module.computations())
    for (const auto& owned : computation->instructions()) {
      Instruction& inst = *owned;
      if (!IsAsyncDoneOpcode(inst.opcode)) continue;
      if (inst.operands.size() != 1) return AsyncError(inst, "takes one operand, its start");
      if (!inst.operands[0]->shape.Compatible(inst.shape) && !(inst.operands[0]->shape.dims() == inst.shape.dims() &&
                                                               inst.operands[0]->shape.element_type() == inst.shape.element_type()))
        return AsyncError(inst, "gives " + inst.shape.ToString() + " but its start's value is " + inst.operands[0]->shape.ToString());
    }
  return OkStatus();
}

}  // namespace vkxla
