// Eigenvalues and eigenvectors of a general square matrix, as LAPACK's
// geev gives them, built from HLO ops: what jaxlib's lapack_?geev computes
// for a module exported on a CPU (jnp.linalg.eig), and the complex Schur
// decomposition (?gees) on the way. In complex arithmetic throughout: a
// Householder reduction to Hessenberg form, then a while loop of shifted QR
// steps (each a QR decomposition of the whole matrix, kept Hessenberg) (Wilkinson's shift from the trailing 2x2
// of the part not yet converged, an exceptional shift after ten steps
// without progress, one eigenvalue deflated off the bottom at a time, each
// batch member on its own) makes A = Z T Z^H with T upper triangular; the
// eigenvectors of T come by substitution (a loop over its rows), times Z,
// each scaled to unit length with its largest component real, as LAPACK
// scales them. The eigenvalues come in the order of T's diagonal, which
// need not be LAPACK's; those of a real matrix whose imaginary part is
// rounding are made real, with real eigenvectors.
#pragma once

#include "frontends/array_ops.h"

namespace vkxla {

// The order past which the QR steps (each a QR decomposition, 2 n loop
// trips; about 3 n steps) would run for too long: a 64 x 64 takes 13 s on
// lavapipe.
inline constexpr int64_t kMaxEigOrder = 64;

struct SchurFactors {
  Instruction* t = nullptr;     // complex [..., n, n], upper triangular
  Instruction* z = nullptr;     // complex [..., n, n], unitary: A = Z T Z^H
  Instruction* info = nullptr;  // s32[...]: 0, or the order of the part that did not converge
};

// `a`: c64 or c128 [..., n, n], n at most kMaxEigOrder.
StatusOr<SchurFactors> BuildComplexSchur(Instruction* a, const ComputationBuilders& b);

struct EigFactors {
  Instruction* values = nullptr;  // complex [..., n]
  Instruction* left = nullptr;    // complex [..., n, n], column j: u_j^H A = values_j u_j^H; null unless asked
  Instruction* right = nullptr;   // complex [..., n, n], column j: A v_j = values_j v_j; null unless asked
  Instruction* info = nullptr;    // s32[...]
};

// `a`: f32, f64, c64 or c128 [..., n, n], n at most kMaxEigOrder. A real
// matrix's complex eigenvalues come as LAPACK gives them: each next to its
// exact conjugate (the one with the positive imaginary part first), their
// vectors conjugates too.
StatusOr<EigFactors> BuildEigDecomposition(Instruction* a, bool left, bool right, const ComputationBuilders& b);

// A real matrix's complex eigenvectors `v` [..., n, n] (paired as
// BuildEigDecomposition pairs them) in LAPACK's packed real form: a real
// eigenvalue's vector as it is, a conjugate pair's as the real and the
// imaginary part of the first one's.
Instruction* PackRealEigenvectors(ArrayOps& o, Instruction* v, Instruction* values);

}  // namespace vkxla
