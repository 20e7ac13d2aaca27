// Classification of opcodes the shape rules, the evaluator and the code
// generator share, so each decides "is this elementwise?" the same way.
#pragma once

#include "ir/opcode.h"

namespace vkxla {

bool IsElementwiseUnary(Opcode op);   // abs, cos, convert, ...
bool IsElementwiseBinary(Opcode op);  // add, compare, atan2, complex, ...
bool IsElementwiseTernary(Opcode op); // select, clamp
// add, multiply, maximum, minimum, and, or, xor: ops a reduction or scan
// may regroup and reorder without being told.
bool IsAssociativeAndCommutative(Opcode op);
inline bool IsElementwise(Opcode op) {
  return IsElementwiseUnary(op) || IsElementwiseBinary(op) || IsElementwiseTernary(op);
}
// Transcendental ops that accept result_accuracy.
bool AcceptsResultAccuracy(Opcode op);

}  // namespace vkxla
