#include "plan/linalg_expansion.h"

#include <limits>

#include "ops/cholesky.h"
#include "ops/dot.h"
#include "ops/triangular_solve.h"
#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

int64_t Order(const Instruction& inst) { return inst.operands[0]->shape.dims().back(); }

// Valid ops only: a bad one stays as written for the planner to report.
bool IsLargeLinearAlgebra(const Instruction& inst) {
  if (inst.opcode == Opcode::kCholesky) return InferCholeskyShape(inst).ok() && Order(inst) > kCholeskyLeafOrder;
  if (inst.opcode == Opcode::kTriangularSolve)
    return InferTriangularSolveShape(inst).ok() && Order(inst) > kTriangularSolveLeafOrder;
  return false;
}

// Where a block of order m splits: half, rounded up to a multiple of the leaf.
int64_t Split(int64_t m, int64_t leaf) { return (m / 2 + leaf - 1) / leaf * leaf; }

class Expander {
 public:
  Expander(Computation& c, const Instruction& origin) : w_(c, origin, "linalg"), origin_(origin) {}

  StatusOr<Instruction*> ExpandSolve(Instruction* a, Instruction* b) {
    VKXLA_ASSIGN_OR_RETURN(TriangularSolveOptions o, ReadTriangularSolveOptions(origin_));
    VKXLA_ASSIGN_OR_RETURN(Instruction * x, Solve(a, 0, Order(origin_), b, o));
    x->shape = origin_.shape;  // the layout it was asked in
    return x;
  }

  StatusOr<Instruction*> ExpandCholesky(Instruction* a) {
    VKXLA_ASSIGN_OR_RETURN(bool lower, ReadCholeskyLower(origin_));
    Instruction* named = lower ? a : w_.ConjugateIfComplex(SwapMatrixDims(a));
    VKXLA_ASSIGN_OR_RETURN(Instruction * l, Factor(named, 0, Order(origin_)));
    l = NanIfFailed(l);
    if (!lower) l = w_.ConjugateIfComplex(SwapMatrixDims(l));
    l->shape = origin_.shape;
    return l;
  }

 private:
  int64_t Rank() const { return origin_.shape.rank(); }

  // Rows [r0, r0 + rows) and columns [c0, c0 + cols) of each matrix of x.
  Instruction* Block(Instruction* x, int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
    const int64_t r = Rank();
    if (r0 != 0 || rows != x->shape.dim(r - 2)) x = w_.Slice(x, r - 2, r0, r0 + rows);
    if (c0 != 0 || cols != x->shape.dim(r - 1)) x = w_.Slice(x, r - 1, c0, c0 + cols);
    return x;
  }

  Instruction* SwapMatrixDims(Instruction* x) {
    std::vector<int64_t> perm(static_cast<size_t>(Rank())), dims = x->shape.dims();
    for (int64_t d = 0; d < Rank(); ++d) perm[d] = d;
    std::swap(perm[Rank() - 2], perm[Rank() - 1]);
    std::swap(dims[Rank() - 2], dims[Rank() - 1]);
    Instruction* t = w_.Add(Opcode::kTranspose, Shape(x->shape.element_type(), dims), {x});
    t->dimensions = perm;
    return t;
  }

  // Batched over the leading dims: lhs's dim `lhs_k` contracted with rhs's `rhs_k`.
  Instruction* Dot(Instruction* lhs, Instruction* rhs, int64_t lhs_k, int64_t rhs_k) {
    DotDimensions d;
    std::vector<int64_t> dims;
    for (int64_t i = 0; i + 2 < Rank(); ++i) {
      d.lhs_batch.push_back(i);
      d.rhs_batch.push_back(i);
      dims.push_back(lhs->shape.dim(i));
    }
    d.lhs_contracting = {lhs_k};
    d.rhs_contracting = {rhs_k};
    for (int64_t i = Rank() - 2; i < lhs->shape.rank(); ++i)
      if (i != lhs_k) dims.push_back(lhs->shape.dim(i));
    for (int64_t i = Rank() - 2; i < rhs->shape.rank(); ++i)
      if (i != rhs_k) dims.push_back(rhs->shape.dim(i));
    Instruction* dot = w_.Add(Opcode::kDot, Shape(lhs->shape.element_type(), dims), {lhs, rhs});
    SetDotDimensions(*dot, d);
    return dot;
  }

  // T x = b for the diagonal block [o, o + m) of a (ops/triangular_solve.h).
  StatusOr<Instruction*> Solve(Instruction* a, int64_t o, int64_t m, Instruction* b, const TriangularSolveOptions& opt) {
    const int64_t r = Rank(), along = opt.left_side ? r - 2 : r - 1;  // b's dim of the unknowns
    if (m <= kTriangularSolveLeafOrder) {
      Instruction* t = w_.Add(Opcode::kTriangularSolve, Shape(b->shape.element_type(), b->shape.dims()), {Block(a, o, o, m, m), b});
      SetTriangularSolveOptions(*t, opt);
      return t;
    }
    const bool forward = opt.ForwardSubstitution();
    const int64_t t_k = opt.TransposedRead() ? r - 2 : r - 1;
    // T's block [rows s, columns f] (a's, or its transpose), times the
    // unknowns x solved for f: what b's part s loses to them.
    auto product = [&](int64_t s0, int64_t sn, int64_t f0, int64_t fn, Instruction* x) {
      Instruction* t = opt.TransposedRead() ? Block(a, o + f0, o + s0, fn, sn) : Block(a, o + s0, o + f0, sn, fn);
      if (opt.Conjugated()) t = w_.ConjugateIfComplex(t);
      return opt.left_side ? Dot(t, x, t_k, r - 2) : Dot(x, t, r - 1, t_k);
    };
    if (m > kTriangularSolvePanelOrder) {
      // Left-looking over panels in substitution order: each panel's part of
      // b less one long-contraction matmul with every unknown solved so far,
      // then the panel solved (by halves). Mid-size matmuls of a recursion
      // on halves ran well below the large ones on lavapipe.
      const int64_t p = kTriangularSolvePanelOrder;
      Instruction* solved = nullptr;  // the unknowns of [lo, hi), in a's order
      int64_t lo = forward ? 0 : m, hi = lo;
      for (int64_t done = 0; done < m; done += p) {
        const int64_t sn = std::min(p, m - done), s0 = forward ? done : m - done - sn;
        Instruction* part = w_.Slice(b, along, s0, s0 + sn);
        if (solved) {
          Instruction* loss = product(s0, sn, lo, hi - lo, solved);
          part = w_.Add(Opcode::kSubtract, part->shape, {part, loss});
        }
        VKXLA_ASSIGN_OR_RETURN(Instruction * x, Solve(a, o + s0, sn, part, opt));
        solved = !solved ? x : forward ? w_.Concatenate({solved, x}, along) : w_.Concatenate({x, solved}, along);
        lo = std::min(lo, s0);
        hi = std::max(hi, s0 + sn);
      }
      return solved;
    }
    const int64_t m1 = Split(m, kTriangularSolveLeafOrder);
    // The part solved first (f) and the rest (s), as offsets in the block.
    const int64_t f0 = forward ? 0 : m1, fn = forward ? m1 : m - m1;
    const int64_t s0 = forward ? m1 : 0, sn = m - fn;
    VKXLA_ASSIGN_OR_RETURN(Instruction * xf, Solve(a, o + f0, fn, w_.Slice(b, along, f0, f0 + fn), opt));
    Instruction* bs = w_.Slice(b, along, s0, s0 + sn);
    Instruction* loss = product(s0, sn, f0, fn, xf);
    VKXLA_ASSIGN_OR_RETURN(Instruction * xs, Solve(a, o + s0, sn, w_.Add(Opcode::kSubtract, bs->shape, {bs, loss}), opt));
    return forward ? w_.Concatenate({xf, xs}, along) : w_.Concatenate({xs, xf}, along);
  }

  // The lower factor of the diagonal block [o, o + n) of a (its lower triangle read).
  StatusOr<Instruction*> Factor(Instruction* a, int64_t o, int64_t n) {
    const int64_t r = Rank();
    const ElementType t = a->shape.element_type();
    if (n <= kCholeskyLeafOrder) {
      Instruction* block = Block(a, o, o, n, n);
      Instruction* l = w_.Add(Opcode::kCholesky, Shape(t, block->shape.dims()), {block});
      SetCholeskyLower(*l, true);
      return l;
    }
    const int64_t n1 = Split(n, kCholeskyLeafOrder), n2 = n - n1;
    VKXLA_ASSIGN_OR_RETURN(Instruction * l11, Factor(a, o, n1));
    TriangularSolveOptions right_adjoint;
    right_adjoint.lower = true;
    right_adjoint.transpose_a = TransposeA::kAdjoint;
    VKXLA_ASSIGN_OR_RETURN(Instruction * l21, Solve(l11, 0, n1, Block(a, o + n1, o, n2, n1), right_adjoint));
    Instruction* a22 = LowerUpdate(Block(a, o + n1, o + n1, n2, n2), l21);
    VKXLA_ASSIGN_OR_RETURN(Instruction * l22, Factor(a22, 0, n2));
    std::vector<int64_t> zero_dims = l11->shape.dims();
    zero_dims[r - 1] = n2;
    Instruction* top = w_.Concatenate({l11, w_.Filled(Scalar::Float(t, 0.0), zero_dims)}, r - 1);
    Instruction* bottom = w_.Concatenate({l21, l22}, r - 1);
    return w_.Concatenate({top, bottom}, r - 2);
  }

  // a - l l^H where only its lower triangle is read (by Factor): split in
  // halves, the block above the diagonal is left zero instead of computed.
  Instruction* LowerUpdate(Instruction* a, Instruction* l) {
    const int64_t r = Rank(), n = l->shape.dim(r - 2);
    auto minus = [&](Instruction* x, Instruction* y) { return w_.Add(Opcode::kSubtract, x->shape, {x, y}); };
    if (n <= kLowerUpdateLeafOrder) return minus(a, Dot(l, w_.ConjugateIfComplex(l), r - 1, r - 1));
    const int64_t p = Split(n, kCholeskyLeafOrder), q = n - p;
    Instruction* lp = w_.Slice(l, r - 2, 0, p);
    Instruction* lq = w_.Slice(l, r - 2, p, n);
    Instruction* below = minus(Block(a, p, 0, q, p), Dot(lq, w_.ConjugateIfComplex(lp), r - 1, r - 1));
    std::vector<int64_t> zero_dims = below->shape.dims();
    zero_dims[r - 2] = p;
    zero_dims[r - 1] = q;
    Instruction* top = w_.Concatenate({LowerUpdate(Block(a, 0, 0, p, p), lp), w_.Filled(Scalar::Float(a->shape.element_type(), 0.0), zero_dims)}, r - 1);
    Instruction* bottom = w_.Concatenate({below, LowerUpdate(Block(a, p, p, q, q), lq)}, r - 1);
    return w_.Concatenate({top, bottom}, r - 2);
  }

  // l, or NaN (NaN + 0i) throughout each matrix whose sum is NaN (a leaf
  // that met a bad pivot returns NaNs, which reach the sum).
  Instruction* NanIfFailed(Instruction* l) {
    const int64_t r = Rank();
    const ElementType t = l->shape.element_type();
    std::vector<int64_t> vector_dims(l->shape.dims().begin(), l->shape.dims().end() - 1);
    Instruction* ones = w_.Filled(IsComplex(t) ? Scalar::Complex(t, 1.0) : Scalar::Float(t, 1.0), vector_dims);
    Instruction* sum = Dot(Dot(l, ones, r - 1, r - 2), ones, r - 2, r - 2);
    if (IsComplex(t)) {
      const Shape part(ComplexComponentType(t), sum->shape.dims());
      sum = w_.Add(Opcode::kAdd, part, {w_.Add(Opcode::kReal, part, {sum}), w_.Add(Opcode::kImag, part, {sum})});
    }
    Instruction* failed = w_.Add(Opcode::kCompare, Shape(ElementType::kPred, sum->shape.dims()), {sum, sum});
    failed->direction = ComparisonDirection::kNe;
    Instruction* every = w_.Add(Opcode::kBroadcast, Shape(ElementType::kPred, l->shape.dims()), {failed});
    std::vector<int64_t> batch;
    for (int64_t d = 0; d + 2 < r; ++d) batch.push_back(d);
    every->dimensions = batch;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    Instruction* nans = w_.Filled(IsComplex(t) ? Scalar::Complex(t, {nan, 0.0}) : Scalar::Float(t, nan), l->shape.dims());
    return w_.Add(Opcode::kSelect, Shape(t, l->shape.dims()), {every, nans, l});
  }

  ExpansionWriter w_;
  const Instruction& origin_;
};

}  // namespace

StatusOr<std::shared_ptr<const Module>> ExpandLinearAlgebra(const Module& module) {
  return RewriteModule(module, IsLargeLinearAlgebra,
                       [](Computation& c, const Instruction& inst, const std::vector<Instruction*>& operands) -> StatusOr<Instruction*> {
                         if (Order(inst) > kMaxLinearAlgebraOrder)
                           return Unimplemented(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": matrices of order " +
                                                std::to_string(Order(inst)) + " (" + inst.operands[0]->shape.ToString() +
                                                ") are past the largest this build plans, " + std::to_string(kMaxLinearAlgebraOrder));
                         Expander e(c, inst);
                         return inst.opcode == Opcode::kCholesky ? e.ExpandCholesky(operands.at(0))
                                                                 : e.ExpandSolve(operands.at(0), operands.at(1));
                       });
}

}  // namespace vkxla
