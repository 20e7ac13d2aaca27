#include "frontends/householder_reflector.h"

namespace vkxla {

Reflector HouseholderReflector(ArrayOps& o, const MatrixFrame& f, Instruction* column, Instruction* pivot, Computation* add,
                               Computation* add_real) {
  const ElementType t = column->shape.element_type(), rt = RealType(t);
  const int64_t line = f.rank - 2;  // the vector's own dim in col_dims
  Instruction* rows = o.Iota(ElementType::kS32, f.col_dims, line);
  Instruction* at = o.Spread(pivot, f.col_dims, {});
  Instruction* zero_line = o.Fill(t, 0, f.col_dims);
  Instruction* is_pivot = o.Compare(rows, at, ComparisonDirection::kEq);
  Instruction* below = o.Compare(rows, at, ComparisonDirection::kGt);
  Reflector r;
  r.alpha = o.Sum(o.Select(is_pivot, column, zero_line), line, add);
  Instruction* tail = o.Select(below, column, zero_line);
  Instruction* tail2 = o.Sum(o.AbsSquared(tail), line, add_real);
  // beta = -sign(re alpha) |(alpha, tail)|, tau = (beta - alpha) / beta,
  // v = tail / (alpha - beta); nothing to reflect where the tail is zero and
  // alpha real.
  Instruction* zero_r = o.Fill(rt, 0, f.batch);
  r.reflects = o.Compare(tail2, zero_r, ComparisonDirection::kNe);
  if (IsComplex(t)) r.reflects = o.Binary(Opcode::kOr, r.reflects, o.Compare(o.Imag(r.alpha), zero_r, ComparisonDirection::kNe));
  Instruction* norm = o.Make(Opcode::kSqrt, tail2->shape, {o.Binary(Opcode::kAdd, o.AbsSquared(r.alpha), tail2)});
  r.beta = o.As(o.Select(o.Compare(o.Real(r.alpha), zero_r, ComparisonDirection::kGe), o.Make(Opcode::kNegate, norm->shape, {norm}), norm), t);
  Instruction* zero = o.Fill(t, 0, f.batch);
  r.tau = o.Select(r.reflects, o.Binary(Opcode::kDivide, o.Binary(Opcode::kSubtract, r.beta, r.alpha), r.beta), zero);
  Instruction* scale = o.Select(r.reflects, o.Binary(Opcode::kDivide, o.Fill(t, 1, f.batch), o.Binary(Opcode::kSubtract, r.alpha, r.beta)), zero);
  r.v = o.Select(below, o.Binary(Opcode::kMultiply, tail, o.Spread(scale, f.col_dims, f.batch_map)),
                 o.Select(is_pivot, o.Fill(t, 1, f.col_dims), zero_line));
  return r;
}

}  // namespace vkxla
