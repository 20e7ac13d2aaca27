#include "frontends/qr_decomposition.h"

#include <algorithm>

#include "frontends/array_ops.h"
#include "frontends/householder_reflector.h"
#include "ir/module.h"

namespace vkxla {
namespace {

Status CheckType(const Shape& s, const char* what) {
  if (!s.IsArray() || s.rank() < 2 || !IsDecompositionType(s.element_type()))
    return Unimplemented(std::string(what) + " of " + s.ToString() + ": f32, f64, c64 and c128 matrices are supported");
  return OkStatus();
}

}  // namespace

StatusOr<QrFactors> BuildQrDecomposition(Instruction* a, const ComputationBuilders& b) {
  VKXLA_RETURN_IF_ERROR(CheckType(a->shape, "QR decomposition"));
  const MatrixFrame f(a->shape);
  const ElementType t = a->shape.element_type(), rt = RealType(t);
  const int64_t k = std::min(f.m, f.n);
  std::vector<int64_t> k_dims = f.batch;
  k_dims.push_back(k);
  const Shape i32 = Shape::Scalar(ElementType::kS32);
  const Shape state = Shape::Tuple({i32, a->shape, Shape(t, k_dims)});
  Computation* add = AddComputation(b, t);
  Computation* max_real = MaxComputation(b, rt);
  Computation* add_real = IsComplex(t) ? AddComputation(b, rt) : add;
  Computation* cond = CounterCondition(b, state, ComparisonDirection::kLt, k);
  LoopBody body(b, state);
  {
    ArrayOps& o = body.ops;
    Instruction *j = body.elements[0], *x = body.elements[1], *taus = body.elements[2];
    const int64_t rd = f.rank - 2, cd = f.rank - 1;
    Instruction* rows = o.Iota(ElementType::kS32, f.dims, rd);
    Instruction* cols = o.Iota(ElementType::kS32, f.dims, cd);
    Instruction* jm = o.Spread(j, f.dims, {});
    Instruction* zero = o.Fill(t, 0, f.dims);
    // Column j: alpha on the diagonal, the part below it to be reflected away.
    Instruction* col = o.Sum(o.Select(o.Compare(cols, jm, ComparisonDirection::kEq), x, zero), cd, add);  // [..., m]
    const Reflector r = HouseholderReflector(o, f, col, j, add, add_real, max_real);
    Instruction *alpha = r.alpha, *beta = r.beta, *tau = r.tau, *nz = r.reflects, *v = r.v;
    // H^H = I - conj(tau) v v^H applied to the columns after j.
    Instruction* vm = o.Spread(v, f.dims, f.col_map);
    Instruction* w = o.Sum(o.Binary(Opcode::kMultiply, o.Conj(vm), x), rd, add);  // [..., n]
    Instruction* tw = o.Binary(Opcode::kMultiply, w, o.Spread(o.Conj(tau), f.row_dims, f.batch_map));
    Instruction* later = o.Compare(cols, jm, ComparisonDirection::kGt);
    Instruction* reflected = o.Select(later, o.Binary(Opcode::kSubtract, x, o.Binary(Opcode::kMultiply, vm, o.Spread(tw, f.dims, f.row_map))), x);
    // Column j: beta on the diagonal (alpha where nothing was reflected), v below.
    Instruction* at_j = o.Compare(cols, jm, ComparisonDirection::kEq);
    Instruction* diag = o.Select(nz, beta, alpha);
    Instruction* next = o.Select(o.Binary(Opcode::kAnd, at_j, o.Compare(rows, jm, ComparisonDirection::kGt)), vm,
                                 o.Select(o.Binary(Opcode::kAnd, at_j, o.Compare(rows, jm, ComparisonDirection::kEq)),
                                          o.Spread(diag, f.dims, f.batch_map), reflected));
    Instruction* k_iota = o.Iota(ElementType::kS32, k_dims, f.rank - 2);
    Instruction* next_taus = o.Select(o.Compare(k_iota, o.Spread(j, k_dims, {}), ComparisonDirection::kEq),
                                      o.Spread(tau, k_dims, f.batch_map), taus);
    Instruction* j1 = o.Binary(Opcode::kAdd, j, o.Const(ElementType::kS32, 1));
    body.Finish({j1, next, next_taus});
  }
  ArrayOps o(b.make, b.constant);
  Instruction* loop = CountedLoop(o, state, {o.Const(ElementType::kS32, 0), a, o.Fill(t, 0, k_dims)}, cond, body.computation);
  return QrFactors{o.Element(loop, 1), o.Element(loop, 2)};
}

StatusOr<Instruction*> BuildHouseholderProduct(Instruction* packed, Instruction* taus, const ComputationBuilders& b) {
  VKXLA_RETURN_IF_ERROR(CheckType(packed->shape, "The product of Householder reflectors"));
  const MatrixFrame f(packed->shape);
  const ElementType t = packed->shape.element_type();
  const Shape& ts = taus->shape;
  if (!ts.IsArray() || ts.element_type() != t || ts.rank() != f.rank - 1 ||
      !std::equal(f.batch.begin(), f.batch.end(), ts.dims().begin()) || ts.dims().back() > f.n || f.n > f.m)
    return InvalidArgument("the product of Householder reflectors takes [..., m, n] (n <= m) and taus [..., k] (k <= n), not " +
                           packed->shape.ToString() + " and " + ts.ToString());
  const int64_t k = ts.dims().back();
  const Shape i32 = Shape::Scalar(ElementType::kS32);
  const Shape state = Shape::Tuple({i32, packed->shape, ts});
  Computation* add = AddComputation(b, t);
  Computation* cond = CounterCondition(b, state, ComparisonDirection::kGe, 0);
  LoopBody body(b, state);
  {
    ArrayOps& o = body.ops;
    Instruction *i = body.elements[0], *q = body.elements[1], *tv = body.elements[2];
    const int64_t rd = f.rank - 2, cd = f.rank - 1;
    Instruction* rows = o.Iota(ElementType::kS32, f.dims, rd);
    Instruction* cols = o.Iota(ElementType::kS32, f.dims, cd);
    Instruction* im = o.Spread(i, f.dims, {});
    Instruction* zero = o.Fill(t, 0, f.dims);
    Instruction* k_iota = o.Iota(ElementType::kS32, ts.dims(), f.rank - 2);
    Instruction* tau = o.Sum(o.Select(o.Compare(k_iota, o.Spread(i, ts.dims(), {}), ComparisonDirection::kEq), tv, o.Fill(t, 0, ts.dims())),
                             f.rank - 2, add);  // [...]
    // v: 1 at row i, column i of q below it.
    Instruction* at_i = o.Compare(cols, im, ComparisonDirection::kEq);
    Instruction* col = o.Sum(o.Select(at_i, q, zero), cd, add);  // [..., m]
    Instruction* col_rows = o.Iota(ElementType::kS32, f.col_dims, f.rank - 2);
    Instruction* ic = o.Spread(i, f.col_dims, {});
    Instruction* v = o.Select(o.Compare(col_rows, ic, ComparisonDirection::kGt), col,
                              o.Select(o.Compare(col_rows, ic, ComparisonDirection::kEq), o.Fill(t, 1, f.col_dims), o.Fill(t, 0, f.col_dims)));
    Instruction* vm = o.Spread(v, f.dims, f.col_map);
    // H(i) = I - tau v v^H applied to the columns after i.
    Instruction* w = o.Sum(o.Binary(Opcode::kMultiply, o.Conj(vm), q), rd, add);
    Instruction* tw = o.Binary(Opcode::kMultiply, w, o.Spread(tau, f.row_dims, f.batch_map));
    Instruction* applied = o.Select(o.Compare(cols, im, ComparisonDirection::kGt),
                                    o.Binary(Opcode::kSubtract, q, o.Binary(Opcode::kMultiply, vm, o.Spread(tw, f.dims, f.row_map))), q);
    // Column i: -tau v below the diagonal, 1 - tau on it, 0 above.
    Instruction* taum = o.Spread(tau, f.dims, f.batch_map);
    Instruction* column = o.Select(o.Compare(rows, im, ComparisonDirection::kGt), o.Binary(Opcode::kMultiply, o.Make(Opcode::kNegate, taum->shape, {taum}), vm),
                                   o.Select(o.Compare(rows, im, ComparisonDirection::kEq),
                                            o.Binary(Opcode::kSubtract, o.Fill(t, 1, f.dims), taum), zero));
    Instruction* next = o.Select(at_i, column, applied);
    Instruction* i1 = o.Binary(Opcode::kSubtract, i, o.Const(ElementType::kS32, 1));
    body.Finish({i1, next, tv});
  }
  // Columns from k on start as the identity's.
  ArrayOps o(b.make, b.constant);
  Instruction* rows = o.Iota(ElementType::kS32, f.dims, f.rank - 2);
  Instruction* cols = o.Iota(ElementType::kS32, f.dims, f.rank - 1);
  Instruction* identity = o.Select(o.Compare(rows, cols, ComparisonDirection::kEq), o.Fill(t, 1, f.dims), o.Fill(t, 0, f.dims));
  Instruction* start = o.Select(o.Compare(cols, o.Fill(ElementType::kS32, static_cast<double>(k), f.dims), ComparisonDirection::kGe),
                                identity, packed);
  Instruction* loop = CountedLoop(o, state, {o.Const(ElementType::kS32, static_cast<double>(k - 1)), start, taus}, cond, body.computation);
  return o.Element(loop, 1);
}

}  // namespace vkxla
