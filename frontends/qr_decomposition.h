// QR decomposition by Householder reflections, as LAPACK's geqrf gives it,
// and the product of those reflections, as orgqr gives it, built from HLO
// ops: what jaxlib's lapack_?geqrf and lapack_?orgqr compute for a module
// exported on a CPU (jnp.linalg.qr), and XLA's Qr and
// ProductOfElementaryHouseholderReflectors custom calls. While loops over
// the columns on whole batched arrays with masks; real and complex types
// (zgeqrf's reflectors: a real diagonal of R, H = I - tau v v^H).
#pragma once

#include "frontends/lu_decomposition.h"

namespace vkxla {

struct QrFactors {
  // R on and above the diagonal; below it, each column's reflector v
  // (its leading 1 implied): LAPACK's packed form.
  Instruction* packed = nullptr;
  Instruction* taus = nullptr;  // [..., min(m, n)]: H = I - tau v v^H
};

// `a`: f32, f64, c64 or c128, [..., m, n].
StatusOr<QrFactors> BuildQrDecomposition(Instruction* a, const ComputationBuilders& b);

// Q's first n columns (orgqr): the product H(0) ... H(k-1) of the
// reflectors `packed` [..., m, n] (n <= m) and `taus` [..., k] (k <= n) hold.
StatusOr<Instruction*> BuildHouseholderProduct(Instruction* packed, Instruction* taus, const ComputationBuilders& b);

}  // namespace vkxla
