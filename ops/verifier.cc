#include "ops/verifier.h"

#include <set>

#include "ir/layout_index.h"
#include "ops/shape_inference.h"

namespace vkxla {
namespace {

Status WithLocation(const Instruction& inst, const Status& s) {
  if (s.ok() || inst.location.line == 0) return s;
  return Status(s.code(), inst.location.ToString() + ": " + s.message());
}

}  // namespace

Status VerifyComputation(const Computation& c) {
  std::set<int64_t> params;
  for (const auto& inst : c.instructions()) {
    if (inst->opcode == Opcode::kParameter && !params.insert(inst->parameter_number).second)
      return WithLocation(*inst, InvalidArgument("parameter " + inst->Describe() + ": parameter number " +
                                                 std::to_string(inst->parameter_number) + " is used twice in " +
                                                 c.name()));
    // Readers check shapes as they read them; a module built in code (the
    // builders) gets the same bounds here.
    if (Status bounded = CheckShapeBounds(inst->shape); !bounded.ok())
      return WithLocation(*inst, Status(bounded.code(), std::string(OpcodeName(inst->opcode)) + " " + inst->Describe() +
                                                            ": " + bounded.message()));
    if (inst->shape.IsArray() && inst->shape.has_layout()) {
      // A layout the parser accepted may still not fit the element type
      // (E(n)) or have too many tile dimensions for a later tiling level.
      Status placed = PhysicalByteSize(inst->shape).status();
      if (!placed.ok())
        return WithLocation(*inst, Status(placed.code(), std::string(OpcodeName(inst->opcode)) + " " +
                                                             inst->Describe() + ": " + placed.message()));
    }
    StatusOr<Shape> inferred = InferShape(*inst);
    if (!inferred.ok()) return WithLocation(*inst, inferred.status());
    if (!inferred->Compatible(inst->shape))
      return WithLocation(*inst, InvalidArgument(std::string(OpcodeName(inst->opcode)) + " " + inst->Describe() +
                                                 ": declared shape " + inst->shape.ToString() +
                                                 " does not match the shape its operands give, " +
                                                 inferred->ToString()));
  }
  int64_t expected = 0;
  for (int64_t p : params) {
    if (p != expected)
      return InvalidArgument("computation " + c.name() + ": parameter numbers must be 0.." +
                             std::to_string(params.size() - 1) + ", missing " + std::to_string(expected));
    ++expected;
  }
  return OkStatus();
}

Status VerifyModule(const Module& module) {
  if (!module.entry()) return InvalidArgument("module " + module.name() + " has no entry computation");
  for (const auto& c : module.computations()) VKXLA_RETURN_IF_ERROR(VerifyComputation(*c));
  return OkStatus();
}

}  // namespace vkxla
