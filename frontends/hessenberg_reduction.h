// A = Q H Q^H with H upper Hessenberg, as LAPACK's gehrd gives it, built
// from HLO ops: a while loop of n - 1 Householder reflections (zlarfg's:
// a real beta on the subdiagonal, H(j) = I - tau v v^H with v's 1 at row
// j + 1), each applied from both sides on whole batched arrays with masks.
// On a Hermitian matrix H is tridiagonal: LAPACK's sytrd/hetrd (lower).
// jaxlib's lapack_?gehrd_ffi (jax.lax.linalg.hessenberg) and ?sytrd_ffi
// (jax.lax.linalg.tridiagonal) read it in LAPACK's packed form; the
// eigendecomposition (frontends/eig_decomposition.h) starts from it.
#pragma once

#include "frontends/array_ops.h"

namespace vkxla {

struct HessenbergFactors {
  Instruction* h = nullptr;           // [..., n, n], zero below the subdiagonal
  Instruction* q = nullptr;           // [..., n, n], unitary: H(0) ... H(n - 2)
  Instruction* reflectors = nullptr;  // [..., n, n]: column j holds v below row j + 1, zero elsewhere
  Instruction* taus = nullptr;        // [..., n - 1]
};

// `a`: f32, f64, c64 or c128 [..., n, n].
StatusOr<HessenbergFactors> BuildHessenbergReduction(Instruction* a, const ComputationBuilders& b);

}  // namespace vkxla
