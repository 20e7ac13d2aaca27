#include "frontends/xla_custom_calls.h"

#include <algorithm>

#include "frontends/mlir_types.h"
#include "frontends/eigh_decomposition.h"
#include "frontends/qr_decomposition.h"
#include "frontends/stablehlo_syntax.h"
#include "ops/attributes.h"
#include "ops/cholesky.h"
#include "ops/op_traits.h"
#include "ops/rng_bit_generator.h"
#include "ops/slice_and_padding.h"
#include "ops/triangular_solve.h"
#include "ops/window.h"

namespace vkxla {
namespace {

constexpr const char* kTargets[] = {"stablehlo.dynamic_top_k", "stablehlo.dynamic_rng_bit_generator",
                                    "stablehlo.dynamic_reduce_window", "stablehlo.dynamic_approx_top_k", "ApproxTopK",
                                    "AllocateBuffer", "Qr", "ProductOfElementaryHouseholderReflectors", "LuDecomposition",
                                    "cu_lu_pivots_to_permutation", "hip_lu_pivots_to_permutation", "oneapi_lu_pivots_to_permutation",
                                    "Eigh"};

Status Error(const ExpandedCustomCall& c, const std::string& m) { return InvalidArgument("custom_call @" + c.target + ": " + m); }

// `written` (an array type) with its dims from `dims`, which must agree
// where it says them.
StatusOr<Shape> WithDims(const ExpandedCustomCall& c, const Shape& written, const std::vector<int64_t>& dims) {
  bool fits = written.IsArray() && static_cast<int64_t>(dims.size()) == written.rank();
  for (size_t d = 0; fits && d < dims.size(); ++d)
    fits = dims[d] >= 0 && dims[d] <= kMaxElements && (written.dim(d) == kUnknownDim || written.dim(d) == dims[d]);
  if (!fits) return Error(c, "its sizes do not fit its result type " + ShapeWithUnknownDims(written));
  return Shape(written.element_type(), dims);
}

// The integer after `key =` in a dictionary attribute's text.
std::optional<int64_t> DictInteger(const std::string& dict, const std::string& key) {
  const size_t at = dict.find(key + " =");
  if (at == std::string::npos) return std::nullopt;
  const std::vector<int64_t> v = Integers(dict.substr(at + key.size() + 2, 40));
  if (v.empty()) return std::nullopt;
  return v[0];
}

// Operands 0..n-1 sorted along `dim` by the call's comparator (stable, so
// ties keep their order), each sliced to the first `size` along it.
StatusOr<std::vector<Instruction*>> SortedPrefix(const ExpandedCustomCall& c, size_t n, int64_t dim, const std::vector<Shape>& results,
                                                 const HloMaker& make) {
  if (!c.computation) return Error(c, "needs its comparator in called_computations");
  std::vector<Instruction*> xs(c.operands.begin(), c.operands.begin() + static_cast<std::ptrdiff_t>(n));
  std::vector<Shape> shapes;
  for (const Instruction* x : xs) {
    if (!x->shape.IsArray() || dim < 0 || dim >= x->shape.rank() || x->shape.dims() != xs[0]->shape.dims())
      return Error(c, "its operands must be arrays of one shape with dimension " + std::to_string(dim));
    shapes.push_back(x->shape);
  }
  Instruction* sort = make(Opcode::kSort, n == 1 ? shapes[0] : Shape::Tuple(shapes), xs);
  sort->dimensions = std::vector<int64_t>{dim};
  SetAttribute(*sort, "is_stable", "true");
  sort->called_computations.emplace_back("to_apply", c.computation);
  std::vector<Instruction*> out;
  for (size_t i = 0; i < n; ++i) {
    Instruction* sorted = sort;
    if (n > 1) {
      sorted = make(Opcode::kGetTupleElement, shapes[i], {sort});
      sorted->tuple_index = static_cast<int64_t>(i);
    }
    const Shape& want = results[i];
    std::vector<SliceDimension> slice;
    for (int64_t d = 0; d < want.rank(); ++d) {
      if (want.dim(d) > shapes[i].dim(d) || (d != dim && want.dim(d) != shapes[i].dim(d)))
        return Error(c, "result " + want.ToString() + " is no prefix of " + shapes[i].ToString() + " along dimension " + std::to_string(dim));
      slice.push_back({0, want.dim(d), 1});
    }
    Instruction* s = make(Opcode::kSlice, want, {sorted});
    s->other_attributes.emplace_back("slice", SliceText(slice));
    out.push_back(s);
  }
  return out;
}

// `parts` as the call's written results: the leading ones, then zeros for
// the rest (LAPACK's info and workspace), in one tuple where the call
// writes its results as one.
StatusOr<std::vector<Instruction*>> WrittenResults(const ExpandedCustomCall& c, std::vector<Instruction*> parts, const HloMaker& make,
                                                   const ConstantMaker& constant) {
  const bool tuple = c.result_types.size() == 1 && c.result_types[0].IsTuple();
  const std::vector<Shape> types = tuple ? c.result_types[0].tuple_shapes() : c.result_types;
  if (types.size() < parts.size()) return Error(c, "gives " + std::to_string(parts.size()) + " results at least");
  for (size_t i = 0; i < types.size(); ++i) {
    if (i < parts.size()) {
      if (!types[i].Compatible(parts[i]->shape))
        return Error(c, "result " + std::to_string(i) + " is written " + types[i].ToString() + " but is " + parts[i]->shape.ToString());
      continue;
    }
    if (!types[i].IsArray() || HasUnknownDims(types[i])) return Error(c, "result " + std::to_string(i) + " must be a static array");
    Instruction* z = make(Opcode::kBroadcast, types[i], {constant(Literal(Shape::Scalar(types[i].element_type())))});
    z->dimensions = std::vector<int64_t>{};
    parts.push_back(z);
  }
  if (!tuple) return parts;
  std::vector<Shape> shapes;
  for (const Instruction* p : parts) shapes.push_back(p->shape);
  return std::vector<Instruction*>{make(Opcode::kTuple, Shape::Tuple(shapes), parts)};
}

// jaxlib's CPU linear algebra that XLA ops compute: lapack_?potrf[_ffi]
// (Cholesky), blas_?trsm and lapack_?trsm_ffi (TriangularSolve), ? one of s, d, c, z.
std::string LinalgKernel(const std::string& target) {
  for (const char* family : {"lapack_", "blas_"}) {
    const std::string f = family;
    if (target.rfind(f, 0) != 0 || target.size() < f.size() + 1 || std::string("sdcz").find(target[f.size()]) == std::string::npos)
      continue;
    const std::string rest = target.substr(f.size() + 1);
    for (const char* k : {"potrf", "potrf_ffi", "trsm_ffi", "getrf", "getrf_ffi", "geqrf", "geqrf_ffi", "orgqr", "orgqr_ffi", "syevd",
                          "syevd_ffi"})
      if (f == "lapack_" && rest == k) return rest;
    if (f == "blas_" && rest == "trsm") return rest;
  }
  return "";
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

StatusOr<std::vector<Instruction*>> LowerLinalg(const ExpandedCustomCall& c, const std::string& kernel, const HloMaker& make,
                                                const ConstantMaker& constant, const std::function<Computation*()>& logical_or) {
  auto config = [&](const char* key) {
    auto it = c.attributes.find("mhlo.backend_config");
    return it == c.attributes.end() ? std::optional<int64_t>() : DictInteger(it->second, key);
  };
  auto flag = [&](size_t i) -> StatusOr<int64_t> {
    VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> v, c.integers(i));
    if (v.size() != 1) return Error(c, "operand " + std::to_string(i) + " must be one integer");
    return v[0];
  };
  // Which triangle a kernel reads: the FFI form's uplo ('L' or 'U'), the
  // legacy form's first operand.
  auto lower_triangle = [&](bool ffi) -> StatusOr<bool> {
    if (ffi) return config("uplo").value_or('L') == 'L';
    VKXLA_ASSIGN_OR_RETURN(int64_t l, flag(0));
    return l != 0;
  };
  if (kernel == "potrf" || kernel == "potrf_ffi") {
    // Legacy (lower, batch, n, a); FFI (a) with uplo 'L' or 'U'.
    const bool ffi = kernel == "potrf_ffi";
    if (c.operands.size() != (ffi ? 1u : 4u) || c.result_types.size() != 2) return Error(c, "takes a matrix and gives its factor and info");
    VKXLA_ASSIGN_OR_RETURN(const bool lower, lower_triangle(ffi));
    Instruction* a = c.operands.back();
    if (!a->shape.IsArray() || a->shape.rank() < 2) return Error(c, "takes matrices, not " + a->shape.ToString());
    Instruction* l = make(Opcode::kCholesky, a->shape, {a});
    SetCholeskyLower(*l, lower);
    Instruction* info = CholeskyInfo(l, c.result_types[1], make, constant, logical_or());
    return std::vector<Instruction*>{l, info};
  }
  if (kernel == "syevd" || kernel == "syevd_ffi") {
    // Legacy (lower, batch, n, a) -> (v, w, info, work, iwork); FFI (a) with uplo -> (v, w, info).
    const bool ffi = kernel == "syevd_ffi";
    if (c.operands.size() != (ffi ? 1u : 4u)) return Error(c, "takes a symmetric matrix");
    VKXLA_ASSIGN_OR_RETURN(const bool lower, lower_triangle(ffi));
    VKXLA_ASSIGN_OR_RETURN(EighFactors e, BuildEighDecomposition(c.operands.back(), lower, c.builders));
    return WrittenResults(c, {e.vectors, e.values}, make, constant);
  }
  if (kernel == "geqrf" || kernel == "geqrf_ffi") {
    // Legacy (batch, m, n, lwork, a) -> (a, taus, info, workspace); FFI (a) -> (a, taus).
    if (c.operands.size() != (kernel == "geqrf" ? 5u : 1u)) return Error(c, "takes a matrix");
    VKXLA_ASSIGN_OR_RETURN(QrFactors qr, BuildQrDecomposition(c.operands.back(), c.builders));
    return WrittenResults(c, {qr.packed, qr.taus}, make, constant);
  }
  if (kernel == "orgqr" || kernel == "orgqr_ffi") {
    // Legacy (batch, m, n, k, lwork, a, taus) -> (q, info, workspace); FFI (a, taus) -> q.
    if (c.operands.size() != (kernel == "orgqr" ? 7u : 2u)) return Error(c, "takes the reflectors and their taus");
    VKXLA_ASSIGN_OR_RETURN(Instruction * q, BuildHouseholderProduct(c.operands[c.operands.size() - 2], c.operands.back(), c.builders));
    return WrittenResults(c, {q}, make, constant);
  }
  if (kernel == "getrf" || kernel == "getrf_ffi") {
    // Legacy (batch, m, n, a); FFI (a). Results: the factors, ipiv, info.
    if (c.operands.size() != (kernel == "getrf" ? 4u : 1u) || c.result_types.size() != 3)
      return Error(c, "takes a matrix and gives its LU factors, pivots and info");
    VKXLA_ASSIGN_OR_RETURN(LuFactors lu, BuildLuDecomposition(c.operands.back(), c.builders));
    for (size_t i = 1; i < 3; ++i)
      if (c.result_types[i].element_type() != ElementType::kS32)
        return Error(c, "gives s32 pivots and info, not " + c.result_types[i].ToString());
    return std::vector<Instruction*>{lu.lu, lu.pivots, lu.info};
  }
  // trsm: legacy (left_side, lower, trans_a, unit_diagonal, m, n, batch,
  // alpha, a, b); FFI (a, b[, alpha]) with side, uplo, trans_x and diag.
  const bool ffi = kernel == "trsm_ffi";
  if ((ffi ? c.operands.size() < 2 || c.operands.size() > 3 : c.operands.size() != 10) || c.result_types.size() != 1)
    return Error(c, "takes a triangular matrix and a right-hand side and gives the solution");
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
      return Error(c, "alpha must be a scalar of " + b->shape.ToString() + "'s type");
    Instruction* spread = make(Opcode::kBroadcast, b->shape, {alpha});
    spread->dimensions = std::vector<int64_t>{};
    b = make(Opcode::kMultiply, b->shape, {b, spread});
  }
  Instruction* x = make(Opcode::kTriangularSolve, b->shape, {a, b});
  SetTriangularSolveOptions(*x, o);
  return std::vector<Instruction*>{x};
}

bool IsThreefry(const std::string& target) {
  return target == "cu_threefry2x32" || target == "cu_threefry2x32_ffi" || target == "hip_threefry2x32" ||
         target == "hip_threefry2x32_ffi";
}

// jaxlib's GPU Threefry-2x32 kernel (20 rounds, Salmon et al.) over
// (key0, key1, x0, x1) of one u32 shape, as the adds, rotations and xors
// it is made of.
StatusOr<std::vector<Instruction*>> LowerThreefry(const ExpandedCustomCall& c, const HloMaker& make, const ConstantMaker& constant) {
  if (c.operands.size() != 4) return Error(c, "takes two key words and two counter words");
  const Shape& s = c.operands[0]->shape;
  for (const Instruction* o : c.operands)
    if (!o->shape.IsArray() || o->shape.element_type() != ElementType::kU32 || o->shape.dims() != s.dims())
      return Error(c, "takes u32 arrays of one shape, not " + o->shape.ToString());
  auto splat = [&](uint32_t v) {
    Instruction* b = make(Opcode::kBroadcast, s, {constant(Literal::ScalarOf(Scalar::UInt(ElementType::kU32, v)))});
    b->dimensions = std::vector<int64_t>{};
    return b;
  };
  auto op = [&](Opcode o, Instruction* a, Instruction* b) { return make(o, s, {a, b}); };
  auto rotl = [&](Instruction* x, uint32_t r) {
    return op(Opcode::kOr, op(Opcode::kShiftLeft, x, splat(r)), op(Opcode::kShiftRightLogical, x, splat(32 - r)));
  };
  Instruction* ks[3] = {c.operands[0], c.operands[1], nullptr};
  ks[2] = op(Opcode::kXor, op(Opcode::kXor, ks[0], ks[1]), splat(0x1BD11BDAu));
  Instruction* x0 = op(Opcode::kAdd, c.operands[2], ks[0]);
  Instruction* x1 = op(Opcode::kAdd, c.operands[3], ks[1]);
  const uint32_t rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  for (uint32_t group = 0; group < 5; ++group) {
    for (uint32_t r : rotations[group % 2]) {
      x0 = op(Opcode::kAdd, x0, x1);
      x1 = op(Opcode::kXor, rotl(x1, r), x0);
    }
    x0 = op(Opcode::kAdd, x0, ks[(group + 1) % 3]);
    x1 = op(Opcode::kAdd, op(Opcode::kAdd, x1, ks[(group + 2) % 3]), splat(group + 1));
  }
  if (c.result_types.size() == 2) return std::vector<Instruction*>{x0, x1};
  if (c.result_types.size() == 1 && c.result_types[0].IsTuple())  // the legacy kernel's one tuple
    return std::vector<Instruction*>{make(Opcode::kTuple, Shape::Tuple({s, s}), {x0, x1})};
  return Error(c, "gives two u32 arrays");
}

}  // namespace

bool IsExpandedCustomCall(const std::string& target) {
  for (const char* t : kTargets)
    if (target == t) return true;
  return !LinalgKernel(target).empty() || IsThreefry(target);
}

StatusOr<std::vector<Instruction*>> LowerExpandedCustomCall(const ExpandedCustomCall& c, const HloMaker& make,
                                                            const ConstantMaker& constant) {
  auto attr = [&](const char* key) {
    auto it = c.attributes.find(key);
    return it == c.attributes.end() ? std::string() : it->second;
  };
  const size_t operands = c.operands.size(), results = c.result_types.size();
  if (const std::string kernel = LinalgKernel(c.target); !kernel.empty()) return LowerLinalg(c, kernel, make, constant, c.logical_or);
  if (IsThreefry(c.target)) return LowerThreefry(c, make, constant);
  if (c.target == "LuDecomposition") {  // XLA's: (a) -> (lu, 0-based pivots, permutation)
    if (operands != 1 || !c.operands[0]->shape.IsArray() || c.operands[0]->shape.rank() < 2) return Error(c, "takes a matrix");
    VKXLA_ASSIGN_OR_RETURN(LuFactors lu, BuildLuDecomposition(c.operands[0], c.builders));
    Instruction* one = make(Opcode::kBroadcast, lu.pivots->shape, {constant(Literal::ScalarOf(Scalar::Int(ElementType::kS32, 1)))});
    one->dimensions = std::vector<int64_t>{};
    Instruction* pivots = make(Opcode::kSubtract, lu.pivots->shape, {lu.pivots, one});
    VKXLA_ASSIGN_OR_RETURN(Instruction * perm, BuildPivotsToPermutation(pivots, c.operands[0]->shape.dims()[c.operands[0]->shape.rank() - 2], c.builders));
    return WrittenResults(c, {lu.lu, pivots, perm}, make, constant);
  }
  if (c.target.find("lu_pivots_to_permutation") != std::string::npos) {  // jaxlib's GPU kernels: 0-based pivots
    if (operands != 1 || results != 1 || !c.result_types[0].IsArray() || c.result_types[0].rank() < 1)
      return Error(c, "takes pivots and gives one permutation");
    VKXLA_ASSIGN_OR_RETURN(Instruction * perm, BuildPivotsToPermutation(c.operands[0], c.result_types[0].dims().back(), c.builders));
    return WrittenResults(c, {perm}, make, constant);
  }
  if (c.target == "Eigh") {  // XLA's: (a) -> (vectors, values); backend_config "lower,sort,max_iter,tol"
    if (operands != 1) return Error(c, "takes a matrix");
    std::string config = attr("backend_config");
    config.erase(std::remove(config.begin(), config.end(), '"'), config.end());
    VKXLA_ASSIGN_OR_RETURN(EighFactors e, BuildEighDecomposition(c.operands[0], config.empty() || config[0] != '0', c.builders));
    return WrittenResults(c, {e.vectors, e.values}, make, constant);
  }
  if (c.target == "Qr") {  // XLA's: (a) -> (packed, taus)
    if (operands != 1) return Error(c, "takes a matrix");
    VKXLA_ASSIGN_OR_RETURN(QrFactors qr, BuildQrDecomposition(c.operands[0], c.builders));
    return WrittenResults(c, {qr.packed, qr.taus}, make, constant);
  }
  if (c.target == "ProductOfElementaryHouseholderReflectors") {
    if (operands != 2) return Error(c, "takes the reflectors and their taus");
    VKXLA_ASSIGN_OR_RETURN(Instruction * q, BuildHouseholderProduct(c.operands[0], c.operands[1], c.builders));
    return WrittenResults(c, {q}, make, constant);
  }
  if (c.target == "AllocateBuffer") {
    if (operands != 0 || results != 1 || !c.result_types[0].IsArray() || HasUnknownDims(c.result_types[0]))
      return Error(c, "takes nothing and gives one array of a static type");
    const Shape& t = c.result_types[0];
    Instruction* zero = constant(Literal(Shape::Scalar(t.element_type())));
    Instruction* b = make(Opcode::kBroadcast, t, {zero});
    b->dimensions = std::vector<int64_t>{};
    return std::vector<Instruction*>{b};
  }
  if (c.target == "stablehlo.dynamic_top_k") {
    if (operands != 2 || results != 2) return Error(c, "takes an operand and k and gives values and indices");
    VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> k, c.integers(1));
    const Shape& x = c.operands[0]->shape;
    if (k.size() != 1 || k[0] < 0 || !x.IsArray() || x.rank() == 0 || k[0] > x.dims().back())
      return Error(c, "k must be one integer from 0 to the last dimension of " + x.ToString());
    std::vector<int64_t> dims = x.dims();
    dims.back() = k[0];
    VKXLA_ASSIGN_OR_RETURN(Shape values, WithDims(c, c.result_types[0], dims));
    VKXLA_ASSIGN_OR_RETURN(Shape indices, WithDims(c, c.result_types[1], dims));
    Instruction* top = make(Opcode::kTopK, Shape::Tuple({values, indices}), {c.operands[0]});
    top->other_attributes.emplace_back("k", std::to_string(k[0]));
    top->other_attributes.emplace_back("largest", "true");
    std::vector<Instruction*> out;
    for (int64_t i = 0; i < 2; ++i) {
      Instruction* e = make(Opcode::kGetTupleElement, i == 0 ? values : indices, {top});
      e->tuple_index = i;
      out.push_back(e);
    }
    return out;
  }
  if (c.target == "stablehlo.dynamic_rng_bit_generator") {
    if (operands != 2 || results != 2) return Error(c, "takes a state and a shape and gives a state and bits");
    VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dims, c.integers(1));
    VKXLA_ASSIGN_OR_RETURN(Shape bits, WithDims(c, c.result_types[1], dims));
    const std::string a = attr("rng_algorithm");
    RngAlgorithm algorithm = RngAlgorithm::kDefault;
    if (a.find("THREE_FRY") != std::string::npos) algorithm = RngAlgorithm::kThreeFry;
    else if (a.find("PHILOX") != std::string::npos) algorithm = RngAlgorithm::kPhilox;
    Instruction* rng = make(Opcode::kRngBitGenerator, Shape::Tuple({c.operands[0]->shape, bits}), {c.operands[0]});
    SetRngAlgorithm(*rng, algorithm);
    std::vector<Instruction*> out;
    for (int64_t i = 0; i < 2; ++i) {
      Instruction* e = make(Opcode::kGetTupleElement, i == 0 ? c.operands[0]->shape : bits, {rng});
      e->tuple_index = i;
      out.push_back(e);
    }
    return out;
  }
  if (c.target == "stablehlo.dynamic_reduce_window") {
    // (inputs..., inits..., window_dimensions, window_strides,
    // base_dilations, window_dilations, padding): as many inputs as results.
    if (results == 0 || operands != 2 * results + 5) return Error(c, "takes inputs, their inits and five window operands");
    if (!c.computation) return Error(c, "needs its reducer in called_computations");
    const int64_t rank = c.operands[0]->shape.rank();
    std::vector<std::vector<int64_t>> w;
    for (size_t k = 0; k < 5; ++k) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> v, c.integers(2 * results + k));
      if (static_cast<int64_t>(v.size()) != (k == 4 ? 2 * rank : rank))
        return Error(c, "window operand " + std::to_string(k) + " has " + std::to_string(v.size()) + " values for rank " + std::to_string(rank));
      w.push_back(std::move(v));
    }
    Window window = UnitWindow(w[0]);
    window.stride = w[1];
    window.base_dilation = w[2];
    window.window_dilation = w[3];
    for (int64_t d = 0; d < rank; ++d) {
      window.pad_low[d] = w[4][2 * d];
      window.pad_high[d] = w[4][2 * d + 1];
    }
    std::vector<Instruction*> args(c.operands.begin(), c.operands.begin() + static_cast<std::ptrdiff_t>(2 * results));
    for (int64_t d = 0; d < rank; ++d)
      if (window.size[d] < 1 || window.stride[d] < 1 || window.base_dilation[d] < 1 || window.window_dilation[d] < 1)
        return Error(c, "window sizes, strides and dilations must be positive");
    std::vector<Shape> open;
    for (size_t i = 0; i < results; ++i) {
      VKXLA_ASSIGN_OR_RETURN(Shape r, WithDims(c, c.result_types[i], WindowedDims(c.operands[i]->shape.dims(), window)));
      open.push_back(r);
    }
    Instruction* rw = make(Opcode::kReduceWindow, results == 1 ? open[0] : Shape::Tuple(open), args);
    SetAttribute(*rw, "window", window.ToString());
    rw->called_computations.emplace_back("to_apply", c.computation);
    if (results == 1) return std::vector<Instruction*>{rw};
    std::vector<Instruction*> out;
    for (size_t i = 0; i < results; ++i) {
      Instruction* e = make(Opcode::kGetTupleElement, rw->shape.IsTuple() ? rw->shape.tuple_shapes()[i] : open[i], {rw});
      e->tuple_index = static_cast<int64_t>(i);
      out.push_back(e);
    }
    return out;
  }
  // ApproxTopK and its dynamic form: (inputs..., inits...[, shapes...]).
  const bool dynamic = c.target == "stablehlo.dynamic_approx_top_k";
  if (results == 0 || operands < 2 * results) return Error(c, "takes inputs and their inits");
  const std::string config = attr("mhlo.backend_config").empty() ? attr("backend_config") : attr("mhlo.backend_config");
  const std::optional<int64_t> dim = DictInteger(config, "reduction_dim");
  if (!dim) return Error(c, "needs reduction_dim in its backend_config");
  std::vector<Shape> shapes = c.result_types;
  if (dynamic) {
    const std::vector<int64_t> at = Integers(attr("indices_of_shape_operands"));
    if (at.size() != results) return Error(c, "needs one shape operand per result (indices_of_shape_operands)");
    for (size_t i = 0; i < results; ++i) {
      if (at[i] < static_cast<int64_t>(2 * results) || at[i] >= static_cast<int64_t>(operands))
        return Error(c, "shape operand " + std::to_string(at[i]) + " is not one of its trailing operands");
      VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dims, c.integers(static_cast<size_t>(at[i])));
      VKXLA_ASSIGN_OR_RETURN(shapes[i], WithDims(c, c.result_types[i], dims));
    }
  } else if (operands != 2 * results) {
    return Error(c, "takes as many inits as inputs");
  }
  for (const Shape& s : shapes)
    if (HasUnknownDims(s)) return Error(c, "its result type " + ShapeWithUnknownDims(s) + " is open");
  return SortedPrefix(c, results, *dim, shapes, make);
}

}  // namespace vkxla
