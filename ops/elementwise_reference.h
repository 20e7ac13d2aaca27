// The reference semantics of every elementwise op on one element, written
// from the spec (operation_semantics + StableHLO), not from the shaders.
// Floats compute in double and round once to the result type.
#pragma once

#include "ir/instruction.h"
#include "ir/scalar.h"

namespace vkxla {

// `inst` supplies the opcode and attributes; operands are the element values
// in operand order; result_type is inst.shape's element type.
Scalar EvaluateElementwise(const Instruction& inst, const Scalar* operands, ElementType result_type);

// Comparison with XLA's rules (IEEE or total order, signed or unsigned).
bool CompareScalars(ComparisonDirection dir, ComparisonType type, const Scalar& a, const Scalar& b);

}  // namespace vkxla
