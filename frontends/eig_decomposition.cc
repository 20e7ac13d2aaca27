#include "frontends/eig_decomposition.h"

#include <limits>

#include "frontends/range_scaling.h"
#include "frontends/schur_decomposition.h"
#include "ops/attributes.h"

namespace vkxla {
namespace {

// The index of the first best element of x along `dim` (the largest with
// kGt, the smallest with kLt): a (value, index) reduce.
Instruction* FirstBest(ArrayOps& o, const ComputationBuilders& b, Instruction* x, int64_t dim, ComparisonDirection better) {
  const ElementType t = x->shape.element_type();
  Computation* pick = b.new_computation();
  {
    ArrayOps c(b.make_in(pick), b.constant_in(pick));
    const Shape sv = Shape::Scalar(t), si = Shape::Scalar(ElementType::kS32);
    Instruction *av = Parameter(c, sv, 0), *ai = Parameter(c, si, 1), *bv = Parameter(c, sv, 2), *bi = Parameter(c, si, 3);
    Instruction* take_a = c.Binary(Opcode::kOr, c.Compare(av, bv, better),
                                   c.Binary(Opcode::kAnd, c.Compare(av, bv, ComparisonDirection::kEq), c.Compare(ai, bi, ComparisonDirection::kLt)));
    pick->set_root(c.Make(Opcode::kTuple, Shape::Tuple({sv, si}), {c.Select(take_a, av, bv), c.Select(take_a, ai, bi)}));
  }
  std::vector<int64_t> dims = x->shape.dims();
  const int64_t size = dims[static_cast<size_t>(dim)];
  dims.erase(dims.begin() + dim);
  const double worst = better == ComparisonDirection::kGt ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  Instruction* best = o.Make(Opcode::kReduce, Shape::Tuple({Shape(t, dims), Shape(ElementType::kS32, dims)}),
                             {x, o.Iota(ElementType::kS32, x->shape.dims(), dim), o.Const(t, worst), o.Const(ElementType::kS32, static_cast<double>(size))});
  best->dimensions = std::vector<int64_t>{dim};
  best->called_computations.emplace_back("to_apply", pick);
  return o.Element(best, 1);
}

// The columns of v [..., n, n] scaled to unit length, then by the phase
// that makes each one's first largest component real (zgeev's scaling).
Instruction* NormalizeColumns(ArrayOps& o, const MatrixFrame& f, Computation* add_real, const ComputationBuilders& b, Instruction* v) {
  const ElementType ct = v->shape.element_type(), rt = RealType(ct);
  const int64_t rd = f.rank - 2;
  Instruction* norm = o.Make(Opcode::kSqrt, Shape(rt, f.row_dims), {o.Sum(o.AbsSquared(v), rd, add_real)});
  Instruction* unit = o.Binary(Opcode::kDivide, v, o.As(o.Spread(norm, f.dims, f.row_map), ct));
  // The first row of largest |v|^2 in each column.
  Instruction* rows = o.Iota(ElementType::kS32, f.dims, rd);
  Instruction* best_row = FirstBest(o, b, o.AbsSquared(unit), rd, ComparisonDirection::kGt);
  Instruction* at_best = o.Compare(rows, o.Spread(best_row, f.dims, f.row_map), ComparisonDirection::kEq);
  Instruction* largest = o.Sum(o.Select(at_best, unit, o.Fill(ct, 0, f.dims)), rd, AddComputation(b, ct));  // [..., n]
  Instruction* size = o.Make(Opcode::kAbs, Shape(rt, f.row_dims), {largest});
  Instruction* safe = o.Select(o.Compare(size, o.Fill(rt, 0, f.row_dims), ComparisonDirection::kGt), size, o.Fill(rt, 1, f.row_dims));
  Instruction* phase = o.Binary(Opcode::kDivide, o.Conj(largest), o.As(safe, ct));
  Instruction* turned = o.Binary(Opcode::kMultiply, unit, o.Spread(phase, f.dims, f.row_map));
  return o.Select(at_best, o.As(o.Real(turned), ct), turned);  // exactly real there
}

// The eigenvectors of upper triangular t [..., n, n] as the columns of an
// upper (right: t y = lambda y) or, conjugated, lower (left: w^H t =
// lambda w^H) triangular matrix with a unit diagonal, by substitution one
// row a loop trip. A difference of eigenvalues smaller than eps |lambda|
// is taken as that (ztrevc's smin), so repeated eigenvalues give finite
// vectors.
Instruction* TriangularEigenvectors(const MatrixFrame& f, Computation* add, Computation* add_real, const ComputationBuilders& b,
                                    Instruction* t, Instruction* values, bool right) {
  const ElementType ct = t->shape.element_type(), rt = RealType(ct);
  const int64_t n = f.n, rd = f.rank - 2, cd = f.rank - 1;
  const Shape i32 = Shape::Scalar(ElementType::kS32);
  const Shape state = Shape::Tuple({i32, t->shape, t->shape, values->shape});
  // Right: rows n - 2 .. 0; left: rows 1 .. n - 1.
  Computation* cond = right ? CounterCondition(b, state, ComparisonDirection::kGe, 0) : CounterCondition(b, state, ComparisonDirection::kLt, n);
  LoopBody body(b, state);
  {
    ArrayOps& o = body.ops;
    MatrixPicker fr(o, f, add, add_real);
    Instruction *j = body.elements[0], *y = body.elements[1], *tt = body.elements[2], *lam = body.elements[3];
    Instruction* jm = o.Spread(j, f.dims, {});
    Instruction* zero = o.Fill(ct, 0, f.dims);
    // Right: s_k = sum over l > j of t[j, l] y[l, k]; left: s_k = sum over l < j of y[l, k] t[l, j].
    Instruction* line = right ? o.Sum(o.Select(o.Binary(Opcode::kAnd, o.Compare(fr.rows, jm, ComparisonDirection::kEq),
                                                        o.Compare(fr.cols, jm, ComparisonDirection::kGt)),
                                               tt, zero),
                                      rd, add)
                              : o.Sum(o.Select(o.Binary(Opcode::kAnd, o.Compare(fr.cols, jm, ComparisonDirection::kEq),
                                                        o.Compare(fr.rows, jm, ComparisonDirection::kLt)),
                                               tt, zero),
                                      cd, add);  // [..., n] over l
    Instruction* s = o.Sum(o.Binary(Opcode::kMultiply, o.Spread(line, f.dims, f.col_map), y), rd, add);  // [..., n] over k
    Instruction* tjj = fr.At(tt, o.Spread(j, f.batch, {}), o.Spread(j, f.batch, {}));
    Instruction* denom = o.Binary(Opcode::kSubtract, o.Spread(tjj, f.row_dims, f.batch_map), lam);
    Instruction* smin = o.Binary(Opcode::kMaximum, o.Binary(Opcode::kMultiply, o.Fill(rt, Epsilon(rt), f.row_dims), fr.Magnitude(lam)),
                                 o.Fill(rt, rt == ElementType::kF32 ? 1e-30 : 1e-300, f.row_dims));
    Instruction* tiny = o.Compare(fr.Magnitude(denom), smin, ComparisonDirection::kLt);
    denom = o.Select(tiny, o.As(smin, ct), denom);
    Instruction* solved = o.Binary(Opcode::kDivide, o.Make(Opcode::kNegate, s->shape, {s}), denom);
    Instruction* in_row = o.Binary(Opcode::kAnd, o.Compare(fr.rows, jm, ComparisonDirection::kEq),
                                   o.Compare(fr.cols, jm, right ? ComparisonDirection::kGt : ComparisonDirection::kLt));
    Instruction* next = o.Select(in_row, o.Spread(solved, f.dims, f.row_map), y);
    body.Finish({o.Binary(right ? Opcode::kSubtract : Opcode::kAdd, j, o.Const(ElementType::kS32, 1)), next, tt, lam});
  }
  ArrayOps top(b.make, b.constant);
  Instruction* loop = CountedLoop(top, state, {top.Const(ElementType::kS32, right ? static_cast<double>(n - 2) : 1.0), top.Identity(ct, f.dims), t, values},
                                  cond, body.computation);
  Instruction* y = top.Element(loop, 1);
  return right ? y : top.Conj(y);
}

// A real matrix's complex eigenvalues as LAPACK gives them: each next to
// its conjugate (the one with the positive imaginary part first, the rest
// in the Schur order), the two exact conjugates, their vectors conjugates
// too. The partner of each eigenvalue above the real axis is the one below
// nearest its conjugate.
void PairConjugates(ArrayOps& o, const MatrixFrame& f, Computation* add, Computation* add_real, const ComputationBuilders& b, EigFactors& e) {
  const ElementType ct = e.values->shape.element_type(), rt = RealType(ct);
  const int64_t rd = f.rank - 2, cd = f.rank - 1;
  const std::vector<int64_t>& vec = f.row_dims;  // [..., n]
  Instruction *rows = o.Iota(ElementType::kS32, f.dims, rd), *cols = o.Iota(ElementType::kS32, f.dims, cd);
  Instruction* index = o.Iota(ElementType::kS32, vec, rd);
  Instruction *re = o.Real(e.values), *im = o.Imag(e.values);
  Instruction* zero = o.Fill(rt, 0, vec);
  Instruction *above = o.Compare(im, zero, ComparisonDirection::kGt), *below = o.Compare(im, zero, ComparisonDirection::kLt);
  // Row i's partner: among the columns j below the axis, lambda_j nearest conj(lambda_i).
  Instruction* at_rows = o.Spread(e.values, f.dims, f.col_map);  // lambda_i at (i, *)
  Instruction* at_cols = o.Spread(e.values, f.dims, f.row_map);  // lambda_j at (*, j)
  Instruction* candidates = o.Binary(Opcode::kAnd, o.Spread(above, f.dims, f.col_map), o.Spread(below, f.dims, f.row_map));
  Instruction* distance = o.Select(candidates, o.AbsSquared(o.Binary(Opcode::kSubtract, at_cols, o.Conj(at_rows))),
                                   o.Fill(rt, std::numeric_limits<double>::infinity(), f.dims));
  Instruction* nearest = FirstBest(o, b, distance, cd, ComparisonDirection::kLt);  // [..., n]
  // Below the axis: the row above that chose it.
  Instruction* chose = o.Binary(Opcode::kAnd, o.Spread(above, f.dims, f.col_map),
                                o.Compare(o.Spread(nearest, f.dims, f.col_map), cols, ComparisonDirection::kEq));
  Computation* add_s32 = AddComputation(b, ElementType::kS32);
  Instruction* owner = o.Sum(o.Select(chose, rows, o.Fill(ElementType::kS32, 0, f.dims)), rd, add_s32);
  Instruction* owners = o.Sum(o.Select(chose, o.Fill(ElementType::kS32, 1, f.dims), o.Fill(ElementType::kS32, 0, f.dims)), rd, add_s32);
  Instruction* owned = o.Binary(Opcode::kAnd, below, o.Compare(owners, o.Fill(ElementType::kS32, 1, vec), ComparisonDirection::kEq));
  Instruction* partnered = o.Binary(Opcode::kOr, above, owned);
  Instruction* partner = o.Select(above, nearest, o.Select(owned, owner, index));
  // Exact conjugates: the mean real part, half the difference of the imaginary parts.
  auto at_partner = [&](Instruction* v) {
    Instruction* mask = o.Compare(cols, o.Spread(partner, f.dims, f.col_map), ComparisonDirection::kEq);
    return o.Sum(o.Select(mask, o.Spread(v, f.dims, f.row_map), o.Fill(rt, 0, f.dims)), cd, add_real);
  };
  Instruction* half = o.Fill(rt, 0.5, vec);
  Instruction* re_pair = o.Binary(Opcode::kMultiply, o.Binary(Opcode::kAdd, re, at_partner(re)), half);
  Instruction* im_pair = o.Binary(Opcode::kMultiply, o.Binary(Opcode::kSubtract, im, at_partner(im)), half);
  Instruction* values = o.Select(partnered, o.Make(Opcode::kComplex, e.values->shape, {re_pair, im_pair}), e.values);
  // The order: by the pair's first place, the one above the axis first.
  Instruction* place = o.Binary(Opcode::kMinimum, index, partner);
  Instruction* second = o.Select(owned, o.Fill(ElementType::kS32, 1, vec), o.Fill(ElementType::kS32, 0, vec));
  Computation* order = b.new_computation();
  {
    ArrayOps c(b.make_in(order), b.constant_in(order));
    const Shape si = Shape::Scalar(ElementType::kS32);
    Instruction* p[6];
    for (int64_t k = 0; k < 6; ++k) p[k] = Parameter(c, si, k);
    Instruction* before = c.Binary(Opcode::kOr, c.Compare(p[0], p[1], ComparisonDirection::kLt),
                                   c.Binary(Opcode::kAnd, c.Compare(p[0], p[1], ComparisonDirection::kEq), c.Compare(p[2], p[3], ComparisonDirection::kLt)));
    order->set_root(before);
  }
  const Shape key(ElementType::kS32, vec);
  Instruction* sorted = o.Make(Opcode::kSort, Shape::Tuple({key, key, key}), {place, second, index});
  sorted->dimensions = std::vector<int64_t>{rd};
  SetAttribute(*sorted, "is_stable", "true");
  sorted->called_computations.emplace_back("to_apply", order);
  Instruction* perm = o.Element(sorted, 2);  // new place j holds old index perm[j]
  Instruction* gather = o.Select(o.Compare(rows, o.Spread(perm, f.dims, f.row_map), ComparisonDirection::kEq), o.Fill(ct, 1, f.dims), o.Fill(ct, 0, f.dims));
  e.values = o.Sum(o.Select(o.Compare(rows, o.Spread(perm, f.dims, f.row_map), ComparisonDirection::kEq), o.Spread(values, f.dims, f.col_map),
                            o.Fill(ct, 0, f.dims)),
                   rd, add);
  // The vectors in the new order; one below the axis is the conjugate of its partner's, just before it.
  Instruction* below_now = o.Compare(o.Imag(e.values), zero, ComparisonDirection::kLt);
  for (Instruction** v : {&e.right, &e.left}) {
    if (!*v) continue;
    Instruction* moved = o.MatMul(*v, gather);
    Instruction* previous = o.Concatenate(o.Fill(ct, 0, MatrixDims(f.batch, f.m, 1)), o.SliceMatrix(moved, 0, f.m, 0, f.n - 1), cd);
    *v = o.Select(o.Spread(below_now, f.dims, f.row_map), o.Conj(previous), moved);
  }
}

}  // namespace

StatusOr<EigFactors> BuildEigDecomposition(Instruction* a, bool left, bool right, const ComputationBuilders& b) {
  const Shape& s = a->shape;
  const ElementType t = s.element_type();
  VKXLA_RETURN_IF_ERROR(CheckSquareMatrices(s, "the eigendecomposition"));
  const ElementType ct = ComplexOf(t), rt = RealType(ct);
  const MatrixFrame f(s);
  ArrayOps top(b.make, b.constant);
  // Scaled into range here, so that T's eigenvectors see what the Schur
  // decomposition saw; the eigenvalues scaled back at the end.
  const RangeScaling range = ScaleIntoRange(top, top.As(a, ct), b);
  VKXLA_ASSIGN_OR_RETURN(SchurFactors schur, BuildSchurDecomposition(range.scaled, b));
  Computation* add = AddComputation(b, ct);
  Computation* add_real = AddComputation(b, rt);
  MatrixPicker fr(top, f, add, add_real);
  Instruction* values = schur.values;
  // A real matrix's eigenvalue whose imaginary part is rounding is real.
  Instruction* real_value = nullptr;
  if (!IsComplex(t)) {
    Instruction* largest = top.Make(Opcode::kReduce, Shape(rt, f.batch), {fr.Magnitude(schur.t), top.Const(rt, 0)});
    largest->dimensions = std::vector<int64_t>{f.rank - 2, f.rank - 1};
    largest->called_computations.emplace_back("to_apply", MaxComputation(b, rt));
    Instruction* bound = top.Spread(top.Binary(Opcode::kMultiply, largest, top.Fill(rt, 16.0 * static_cast<double>(f.n) * Epsilon(rt), f.batch)),
                                    f.row_dims, f.batch_map);
    real_value = top.Compare(top.Make(Opcode::kAbs, Shape(rt, f.row_dims), {top.Imag(values)}), bound, ComparisonDirection::kLe);
    values = top.Select(real_value, top.As(top.Real(values), ct), values);
  }
  auto vectors = [&](bool right_side) {
    Instruction* y = TriangularEigenvectors(f, add, add_real, b, schur.t, values, right_side);
    Instruction* v = NormalizeColumns(top, f, add_real, b, top.MatMul(schur.z, y));
    // A real eigenvalue's vector is real: its real part, an eigenvector too
    // (all of it where the eigenspace is a line; less where a repeated
    // eigenvalue's is wider), normalized again.
    if (real_value) v = NormalizeColumns(top, f, add_real, b, top.Select(top.Spread(real_value, f.dims, f.row_map), top.As(top.Real(v), ct), v));
    return v;
  };
  EigFactors e;
  e.values = values;
  e.info = schur.info;
  if (right) e.right = vectors(true);
  if (left) e.left = vectors(false);
  if (!IsComplex(t) && f.n > 1) PairConjugates(top, f, add, add_real, b, e);
  e.values = ScaledBack(top, e.values, range.factor);
  return e;
}

Instruction* PackRealEigenvectors(ArrayOps& o, Instruction* v, Instruction* values) {
  const MatrixFrame f(v->shape);
  const ElementType ct = v->shape.element_type(), rt = RealType(ct);
  Instruction* previous = o.Concatenate(o.Fill(ct, 0, MatrixDims(f.batch, f.m, 1)), o.SliceMatrix(v, 0, f.m, 0, f.n - 1), f.rank - 1);
  Instruction* below = o.Compare(o.Imag(values), o.Fill(rt, 0, values->shape.dims()), ComparisonDirection::kLt);
  return o.Select(o.Spread(below, f.dims, f.row_map), o.Imag(previous), o.Real(v));
}

}  // namespace vkxla
