// LAPACK's elementary reflector (dlarfg/zlarfg), built from HLO ops over a
// batch of vectors: H^H [alpha; tail] = [beta; 0] with H = I - tau v v^H,
// beta real, v's first entry 1. The QR decomposition reflects each column
// from its diagonal down, the Hessenberg reduction from below it.
#pragma once

#include "frontends/array_ops.h"

namespace vkxla {

struct Reflector {
  Instruction* alpha = nullptr;     // [...]: the entry at `pivot`
  Instruction* beta = nullptr;      // [...], of the vector's type, real valued
  Instruction* tau = nullptr;       // [...], 0 where nothing is reflected
  Instruction* reflects = nullptr;  // pred [...]: the tail is not zero, or alpha not real
  Instruction* v = nullptr;         // [..., m]: 0 above `pivot`, 1 at it, the scaled tail below
};

// The reflector of `column` [..., m] (frame f's col_dims) from row `pivot`
// (an s32 scalar) down; `add` and `add_real` add over the type and its
// real type, `max_real` takes the larger of two of the real type.
Reflector HouseholderReflector(ArrayOps& o, const MatrixFrame& f, Instruction* column, Instruction* pivot, Computation* add,
                               Computation* add_real, Computation* max_real);

}  // namespace vkxla
