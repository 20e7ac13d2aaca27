// Symmetric (Hermitian) eigendecomposition by cyclic Jacobi rotations,
// built from HLO ops: what jaxlib's lapack_?syevd (and ?heevd) computes for a module exported on a CPU
// (jnp.linalg.eigh) and XLA's Eigh custom call. A while loop runs a fixed
// number of sweeps over every (p, q) pair, each rotation zeroing a[p, q]
// on whole batched arrays with masks (a complex one first made real by a
// phase on its row and column); the eigenvalues come out ascending and real,
// the eigenvectors (columns, unit length) with them. An eigenvector's sign,
// and the basis of a repeated eigenvalue's space, are the algorithm's own:
// they need not be LAPACK's.
#pragma once

#include "frontends/array_ops.h"

namespace vkxla {

struct EighFactors {
  Instruction* vectors = nullptr;  // [..., n, n], column j for eigenvalue j
  Instruction* values = nullptr;   // [..., n] of the real type, ascending
};

// `a`: f32, f64, c64 or c128 [..., n, n], n at most 64; only the triangle
// `lower` names is read.
StatusOr<EighFactors> BuildEighDecomposition(Instruction* a, bool lower, const ComputationBuilders& b);

}  // namespace vkxla
