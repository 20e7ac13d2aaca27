#include "frontends/householder_reflector.h"

namespace vkxla {

Reflector HouseholderReflector(ArrayOps& o, const MatrixFrame& f, Instruction* column, Instruction* pivot, Computation* add,
                               Computation* add_real, Computation* max_real) {
  const ElementType t = column->shape.element_type(), rt = RealType(t);
  const int64_t line = f.rank - 2;  // the vector's own dim in col_dims
  Instruction* rows = o.Iota(ElementType::kS32, f.col_dims, line);
  Instruction* at = o.Spread(pivot, f.col_dims, {});
  Instruction* zero_line = o.Fill(t, 0, f.col_dims);
  Instruction* is_pivot = o.Compare(rows, at, ComparisonDirection::kEq);
  Instruction* below = o.Compare(rows, at, ComparisonDirection::kGt);
  Reflector r;
  r.alpha = o.Sum(o.Select(is_pivot, column, zero_line), line, add);
  // The column from the pivot down over its largest part (LAPACK's scaled
  // norm), so that no square below underflows or overflows: an unscaled
  // f32 column of 1e-21s gave a Q 2e-4 from orthogonal, one of 1e22s NaNs.
  Instruction* from_pivot = o.Select(o.Compare(rows, at, ComparisonDirection::kGe), column, zero_line);
  Instruction* part = o.Make(Opcode::kAbs, Shape(rt, f.col_dims), {o.Real(from_pivot)});
  if (IsComplex(t)) part = o.Binary(Opcode::kMaximum, part, o.Make(Opcode::kAbs, part->shape, {o.Imag(from_pivot)}));
  Instruction* size = o.Make(Opcode::kReduce, Shape(rt, f.batch), {part, o.Const(rt, 0)});
  size->dimensions = std::vector<int64_t>{line};
  size->called_computations.emplace_back("to_apply", max_real);
  Instruction* zero_r = o.Fill(rt, 0, f.batch);
  size = o.Select(o.Compare(size, zero_r, ComparisonDirection::kGt), size, o.Fill(rt, 1, f.batch));
  Instruction* scaled = o.Binary(Opcode::kDivide, column, o.As(o.Spread(size, f.col_dims, f.batch_map), t));
  Instruction* alpha = o.Sum(o.Select(is_pivot, scaled, zero_line), line, add);
  Instruction* tail = o.Select(below, scaled, zero_line);
  Instruction* tail2 = o.Sum(o.AbsSquared(tail), line, add_real);
  // beta = -sign(re alpha) |(alpha, tail)|, tau = (beta - alpha) / beta,
  // v = tail / (alpha - beta), all but beta the same scaled; nothing to
  // reflect where the tail is zero and alpha real.
  r.reflects = o.Compare(tail2, zero_r, ComparisonDirection::kNe);
  if (IsComplex(t)) r.reflects = o.Binary(Opcode::kOr, r.reflects, o.Compare(o.Imag(alpha), zero_r, ComparisonDirection::kNe));
  Instruction* norm = o.Make(Opcode::kSqrt, tail2->shape, {o.Binary(Opcode::kAdd, o.AbsSquared(alpha), tail2)});
  Instruction* beta = o.As(o.Select(o.Compare(o.Real(alpha), zero_r, ComparisonDirection::kGe), o.Make(Opcode::kNegate, norm->shape, {norm}), norm), t);
  r.beta = o.Binary(Opcode::kMultiply, beta, o.As(size, t));
  Instruction* zero = o.Fill(t, 0, f.batch);
  r.tau = o.Select(r.reflects, o.Binary(Opcode::kDivide, o.Binary(Opcode::kSubtract, beta, alpha), beta), zero);
  Instruction* scale = o.Select(r.reflects, o.Binary(Opcode::kDivide, o.Fill(t, 1, f.batch), o.Binary(Opcode::kSubtract, alpha, beta)), zero);
  r.v = o.Select(below, o.Binary(Opcode::kMultiply, tail, o.Spread(scale, f.col_dims, f.batch_map)),
                 o.Select(is_pivot, o.Fill(t, 1, f.col_dims), zero_line));
  return r;
}

}  // namespace vkxla
