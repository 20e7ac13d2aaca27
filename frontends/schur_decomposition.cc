#include "frontends/schur_decomposition.h"

#include <algorithm>

#include "frontends/hessenberg_reduction.h"
#include "frontends/qr_decomposition.h"
#include "frontends/range_scaling.h"

namespace vkxla {
namespace {

// Elementwise arithmetic over arrays of one real type, for LAPACK's
// scalar formulas written over vectors of them.
struct RealArith {
  ArrayOps& o;
  std::vector<int64_t> dims;
  ElementType t;
  Instruction* K(double v) const { return o.Fill(t, v, dims); }
  Instruction* Add(Instruction* a, Instruction* b) const { return o.Binary(Opcode::kAdd, a, b); }
  Instruction* Sub(Instruction* a, Instruction* b) const { return o.Binary(Opcode::kSubtract, a, b); }
  Instruction* Mul(Instruction* a, Instruction* b) const { return o.Binary(Opcode::kMultiply, a, b); }
  Instruction* Div(Instruction* a, Instruction* b) const { return o.Binary(Opcode::kDivide, a, b); }
  Instruction* Max(Instruction* a, Instruction* b) const { return o.Binary(Opcode::kMaximum, a, b); }
  Instruction* Min(Instruction* a, Instruction* b) const { return o.Binary(Opcode::kMinimum, a, b); }
  Instruction* Abs(Instruction* a) const { return o.Make(Opcode::kAbs, a->shape, {a}); }
  Instruction* Neg(Instruction* a) const { return o.Make(Opcode::kNegate, a->shape, {a}); }
  Instruction* Sqrt(Instruction* a) const { return o.Make(Opcode::kSqrt, a->shape, {a}); }
  Instruction* Is(Instruction* a, ComparisonDirection d, Instruction* b) const { return o.Compare(a, b, d); }
  Instruction* Zero(Instruction* a) const { return o.Compare(a, K(0), ComparisonDirection::kEq); }
  Instruction* NonNegative(Instruction* a) const { return o.Compare(a, K(0), ComparisonDirection::kGe); }
  // Fortran's SIGN(a, b): |a| with b's sign (+ for a zero b).
  Instruction* Sign(Instruction* a, Instruction* b) const { return o.Select(NonNegative(b), Abs(a), Neg(Abs(a))); }
  Instruction* And(Instruction* a, Instruction* b) const { return o.Binary(Opcode::kAnd, a, b); }
  Instruction* Not(Instruction* a) const { return o.Make(Opcode::kNot, a->shape, {a}); }
  Instruction* Pick(Instruction* p, Instruction* a, Instruction* b) const { return o.Select(p, a, b); }
};

// A 2x2 block [a b; c d] = [cs -sn; sn cs] [aa bb; cc dd] [cs sn; -sn cs]
// in LAPACK's standard form (dlanv2), over vectors of blocks.
struct StandardBlock {
  Instruction *a, *b, *c, *d, *cs, *sn;
};

StandardBlock StandardizeBlock(const RealArith& r, Instruction* a, Instruction* b, Instruction* c, Instruction* d) {
  // Scaled by the largest entry, so that no square below overflows.
  Instruction* size = r.Max(r.Max(r.Abs(a), r.Abs(b)), r.Max(r.Abs(c), r.Abs(d)));
  size = r.Pick(r.Zero(size), r.K(1), size);
  a = r.Div(a, size), b = r.Div(b, size), c = r.Div(c, size), d = r.Div(d, size);
  Instruction *one = r.K(1), *zero = r.K(0), *half = r.K(0.5);
  Instruction* c_zero = r.Zero(c);
  Instruction* b_zero = r.And(r.Not(c_zero), r.Zero(b));  // swap rows and columns
  Instruction* temp = r.Sub(a, d);
  Instruction* opposite = r.o.Compare(r.NonNegative(b), r.NonNegative(c), ComparisonDirection::kNe);
  Instruction* standard = r.And(r.Zero(temp), opposite);
  Instruction* as_is = r.o.Binary(Opcode::kOr, c_zero, r.And(r.Not(b_zero), standard));
  Instruction* p = r.Mul(half, temp);
  Instruction* bcmax = r.Max(r.Abs(b), r.Abs(c));
  Instruction* bcmis = r.Mul(r.Mul(r.Min(r.Abs(b), r.Abs(c)), r.Sign(one, b)), r.Sign(one, c));
  Instruction* scale = r.Max(r.Abs(p), bcmax);
  Instruction* z = r.Add(r.Mul(r.Div(p, scale), p), r.Mul(r.Div(bcmax, scale), bcmis));
  Instruction* real_pair = r.Is(z, ComparisonDirection::kGe, r.K(4 * Epsilon(r.t)));
  // Real eigenvalues: the block made triangular.
  Instruction* zr = r.Add(p, r.Sign(r.Mul(r.Sqrt(scale), r.Sqrt(z)), p));
  Instruction* tau = r.Sqrt(r.Add(r.Mul(c, c), r.Mul(zr, zr)));
  StandardBlock real{r.Add(d, zr), r.Sub(b, c), zero, r.Sub(d, r.Mul(r.Div(bcmax, zr), bcmis)), r.Div(zr, tau), r.Div(c, tau)};
  // Complex (or nearly equal real) eigenvalues: the diagonal made equal.
  Instruction* sigma = r.Add(b, c);
  Instruction* tau2 = r.Sqrt(r.Add(r.Mul(sigma, sigma), r.Mul(temp, temp)));
  Instruction* cs = r.Sqrt(r.Mul(half, r.Add(one, r.Div(r.Abs(sigma), tau2))));
  Instruction* sn = r.Mul(r.Neg(r.Div(p, r.Mul(tau2, cs))), r.Sign(one, sigma));
  Instruction* aa = r.Add(r.Mul(a, cs), r.Mul(b, sn));
  Instruction* bb = r.Sub(r.Mul(b, cs), r.Mul(a, sn));
  Instruction* cc = r.Add(r.Mul(c, cs), r.Mul(d, sn));
  Instruction* dd = r.Sub(r.Mul(d, cs), r.Mul(c, sn));
  Instruction* b2 = r.Add(r.Mul(bb, cs), r.Mul(dd, sn));
  Instruction* c2 = r.Sub(r.Mul(cc, cs), r.Mul(aa, sn));
  Instruction* mid = r.Mul(half, r.Add(r.Add(r.Mul(aa, cs), r.Mul(cc, sn)), r.Sub(r.Mul(dd, cs), r.Mul(bb, sn))));
  // ... then, where b and c came out of one sign, triangular after all; where b is 0, swapped.
  Instruction* c2_set = r.Not(r.Zero(c2));
  Instruction* same = r.And(r.And(c2_set, r.Not(r.Zero(b2))), r.o.Compare(r.NonNegative(b2), r.NonNegative(c2), ComparisonDirection::kEq));
  Instruction* swap = r.And(c2_set, r.Zero(b2));
  Instruction *sab = r.Sqrt(r.Abs(b2)), *sac = r.Sqrt(r.Abs(c2));
  Instruction* shift = r.Sign(r.Mul(sab, sac), c2);
  Instruction* inv = r.Div(one, r.Sqrt(r.Abs(r.Add(b2, c2))));
  Instruction *cs1 = r.Mul(sab, inv), *sn1 = r.Mul(sac, inv);
  StandardBlock pair{r.Pick(same, r.Add(mid, shift), mid),
                     r.Pick(same, r.Sub(b2, c2), r.Pick(swap, r.Neg(c2), b2)),
                     r.Pick(r.o.Binary(Opcode::kOr, same, swap), zero, c2),
                     r.Pick(same, r.Sub(mid, shift), mid),
                     r.Pick(same, r.Sub(r.Mul(cs, cs1), r.Mul(sn, sn1)), r.Pick(swap, r.Neg(sn), cs)),
                     r.Pick(same, r.Add(r.Mul(cs, sn1), r.Mul(sn, cs1)), r.Pick(swap, cs, sn))};
  auto choose = [&](Instruction* StandardBlock::*field, Instruction* kept, Instruction* swapped) {
    return r.Pick(as_is, kept, r.Pick(b_zero, swapped, r.Pick(real_pair, real.*field, pair.*field)));
  };
  StandardBlock s{choose(&StandardBlock::a, a, d), choose(&StandardBlock::b, b, r.Neg(c)), choose(&StandardBlock::c, c, zero),
                  choose(&StandardBlock::d, d, a), choose(&StandardBlock::cs, one, zero), choose(&StandardBlock::sn, zero, one)};
  s.a = r.Mul(s.a, size), s.b = r.Mul(s.b, size), s.c = r.Mul(s.c, size), s.d = r.Mul(s.d, size);
  return s;
}

// v [..., n] moved by one along its last dim, a zero coming in: v[k + 1]
// (up) or v[k - 1] (down) at k.
Instruction* Shifted(ArrayOps& o, Instruction* v, bool up) {
  const int64_t n = v->shape.dims().back(), rank = v->shape.rank();
  if (n < 2) return o.Fill(v->shape.element_type(), 0, v->shape.dims());
  std::vector<int64_t> one = v->shape.dims();
  one.back() = 1;
  Instruction* zero = o.Fill(v->shape.element_type(), 0, one);
  return up ? o.Concatenate(o.SliceLast(v, 1, n), zero, rank - 1) : o.Concatenate(zero, o.SliceLast(v, 0, n - 1), rank - 1);
}

// T's 2x2 blocks in standard form: T <- G^T T G, Z <- Z G with G the
// blocks' rotations, their entries then set to dlanv2's exactly; the
// eigenvalues from the blocks.
void StandardizeBlocks(ArrayOps& o, const MatrixPicker& pk, SchurFactors& s) {
  const MatrixFrame& f = pk.f;
  const ElementType rt = s.t->shape.element_type();
  const RealArith r{o, f.row_dims, rt};
  Instruction* diag = pk.Diagonal(s.t, 0);
  Instruction *a = diag, *b = pk.Diagonal(s.t, 1), *c = Shifted(o, pk.Diagonal(s.t, -1), true), *d = Shifted(o, diag, true);
  Instruction* nonzero = r.Not(r.Zero(c));
  Instruction* start = r.And(nonzero, r.Not(Shifted(o, nonzero, false)));  // a block at (k, k + 1)
  Instruction* second = Shifted(o, start, false);
  const StandardBlock st = StandardizeBlock(r, a, b, c, d);
  Instruction *cs = r.Pick(start, st.cs, r.K(1)), *sn = r.Pick(start, st.sn, r.K(0));
  // G: [cs -sn; sn cs] on each block's rows and columns, the identity elsewhere.
  auto by_row = [&](Instruction* v) { return o.Spread(v, f.dims, f.col_map); };
  auto by_col = [&](Instruction* v) { return o.Spread(v, f.dims, f.row_map); };
  Instruction* on = o.Compare(pk.rows, pk.cols, ComparisonDirection::kEq);
  Instruction* one_up = o.Compare(o.Binary(Opcode::kAdd, pk.rows, o.Fill(ElementType::kS32, 1, f.dims)), pk.cols, ComparisonDirection::kEq);
  Instruction* one_down = o.Compare(pk.rows, o.Binary(Opcode::kAdd, pk.cols, o.Fill(ElementType::kS32, 1, f.dims)), ComparisonDirection::kEq);
  Instruction* zero = o.Fill(rt, 0, f.dims);
  Instruction* g = o.Select(on, o.Select(by_row(second), by_row(Shifted(o, cs, false)), by_row(cs)),
                            o.Select(o.Binary(Opcode::kAnd, one_up, by_row(start)), by_row(r.Neg(sn)),
                                     o.Select(o.Binary(Opcode::kAnd, one_down, by_col(start)), by_col(sn), zero)));
  Instruction* t = o.MatMul(o.TransposeMatrix(g), o.MatMul(s.t, g));
  s.z = o.MatMul(s.z, g);
  // The blocks' entries exactly; nothing below the subdiagonal, nor on it outside a block.
  Instruction *at_start = by_row(start), *at_second = by_row(second);
  t = o.Select(o.Binary(Opcode::kAnd, on, at_start), by_row(st.a), t);
  t = o.Select(o.Binary(Opcode::kAnd, on, at_second), by_row(Shifted(o, st.d, false)), t);
  t = o.Select(o.Binary(Opcode::kAnd, one_up, at_start), by_row(st.b), t);
  t = o.Select(o.Binary(Opcode::kAnd, one_down, at_second), by_row(Shifted(o, st.c, false)), t);
  Instruction* kept = o.Binary(Opcode::kOr, o.Compare(pk.rows, pk.cols, ComparisonDirection::kLe), o.Binary(Opcode::kAnd, one_down, at_second));
  s.t = o.Select(kept, t, zero);
  // Eigenvalues: a block's (rt1 at its start, rt2 after), a 1x1's diagonal entry.
  Instruction* split = r.Zero(st.c);
  Instruction* im = r.Pick(split, r.K(0), r.Mul(r.Sqrt(r.Abs(st.b)), r.Sqrt(r.Abs(st.c))));
  Instruction* new_diag = pk.Diagonal(s.t, 0);
  Instruction* wi = r.Pick(start, im, r.Pick(second, r.Sub(r.K(0), Shifted(o, im, false)), r.K(0)));  // no -0
  s.values = o.Make(Opcode::kComplex, Shape(ComplexOf(rt), f.row_dims), {new_diag, wi});
}

}  // namespace

StatusOr<SchurFactors> BuildSchurDecomposition(Instruction* a, const ComputationBuilders& b) {
  const Shape& s = a->shape;
  const ElementType t = s.element_type();
  VKXLA_RETURN_IF_ERROR(CheckSquareMatrices(s, "the Schur decomposition"));
  const MatrixFrame f(s);
  const int64_t n = f.n;
  if (n > kMaxEigOrder)
    return Unimplemented("the Schur decomposition of " + s.ToString() + ": matrices of order up to " + std::to_string(kMaxEigOrder) +
                         " (a QR decomposition a step)");
  const bool real = !IsComplex(t);
  const ElementType rt = RealType(t);
  // The part still to converge: of order 2 or more (complex), 3 or more
  // (real, whose last 2x2 block needs no steps).
  const double settled = real ? 2 : 1;
  Computation* add = AddComputation(b, t);
  Computation* add_real = real ? add : AddComputation(b, rt);
  ArrayOps top(b.make, b.constant);
  MatrixPicker outer(top, f, add, add_real);
  const Shape i32 = Shape::Scalar(ElementType::kS32), counts(ElementType::kS32, f.batch);
  const Shape state = Shape::Tuple({i32, s, s, counts, counts});  // step, x, z, active order, steps since a deflation
  const int64_t max_steps = 30 * std::max<int64_t>(n, 10);
  // Runs while some member has an active part left to converge.
  Computation* cond = b.new_computation();
  {
    ArrayOps o(b.make_in(cond), b.constant_in(cond));
    Instruction* p = Parameter(o, state, 0);
    Instruction* running = o.Compare(o.Element(p, 3), o.Fill(ElementType::kS32, settled, f.batch), ComparisonDirection::kGt);
    Instruction* any = running;
    if (!f.batch.empty()) {
      Computation* either = b.new_computation();
      ArrayOps e(b.make_in(either), b.constant_in(either));
      const Shape pred = Shape::Scalar(ElementType::kPred);
      either->set_root(e.Binary(Opcode::kOr, Parameter(e, pred, 0), Parameter(e, pred, 1)));
      any = o.Make(Opcode::kReduce, pred, {running, o.Const(ElementType::kPred, 0)});
      any->dimensions = Iota0(static_cast<int64_t>(f.batch.size()));
      any->called_computations.emplace_back("to_apply", either);
    }
    cond->set_root(o.Binary(Opcode::kAnd, o.Compare(o.Element(p, 0), o.Const(ElementType::kS32, static_cast<double>(max_steps)), ComparisonDirection::kLt), any));
  }
  LoopBody body(b, state);
  {
    ArrayOps& o = body.ops;
    const ComputationBuilders inner = BuildersIn(b, body.computation);
    MatrixPicker pk(o, f, add, add_real);
    const RealArith r{o, f.batch, rt};
    Instruction *step = body.elements[0], *x = body.elements[1], *z = body.elements[2], *active = body.elements[3], *stall = body.elements[4];
    auto minus = [&](Instruction* v, double k) {
      return o.Binary(Opcode::kMaximum, o.Binary(Opcode::kSubtract, v, o.Fill(ElementType::kS32, k, f.batch)), o.Fill(ElementType::kS32, 0, f.batch));
    };
    Instruction *last = minus(active, 1), *before = minus(active, 2), *third = minus(active, 3);
    Instruction *p = pk.At(x, before, before), *q = pk.At(x, before, last), *rr = pk.At(x, last, before), *d = pk.At(x, last, last);
    Instruction* running = o.Compare(active, o.Fill(ElementType::kS32, settled, f.batch), ComparisonDirection::kGt);
    Instruction* running_m = o.Spread(running, f.dims, f.batch_map);
    // After ten steps without a deflation, an exceptional shift.
    Instruction* exceptional = o.Compare(o.Binary(Opcode::kRemainder, stall, o.Fill(ElementType::kS32, 10, f.batch)),
                                         o.Fill(ElementType::kS32, 9, f.batch), ComparisonDirection::kEq);
    Instruction* diagonal = o.Compare(pk.rows, pk.cols, ComparisonDirection::kEq);
    Instruction* hessenberg = o.Compare(pk.rows, o.Binary(Opcode::kAdd, pk.cols, o.Fill(ElementType::kS32, 1, f.dims)), ComparisonDirection::kLe);
    Instruction *x1 = nullptr, *qm = nullptr;
    if (real) {
      // The trailing 2x2's trace and determinant (lahqr's exceptional
      // ones: a block of 0.75 e + d and -0.4375 e, e the last two
      // subdiagonal entries' sizes); x^2 - s x + t I, over the largest |x|
      // squared, = Q R; x <- Q^T x Q.
      Instruction* e = r.Add(r.Abs(rr), r.Abs(pk.At(x, before, third)));
      Instruction* h11 = r.Add(r.Mul(r.K(0.75), e), d);
      Instruction* trace = r.Pick(exceptional, r.Mul(r.K(2), h11), r.Add(p, d));
      Instruction* det = r.Pick(exceptional, r.Add(r.Mul(h11, h11), r.Mul(r.K(0.4375), r.Mul(e, e))), r.Sub(r.Mul(p, d), r.Mul(q, rr)));
      Instruction* largest = o.Make(Opcode::kReduce, Shape(rt, f.batch), {pk.Magnitude(x), o.Const(rt, 0)});
      largest->dimensions = std::vector<int64_t>{f.rank - 2, f.rank - 1};
      largest->called_computations.emplace_back("to_apply", MaxComputation(inner, rt));
      largest = r.Pick(r.Zero(largest), r.K(1), largest);
      Instruction* y = o.Binary(Opcode::kDivide, x, o.Spread(largest, f.dims, f.batch_map));
      Instruction* ts = r.Div(trace, largest);
      Instruction* ds = r.Div(r.Div(det, largest), largest);
      Instruction* m = o.Binary(Opcode::kSubtract, o.MatMul(y, y), o.Binary(Opcode::kMultiply, o.Spread(ts, f.dims, f.batch_map), y));
      m = o.Binary(Opcode::kAdd, m, o.Select(diagonal, o.Spread(ds, f.dims, f.batch_map), o.Fill(rt, 0, f.dims)));
      VKXLA_ASSIGN_OR_RETURN(QrFactors qr, BuildQrDecomposition(m, inner));
      VKXLA_ASSIGN_OR_RETURN(qm, BuildHouseholderProduct(qr.packed, qr.taus, inner));
      x1 = o.MatMul(o.TransposeMatrix(qm), o.MatMul(x, qm));
    } else {
      // Wilkinson's shift: the trailing 2x2's eigenvalue nearer d; the
      // exceptional one d + 0.75 |r|. x - mu I = Q R; x <- R Q + mu I.
      Instruction* half = o.Fill(t, 0.5, f.batch);
      Instruction* mean = o.Binary(Opcode::kMultiply, o.Binary(Opcode::kAdd, p, d), half);
      Instruction* gap = o.Binary(Opcode::kMultiply, o.Binary(Opcode::kSubtract, p, d), half);
      Instruction* root = o.Make(Opcode::kSqrt, gap->shape, {o.Binary(Opcode::kAdd, o.Binary(Opcode::kMultiply, gap, gap), o.Binary(Opcode::kMultiply, q, rr))});
      Instruction *mu1 = o.Binary(Opcode::kAdd, mean, root), *mu2 = o.Binary(Opcode::kSubtract, mean, root);
      Instruction* nearer = o.Compare(pk.Magnitude(o.Binary(Opcode::kSubtract, mu1, d)), pk.Magnitude(o.Binary(Opcode::kSubtract, mu2, d)),
                                      ComparisonDirection::kLe);
      Instruction* mu = o.Select(nearer, mu1, mu2);
      mu = o.Select(exceptional, o.Binary(Opcode::kAdd, d, o.As(o.Binary(Opcode::kMultiply, o.Fill(rt, 0.75, f.batch), pk.Magnitude(rr)), t)), mu);
      Instruction* shift = o.Select(diagonal, o.Spread(mu, f.dims, f.batch_map), o.Fill(t, 0, f.dims));
      VKXLA_ASSIGN_OR_RETURN(QrFactors qr, BuildQrDecomposition(o.Binary(Opcode::kSubtract, x, shift), inner));
      VKXLA_ASSIGN_OR_RETURN(qm, BuildHouseholderProduct(qr.packed, qr.taus, inner));
      Instruction* rm = o.Select(o.Compare(pk.rows, pk.cols, ComparisonDirection::kLe), qr.packed, o.Fill(t, 0, f.dims));
      x1 = o.Binary(Opcode::kAdd, o.MatMul(rm, qm), shift);
    }
    // The step keeps x Hessenberg: what falls below is rounding. A member
    // that has converged keeps what it has.
    x1 = o.Select(o.Binary(Opcode::kAnd, running_m, hessenberg), x1, o.Select(running_m, o.Fill(t, 0, f.dims), x));
    Instruction* z1 = o.Select(running_m, o.MatMul(z, qm), z);
    // A subdiagonal entry negligible next to its diagonal neighbours (or
    // tiny outright): deflate one row, or (real) a 2x2 block.
    const double tiny = rt == ElementType::kF32 ? 1e-30 : 1e-300;
    auto negligible = [&](Instruction* row, Instruction* col) {
      Instruction* size = pk.Magnitude(pk.At(x1, row, col));
      Instruction* scale = r.Add(pk.Magnitude(pk.At(x1, col, col)), pk.Magnitude(pk.At(x1, row, row)));
      return o.Compare(size, r.Max(r.Mul(r.K(Epsilon(rt)), scale), r.K(tiny)), ComparisonDirection::kLe);
    };
    Instruction* one_off = r.And(running, negligible(last, before));
    Instruction* two_off = real ? r.And(r.And(running, r.Not(one_off)), negligible(before, third)) : nullptr;
    auto zero_at = [&](Instruction* x, Instruction* when, Instruction* row, Instruction* col) {
      Instruction* at = o.Binary(Opcode::kAnd, o.Spread(when, f.dims, f.batch_map), o.Binary(Opcode::kAnd, pk.Is(pk.rows, row), pk.Is(pk.cols, col)));
      return o.Select(at, o.Fill(t, 0, f.dims), x);
    };
    x1 = zero_at(x1, one_off, last, before);
    Instruction* one = o.Fill(ElementType::kS32, 1, f.batch);
    Instruction* next_active = o.Select(one_off, o.Binary(Opcode::kSubtract, active, one), active);
    Instruction* deflated = one_off;
    if (real) {
      x1 = zero_at(x1, two_off, before, third);
      next_active = o.Select(two_off, o.Binary(Opcode::kSubtract, active, o.Fill(ElementType::kS32, 2, f.batch)), next_active);
      deflated = o.Binary(Opcode::kOr, one_off, two_off);
    }
    body.Finish({o.Binary(Opcode::kAdd, step, o.Const(ElementType::kS32, 1)), x1, z1, next_active,
                 o.Select(deflated, o.Fill(ElementType::kS32, 0, f.batch), o.Binary(Opcode::kAdd, stall, one))});
  }
  const RangeScaling range = ScaleIntoRange(top, a, b);
  VKXLA_ASSIGN_OR_RETURN(HessenbergFactors hessenberg, BuildHessenbergReduction(range.scaled, b));
  // A member with a NaN or an infinity takes no steps (they could never
  // deflate it) and reports that none of its eigenvalues converged.
  Instruction* order = top.Fill(ElementType::kS32, static_cast<double>(n), f.batch);
  Instruction* loop = CountedLoop(top, state,
                                  {top.Const(ElementType::kS32, 0), hessenberg.h, hessenberg.q,
                                   top.Select(range.finite, order, top.Fill(ElementType::kS32, 0, f.batch)), top.Fill(ElementType::kS32, 0, f.batch)},
                                  cond, body.computation);
  Instruction* active = top.Element(loop, 3);
  SchurFactors factors;
  factors.info = top.Select(range.finite,
                            top.Select(top.Compare(active, top.Fill(ElementType::kS32, settled, f.batch), ComparisonDirection::kGt), active,
                                       top.Fill(ElementType::kS32, 0, f.batch)),
                            order);
  factors.z = top.Element(loop, 2);
  if (real) {
    factors.t = top.Element(loop, 1);
    StandardizeBlocks(top, outer, factors);
  } else {
    // T: the upper triangle (what lies below is rounding, or a part that
    // did not converge, which info reports).
    factors.t = top.Select(top.Compare(outer.rows, outer.cols, ComparisonDirection::kLe), top.Element(loop, 1), top.Fill(t, 0, f.dims));
    factors.values = outer.Diagonal(factors.t, 0);
  }
  factors.t = ScaledBack(top, factors.t, range.factor);
  factors.values = ScaledBack(top, factors.values, range.factor);
  return factors;
}

}  // namespace vkxla
