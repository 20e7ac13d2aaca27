#include "ops/batch_norm.h"

#include <cmath>

#include "ir/numbers.h"
#include "ops/attributes.h"

namespace vkxla {
namespace {

Status BatchNormError(const Instruction& inst, const std::string& message) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": " + message);
}

size_t OperandCount(Opcode op) { return op == Opcode::kBatchNormTraining ? 3 : 5; }

// Per feature: the sum over the other dims of f(element).
template <typename F>
std::vector<double> FeatureSums(const Literal& x, int64_t feature_index, F f) {
  std::vector<double> sums(x.shape().dim(feature_index), 0.0);
  for (int64_t i = 0; i < x.element_count(); ++i) {
    const int64_t c = MultiIndex(x.shape().dims(), i)[feature_index];
    sums[c] += f(i, c);
  }
  return sums;
}

std::vector<double> Values(const Literal& l) {
  std::vector<double> v(l.element_count());
  for (int64_t i = 0; i < l.element_count(); ++i) v[i] = l.Get(i).re;
  return v;
}

Literal Vector(ElementType t, const std::vector<double>& v) {
  Literal l(Shape(t, {static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) l.Set(static_cast<int64_t>(i), Scalar::Float(t, v[i]));
  return l;
}

}  // namespace

StatusOr<BatchNormParams> ReadBatchNorm(const Instruction& inst) {
  const size_t n = OperandCount(inst.opcode);
  if (inst.operands.size() != n)
    return BatchNormError(inst, "expects " + std::to_string(n) + " operands, got " + std::to_string(inst.operands.size()));
  BatchNormParams p;
  const std::string* eps = FindAttribute(inst, "epsilon");
  if (!eps) return BatchNormError(inst, "needs epsilon=");
  const std::optional<double> e = ParseDouble(*eps);
  if (!e || !std::isfinite(*e)) return BadAttribute(inst, "epsilon", *eps, "a finite number");
  p.epsilon = *e;
  VKXLA_ASSIGN_OR_RETURN(p.feature_index, IntAttribute(inst, "feature_index"));
  const Shape& x = inst.operands[0]->shape;
  if (!x.IsArray() || x.rank() < 1) return BatchNormError(inst, "operand " + x.ToString() + " must be an array of rank 1 or more");
  if (p.feature_index < 0 || p.feature_index >= x.rank())
    return BatchNormError(inst, "feature_index=" + std::to_string(p.feature_index) + " is out of range for " + x.ToString());
  if (!IsFloat(x.element_type())) return BatchNormError(inst, "operand " + x.ToString() + " must be of a floating-point type");
  const int64_t features = x.dim(p.feature_index);
  for (size_t i = 1; i < n; ++i) {
    const Shape& s = inst.operands[i]->shape;
    // grad's last operand (grad_output) is shaped like x; the rest are vectors.
    const bool full = inst.opcode == Opcode::kBatchNormGrad && i == 4;
    const bool ok = s.IsArray() && s.element_type() == x.element_type() &&
                    (full ? s.dims() == x.dims() : (s.rank() == 1 && s.dim(0) == features));
    if (!ok)
      return BatchNormError(inst, "operand " + std::to_string(i) + " " + s.ToString() + " must be " +
                                      (full ? Shape(x.element_type(), x.dims()).ToString()
                                            : Shape(x.element_type(), {features}).ToString()) +
                                      " for operand " + x.ToString() + " and feature_index=" + std::to_string(p.feature_index));
  }
  for (int64_t d = 0; d < x.rank(); ++d)
    if (x.is_dynamic_dim(d)) return Unimplemented(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": dynamic operand " + x.ToString() + " is not supported");
  return p;
}

StatusOr<Shape> InferBatchNormShape(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(BatchNormParams p, ReadBatchNorm(inst));
  const Shape& x = inst.operands[0]->shape;
  const Shape out(x.element_type(), x.dims());
  if (inst.opcode == Opcode::kBatchNormInference) return out;
  const Shape vec(x.element_type(), {x.dim(p.feature_index)});
  return Shape::Tuple({out, vec, vec});
}

StatusOr<Literal> EvaluateBatchNorm(const Instruction& inst, const std::vector<const Literal*>& operands) {
  VKXLA_ASSIGN_OR_RETURN(BatchNormParams p, ReadBatchNorm(inst));
  const Literal& x = *operands.at(0);
  const ElementType t = x.shape().element_type();
  const int64_t fi = p.feature_index;
  const int64_t features = x.shape().dim(fi);
  const double count = features == 0 ? 0.0 : static_cast<double>(x.element_count() / features);
  const double eps = Scalar::Float(t, p.epsilon).re;  // epsilon in the operand's type, as the spec's constant
  const std::vector<double> xv = Values(x), scale = Values(*operands[1]);
  auto feature = [&](int64_t i) { return MultiIndex(x.shape().dims(), i)[fi]; };
  Literal out(Shape(t, x.shape().dims()));
  if (inst.opcode == Opcode::kBatchNormTraining || inst.opcode == Opcode::kBatchNormInference) {
    std::vector<double> offset = Values(*operands[2]), mean, var;
    if (inst.opcode == Opcode::kBatchNormTraining) {
      mean = FeatureSums(x, fi, [&](int64_t i, int64_t) { return xv[i]; });
      for (double& m : mean) m /= count;
      var = FeatureSums(x, fi, [&](int64_t i, int64_t c) { return (xv[i] - mean[c]) * (xv[i] - mean[c]); });
      for (double& v : var) v /= count;
    } else {
      mean = Values(*operands[3]);
      var = Values(*operands[4]);
    }
    for (int64_t i = 0; i < x.element_count(); ++i) {
      const int64_t c = feature(i);
      out.Set(i, Scalar::Float(t, (xv[i] - mean[c]) / std::sqrt(var[c] + eps) * scale[c] + offset[c]));
    }
    if (inst.opcode == Opcode::kBatchNormInference) return out;
    std::vector<Literal> parts;
    parts.push_back(std::move(out));
    parts.push_back(Vector(t, mean));
    parts.push_back(Vector(t, var));
    return Literal::Tuple(std::move(parts));
  }
  // grad
  const std::vector<double> mean = Values(*operands[2]), var = Values(*operands[3]), g = Values(*operands[4]);
  const std::vector<double> grad_offset = FeatureSums(x, fi, [&](int64_t i, int64_t) { return g[i]; });
  const std::vector<double> grad_scale =
      FeatureSums(x, fi, [&](int64_t i, int64_t c) { return g[i] * (xv[i] - mean[c]) / std::sqrt(var[c] + eps); });
  const std::vector<double> centered_sum = FeatureSums(x, fi, [&](int64_t i, int64_t c) { return g[i] * (xv[i] - mean[c]); });
  for (int64_t i = 0; i < x.element_count(); ++i) {
    const int64_t c = feature(i);
    const double centered = xv[i] - mean[c];
    const double i6 = g[i] * count - grad_offset[c] - centered_sum[c] * centered / (var[c] + eps);
    out.Set(i, Scalar::Float(t, scale[c] / std::sqrt(var[c] + eps) / count * i6));
  }
  std::vector<Literal> parts;
  parts.push_back(std::move(out));
  parts.push_back(Vector(t, grad_scale));
  parts.push_back(Vector(t, grad_offset));
  return Literal::Tuple(std::move(parts));
}

}  // namespace vkxla
