#include "frontends/linalg_custom_calls.h"

#include <algorithm>

#include "frontends/custom_call_results.h"
#include "frontends/eig_decomposition.h"
#include "frontends/eigh_decomposition.h"
#include "frontends/frontend_attributes.h"
#include "frontends/hessenberg_reduction.h"
#include "frontends/schur_decomposition.h"
#include "frontends/qr_decomposition.h"
#include "frontends/svd_decomposition.h"
#include "frontends/tridiagonal_solve.h"
#include "ops/cholesky.h"
#include "ops/triangular_solve.h"

namespace vkxla {
namespace {

// A jaxlib kernel for linear algebra: LAPACK's and BLAS's on a CPU
// (lapack_?getrf[_ffi], blas_?trsm[_ffi], ? one of s, d, c, z), cuSOLVER's,
// hipSOLVER's and oneMKL's FFI kernels on a GPU (cusolver_getrf_ffi,
// hipsolver_..., oneapisolver_...: the same operands and attributes).
struct LinalgKernel {
  std::string name;  // getrf_ffi, trsm, ...; empty where the target is none
  bool gpu = false;  // attributes are booleans (lower, full_matrices), not LAPACK's letters
};

LinalgKernel FindLinalgKernel(const std::string& target) {
  for (const char* family : {"lapack_", "blas_"}) {
    const std::string f = family;
    if (target.rfind(f, 0) != 0 || target.size() < f.size() + 1 || std::string("sdcz").find(target[f.size()]) == std::string::npos)
      continue;
    std::string rest = target.substr(f.size() + 1);
    // The complex kernels' names: ?ungqr for orgqr, ?heevd for syevd.
    if (rest.rfind("ungqr", 0) == 0) rest = "orgqr" + rest.substr(5);
    if (rest.rfind("heevd", 0) == 0) rest = "syevd" + rest.substr(5);
    if (rest.rfind("hetrd", 0) == 0) rest = "sytrd" + rest.substr(5);
    for (const char* k : {"potrf", "potrf_ffi", "trsm_ffi", "getrf", "getrf_ffi", "geqrf", "geqrf_ffi", "orgqr", "orgqr_ffi", "syevd",
                          "syevd_ffi", "gesdd", "gesdd_ffi", "gtsv_ffi", "geev", "geev_ffi", "gees", "gees_ffi",
                          "gehrd", "gehrd_ffi", "sytrd_ffi"})
      if (f == "lapack_" && rest == k) return {rest, false};
    if (f == "blas_" && (rest == "trsm" || rest == "trsm_ffi")) return {rest, false};  // jaxlib writes blas_?trsm_ffi
  }
  if (target == "cusparse_gtsv2_ffi" || target == "hipsparse_gtsv2_ffi") return {"gtsv2_ffi", true};
  // The GPU kernels of older exports: their attributes an opaque descriptor.
  if (target == "cublas_geqrf_batched" || target == "hipblas_geqrf_batched") return {"gpu_legacy_geqrf", true};
  for (const char* family : {"cusolver_", "hipsolver_", "rocsolver_", "oneapisolver_"}) {
    const std::string f = family;
    if (target.rfind(f, 0) != 0) continue;
    const std::string rest = target.substr(f.size());
    // hipSOLVER's gesdd takes gesvd's attributes and gives its results.
    if (rest == "gesdd_ffi") return {"gesvd_ffi", true};
    for (const char* k : {"potrf_ffi", "getrf_ffi", "geqrf_ffi", "orgqr_ffi", "syevd_ffi", "gesvd_ffi", "gesvdj_ffi", "sytrd_ffi", "geev_ffi"})
      if (rest == k) return {rest, true};
    for (const char* k : {"geqrf", "orgqr", "syevd", "syevj"})
      if (rest == k) return {"gpu_legacy_" + rest, true};
  }
  return {};
}

// The bytes of an opaque backend_config as MLIR writes them ("\00z\01":
// hex escapes and plain characters).
std::vector<uint8_t> OpaqueBytes(const std::string& raw) {
  const size_t begin = raw.find('"'), end = raw.rfind('"');
  if (begin == std::string::npos || end <= begin) return {};
  const std::string bytes = UnescapeOnce(std::string_view(raw).substr(begin + 1, end - begin - 1));
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

// 1 where a batch member's factor holds a NaN (LAPACK's info: not positive
// definite), else 0, over the leading dims of `l`.
Instruction* CholeskyInfo(Instruction* l, const Shape& info, const HloMaker& make, const ConstantMaker& constant, Computation* logical_or) {
  const Shape& s = l->shape;
  std::vector<int64_t> batch(s.dims().begin(), s.dims().end() - 2);
  Instruction* nan = make(Opcode::kCompare, Shape(ElementType::kPred, s.dims()), {l, l});
  nan->direction = ComparisonDirection::kNe;
  Literal f(Shape::Scalar(ElementType::kPred));
  Instruction* any = make(Opcode::kReduce, Shape(ElementType::kPred, batch), {nan, constant(std::move(f))});
  any->dimensions = std::vector<int64_t>{s.rank() - 2, s.rank() - 1};
  any->called_computations.emplace_back("to_apply", logical_or);
  return make(Opcode::kConvert, Shape(info.element_type(), batch), {any});
}

StatusOr<std::vector<Instruction*>> LowerLinalg(const ExpandedCustomCall& c, const LinalgKernel& k, const HloMaker& make,
                                                const ConstantMaker& constant, const std::function<Computation*()>& logical_or) {
  const std::string& kernel = k.name;
  auto it = c.attributes.find("mhlo.backend_config");
  const std::string dict = it == c.attributes.end() ? std::string() : it->second;
  auto config = [&](const char* key) { return DictInteger(dict, key); };
  auto boolean = [&](const char* key, bool otherwise) { return DictBool(dict, key).value_or(otherwise); };
  auto flag = [&](size_t i) -> StatusOr<int64_t> {
    VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> v, c.integers(i));
    if (v.size() != 1) return CustomCallError(c, "operand " + std::to_string(i) + " must be one integer");
    return v[0];
  };
  // Which triangle a kernel reads: the FFI form's uplo ('L' or 'U'; a GPU
  // kernel's lower), the legacy form's first operand.
  auto lower_triangle = [&](bool ffi) -> StatusOr<bool> {
    if (k.gpu) return boolean("lower", true);
    if (ffi) return config("uplo").value_or('L') == 'L';
    VKXLA_ASSIGN_OR_RETURN(int64_t l, flag(0));
    return l != 0;
  };
  if (kernel == "potrf" || kernel == "potrf_ffi") {
    // Legacy (lower, batch, n, a); FFI (a) with uplo 'L' or 'U'.
    const bool ffi = kernel == "potrf_ffi";
    if (c.operands.size() != (ffi ? 1u : 4u) || c.result_types.size() != 2) return CustomCallError(c, "takes a matrix and gives its factor and info");
    VKXLA_ASSIGN_OR_RETURN(const bool lower, lower_triangle(ffi));
    Instruction* a = c.operands.back();
    if (!a->shape.IsArray() || a->shape.rank() < 2) return CustomCallError(c, "takes matrices, not " + a->shape.ToString());
    Instruction* l = make(Opcode::kCholesky, a->shape, {a});
    SetCholeskyLower(*l, lower);
    Instruction* info = CholeskyInfo(l, c.result_types[1], make, constant, logical_or());
    return std::vector<Instruction*>{l, info};
  }
  if (kernel == "syevd" || kernel == "syevd_ffi") {
    // Legacy (lower, batch, n, a) -> (v, w, info, work, iwork); FFI (a) with uplo -> (v, w, info).
    const bool ffi = kernel == "syevd_ffi";
    if (c.operands.size() != (ffi ? 1u : 4u)) return CustomCallError(c, "takes a symmetric matrix");
    VKXLA_ASSIGN_OR_RETURN(const bool lower, lower_triangle(ffi));
    VKXLA_ASSIGN_OR_RETURN(EighFactors e, BuildEighDecomposition(c.operands.back(), lower, c.builders));
    return WrittenResults(c, {e.vectors, e.values}, make, constant);
  }
  if (kernel == "geqrf" || kernel == "geqrf_ffi") {
    // Legacy (batch, m, n, lwork, a) -> (a, taus, info, workspace); FFI (a) -> (a, taus).
    if (c.operands.size() != (kernel == "geqrf" ? 5u : 1u)) return CustomCallError(c, "takes a matrix");
    VKXLA_ASSIGN_OR_RETURN(QrFactors qr, BuildQrDecomposition(c.operands.back(), c.builders));
    return WrittenResults(c, {qr.packed, qr.taus}, make, constant);
  }
  if (kernel == "orgqr" || kernel == "orgqr_ffi") {
    // Legacy (batch, m, n, k, lwork, a, taus) -> (q, info, workspace); FFI (a, taus) -> q.
    if (c.operands.size() != (kernel == "orgqr" ? 7u : 2u)) return CustomCallError(c, "takes the reflectors and their taus");
    VKXLA_ASSIGN_OR_RETURN(Instruction * q, BuildHouseholderProduct(c.operands[c.operands.size() - 2], c.operands.back(), c.builders));
    return WrittenResults(c, {q}, make, constant);
  }
  if (kernel == "gesdd" || kernel == "gesdd_ffi") {
    // Legacy (full_matrices, compute_uv, batch, m, n, lwork, a); FFI (a)
    // with mode 'A' (full), 'S' (thin) or 'N' (values only). Results: the
    // overwritten a, s, u, vt, info, then workspace.
    const bool ffi = kernel == "gesdd_ffi";
    if (c.operands.size() != (ffi ? 1u : 7u)) return CustomCallError(c, "takes a matrix");
    bool full = true, vectors = true;
    if (ffi) {
      const int64_t mode = config("mode").value_or('A');
      full = mode == 'A';
      vectors = mode != 'N';
    } else {
      VKXLA_ASSIGN_OR_RETURN(const int64_t f, flag(0));
      VKXLA_ASSIGN_OR_RETURN(const int64_t v, flag(1));
      full = f != 0;
      vectors = v != 0;
    }
    VKXLA_ASSIGN_OR_RETURN(SvdFactors svd, BuildSvd(c.operands.back(), vectors, full, c.builders));
    return WrittenResults(c, {nullptr, svd.values, svd.u, svd.vt}, make, constant);
  }
  if (kernel == "gesvd_ffi" || kernel == "gesvdj_ffi") {
    // cuSOLVER's and hipSOLVER's (a) with full_matrices and compute_uv ->
    // (a, s, u, vt, info); gesvd with `transposed` (a wide matrix) gives vt
    // before u, and gesvdj gives V itself, not its adjoint.
    if (c.operands.size() != 1) return CustomCallError(c, "takes a matrix");
    const bool vectors = boolean("compute_uv", true);
    VKXLA_ASSIGN_OR_RETURN(SvdFactors svd, BuildSvd(c.operands[0], vectors, boolean("full_matrices", true), c.builders));
    if (kernel == "gesvdj_ffi") {
      Instruction* v = nullptr;
      if (vectors) {
        ArrayOps o(make, constant);
        v = o.AdjointMatrix(svd.vt);
      }
      return WrittenResults(c, {nullptr, svd.values, svd.u, v}, make, constant);
    }
    if (boolean("transposed", false)) return WrittenResults(c, {nullptr, svd.values, svd.vt, svd.u}, make, constant);
    return WrittenResults(c, {nullptr, svd.values, svd.u, svd.vt}, make, constant);
  }
  if (kernel == "gtsv_ffi" || kernel == "gtsv2_ffi") {
    // (dl, d, du, b): LAPACK's -> (dl, d, du, x, info), cuSPARSE's -> x.
    if (c.operands.size() != 4) return CustomCallError(c, "takes three diagonals and a right-hand side");
    VKXLA_ASSIGN_OR_RETURN(TridiagonalSolution s, BuildTridiagonalSolve(c.operands[0], c.operands[1], c.operands[2], c.operands[3], c.builders));
    if (kernel == "gtsv2_ffi") return WrittenResults(c, {s.x}, make, constant);
    return WrittenResults(c, {nullptr, nullptr, nullptr, s.x, s.info}, make, constant);
  }
  if (kernel == "geev" || kernel == "geev_ffi") {
    // Legacy (batch, n, jobvl, jobvr, a); FFI (a) with compute_left and
    // compute_right ('V' or 'N'). Real: legacy (a, vl, vr work, wr, wi, vl,
    // vr, info), FFI (wr, wi, vl, vr, info, work...); complex: legacy (a,
    // rwork, w, vl, vr, info), FFI (w, vl, vr, info, work...). The
    // eigenvectors are complex either way (jaxlib unpacks LAPACK's pairs).
    const bool ffi = kernel == "geev_ffi";
    if (c.operands.size() != (ffi ? 1u : 5u)) return CustomCallError(c, "takes a matrix");
    bool left = true, right = true;
    if (k.gpu) {
      // cuSOLVER's (a) with left and right -> (a, w, vl, vr, info); a real
      // matrix's vectors in LAPACK's packed real form.
      Instruction* a = c.operands[0];
      VKXLA_ASSIGN_OR_RETURN(EigFactors e, BuildEigDecomposition(a, boolean("left", false), boolean("right", true), c.builders));
      if (IsComplex(a->shape.element_type())) return WrittenResults(c, {nullptr, e.values, e.left, e.right, e.info}, make, constant);
      ArrayOps o(make, constant);
      return WrittenResults(c, {nullptr, e.values, e.left ? PackRealEigenvectors(o, e.left, e.values) : nullptr,
                                e.right ? PackRealEigenvectors(o, e.right, e.values) : nullptr, e.info},
                            make, constant);
    }
    if (ffi) {
      left = config("compute_left").value_or('V') == 'V';
      right = config("compute_right").value_or('V') == 'V';
    } else {
      VKXLA_ASSIGN_OR_RETURN(const int64_t l, flag(2));
      VKXLA_ASSIGN_OR_RETURN(const int64_t r, flag(3));
      left = l == 'V';
      right = r == 'V';
    }
    Instruction* a = c.operands.back();
    VKXLA_ASSIGN_OR_RETURN(EigFactors e, BuildEigDecomposition(a, left, right, c.builders));
    if (IsComplex(a->shape.element_type())) {
      if (ffi) return WrittenResults(c, {e.values, e.left, e.right, e.info}, make, constant);
      return WrittenResults(c, {nullptr, nullptr, e.values, e.left, e.right, e.info}, make, constant);
    }
    ArrayOps o(make, constant);
    Instruction *wr = o.Real(e.values), *wi = o.Imag(e.values);
    if (ffi) return WrittenResults(c, {wr, wi, e.left, e.right, e.info}, make, constant);
    return WrittenResults(c, {nullptr, nullptr, nullptr, wr, wi, e.left, e.right, e.info}, make, constant);
  }
  if (kernel == "gees" || kernel == "gees_ffi") {
    // Legacy (batch, n, jobvs, sort, a) -> complex (t, rwork, w, vs, sdim,
    // info), real (t, wr, wi, vs, sdim, info); FFI (a) with mode and sort
    // -> complex (t, w, vs, sdim, info), real (t, wr, wi, vs, sdim, info).
    const bool ffi = kernel == "gees_ffi";
    if (c.operands.size() != (ffi ? 1u : 5u)) return CustomCallError(c, "takes a matrix");
    Instruction* a = c.operands.back();
    if (ffi ? config("sort").value_or('N') != 'N' : false) return CustomCallError(c, "sorting the Schur form's eigenvalues is not supported");
    if (!ffi) {
      VKXLA_ASSIGN_OR_RETURN(const int64_t sort, flag(3));
      if (sort != 'N') return CustomCallError(c, "sorting the Schur form's eigenvalues is not supported");
    }
    VKXLA_ASSIGN_OR_RETURN(SchurFactors schur, BuildSchurDecomposition(a, c.builders));
    if (IsComplex(a->shape.element_type())) {
      if (ffi) return WrittenResults(c, {schur.t, schur.values, schur.z, nullptr, schur.info}, make, constant);
      return WrittenResults(c, {schur.t, nullptr, schur.values, schur.z, nullptr, schur.info}, make, constant);
    }
    ArrayOps o(make, constant);
    return WrittenResults(c, {schur.t, o.Real(schur.values), o.Imag(schur.values), schur.z, nullptr, schur.info}, make, constant);
  }
  if (kernel.rfind("gpu_legacy_", 0) == 0) {
    // Older exports' cuSOLVER/hipSOLVER/cuBLAS kernels: geqrf (a) -> (a,
    // tau, info or scratch...), orgqr (a, tau) -> (q, info, work), syevd and
    // syevj (a) -> (v, w, info, work), the triangle in the descriptor's
    // second word (cuBLAS's fill mode 0 lower, hipSOLVER's 122 lower).
    const std::string op = kernel.substr(11);
    if (op == "geqrf") {
      if (c.operands.size() != 1) return CustomCallError(c, "takes a matrix");
      VKXLA_ASSIGN_OR_RETURN(QrFactors qr, BuildQrDecomposition(c.operands[0], c.builders));
      return WrittenResults(c, {qr.packed, qr.taus}, make, constant);
    }
    if (op == "orgqr") {
      if (c.operands.size() != 2) return CustomCallError(c, "takes the reflectors and their taus");
      VKXLA_ASSIGN_OR_RETURN(Instruction * q, BuildHouseholderProduct(c.operands[0], c.operands[1], c.builders));
      return WrittenResults(c, {q}, make, constant);
    }
    if (c.operands.size() != 1) return CustomCallError(c, "takes a symmetric matrix");
    auto it = c.attributes.find("backend_config");
    const std::vector<uint8_t> d = it == c.attributes.end() ? std::vector<uint8_t>() : OpaqueBytes(it->second);
    if (d.size() < 8) return CustomCallError(c, "needs its descriptor (type, fill mode, ...) in backend_config");
    const uint32_t fill = d[4] | (d[5] << 8) | (d[6] << 16) | (static_cast<uint32_t>(d[7]) << 24);
    const bool hip = c.target.rfind("hip", 0) == 0;
    const bool lower = hip ? fill == 122 : fill == 0;
    if (hip ? fill != 121 && fill != 122 : fill > 1) return CustomCallError(c, "its descriptor's fill mode " + std::to_string(fill) + " is none");
    VKXLA_ASSIGN_OR_RETURN(EighFactors e, BuildEighDecomposition(c.operands[0], lower, c.builders));
    return WrittenResults(c, {e.vectors, e.values}, make, constant);
  }
  if (kernel == "gehrd" || kernel == "gehrd_ffi") {
    // Legacy (n, ilo, ihi, lda, batch, lwork, a) -> (a, tau, info, work);
    // FFI (a) with low and high (ilo, ihi) -> (a, tau, info): LAPACK's
    // packed form, H on and above the subdiagonal, the reflectors below.
    const bool ffi = kernel == "gehrd_ffi";
    if (c.operands.size() != (ffi ? 1u : 7u)) return CustomCallError(c, "takes a matrix");
    Instruction* a = c.operands.back();
    if (!a->shape.IsArray() || a->shape.rank() < 2) return CustomCallError(c, "takes matrices, not " + a->shape.ToString());
    const int64_t n = a->shape.dims().back();
    int64_t low = 1, high = n;
    if (ffi) {
      low = config("low").value_or(1);
      high = config("high").value_or(n);
    } else {
      VKXLA_ASSIGN_OR_RETURN(low, flag(1));
      VKXLA_ASSIGN_OR_RETURN(high, flag(2));
    }
    if (low != 1 || high != n) return CustomCallError(c, "reduces the whole matrix only (ilo 1, ihi n), not rows " + std::to_string(low) + " to " + std::to_string(high));
    VKXLA_ASSIGN_OR_RETURN(HessenbergFactors h, BuildHessenbergReduction(a, c.builders));
    ArrayOps o(make, constant);
    const MatrixFrame f(a->shape);
    Instruction* rows = o.Iota(ElementType::kS32, f.dims, f.rank - 2);
    Instruction* below = o.Compare(rows, o.Binary(Opcode::kAdd, o.Iota(ElementType::kS32, f.dims, f.rank - 1), o.Fill(ElementType::kS32, 1, f.dims)),
                                   ComparisonDirection::kGt);
    return WrittenResults(c, {o.Select(below, h.reflectors, h.h), h.taus}, make, constant);
  }
  if (kernel == "sytrd_ffi") {
    // (a) with uplo 'L' (a GPU kernel's lower) -> (a, d, e, tau, info):
    // the Hermitian matrix the lower triangle names reduced to a real
    // tridiagonal T = Q^H A Q; LAPACK's packed form keeps the upper triangle.
    if (c.operands.size() != 1) return CustomCallError(c, "takes a matrix");
    VKXLA_ASSIGN_OR_RETURN(const bool lower, lower_triangle(true));
    if (!lower) return CustomCallError(c, "reduces the lower triangle only (uplo 'L')");
    Instruction* a = c.operands[0];
    const Shape& s = a->shape;
    if (!s.IsArray() || s.rank() < 2 || !IsDecompositionType(s.element_type()) || s.dims().back() != s.dim(s.rank() - 2))
      return CustomCallError(c, "takes square f32, f64, c64 or c128 matrices, not " + s.ToString());
    const ElementType t = s.element_type(), rt = RealType(t);
    ArrayOps o(make, constant);
    const MatrixFrame f(s);
    const int64_t rd = f.rank - 2, cd = f.rank - 1;
    Instruction *rows = o.Iota(ElementType::kS32, f.dims, rd), *cols = o.Iota(ElementType::kS32, f.dims, cd);
    Instruction* diagonal = o.Compare(rows, cols, ComparisonDirection::kEq);
    Instruction* hermitian = o.Select(o.Compare(rows, cols, ComparisonDirection::kGe), a, o.AdjointMatrix(a));
    if (IsComplex(t)) hermitian = o.Select(diagonal, o.As(o.Real(hermitian), t), hermitian);
    VKXLA_ASSIGN_OR_RETURN(HessenbergFactors h, BuildHessenbergReduction(hermitian, c.builders));
    Computation* add_real = AddComputation(c.builders, rt);
    Instruction* sub = o.Compare(rows, o.Binary(Opcode::kAdd, cols, o.Fill(ElementType::kS32, 1, f.dims)), ComparisonDirection::kEq);
    Instruction* real_h = o.Real(h.h);
    Instruction* d = o.Sum(o.Select(diagonal, real_h, o.Fill(rt, 0, f.dims)), cd, add_real);
    Instruction* e_rows = o.Sum(o.Select(sub, real_h, o.Fill(rt, 0, f.dims)), cd, add_real);  // row i holds T[i, i - 1]
    Instruction* e = f.n > 0 ? o.SliceLast(e_rows, 1, f.n) : e_rows;
    Instruction* below = o.Compare(rows, o.Binary(Opcode::kAdd, cols, o.Fill(ElementType::kS32, 1, f.dims)), ComparisonDirection::kGt);
    Instruction* packed = o.Select(below, h.reflectors, o.Select(o.Binary(Opcode::kOr, diagonal, sub), o.As(real_h, t), a));
    return WrittenResults(c, {packed, d, e, h.taus}, make, constant);
  }
  if (kernel == "getrf" || kernel == "getrf_ffi") {
    // Legacy (batch, m, n, a); FFI (a). Results: the factors, ipiv, info.
    if (c.operands.size() != (kernel == "getrf" ? 4u : 1u) || c.result_types.size() != 3)
      return CustomCallError(c, "takes a matrix and gives its LU factors, pivots and info");
    VKXLA_ASSIGN_OR_RETURN(LuFactors lu, BuildLuDecomposition(c.operands.back(), c.builders));
    for (size_t i = 1; i < 3; ++i)
      if (c.result_types[i].element_type() != ElementType::kS32)
        return CustomCallError(c, "gives s32 pivots and info, not " + c.result_types[i].ToString());
    return std::vector<Instruction*>{lu.lu, lu.pivots, lu.info};
  }
  // trsm: legacy (left_side, lower, trans_a, unit_diagonal, m, n, batch,
  // alpha, a, b); FFI (a, b[, alpha]) with side, uplo, trans_x and diag.
  const bool ffi = kernel == "trsm_ffi";
  if ((ffi ? c.operands.size() < 2 || c.operands.size() > 3 : c.operands.size() != 10) || c.result_types.size() != 1)
    return CustomCallError(c, "takes a triangular matrix and a right-hand side and gives the solution");
  TriangularSolveOptions o;
  int64_t transpose = 0;
  Instruction *a = nullptr, *b = nullptr, *alpha = nullptr;
  if (ffi) {
    a = c.operands[0];
    b = c.operands[1];
    alpha = c.operands.size() == 3 ? c.operands[2] : nullptr;
    o.left_side = config("side").value_or('L') == 'L';
    o.lower = config("uplo").value_or('L') == 'L';
    o.unit_diagonal = config("diag").value_or('N') == 'U';
    const int64_t t = config("trans_x").value_or('N');
    transpose = t == 'T' ? 1 : t == 'C' ? 2 : 0;
  } else {
    VKXLA_ASSIGN_OR_RETURN(int64_t left, flag(0));
    VKXLA_ASSIGN_OR_RETURN(int64_t lower, flag(1));
    VKXLA_ASSIGN_OR_RETURN(transpose, flag(2));
    VKXLA_ASSIGN_OR_RETURN(int64_t unit, flag(3));
    o.left_side = left != 0;
    o.lower = lower != 0;
    o.unit_diagonal = unit != 0;
    alpha = c.operands[7];
    a = c.operands[8];
    b = c.operands[9];
  }
  o.transpose_a = transpose == 1 ? TransposeA::kTranspose : transpose == 2 ? TransposeA::kAdjoint : TransposeA::kNoTranspose;
  if (alpha) {  // op(a) x = alpha b: scale b first
    if (!alpha->shape.IsArray() || alpha->shape.rank() != 0 || alpha->shape.element_type() != b->shape.element_type())
      return CustomCallError(c, "alpha must be a scalar of " + b->shape.ToString() + "'s type");
    Instruction* spread = make(Opcode::kBroadcast, b->shape, {alpha});
    spread->dimensions = std::vector<int64_t>{};
    b = make(Opcode::kMultiply, b->shape, {b, spread});
  }
  Instruction* x = make(Opcode::kTriangularSolve, b->shape, {a, b});
  SetTriangularSolveOptions(*x, o);
  return std::vector<Instruction*>{x};
}

// XLA's own decompositions and jaxlib's GPU pivots kernels.
StatusOr<std::vector<Instruction*>> LowerXlaLinalg(const ExpandedCustomCall& c, const HloMaker& make, const ConstantMaker& constant) {
  const size_t operands = c.operands.size(), results = c.result_types.size();
  if (c.target == "LuDecomposition") {  // XLA's: (a) -> (lu, 0-based pivots, permutation)
    if (operands != 1 || !c.operands[0]->shape.IsArray() || c.operands[0]->shape.rank() < 2) return CustomCallError(c, "takes a matrix");
    VKXLA_ASSIGN_OR_RETURN(LuFactors lu, BuildLuDecomposition(c.operands[0], c.builders));
    Instruction* one = make(Opcode::kBroadcast, lu.pivots->shape, {constant(Literal::ScalarOf(Scalar::Int(ElementType::kS32, 1)))});
    one->dimensions = std::vector<int64_t>{};
    Instruction* pivots = make(Opcode::kSubtract, lu.pivots->shape, {lu.pivots, one});
    VKXLA_ASSIGN_OR_RETURN(Instruction * perm, BuildPivotsToPermutation(pivots, c.operands[0]->shape.dims()[c.operands[0]->shape.rank() - 2], c.builders));
    return WrittenResults(c, {lu.lu, pivots, perm}, make, constant);
  }
  if (c.target.find("lu_pivots_to_permutation") != std::string::npos) {  // jaxlib's GPU kernels: 0-based pivots
    if (operands != 1 || results != 1 || !c.result_types[0].IsArray() || c.result_types[0].rank() < 1)
      return CustomCallError(c, "takes pivots and gives one permutation");
    VKXLA_ASSIGN_OR_RETURN(Instruction * perm, BuildPivotsToPermutation(c.operands[0], c.result_types[0].dims().back(), c.builders));
    return WrittenResults(c, {perm}, make, constant);
  }
  if (c.target == "Eigh") {  // XLA's: (a) -> (vectors, values); backend_config "lower,sort,max_iter,tol"
    if (operands != 1) return CustomCallError(c, "takes a matrix");
    auto it = c.attributes.find("backend_config");
    std::string config = it == c.attributes.end() ? std::string() : it->second;
    config.erase(std::remove(config.begin(), config.end(), '"'), config.end());
    VKXLA_ASSIGN_OR_RETURN(EighFactors e, BuildEighDecomposition(c.operands[0], config.empty() || config[0] != '0', c.builders));
    return WrittenResults(c, {e.vectors, e.values}, make, constant);
  }
  if (c.target == "Qr") {  // XLA's: (a) -> (packed, taus)
    if (operands != 1) return CustomCallError(c, "takes a matrix");
    VKXLA_ASSIGN_OR_RETURN(QrFactors qr, BuildQrDecomposition(c.operands[0], c.builders));
    return WrittenResults(c, {qr.packed, qr.taus}, make, constant);
  }
  if (c.target == "ProductOfElementaryHouseholderReflectors") {
    if (operands != 2) return CustomCallError(c, "takes the reflectors and their taus");
    VKXLA_ASSIGN_OR_RETURN(Instruction * q, BuildHouseholderProduct(c.operands[0], c.operands[1], c.builders));
    return WrittenResults(c, {q}, make, constant);
  }
  return CustomCallError(c, "is no linear algebra call");
}

bool IsXlaLinalg(const std::string& target) {
  for (const char* t : {"Qr", "ProductOfElementaryHouseholderReflectors", "LuDecomposition", "cu_lu_pivots_to_permutation",
                        "hip_lu_pivots_to_permutation", "oneapi_lu_pivots_to_permutation", "Eigh"})
    if (target == t) return true;
  return false;
}

}  // namespace

bool IsLinalgCustomCall(const std::string& target) { return !FindLinalgKernel(target).name.empty() || IsXlaLinalg(target); }

StatusOr<std::vector<Instruction*>> LowerLinalgCustomCall(const ExpandedCustomCall& c, const HloMaker& make, const ConstantMaker& constant) {
  if (const LinalgKernel k = FindLinalgKernel(c.target); !k.name.empty()) return LowerLinalg(c, k, make, constant, c.logical_or);
  return LowerXlaLinalg(c, make, constant);
}

}  // namespace vkxla
