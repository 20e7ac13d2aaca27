// Singular value decomposition A = U diag(s) V^H by one-sided Jacobi
// rotations (Hestenes), built from HLO ops: what jaxlib's lapack_?gesdd
// and the GPU solvers' gesvd compute for a module exported with
// jnp.linalg.svd. A while loop of fixed sweeps over every column pair
// (p, q) rotates the columns of W = A V until they are orthogonal, on whole
// batched arrays with masks; the singular values are W's column norms, in
// descending order, and U W's columns scaled to unit length, completed to an
// orthonormal basis by a Householder QR (full matrices, zero singular
// values). A complex pair of columns is first made to have a real inner
// product by a phase on one. A wide matrix is decomposed through its
// adjoint. The signs (phases) of
// singular vectors, and the basis of a repeated singular value's space, are
// the algorithm's own: they need not be LAPACK's.
#pragma once

#include "frontends/array_ops.h"

namespace vkxla {

struct SvdFactors {
  Instruction* values = nullptr;  // [..., k] of the real type, k = min(m, n), descending, >= 0
  Instruction* u = nullptr;       // [..., m, m] (full) or [..., m, k]; null without vectors
  Instruction* vt = nullptr;      // [..., n, n] (full) or [..., k, n]; null without vectors
};

// The most columns (of the matrix or its transpose, the fewer) the
// rotations take: n (n - 1) / 2 loop trips a sweep.
inline constexpr int64_t kMaxSvdOrder = 64;

// `a`: f32, f64, c64 or c128 [..., m, n], min(m, n) at most kMaxSvdOrder.
StatusOr<SvdFactors> BuildSvd(Instruction* a, bool compute_uv, bool full_matrices, const ComputationBuilders& b);

}  // namespace vkxla
