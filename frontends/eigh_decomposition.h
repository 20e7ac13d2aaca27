// Symmetric (Hermitian) eigendecomposition by Jacobi rotations, built from
// HLO ops: what jaxlib's lapack_?syevd (and ?heevd) computes for a module
// exported on a CPU (jnp.linalg.eigh), and XLA's Eigh custom call. A while
// loop rotates n / 2 disjoint pairs a trip in the round-robin order
// (frontends/jacobi_rotation.h), each rotation zeroing a[p, q] (a complex
// one first made real by a phase on its row and column), until a sweep
// needs no rotation (at most 30 sweeps); the eigenvalues come out ascending
// and real, the eigenvectors (columns, unit length) with them. An
// eigenvector's sign, and the basis of a repeated eigenvalue's space, are
// the algorithm's own: they need not be LAPACK's.
#pragma once

#include "frontends/array_ops.h"

namespace vkxla {

struct EighFactors {
  Instruction* vectors = nullptr;  // [..., n, n], column j for eigenvalue j
  Instruction* values = nullptr;   // [..., n] of the real type, ascending
};

// The largest order: each of the up to 30 (n - 1) loop trips multiplies
// n x n matrices twice.
inline constexpr int64_t kMaxEighOrder = 1024;

// `a`: f32, f64, c64 or c128 [..., n, n], n at most kMaxEighOrder; only
// the triangle `lower` names is read.
StatusOr<EighFactors> BuildEighDecomposition(Instruction* a, bool lower, const ComputationBuilders& b);

}  // namespace vkxla
