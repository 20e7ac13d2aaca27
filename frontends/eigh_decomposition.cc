#include "frontends/eigh_decomposition.h"

#include "frontends/jacobi_rotation.h"

namespace vkxla {

StatusOr<EighFactors> BuildEighDecomposition(Instruction* a, bool lower, const ComputationBuilders& b) {
  const Shape& s = a->shape;
  const ElementType t = s.element_type(), rt = RealType(t);
  if (!s.IsArray() || s.rank() < 2 || !IsDecompositionType(t) || s.dim(s.rank() - 1) != s.dim(s.rank() - 2))
    return Unimplemented("eigendecomposition of " + s.ToString() + ": square f32, f64, c64 and c128 matrices are supported");
  const MatrixFrame f(s);
  const int64_t rank = f.rank, n = f.n, rd = rank - 2, cd = rank - 1;
  // One rotation a loop trip: n (n - 1) / 2 a sweep. Past this order the
  // sweeps' trips would run for minutes; a parallel ordering would be needed.
  constexpr int64_t kMaxOrder = 64;
  if (n > kMaxOrder)
    return Unimplemented("eigendecomposition of " + s.ToString() + ": matrices of order up to " + std::to_string(kMaxOrder) +
                         " (one Jacobi rotation a loop trip)");
  const std::vector<int64_t>& dims = f.dims;
  const JacobiSweep sweep(n);
  const int64_t trips = sweep.pairs() * JacobiSweep::SweepsFor(t);
  ArrayOps top(b.make, b.constant);
  // The triangle read, mirrored (conjugated: Hermitian; the diagonal's
  // imaginary parts are not read).
  Instruction* at = top.AdjointMatrix(a);
  Instruction* rows0 = top.Iota(ElementType::kS32, dims, rd), *cols0 = top.Iota(ElementType::kS32, dims, cd);
  Instruction* diagonal = top.Compare(rows0, cols0, ComparisonDirection::kEq);
  Instruction* sym = top.Select(top.Compare(rows0, cols0, lower ? ComparisonDirection::kGe : ComparisonDirection::kLe), a, at);
  if (IsComplex(t)) sym = top.Select(diagonal, top.As(top.Real(sym), t), sym);
  Instruction* identity = top.Select(diagonal, top.Fill(t, 1, dims), top.Fill(t, 0, dims));
  Computation* add = AddComputation(b, t);
  Computation* add_real = IsComplex(t) ? AddComputation(b, rt) : add;
  // The eigenvalues: the real diagonal.
  auto values_of = [&](Instruction* x) { return top.Sum(top.Select(diagonal, top.Real(x), top.Fill(rt, 0, dims)), cd, add_real); };
  if (sweep.pairs() == 0)  // 1x1 (or empty): the value is the element
    return EighFactors{identity, values_of(sym)};
  const Shape i32 = Shape::Scalar(ElementType::kS32);
  const Shape state = Shape::Tuple({i32, s, s});
  Computation* cond = CounterCondition(b, state, ComparisonDirection::kLt, trips);
  LoopBody body(b, state);
  {
    ArrayOps& o = body.ops;
    Instruction *step = body.elements[0], *x = body.elements[1], *v = body.elements[2];
    auto [p, q] = PickPair(o, step, sweep);
    Instruction *rows = o.Iota(ElementType::kS32, dims, rd), *cols = o.Iota(ElementType::kS32, dims, cd);
    Instruction *pm = o.Spread(p, dims, {}), *qm = o.Spread(q, dims, {});
    const MatrixLines columns{cols, cd, f.col_map, add}, row_lines{rows, rd, f.row_map, add};
    // Columns p and q of x, and from them a[p, p], a[q, q] and a[p, q].
    Instruction *xp = columns.Take(o, x, pm), *xq = columns.Take(o, x, qm);
    Instruction* line_rows = o.Iota(ElementType::kS32, f.col_dims, rd);
    const MatrixLines in_column{line_rows, rd, {}, add};
    Instruction *pl = o.Spread(p, f.col_dims, {}), *ql = o.Spread(q, f.col_dims, {});
    Instruction *app = in_column.Take(o, xp, pl), *aqq = in_column.Take(o, xq, ql), *apq = in_column.Take(o, xq, pl);
    // A complex a[p, q] made real first: column q times its phase, row q
    // times the conjugate (V's column q too).
    Phase phase{nullptr, apq};
    if (IsComplex(t)) {
      phase = PhaseOf(o, apq);
      x = row_lines.Scale(o, columns.Scale(o, x, qm, phase.factor, f.batch_map), qm, o.Conj(phase.factor), f.batch_map);
      v = columns.Scale(o, v, qm, phase.factor, f.batch_map);
      xp = columns.Take(o, x, pm);
      xq = columns.Take(o, x, qm);
    }
    const PlaneRotation r = SymmetricSchurRotation(o, o.Real(app), o.Real(aqq), phase.magnitude);
    auto rotate_columns = [&](Instruction* y, Instruction* yp, Instruction* yq) { return columns.Rotate(o, y, pm, qm, yp, yq, r, f.batch_map); };
    Instruction* turned = rotate_columns(x, xp, xq);
    Instruction* rotated = row_lines.Rotate(o, turned, pm, qm, row_lines.Take(o, turned, pm), row_lines.Take(o, turned, qm), r, f.batch_map);
    // a[p, q] and a[q, p] are zero now up to rounding: make them so.
    Instruction* pq = o.Binary(Opcode::kOr,
                               o.Binary(Opcode::kAnd, o.Compare(rows, pm, ComparisonDirection::kEq), o.Compare(cols, qm, ComparisonDirection::kEq)),
                               o.Binary(Opcode::kAnd, o.Compare(rows, qm, ComparisonDirection::kEq), o.Compare(cols, pm, ComparisonDirection::kEq)));
    Instruction* next = o.Select(o.Binary(Opcode::kAnd, pq, o.Spread(r.rotates, dims, f.batch_map)), o.Fill(t, 0, dims), rotated);
    Instruction* next_v = rotate_columns(v, columns.Take(o, v, pm), columns.Take(o, v, qm));
    body.Finish({o.Binary(Opcode::kAdd, step, o.Const(ElementType::kS32, 1)), next, next_v});
  }
  Instruction* loop = CountedLoop(top, state, {top.Const(ElementType::kS32, 0), sym, identity}, cond, body.computation);
  // Ascending eigenvalues, the vectors' columns in the same order.
  auto [sorted_values, sorted_vectors] = SortColumnsByValues(top, values_of(top.Element(loop, 1)), top.Element(loop, 2), false, b);
  return EighFactors{sorted_vectors, sorted_values};
}

}  // namespace vkxla
