// The custom calls that stand for linear algebra, read as the HLO ops that
// compute it or the decompositions built of them:
// - XLA's own: Qr, ProductOfElementaryHouseholderReflectors,
//   LuDecomposition, Eigh;
// - jaxlib's CPU kernels (a module exported on a CPU): lapack_?potrf[_ffi]
//   -> cholesky (info 1 where the factor holds a NaN, as LAPACK reports a
//   matrix that is not positive definite), blas_?trsm and lapack_?trsm_ffi
//   -> triangular-solve (b scaled by alpha), lapack_?getrf[_ffi] -> LU with
//   partial pivoting (frontends/lu_decomposition.h), lapack_?geqrf/orgqr
//   [_ffi] -> Householder QR (frontends/qr_decomposition.h),
//   lapack_?syevd[_ffi] -> Jacobi eigendecomposition
//   (frontends/eigh_decomposition.h), lapack_?gesdd[_ffi] -> one-sided
//   Jacobi SVD (frontends/svd_decomposition.h), lapack_?gtsv_ffi ->
//   tridiagonal elimination with pivoting (frontends/tridiagonal_solve.h),
//   lapack_?gees[_ffi] -> Hessenberg and shifted QR steps, a real matrix's
//   by double shifts to its quasi-triangular form
//   (frontends/schur_decomposition.h), lapack_?geev[_ffi] -> the complex
//   form's eigenvectors (frontends/eig_decomposition.h), lapack_?gehrd[_ffi]
//   and ?sytrd_ffi/?hetrd_ffi (lower) -> Householder reductions in LAPACK's
//   packed forms (frontends/hessenberg_reduction.h);
// - jaxlib's GPU kernels (a module exported on a GPU), which compute the
//   same with attributes as booleans: cusolver_/hipsolver_potrf_ffi,
//   getrf_ffi, geqrf_ffi, orgqr_ffi, syevd_ffi and sytrd_ffi (lower), gesvd_ffi
//   (full_matrices, compute_uv, transposed: vt before u; hipSOLVER's
//   gesdd_ffi likewise), gesvdj_ffi (V, not its adjoint), geev_ffi (left,
//   right; a real matrix's vectors packed as LAPACK packs them), cuSPARSE's
//   gtsv2_ffi; older exports' geqrf, orgqr, syevd and syevj (and cuBLAS's
//   geqrf_batched), whose attributes are an opaque descriptor (the fill
//   mode read from it); and the pivots-to-permutation kernels.
// Their operand_layouts only say how the kernels take the memory.
#pragma once

#include <string>
#include <vector>

#include "frontends/xla_custom_calls.h"

namespace vkxla {

bool IsLinalgCustomCall(const std::string& target);

// The values the call gives, one per result.
StatusOr<std::vector<Instruction*>> LowerLinalgCustomCall(const ExpandedCustomCall& c, const HloMaker& make, const ConstantMaker& constant);

}  // namespace vkxla
