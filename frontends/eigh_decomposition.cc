#include "frontends/eigh_decomposition.h"

#include "frontends/range_scaling.h"

#include "frontends/jacobi_rotation.h"

namespace vkxla {

StatusOr<EighFactors> BuildEighDecomposition(Instruction* a, bool lower, const ComputationBuilders& b) {
  const Shape& s = a->shape;
  const ElementType t = s.element_type(), rt = RealType(t);
  VKXLA_RETURN_IF_ERROR(CheckSquareMatrices(s, "eigendecomposition"));
  const MatrixFrame f(s);
  const int64_t rank = f.rank, n = f.n, rd = rank - 2, cd = rank - 1;
  if (n > kMaxEighOrder)
    return Unimplemented("eigendecomposition of " + s.ToString() + ": matrices of order up to " + std::to_string(kMaxEighOrder) +
                         " (each Jacobi round a product of two n x n matrices)");
  const std::vector<int64_t>& dims = f.dims;
  ArrayOps top(b.make, b.constant);
  // The triangle read, mirrored (conjugated: Hermitian; the diagonal's
  // imaginary parts are not read).
  Instruction* rows0 = top.Iota(ElementType::kS32, dims, rd), *cols0 = top.Iota(ElementType::kS32, dims, cd);
  Instruction* diagonal = top.Compare(rows0, cols0, ComparisonDirection::kEq);
  Instruction* sym = top.Select(top.Compare(rows0, cols0, lower ? ComparisonDirection::kGe : ComparisonDirection::kLe), a, top.AdjointMatrix(a));
  if (IsComplex(t)) sym = top.Select(diagonal, top.As(top.Real(sym), t), sym);
  // Into the range where the rotations' squares neither underflow nor overflow.
  const RangeScaling range = ScaleIntoRange(top, sym, b);
  sym = range.scaled;
  Instruction* identity = top.Identity(t, dims);
  Computation* add = AddComputation(b, t);
  Computation* add_real = IsComplex(t) ? AddComputation(b, rt) : add;
  // The eigenvalues: the real diagonal.
  auto values_of = [&](ArrayOps& o, Instruction* x) {
    Instruction* d = o.Compare(o.Iota(ElementType::kS32, dims, rd), o.Iota(ElementType::kS32, dims, cd), ComparisonDirection::kEq);
    return o.Sum(o.Select(d, o.Real(x), o.Fill(rt, 0, dims)), cd, add_real);
  };
  if (n < 2) return EighFactors{identity, ScaledBack(top, values_of(top, sym), range.factor)};
  const JacobiRounds rounds(n);
  const Shape i32 = Shape::Scalar(ElementType::kS32), pred = Shape::Scalar(ElementType::kPred);
  const Shape state = Shape::Tuple({i32, s, s, pred, pred});  // step, x, v, quiet this sweep, done
  Computation* cond = JacobiCondition(b, state, 4, JacobiRounds::kMaxSweeps * rounds.rounds);
  LoopBody body(b, state);
  {
    ArrayOps& o = body.ops;
    Instruction *step = body.elements[0], *x = body.elements[1], *v = body.elements[2], *quiet = body.elements[3];
    const Pairing p = RoundPairing(o, step, rounds, f, t, add);
    // Each pair's a[p, p], a[q, q] and a[p, q], at both of its indices.
    Instruction* d = values_of(o, x);
    Instruction* own = o.Sum(o.Select(p.at_partner, x, o.Fill(t, 0, dims)), cd, add);  // x[i, p(i)]
    Instruction* apq = o.Select(p.first, own, p.Partner(o, own));
    Instruction* d_partner = p.Partner(o, d);
    Instruction *app = o.Select(p.first, d, d_partner), *aqq = o.Select(p.first, d_partner, d);
    // A complex a[p, q] made real first: column q times its phase, row q
    // times the conjugate (V's column q too).
    Phase phase{nullptr, apq};
    if (IsComplex(t)) {
      phase = PhaseOf(o, apq);
      Instruction* factor = o.Select(o.Binary(Opcode::kOr, p.first, o.Make(Opcode::kNot, p.paired->shape, {p.paired})), o.Fill(t, 1, f.row_dims),
                                     phase.factor);
      x = o.Binary(Opcode::kMultiply, o.Binary(Opcode::kMultiply, x, o.Spread(factor, dims, f.row_map)), o.Spread(o.Conj(factor), dims, f.col_map));
      v = o.Binary(Opcode::kMultiply, v, o.Spread(factor, dims, f.row_map));
    }
    const PlaneRotation r = SymmetricSchurRotation(o, app, aqq, phase.magnitude);
    Instruction* significant = AnySignificant(o, p, app, aqq, o.Make(Opcode::kAbs, Shape(rt, f.row_dims), {phase.magnitude}), b);
    auto [c, sn] = RotationCoefficients(o, p, r);
    Instruction* rotated = p.RotateRows(o, p.RotateColumns(o, x, c, sn), c, sn);
    // a[p, q] and a[q, p] are zero now up to rounding: make them so.
    Instruction* turned = o.Spread(o.Binary(Opcode::kAnd, p.paired, r.rotates), dims, f.col_map);
    Instruction* next = o.Select(o.Binary(Opcode::kAnd, p.at_partner, turned), o.Fill(t, 0, dims), rotated);
    auto [quiet_now, done] = SweepProgress(o, step, rounds, quiet, significant);
    body.Finish({o.Binary(Opcode::kAdd, step, o.Const(ElementType::kS32, 1)), next, p.RotateColumns(o, v, c, sn), quiet_now, done});
  }
  Instruction* loop = CountedLoop(top, state,
                                  {top.Const(ElementType::kS32, 0), sym, identity, top.Const(ElementType::kPred, 1), top.Const(ElementType::kPred, 0)},
                                  cond, body.computation);
  // Ascending eigenvalues, the vectors' columns in the same order.
  auto [sorted_values, sorted_vectors] = SortColumnsByValues(top, values_of(top, top.Element(loop, 1)), top.Element(loop, 2), false, b);
  return EighFactors{sorted_vectors, ScaledBack(top, sorted_values, range.factor)};
}

}  // namespace vkxla
