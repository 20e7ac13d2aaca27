#include "ops/ragged_dot.h"

#include <algorithm>

#include "ops/attributes.h"
#include "ops/dot_arithmetic.h"

namespace vkxla {
namespace {

Status RaggedError(const Instruction& inst, const std::string& message) {
  return InvalidArgument("ragged-dot " + inst.Describe() + ": " + message);
}

bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The dims of `list` that come before `x` in it.
std::vector<int64_t> Before(const std::vector<int64_t>& list, int64_t x) {
  std::vector<int64_t> out;
  for (int64_t d : list) {
    if (d == x) break;
    out.push_back(d);
  }
  return out;
}

}  // namespace

StatusOr<RaggedDotPlan> PlanRaggedDot(const Instruction& inst) {
  if (inst.opcode != Opcode::kRaggedDot) return RaggedError(inst, "is not a ragged-dot");
  RaggedDotPlan p;
  VKXLA_ASSIGN_OR_RETURN(p.dot, PlanDot(inst));
  const Shape& lhs = inst.operands[0]->shape;
  const Shape& rhs = inst.operands[1]->shape;
  const Shape& sizes = inst.operands[2]->shape;
  const DotDimensions& d = p.dot.dims;
  VKXLA_ASSIGN_OR_RETURN(const std::vector<int64_t> ragged, IntListAttribute(inst, "lhs_ragged_dims", false));
  VKXLA_ASSIGN_OR_RETURN(const std::vector<int64_t> group, IntListAttribute(inst, "rhs_group_dims", false));
  if (ragged.size() != 1)
    return RaggedError(inst, "needs exactly one lhs ragged dim, got lhs_ragged_dims=" + IntListText(ragged));
  p.lhs_ragged = ragged[0];
  if (p.lhs_ragged < 0 || p.lhs_ragged >= lhs.rank())
    return RaggedError(inst, "lhs ragged dim " + std::to_string(p.lhs_ragged) + " is out of range for " + lhs.ToString());
  if (!sizes.IsArray() || sizes.rank() < 1 || !IsInteger(sizes.element_type()))
    return RaggedError(inst, "group_sizes must be an integer array [..., g], got " + sizes.ToString());
  p.groups = sizes.dims().back();
  if (Contains(d.lhs_batch, p.lhs_ragged)) {
    p.mode = RaggedMode::kBatch;
    p.prefix = Before(d.lhs_batch, p.lhs_ragged);
  } else if (Contains(d.lhs_contracting, p.lhs_ragged)) {
    p.mode = RaggedMode::kContracting;
    p.prefix = d.lhs_batch;
    for (int64_t x : Before(d.lhs_contracting, p.lhs_ragged)) p.prefix.push_back(x);
  } else {
    p.mode = RaggedMode::kNonContracting;
    p.prefix = d.lhs_batch;
    for (int64_t x : p.dot.lhs_free)
      if (x < p.lhs_ragged) p.prefix.push_back(x);
  }
  if (p.mode != RaggedMode::kNonContracting) {
    if (!group.empty())
      return RaggedError(inst, "rhs_group_dims=" + IntListText(group) +
                                   " must be empty when the ragged dim is a batch or contracting dim of " + lhs.ToString());
  } else {
    if (group.size() != 1)
      return RaggedError(inst, "needs exactly one rhs group dim when the ragged dim is a free dim of " + lhs.ToString() +
                                   ", got rhs_group_dims=" + IntListText(group));
    p.rhs_group = group[0];
    if (p.rhs_group < 0 || p.rhs_group >= rhs.rank())
      return RaggedError(inst, "rhs group dim " + std::to_string(p.rhs_group) + " is out of range for " + rhs.ToString());
    if (Contains(d.rhs_batch, p.rhs_group) || Contains(d.rhs_contracting, p.rhs_group))
      return RaggedError(inst, "rhs group dim " + std::to_string(p.rhs_group) + " of " + rhs.ToString() +
                                   " cannot be a batch or contracting dim");
    if (rhs.dim(p.rhs_group) != p.groups)
      return RaggedError(inst, "rhs group dim " + std::to_string(p.rhs_group) + " of " + rhs.ToString() + " has size " +
                                   std::to_string(rhs.dim(p.rhs_group)) + " but group_sizes " + sizes.ToString() + " has " +
                                   std::to_string(p.groups) + " groups");
  }
  if (sizes.rank() == 1) {
    p.prefix.clear();  // one list of sizes for every prefix
  } else {
    bool ok = sizes.rank() == static_cast<int64_t>(p.prefix.size()) + 1;
    std::string expected = "[";
    for (size_t i = 0; i < p.prefix.size(); ++i) {
      expected += std::to_string(lhs.dim(p.prefix[i])) + ",";
      if (ok && sizes.dim(static_cast<int64_t>(i)) != lhs.dim(p.prefix[i])) ok = false;
    }
    expected += std::to_string(p.groups) + "]";
    if (!ok)
      return RaggedError(inst, "group_sizes must be [g] or " + expected + " (the lhs dims before the ragged one), got " +
                                   sizes.ToString());
  }
  return p;
}

StatusOr<Shape> InferRaggedDotShape(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(RaggedDotPlan p, PlanRaggedDot(inst));
  VKXLA_ASSIGN_OR_RETURN(Shape dot, InferDotShape(inst));  // the group dim is not among the rhs's free dims
  if (p.mode != RaggedMode::kContracting) return dot;
  std::vector<int64_t> dims = dot.dims();
  dims.insert(dims.begin(), p.groups);
  return Shape(dot.element_type(), dims);
}

StatusOr<Literal> EvaluateRaggedDot(const Instruction& inst, const Literal& lhs, const Literal& rhs,
                                    const Literal& group_sizes) {
  VKXLA_ASSIGN_OR_RETURN(RaggedDotPlan rp, PlanRaggedDot(inst));
  const DotPlan& p = rp.dot;
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  const ElementType t = inst.shape.element_type();
  const DotArithmetic arithmetic(t, p.algorithm);
  const int64_t extent = ls.dim(rp.lhs_ragged);
  // Group i's range of the ragged dim for the lhs element at `idx`: sizes
  // clamped to [0, extent], starts saturating at extent.
  auto range = [&](const std::vector<int64_t>& idx, int64_t i) {
    std::vector<int64_t> at;
    for (int64_t d : rp.prefix) at.push_back(idx[d]);
    at.push_back(0);
    int64_t start = 0, end = 0;
    for (int64_t j = 0; j <= i; ++j) {
      at.back() = j;
      const Scalar s = group_sizes.GetAt(at);
      const int64_t size = IsUnsignedInt(s.type) ? static_cast<int64_t>(std::min<uint64_t>(s.u, extent))
                                                 : std::clamp<int64_t>(s.s, 0, extent);
      start = end;
      end = std::min(start + size, extent);
    }
    return std::make_pair(start, end);
  };
  auto lhs_at = [&](int64_t b, int64_t m, int64_t k) {
    return CanonicalOperandIndex(ls, p.dims.lhs_batch, p.lhs_free, p.dims.lhs_contracting, b, m, k);
  };
  auto rhs_term = [&](int64_t b, int64_t k, int64_t n, int64_t group) {
    std::vector<int64_t> idx = CanonicalOperandIndex(rs, p.dims.rhs_batch, p.rhs_free, p.dims.rhs_contracting, b, n, k);
    if (rp.rhs_group >= 0) idx[rp.rhs_group] = group;
    return arithmetic.Of(rhs.GetAt(idx), p.algorithm.rhs_precision);
  };
  const int64_t outer = rp.mode == RaggedMode::kContracting ? rp.groups : 1;
  Literal out(Shape(t, inst.shape.dims()));
  int64_t linear = 0;
  for (int64_t g = 0; g < outer; ++g)
    for (int64_t b = 0; b < p.batch; ++b)
      for (int64_t m = 0; m < p.m; ++m) {
        // Non-contracting: the row's group (the first whose range holds it).
        int64_t group = -1;
        if (rp.mode == RaggedMode::kNonContracting) {
          const std::vector<int64_t> idx = lhs_at(b, m, 0);
          for (int64_t i = 0; i < rp.groups && group < 0; ++i) {
            const auto [start, end] = range(idx, i);
            if (start <= idx[rp.lhs_ragged] && idx[rp.lhs_ragged] < end) group = i;
          }
        }
        std::vector<DotArithmetic::Term> row(static_cast<size_t>(p.k));
        std::vector<bool> taken(static_cast<size_t>(p.k), rp.mode != RaggedMode::kNonContracting || group >= 0);
        for (int64_t k = 0; k < p.k; ++k) {
          const std::vector<int64_t> idx = lhs_at(b, m, k);
          row[k] = arithmetic.Of(lhs.GetAt(idx), p.algorithm.lhs_precision);
          if (rp.mode == RaggedMode::kContracting) {
            const auto [start, end] = range(idx, g);
            taken[k] = start <= idx[rp.lhs_ragged] && idx[rp.lhs_ragged] < end;
          }
        }
        for (int64_t n = 0; n < p.n; ++n, ++linear) {
          DotArithmetic::Term acc;
          for (int64_t k = 0; k < p.k; ++k)
            if (taken[k]) arithmetic.Accumulate(acc, row[k], rhs_term(b, k, n, group));
          out.Set(linear, arithmetic.Result(acc));
        }
      }
  return out;
}

}  // namespace vkxla
