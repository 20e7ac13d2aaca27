// Singular value decomposition A = U diag(s) V^H by one-sided Jacobi
// rotations (Hestenes), built from HLO ops: what jaxlib's lapack_?gesdd
// and the GPU solvers' gesvd compute for a module exported with
// jnp.linalg.svd. A while loop rotates n / 2 disjoint column pairs a trip
// in the round-robin order (frontends/jacobi_rotation.h) until a sweep
// leaves every pair of columns of W = A V orthogonal (at most 30 sweeps);
// a complex pair first gets a real inner product by a phase on one column.
// The singular values are W's column norms, descending, and U W's columns
// scaled to unit length, completed to an orthonormal basis by a Householder
// QR (full matrices, zero singular values). A wide matrix is decomposed
// through its adjoint. The signs (phases) of singular vectors, and the
// basis of a repeated singular value's space, are the algorithm's own:
// they need not be LAPACK's.
#pragma once

#include "frontends/array_ops.h"

namespace vkxla {

struct SvdFactors {
  Instruction* values = nullptr;  // [..., k] of the real type, k = min(m, n), descending, >= 0
  Instruction* u = nullptr;       // [..., m, m] (full) or [..., m, k]; null without vectors
  Instruction* vt = nullptr;      // [..., n, n] (full) or [..., k, n]; null without vectors
};

// The most columns (of the matrix or its adjoint, the fewer) the rotations
// take: each of the up to 30 (n - 1) loop trips multiplies by n x n matrices.
inline constexpr int64_t kMaxSvdOrder = 1024;

// `a`: f32, f64, c64 or c128 [..., m, n], min(m, n) at most kMaxSvdOrder.
StatusOr<SvdFactors> BuildSvd(Instruction* a, bool compute_uv, bool full_matrices, const ComputationBuilders& b);

}  // namespace vkxla
