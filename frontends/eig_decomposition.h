// Eigenvalues and eigenvectors of a general square matrix, as LAPACK's
// geev gives them, built from HLO ops: what jaxlib's lapack_?geev computes
// for a module exported on a CPU (jnp.linalg.eig). In complex arithmetic
// throughout: the complex Schur decomposition A = Z T Z^H
// (frontends/schur_decomposition.h); the eigenvectors of T by substitution
// (a loop over its rows), times Z, each scaled to unit length with its
// largest component real, as LAPACK scales them. The eigenvalues come in
// the order of T's diagonal, which need not be LAPACK's; those of a real
// matrix whose imaginary part is rounding are made real, with real
// eigenvectors.
#pragma once

#include "frontends/schur_decomposition.h"

namespace vkxla {

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
