#include "frontends/eigh_decomposition.h"

#include "ops/attributes.h"

namespace vkxla {

StatusOr<EighFactors> BuildEighDecomposition(Instruction* a, bool lower, const ComputationBuilders& b) {
  const Shape& s = a->shape;
  const ElementType t = s.element_type();
  if (!s.IsArray() || s.rank() < 2 || !IsFloat(t) || BitWidth(t) < 32 || s.dim(s.rank() - 1) != s.dim(s.rank() - 2))
    return Unimplemented("eigendecomposition of " + s.ToString() + ": square f32 and f64 matrices are supported");
  const MatrixFrame f(s);
  const int64_t rank = f.rank, n = f.n, rd = rank - 2, cd = rank - 1;
  // One rotation a loop trip: n (n - 1) / 2 a sweep. Past this order the
  // sweeps' trips would run for minutes; a parallel ordering would be needed.
  constexpr int64_t kMaxOrder = 64;
  if (n > kMaxOrder)
    return Unimplemented("eigendecomposition of " + s.ToString() + ": matrices of order up to " + std::to_string(kMaxOrder) +
                         " (one Jacobi rotation a loop trip)");
  const std::vector<int64_t>&dims = f.dims, &batch = f.batch, &vec_dims = f.row_dims, &batch_map = f.batch_map, &col_map = f.col_map,
                              &row_map = f.row_map;
  // The pairs (p, q), p < q, in row order; sweeps enough for the type
  // (Jacobi converges quadratically once the off-diagonal is small).
  std::vector<int64_t> ps, qs;
  for (int64_t p = 0; p < n; ++p)
    for (int64_t q = p + 1; q < n; ++q) {
      ps.push_back(p);
      qs.push_back(q);
    }
  const int64_t pairs = static_cast<int64_t>(ps.size()), sweeps = BitWidth(t) == 32 ? 10 : 16;
  const int64_t trips = pairs * sweeps;
  ArrayOps top(b.make, b.constant);
  // The triangle read, mirrored.
  std::vector<int64_t> perm = Iota0(rank);
  std::swap(perm[rd], perm[cd]);
  Instruction* at = top.Make(Opcode::kTranspose, s, {a});
  at->dimensions = perm;
  Instruction* rows0 = top.Iota(ElementType::kS32, dims, rd), *cols0 = top.Iota(ElementType::kS32, dims, cd);
  Instruction* sym = top.Select(top.Compare(rows0, cols0, lower ? ComparisonDirection::kGe : ComparisonDirection::kLe), a, at);
  Instruction* identity = top.Select(top.Compare(rows0, cols0, ComparisonDirection::kEq), top.Fill(t, 1, dims), top.Fill(t, 0, dims));
  if (pairs == 0) {  // 1x1 (or empty): the value is the element
    Computation* add = AddComputation(b, t);
    return EighFactors{identity, top.Sum(top.Select(top.Compare(rows0, cols0, ComparisonDirection::kEq), sym, top.Fill(t, 0, dims)), cd, add)};
  }
  const Shape i32 = Shape::Scalar(ElementType::kS32);
  const Shape state = Shape::Tuple({i32, s, s});
  Computation* add = AddComputation(b, t);
  Computation* cond = CounterCondition(b, state, ComparisonDirection::kLt, trips);
  LoopBody body(b, state);
  {
    ArrayOps& o = body.ops;
    Instruction *step = body.elements[0], *x = body.elements[1], *v = body.elements[2];
    // This step's pair, from tables of p and q.
    Instruction* r = o.Binary(Opcode::kRemainder, step, o.Const(ElementType::kS32, static_cast<double>(pairs)));
    auto pick = [&](const std::vector<int64_t>& table) {
      Literal l(Shape(ElementType::kS32, {pairs}));
      for (int64_t i = 0; i < pairs; ++i) l.Set(i, Scalar::Int(ElementType::kS32, table[i]));
      Instruction* c = o.Make(Opcode::kConstant, l.shape(), {});
      c->literal = std::move(l);
      Instruction* one = o.Make(Opcode::kDynamicSlice, Shape(ElementType::kS32, {1}), {c, r});
      one->other_attributes.emplace_back("dynamic_slice_sizes", "{1}");
      return o.Make(Opcode::kReshape, i32, {one});
    };
    Instruction* p = pick(ps);
    Instruction* q = pick(qs);
    Instruction* rows = o.Iota(ElementType::kS32, dims, rd), *cols = o.Iota(ElementType::kS32, dims, cd);
    Instruction* pm = o.Spread(p, dims, {}), *qm = o.Spread(q, dims, {});
    Instruction* zero = o.Fill(t, 0, dims);
    auto element = [&](Instruction* i, Instruction* j) {  // x[..., i, j]
      Instruction* mask = o.Binary(Opcode::kAnd, o.Compare(rows, i, ComparisonDirection::kEq), o.Compare(cols, j, ComparisonDirection::kEq));
      return o.Sum(o.Sum(o.Select(mask, x, zero), cd, add), rd, add);
    };
    Instruction* app = element(pm, pm), *aqq = element(qm, qm), *apq = element(pm, qm);
    // The symmetric Schur rotation (c, s) that zeroes a[p, q]; none where it is zero already.
    Instruction* zb = o.Fill(t, 0, batch), *one = o.Fill(t, 1, batch);
    Instruction* rotate = o.Compare(apq, zb, ComparisonDirection::kNe);
    Instruction* safe_apq = o.Select(rotate, apq, one);
    Instruction* theta = o.Binary(Opcode::kDivide, o.Binary(Opcode::kSubtract, aqq, app), o.Binary(Opcode::kMultiply, o.Fill(t, 2, batch), safe_apq));
    Instruction* root = o.Make(Opcode::kSqrt, theta->shape, {o.Binary(Opcode::kAdd, one, o.Binary(Opcode::kMultiply, theta, theta))});
    Instruction* sign = o.Select(o.Compare(theta, zb, ComparisonDirection::kGe), one, o.Fill(t, -1, batch));
    Instruction* tan = o.Binary(Opcode::kDivide, sign, o.Binary(Opcode::kAdd, o.Make(Opcode::kAbs, theta->shape, {theta}), root));
    Instruction* cos = o.Binary(Opcode::kDivide, one, o.Make(Opcode::kSqrt, tan->shape, {o.Binary(Opcode::kAdd, one, o.Binary(Opcode::kMultiply, tan, tan))}));
    Instruction* sin = o.Binary(Opcode::kMultiply, tan, cos);
    cos = o.Select(rotate, cos, one);
    sin = o.Select(rotate, sin, zb);
    Instruction* cm = o.Spread(cos, vec_dims, batch_map), *sm = o.Spread(sin, vec_dims, batch_map);
    // Lines p and q of y along `dim` (columns of y J, rows of J^T y) become
    // c y_p - s y_q and s y_p + c y_q.
    auto turn = [&](Instruction* y, Instruction* index, int64_t dim, const std::vector<int64_t>& map) {
      Instruction* at_p = o.Compare(index, pm, ComparisonDirection::kEq), *at_q = o.Compare(index, qm, ComparisonDirection::kEq);
      Instruction* yp = o.Sum(o.Select(at_p, y, zero), dim, add), *yq = o.Sum(o.Select(at_q, y, zero), dim, add);
      Instruction* np = o.Binary(Opcode::kSubtract, o.Binary(Opcode::kMultiply, cm, yp), o.Binary(Opcode::kMultiply, sm, yq));
      Instruction* nq = o.Binary(Opcode::kAdd, o.Binary(Opcode::kMultiply, sm, yp), o.Binary(Opcode::kMultiply, cm, yq));
      return o.Select(at_p, o.Spread(np, dims, map), o.Select(at_q, o.Spread(nq, dims, map), y));
    };
    auto rotate_columns = [&](Instruction* y) { return turn(y, cols, cd, col_map); };
    auto rotate_rows = [&](Instruction* y) { return turn(y, rows, rd, row_map); };
    Instruction* rotated = rotate_rows(rotate_columns(x));
    // a[p, q] and a[q, p] are zero now up to rounding: make them so.
    Instruction* pq = o.Binary(Opcode::kOr,
                               o.Binary(Opcode::kAnd, o.Compare(rows, pm, ComparisonDirection::kEq), o.Compare(cols, qm, ComparisonDirection::kEq)),
                               o.Binary(Opcode::kAnd, o.Compare(rows, qm, ComparisonDirection::kEq), o.Compare(cols, pm, ComparisonDirection::kEq)));
    Instruction* next = o.Select(o.Binary(Opcode::kAnd, pq, o.Spread(rotate, dims, batch_map)), zero, rotated);
    body.Finish({o.Binary(Opcode::kAdd, step, o.Const(ElementType::kS32, 1)), next, rotate_columns(v)});
  }
  Instruction* loop = CountedLoop(top, state, {top.Const(ElementType::kS32, 0), sym, identity}, cond, body.computation);
  Instruction* diag = top.Element(loop, 1);
  Instruction* vectors = top.Element(loop, 2);
  // Ascending eigenvalues, the vectors' columns in the same order: a sort of
  // every row of the vectors keyed by the values spread along the rows.
  Instruction* values = top.Sum(top.Select(top.Compare(rows0, cols0, ComparisonDirection::kEq), diag, top.Fill(t, 0, dims)), cd, add);
  Instruction* keys = top.Spread(values, dims, row_map);
  Computation* less = b.new_computation();
  {
    ArrayOps o(b.make_in(less), b.constant_in(less));
    const Shape st = Shape::Scalar(t);
    Instruction* l = Parameter(o, st, 0);
    Instruction* r = Parameter(o, st, 1);
    Parameter(o, st, 2);
    Parameter(o, st, 3);
    less->set_root(o.Compare(l, r, ComparisonDirection::kLt));
  }
  Instruction* sorted = top.Make(Opcode::kSort, Shape::Tuple({s, s}), {keys, vectors});
  sorted->dimensions = std::vector<int64_t>{cd};
  SetAttribute(*sorted, "is_stable", "true");
  sorted->called_computations.emplace_back("to_apply", less);
  Instruction* sorted_keys = top.Element(sorted, 0);
  // Row 0 of the sorted keys holds the values in order.
  Instruction* first = top.Sum(top.Select(top.Compare(rows0, top.Fill(ElementType::kS32, 0, dims), ComparisonDirection::kEq), sorted_keys,
                                          top.Fill(t, 0, dims)),
                               rd, add);
  return EighFactors{top.Element(sorted, 1), first};
}

}  // namespace vkxla
