// LAPACK's eigenvalue drivers (syevd, gees, geev) first scale a matrix
// whose largest entry lies outside [sqrt(safmin / eps), its inverse] (f32:
// about 3e-16 to 3e15): the squares and products of their rotations and
// shifts would underflow or overflow, and their negligibility tests lose
// meaning. A matrix in range is left exactly as it is.
#pragma once

#include "frontends/array_ops.h"

namespace vkxla {

struct RangeScaling {
  Instruction* scaled = nullptr;  // a / factor
  Instruction* factor = nullptr;  // real [...]: the largest |part| of an entry where out of range, else 1
  Instruction* finite = nullptr;  // pred [...]: no entry is NaN or infinite
};

// `a`: f32, f64, c64 or c128 [..., m, n].
RangeScaling ScaleIntoRange(ArrayOps& o, Instruction* a, const ComputationBuilders& b);

// v [..., more] (the batch dims first) times the factor of its matrix.
Instruction* ScaledBack(ArrayOps& o, Instruction* v, Instruction* factor);

}  // namespace vkxla
