#include "frontends/range_scaling.h"

#include <cmath>
#include <limits>

namespace vkxla {

RangeScaling ScaleIntoRange(ArrayOps& o, Instruction* a, const ComputationBuilders& b) {
  const MatrixFrame f(a->shape);
  const ElementType t = a->shape.element_type(), rt = RealType(t);
  // The largest part (|re| or |im|: no square to overflow) of any entry.
  Instruction* part = o.Make(Opcode::kAbs, Shape(rt, f.dims), {o.Real(a)});
  if (IsComplex(t)) part = o.Binary(Opcode::kMaximum, part, o.Make(Opcode::kAbs, part->shape, {o.Imag(a)}));
  Instruction* largest = o.Make(Opcode::kReduce, Shape(rt, f.batch), {part, o.Const(rt, 0)});
  largest->dimensions = std::vector<int64_t>{f.rank - 2, f.rank - 1};
  largest->called_computations.emplace_back("to_apply", MaxComputation(b, rt));
  const double safmin = rt == ElementType::kF32 ? 1.1754943508222875e-38 : 2.2250738585072014e-308;
  const double low = std::sqrt(safmin / Epsilon(rt)), high = 1 / low;
  Instruction* out = o.Binary(Opcode::kOr, o.Binary(Opcode::kAnd, o.Compare(largest, o.Fill(rt, 0, f.batch), ComparisonDirection::kGt),
                                                    o.Compare(largest, o.Fill(rt, low, f.batch), ComparisonDirection::kLt)),
                              o.Compare(largest, o.Fill(rt, high, f.batch), ComparisonDirection::kGt));
  Instruction* factor = o.Select(out, largest, o.Fill(rt, 1, f.batch));
  // The maximum carries a NaN through; an infinity is no less than the largest finite value.
  Instruction* finite = o.Compare(largest, o.Fill(rt, std::numeric_limits<double>::infinity(), f.batch), ComparisonDirection::kLt);
  return RangeScaling{o.Binary(Opcode::kDivide, a, o.As(o.Spread(factor, f.dims, f.batch_map), t)), factor, finite};
}

Instruction* ScaledBack(ArrayOps& o, Instruction* v, Instruction* factor) {
  const ElementType t = v->shape.element_type();
  return o.Binary(Opcode::kMultiply, v, o.As(o.Spread(factor, v->shape.dims(), Iota0(factor->shape.rank())), t));
}

}  // namespace vkxla
