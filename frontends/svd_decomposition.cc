#include "frontends/svd_decomposition.h"

#include <limits>

#include "frontends/jacobi_rotation.h"
#include "frontends/qr_decomposition.h"

namespace vkxla {
StatusOr<SvdFactors> BuildSvd(Instruction* a, bool compute_uv, bool full_matrices, const ComputationBuilders& b) {
  const Shape& s = a->shape;
  const ElementType t = s.element_type(), rt = RealType(t);
  if (!s.IsArray() || s.rank() < 2 || !IsDecompositionType(t))
    return Unimplemented("singular value decomposition of " + s.ToString() + ": f32, f64, c64 and c128 matrices are supported");
  const MatrixFrame f(s);
  const int64_t k = std::min(f.m, f.n), rank = f.rank, rd = rank - 2, cd = rank - 1;
  if (k > kMaxSvdOrder)
    return Unimplemented("singular value decomposition of " + s.ToString() + ": matrices with at most " + std::to_string(kMaxSvdOrder) +
                         " rows or columns (each Jacobi round a product of the matrix with an n x n one)");
  ArrayOps top(b.make, b.constant);
  std::vector<int64_t> k_dims = f.batch;
  k_dims.push_back(k);
  if (k == 0)  // nothing to decompose: the identity's bases
    return SvdFactors{top.Fill(rt, 0, k_dims), compute_uv ? top.Identity(t, MatrixDims(f.batch, f.m, full_matrices ? f.m : 0)) : nullptr,
                      compute_uv ? top.Identity(t, MatrixDims(f.batch, full_matrices ? f.n : 0, f.n)) : nullptr};
  // A wide matrix through its adjoint: x = U' S V'^H is tall, A = V' S U'^H.
  const bool wide = f.m < f.n;
  Instruction* x = wide ? top.AdjointMatrix(a) : a;
  const MatrixFrame g(x->shape);  // M x N, M >= N = k
  const int64_t M = g.m, N = g.n;
  const std::vector<int64_t> v_dims = MatrixDims(g.batch, N, N);
  // Scaled by the largest magnitude so that squared norms neither overflow
  // nor underflow; the values are scaled back.
  Instruction* zero_b = top.Fill(rt, 0, g.batch);
  Instruction* largest = top.Make(Opcode::kReduce, Shape(rt, g.batch), {top.Make(Opcode::kAbs, Shape(rt, g.dims), {x}), top.Const(rt, 0)});
  largest->dimensions = std::vector<int64_t>{rd, cd};
  largest->called_computations.emplace_back("to_apply", MaxComputation(b, rt));
  Instruction* scale = top.Select(top.Compare(largest, zero_b, ComparisonDirection::kGt), largest, top.Fill(rt, 1, g.batch));
  Instruction* w0 = top.Binary(Opcode::kDivide, x, top.As(top.Spread(scale, g.dims, g.batch_map), t));
  Computation* add = AddComputation(b, t);
  Computation* add_real = IsComplex(t) ? AddComputation(b, rt) : add;

  const JacobiRounds rounds(N);
  const MatrixFrame fv(Shape(t, v_dims));  // the pairing's frame: N x N
  const Shape i32 = Shape::Scalar(ElementType::kS32), pred = Shape::Scalar(ElementType::kPred);
  std::vector<Shape> parts = {i32, w0->shape, pred, pred};  // step, w, quiet this sweep, done[, v]
  if (compute_uv) parts.push_back(Shape(t, v_dims));
  const Shape state = Shape::Tuple(parts);
  Instruction *w = w0, *v = compute_uv ? top.Identity(t, v_dims) : nullptr;
  if (N > 1) {
    Computation* cond = JacobiCondition(b, state, 3, JacobiRounds::kMaxSweeps * rounds.rounds);
    LoopBody body(b, state);
    ArrayOps& o = body.ops;
    Instruction *step = body.elements[0], *y = body.elements[1], *quiet = body.elements[2];
    const Pairing p = RoundPairing(o, step, rounds, fv, t, add);
    std::vector<int64_t> column_map = g.batch_map;
    column_map.push_back(rd + 1);
    // Each pair's Gram matrix [[|y_p|^2, y_p^H y_q], [., |y_q|^2]] at both of
    // its indices; the rotation that makes the columns orthogonal (column q
    // first times the phase that makes y_p^H y_q real).
    Instruction* own = o.Sum(o.Binary(Opcode::kMultiply, o.Conj(y), o.MatMul(y, p.gather_cols)), rd, add);  // y_i^H y_p(i)
    Instruction* gamma = o.Select(p.first, own, p.Partner(o, own));
    Instruction* norm2 = o.Sum(o.AbsSquared(y), rd, add_real);
    Instruction* norm2_partner = p.Partner(o, norm2);
    Instruction *app = o.Select(p.first, norm2, norm2_partner), *aqq = o.Select(p.first, norm2_partner, norm2);
    Instruction* vv = compute_uv ? body.elements[4] : nullptr;
    Phase phase{nullptr, gamma};
    if (IsComplex(t)) {
      phase = PhaseOf(o, gamma);
      Instruction* factor = o.Select(o.Binary(Opcode::kOr, p.first, o.Make(Opcode::kNot, p.paired->shape, {p.paired})),
                                     o.Fill(t, 1, fv.row_dims), phase.factor);
      y = o.Binary(Opcode::kMultiply, y, o.Spread(factor, g.dims, column_map));
      if (vv) vv = o.Binary(Opcode::kMultiply, vv, o.Spread(factor, v_dims, column_map));
    }
    const PlaneRotation r = SymmetricSchurRotation(o, app, aqq, phase.magnitude);
    Instruction* significant = AnySignificant(o, p, app, aqq, o.Make(Opcode::kAbs, Shape(rt, fv.row_dims), {phase.magnitude}), b);
    auto [c, sn] = RotationCoefficients(o, p, r);
    auto [quiet_now, done] = SweepProgress(o, step, rounds, quiet, significant);
    std::vector<Instruction*> next = {o.Binary(Opcode::kAdd, step, o.Const(ElementType::kS32, 1)), p.RotateColumns(o, y, c, sn), quiet_now, done};
    if (vv) next.push_back(p.RotateColumns(o, vv, c, sn));
    body.Finish(std::move(next));
    std::vector<Instruction*> init = {top.Const(ElementType::kS32, 0), w0, top.Const(ElementType::kPred, 1), top.Const(ElementType::kPred, 0)};
    if (compute_uv) init.push_back(v);
    Instruction* loop = CountedLoop(top, state, std::move(init), cond, body.computation);
    w = top.Element(loop, 1);
    if (compute_uv) v = top.Element(loop, 4);
  }
  // The column norms, descending, W's and V's columns in their order.
  Instruction* norms = top.Make(Opcode::kSqrt, Shape(rt, k_dims), {top.Sum(top.AbsSquared(w), rd, add_real)});
  auto [sorted, columns] = SortColumnsByValues(top, norms, compute_uv ? top.Concatenate(w, v, rd) : w, true, b);
  Instruction* values = top.Binary(Opcode::kMultiply, sorted, top.Spread(scale, k_dims, g.batch_map));
  if (!compute_uv) return SvdFactors{values, nullptr, nullptr};
  w = top.SliceMatrix(columns, 0, M, 0, N);
  v = top.SliceMatrix(columns, M, M + N, 0, N);
  // U's columns W_j / s_j (zero where s_j is), made exactly orthonormal and
  // completed by a QR decomposition: Q R = U0 with R's diagonal +-1 where
  // U0's columns are unit, so Q's columns times those signs are U0's.
  Instruction* positive = top.Compare(sorted, top.Fill(rt, 0, k_dims), ComparisonDirection::kGt);
  Instruction* safe = top.Select(positive, sorted, top.Fill(rt, 1, k_dims));
  Instruction* u0 = top.Select(top.Spread(positive, g.dims, g.row_map), top.Binary(Opcode::kDivide, w, top.As(top.Spread(safe, g.dims, g.row_map), t)),
                               top.Fill(t, 0, g.dims));
  VKXLA_ASSIGN_OR_RETURN(QrFactors qr, BuildQrDecomposition(u0, b));
  const int64_t width = full_matrices ? M : N;  // Q's columns wanted
  Instruction* packed = width > N ? top.Concatenate(qr.packed, top.Fill(t, 0, MatrixDims(g.batch, M, width - N)), cd) : qr.packed;
  VKXLA_ASSIGN_OR_RETURN(Instruction * q, BuildHouseholderProduct(packed, qr.taus, b));
  const std::vector<int64_t>& q_dims = packed->shape.dims();
  Instruction* on_diagonal = top.Compare(top.Iota(ElementType::kS32, q_dims, rd), top.Iota(ElementType::kS32, q_dims, cd), ComparisonDirection::kEq);
  std::vector<int64_t> width_dims = g.batch;
  width_dims.push_back(width);
  // R's diagonal is real (zgeqrf's betas): [..., width], 0 past N.
  Instruction* diagonal = top.Sum(top.Select(on_diagonal, top.Real(packed), top.Fill(rt, 0, q_dims)), rd, add_real);
  Instruction* sign = top.As(top.Select(top.Compare(diagonal, top.Fill(rt, 0, width_dims), ComparisonDirection::kLt), top.Fill(rt, -1, width_dims),
                                        top.Fill(rt, 1, width_dims)), t);
  Instruction* u = top.Binary(Opcode::kMultiply, q, top.Spread(sign, q_dims, g.row_map));
  // A matrix with a NaN or an infinity: NaNs throughout (LAPACK's gesdd
  // reports it, info -4, and JAX fills the results with NaNs), not the
  // identity the rotations leave in U.
  Instruction* finite = top.Compare(largest, top.Fill(rt, std::numeric_limits<double>::infinity(), g.batch), ComparisonDirection::kLt);
  auto or_nan = [&](Instruction* y) {
    return top.Select(top.Spread(finite, y->shape.dims(), g.batch_map), y, top.Fill(t, std::numeric_limits<double>::quiet_NaN(), y->shape.dims()));
  };
  if (wide) return SvdFactors{values, or_nan(v), or_nan(top.AdjointMatrix(u))};
  return SvdFactors{values, or_nan(u), or_nan(top.AdjointMatrix(v))};
}

}  // namespace vkxla
