// A tridiagonal system A x = b solved as LAPACK's gtsv does, built from HLO
// ops: what jaxlib's lapack_?gtsv_ffi and cuSPARSE's gtsv2 compute for
// jax.lax.linalg.tridiagonal_solve. Gaussian elimination with partial
// pivoting between adjacent rows (a second superdiagonal filled in where
// rows swap), then back substitution: two while loops over the rows on
// whole batched arrays with masks.
#pragma once

#include "frontends/array_ops.h"

namespace vkxla {

struct TridiagonalSolution {
  Instruction* x = nullptr;     // [..., n, k]
  Instruction* info = nullptr;  // s32[...]: 0, or the 1-based row of the first zero pivot
};

// dl, d, du: [..., n] (JAX's layout: dl[0] and du[n-1] are not read),
// b: [..., n, k]; f32, f64, c64 or c128.
StatusOr<TridiagonalSolution> BuildTridiagonalSolve(Instruction* dl, Instruction* d, Instruction* du, Instruction* b,
                                                    const ComputationBuilders& builders);

}  // namespace vkxla
