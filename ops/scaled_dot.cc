#include "ops/scaled_dot.h"

namespace vkxla {
namespace {

Status ScaledError(const Instruction& inst, const std::string& message) {
  return InvalidArgument("scaled-dot " + inst.Describe() + ": " + message);
}

}  // namespace

StatusOr<ScaledDotPlan> PlanScaledDot(const Instruction& inst) {
  if (inst.opcode != Opcode::kScaledDot) return ScaledError(inst, "is not a scaled-dot");
  ScaledDotPlan p;
  VKXLA_ASSIGN_OR_RETURN(p.dot, PlanDot(inst));
  for (int side = 0; side < 2; ++side) {
    const Shape& x = inst.operands[side]->shape;
    const Shape& scale = inst.operands[2 + side]->shape;
    const std::string name = side == 0 ? "lhs" : "rhs";
    if (!IsFloat(x.element_type()) || !scale.IsArray() || !IsFloat(scale.element_type()))
      return ScaledError(inst, name + " " + x.ToString() + " and its scale " + scale.ToString() + " must be floating point");
    if (scale.rank() == 0) continue;
    if (scale.rank() != x.rank())
      return ScaledError(inst, name + " scale " + scale.ToString() + " must be a scalar or of the rank of " + x.ToString());
    for (int64_t d = 0; d < x.rank(); ++d) {
      const bool divides = scale.dim(d) == 0 ? x.dim(d) == 0 : x.dim(d) % scale.dim(d) == 0;
      if (!divides)
        return ScaledError(inst, name + " scale " + scale.ToString() + ": dim " + std::to_string(d) + " does not divide " +
                                     x.ToString() + "'s");
      p.blocks[side].push_back(scale.dim(d) == 0 ? 1 : x.dim(d) / scale.dim(d));
    }
  }
  return p;
}

StatusOr<Shape> InferScaledDotShape(const Instruction& inst) {
  VKXLA_RETURN_IF_ERROR(PlanScaledDot(inst).status());
  return InferDotShape(inst);
}

std::vector<int64_t> ScaleIndex(const ScaledDotPlan& plan, int side, const std::vector<int64_t>& index) {
  const std::vector<int64_t>& blocks = plan.blocks[side];
  if (blocks.empty()) return {};
  std::vector<int64_t> out(index.size());
  for (size_t d = 0; d < index.size(); ++d) out[d] = index[d] / blocks[d];
  return out;
}

StatusOr<Literal> EvaluateScaledDot(const Instruction& inst, const Literal& lhs, const Literal& rhs, const Literal& lhs_scale,
                                    const Literal& rhs_scale) {
  VKXLA_ASSIGN_OR_RETURN(ScaledDotPlan p, PlanScaledDot(inst));
  // The scaled operands, exact in double (each product of two floats of
  // at most 53 bits' mantissa rounds once, like the kernel's in f32/f64).
  auto scaled = [&](const Literal& x, const Literal& scale, int side) {
    Literal out(Shape(ElementType::kF64, x.shape().dims()));
    for (int64_t i = 0; i < out.element_count(); ++i) {
      const std::vector<int64_t> idx = MultiIndex(x.shape().dims(), i);
      const double v = Scalar::Convert(x.Get(i), ElementType::kF64).re;
      const double s = p.blocks[side].empty() ? 1.0 : Scalar::Convert(scale.GetAt(ScaleIndex(p, side, idx)), ElementType::kF64).re;
      out.Set(i, Scalar::Float(ElementType::kF64, v * s));
    }
    return out;
  };
  return EvaluateDot(inst, scaled(lhs, lhs_scale, 0), scaled(rhs, rhs_scale, 1));
}

}  // namespace vkxla
