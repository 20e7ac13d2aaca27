// The Schur decomposition A = Z T Z^H of a square matrix, as LAPACK's gees
// gives it, built from HLO ops: what jaxlib's lapack_?gees computes for a
// module exported on a CPU (jax.scipy.linalg.schur), and the start of the
// eigendecomposition (frontends/eig_decomposition.h). A Householder
// reduction to Hessenberg form, then a while loop of shifted QR steps on
// the whole matrix, each batch member at its own pace, eigenvalues
// deflated off the bottom of the part not yet converged:
// - complex: one Wilkinson shift a step (x - mu I = Q R, x <- R Q + mu I),
//   T upper triangular;
// - real: Francis' double shift made explicit (the QR decomposition of
//   x^2 - s x + t I, s and t the trailing 2x2's trace and determinant, so
//   a conjugate pair needs no complex arithmetic), deflating one row or a
//   2x2 block at a time; T quasi-triangular, each 2x2 block then put in
//   LAPACK's standard form (dlanv2: a complex pair's block with equal
//   diagonal and off-diagonal entries of opposite signs; a real pair's
//   block made triangular).
// Both fall back to an exceptional shift after ten steps without a
// deflation, as LAPACK's lahqr does.
#pragma once

#include "frontends/array_ops.h"

namespace vkxla {

// The order past which the QR steps (each a QR decomposition, 2 n loop
// trips; about 3 n steps) would run for too long: a 64 x 64 c64 takes 13 s
// on lavapipe.
inline constexpr int64_t kMaxEigOrder = 64;

struct SchurFactors {
  Instruction* t = nullptr;       // [..., n, n]: upper triangular (complex) or quasi-triangular (real)
  Instruction* z = nullptr;       // [..., n, n], unitary (orthogonal): A = Z T Z^H
  Instruction* values = nullptr;  // complex [..., n]: the eigenvalues in T's order (a real pair's, positive imaginary part first)
  Instruction* info = nullptr;    // s32[...]: 0, or the order of the part that did not converge
};

// `a`: f32, f64, c64 or c128 [..., n, n], n at most kMaxEigOrder.
StatusOr<SchurFactors> BuildSchurDecomposition(Instruction* a, const ComputationBuilders& b);

}  // namespace vkxla
