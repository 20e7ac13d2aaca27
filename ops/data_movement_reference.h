// Reference semantics of the ops that only move elements: reshape,
// transpose, reverse, slice, concatenate and pad. Each result element is a
// copy of one operand element (or the padding value), found by an index map.
#pragma once

#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

bool IsDataMovement(Opcode op);
StatusOr<Literal> EvaluateDataMovement(const Instruction& inst, const std::vector<const Literal*>& operands);

}  // namespace vkxla
