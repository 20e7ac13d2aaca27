// LU decomposition with partial pivoting, as LAPACK's getrf gives it, built
// from HLO ops: what jaxlib's lapack_?getrf kernels compute for a module
// exported on a CPU (jnp.linalg.lu, solve, inv, det). A while loop over the
// k = min(m, n) columns: pick the row of largest magnitude at or below the
// diagonal (the first on ties, as idamax), swap it into place, scale the
// column below by the reciprocal of the pivot, update the trailing matrix.
// Every step works on whole batched arrays with masks, so batches share it.
#pragma once

#include <functional>

#include "frontends/array_ops.h"
#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

struct LuFactors {
  Instruction* lu = nullptr;     // L below the diagonal (unit diagonal implied), U on and above
  Instruction* pivots = nullptr;  // s32[..., k]: row swapped with row j at step j, 1-based (LAPACK's ipiv)
  Instruction* info = nullptr;    // s32[...]: 0, or the 1-based step of the first zero pivot
};

// `a`: f32, f64, c64 or c128, [..., m, n].
StatusOr<LuFactors> BuildLuDecomposition(Instruction* a, const ComputationBuilders& b);

// The permutation s32[..., size] the row swaps `pivots` s32[..., k] make of
// the identity, in order (0-based: row j swapped with row pivots[j]; a
// pivot outside [0, size) swaps nothing, as jaxlib's kernels do).
StatusOr<Instruction*> BuildPivotsToPermutation(Instruction* pivots, int64_t size, const ComputationBuilders& b);

}  // namespace vkxla
