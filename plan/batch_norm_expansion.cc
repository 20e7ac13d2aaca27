#include "plan/batch_norm_expansion.h"

#include "ops/batch_norm.h"
#include "ops/dot.h"
#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

class BatchNormExpander {
 public:
  BatchNormExpander(Computation& c, const Instruction& bn) : w_(c, bn, "batch_norm"), bn_(bn) {}

  StatusOr<Instruction*> Expand(const std::vector<Instruction*>& operands) {
    VKXLA_ASSIGN_OR_RETURN(p_, ReadBatchNorm(bn_));
    x_ = operands[0];
    type_ = x_->shape.element_type();
    compute_ = type_ == ElementType::kF64 ? ElementType::kF64 : ElementType::kF32;
    dims_ = x_->shape.dims();
    features_ = dims_[p_.feature_index];
    count_ = 1;
    for (size_t d = 0; d < dims_.size(); ++d)
      if (static_cast<int64_t>(d) != p_.feature_index) count_ *= dims_[d];
    // epsilon as a constant of the operand's type, as the spec writes it.
    epsilon_ = Scalar::Float(type_, p_.epsilon).re;
    Instruction* x = Converted(x_, compute_);
    if (bn_.opcode == Opcode::kBatchNormInference) {
      Instruction* out = Normalized(x, Converted(operands[3], compute_), Converted(operands[4], compute_),
                                    Converted(operands[1], compute_), Converted(operands[2], compute_));
      out = Converted(out, type_);
      return Finish(out);
    }
    if (bn_.opcode == Opcode::kBatchNormTraining) return Training(x, Converted(operands[1], compute_), Converted(operands[2], compute_));
    return Grad(x, Converted(operands[1], compute_), Converted(operands[2], compute_), Converted(operands[3], compute_),
                Converted(operands[4], compute_));
  }

 private:
  StatusOr<Instruction*> Training(Instruction* x, Instruction* scale, Instruction* offset) {
    // The shift: each feature's first element (zeros when there is none).
    Instruction* shift = Filled(0, {features_});
    if (count_ > 0) {
      Instruction* first = x;
      for (int64_t d = 0; d < static_cast<int64_t>(dims_.size()); ++d)
        if (d != p_.feature_index) first = w_.Slice(first, d, 0, 1);
      shift = w_.Add(Opcode::kReshape, Shape(compute_, {features_}), {first});
    }
    Instruction* d = Binary(Opcode::kSubtract, x, Broadcast(shift));
    std::vector<Instruction*> sums = FeatureSums({d, Binary(Opcode::kMultiply, d, d)});
    Instruction* n = Filled(static_cast<double>(count_), {features_});
    Instruction* mean_shift = Binary(Opcode::kDivide, sums[0], n);
    Instruction* mean = Binary(Opcode::kAdd, shift, mean_shift);
    Instruction* var = Binary(Opcode::kSubtract, Binary(Opcode::kDivide, sums[1], n), Binary(Opcode::kMultiply, mean_shift, mean_shift));
    var = Binary(Opcode::kMaximum, var, Filled(0, {features_}));
    Instruction* out = Normalized(x, mean, var, scale, offset);
    return Finish(w_.Add(Opcode::kTuple, bn_.shape, {Converted(out, type_), Converted(mean, type_), Converted(var, type_)}));
  }

  StatusOr<Instruction*> Grad(Instruction* x, Instruction* scale, Instruction* mean, Instruction* var, Instruction* g) {
    Instruction* var_eps = Binary(Opcode::kAdd, var, Filled(epsilon_, {features_}));
    Instruction* stddev = w_.Add(Opcode::kSqrt, var_eps->shape, {var_eps});
    Instruction* centered = Binary(Opcode::kSubtract, x, Broadcast(mean));
    Instruction* normalized = Binary(Opcode::kDivide, centered, Broadcast(stddev));
    std::vector<Instruction*> sums =
        FeatureSums({g, Binary(Opcode::kMultiply, g, normalized), Binary(Opcode::kMultiply, g, centered)});
    Instruction* grad_offset = sums[0];
    Instruction* grad_scale = sums[1];
    const double n = static_cast<double>(count_);
    // scale / stddev / n * (g * n - grad_offset - sum(g * centered) * centered / (var + eps))
    Instruction* i1 = Binary(Opcode::kMultiply, g, Filled(n, dims_));
    Instruction* i5 = Binary(Opcode::kDivide, Binary(Opcode::kMultiply, Broadcast(sums[2]), centered), Broadcast(var_eps));
    Instruction* i6 = Binary(Opcode::kSubtract, Binary(Opcode::kSubtract, i1, Broadcast(grad_offset)), i5);
    Instruction* factor = Binary(Opcode::kDivide, Binary(Opcode::kDivide, scale, stddev), Filled(n, {features_}));
    Instruction* grad_x = Binary(Opcode::kMultiply, Broadcast(factor), i6);
    return Finish(w_.Add(Opcode::kTuple, bn_.shape,
                         {Converted(grad_x, type_), Converted(grad_scale, type_), Converted(grad_offset, type_)}));
  }

  // (x - mean) / sqrt(var + eps) * scale + offset, the vectors broadcast.
  Instruction* Normalized(Instruction* x, Instruction* mean, Instruction* var, Instruction* scale, Instruction* offset) {
    Instruction* var_eps = Binary(Opcode::kAdd, var, Filled(epsilon_, {features_}));
    Instruction* stddev = w_.Add(Opcode::kSqrt, var_eps->shape, {var_eps});
    Instruction* y = Binary(Opcode::kDivide, Binary(Opcode::kSubtract, x, Broadcast(mean)), Broadcast(stddev));
    return Binary(Opcode::kAdd, Binary(Opcode::kMultiply, y, Broadcast(scale)), Broadcast(offset));
  }

  // Each value's sum over every dim but the feature: the values stacked on
  // a new last dim, one dot against ones contracting the other dims.
  std::vector<Instruction*> FeatureSums(const std::vector<Instruction*>& values) {
    const int64_t rank = static_cast<int64_t>(dims_.size()), k = static_cast<int64_t>(values.size());
    std::vector<int64_t> column = dims_;
    column.push_back(1);
    std::vector<Instruction*> parts;
    for (Instruction* v : values) parts.push_back(w_.Add(Opcode::kReshape, Shape(compute_, column), {v}));
    Instruction* stacked = w_.Concatenate(parts, rank);
    std::vector<int64_t> other;
    DotDimensions dd;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == p_.feature_index) continue;
      dd.lhs_contracting.push_back(d);
      dd.rhs_contracting.push_back(static_cast<int64_t>(other.size()));
      other.push_back(dims_[d]);
    }
    Instruction* sums = w_.Add(Opcode::kDot, Shape(compute_, {features_, k}), {stacked, Filled(1, other)});
    SetDotDimensions(*sums, dd);
    std::vector<Instruction*> out;
    for (int64_t i = 0; i < k; ++i)
      out.push_back(w_.Add(Opcode::kReshape, Shape(compute_, {features_}), {w_.Slice(sums, 1, i, i + 1)}));
    return out;
  }

  Instruction* Broadcast(Instruction* vector) {
    Instruction* b = w_.Add(Opcode::kBroadcast, Shape(compute_, dims_), {vector});
    b->dimensions = std::vector<int64_t>{p_.feature_index};
    return b;
  }
  Instruction* Binary(Opcode op, Instruction* a, Instruction* b) { return w_.Add(op, Shape(compute_, a->shape.dims()), {a, b}); }
  Instruction* Filled(double v, const std::vector<int64_t>& dims) { return w_.Filled(Scalar::Float(compute_, v), dims); }
  Instruction* Converted(Instruction* v, ElementType t) {
    if (v->shape.element_type() == t) return v;
    return w_.Add(Opcode::kConvert, Shape(t, v->shape.dims()), {v});
  }
  Instruction* Finish(Instruction* result) {
    if (!result->shape.IsTuple()) result->shape = bn_.shape;  // the layout it was asked in
    return result;
  }

  ExpansionWriter w_;
  const Instruction& bn_;
  BatchNormParams p_;
  Instruction* x_ = nullptr;
  ElementType type_ = ElementType::kF32, compute_ = ElementType::kF32;
  std::vector<int64_t> dims_;
  int64_t features_ = 0, count_ = 1;
  double epsilon_ = 0;
};

}  // namespace

StatusOr<std::shared_ptr<const Module>> ExpandBatchNorms(const Module& module) {
  return RewriteModule(
      module, [](const Instruction& inst) { return IsBatchNorm(inst.opcode); },
      [](Computation& c, const Instruction& bn, const std::vector<Instruction*>& operands) {
        return BatchNormExpander(c, bn).Expand(operands);
      });
}

}  // namespace vkxla
