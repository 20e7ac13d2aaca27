#include "ops/indexing_reference.h"

#include <algorithm>
#include <limits>

#include "ops/attributes.h"
#include "ops/gather_scatter_plan.h"

namespace vkxla {
namespace {

// An integer element as a signed index; huge unsigned values saturate.
int64_t IndexValue(const Scalar& v) {
  if (IsUnsignedInt(v.type)) return v.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(v.u);
  return v.s;
}

// Start indices of dynamic-(update-)slice, clamped so `sizes` fits.
std::vector<int64_t> ClampedStarts(const std::vector<const Literal*>& operands, size_t first, const Shape& x,
                                   const std::vector<int64_t>& sizes) {
  std::vector<int64_t> start(x.rank());
  for (int64_t d = 0; d < x.rank(); ++d)
    start[d] = std::clamp<int64_t>(IndexValue(operands[first + d]->Get(0)), 0, x.dim(d) - sizes[d]);
  return start;
}

// The index vector (component k) for the outer index `outer`.
int64_t StartComponent(const Literal& indices, const StartIndexWiring& w, const std::vector<int64_t>& outer, int64_t k) {
  std::vector<int64_t> at(indices.shape().rank());
  for (size_t s = 0; s < at.size(); ++s) at[s] = w.from_outer[s] < 0 ? k : outer[w.from_outer[s]];
  return IndexValue(indices.GetAt(at));
}

// The unclamped start of the window in each operand dim (start index plus
// batching index) for the outer index `outer`.
std::vector<int64_t> WindowStart(const Literal& indices, const StartIndexWiring& si, const OperandIndexWiring& w,
                                 const std::vector<int64_t>& outer) {
  std::vector<int64_t> start(w.start_component.size(), 0);
  for (size_t d = 0; d < start.size(); ++d) {
    if (w.start_component[d] >= 0) start[d] = StartComponent(indices, si, outer, w.start_component[d]);
    if (w.batch_from[d] >= 0) start[d] = outer[w.batch_from[d]];
  }
  return start;
}

}  // namespace

StatusOr<Literal> EvaluateDynamicSlice(const Instruction& inst, const std::vector<const Literal*>& operands) {
  const Literal& x = *operands[0];
  const std::vector<int64_t> start = ClampedStarts(operands, 1, x.shape(), inst.shape.dims());
  Literal out(Shape(inst.shape.element_type(), inst.shape.dims()));
  for (int64_t i = 0; i < out.element_count(); ++i) {
    std::vector<int64_t> at = MultiIndex(out.shape().dims(), i);
    for (size_t d = 0; d < at.size(); ++d) at[d] += start[d];
    out.Set(i, x.GetAt(at));
  }
  return out;
}

StatusOr<Literal> EvaluateDynamicUpdateSlice(const Instruction& inst, const std::vector<const Literal*>& operands) {
  const Literal& update = *operands[1];
  const std::vector<int64_t> start = ClampedStarts(operands, 2, operands[0]->shape(), update.shape().dims());
  Literal out = *operands[0];
  for (int64_t i = 0; i < update.element_count(); ++i) {
    std::vector<int64_t> at = MultiIndex(update.shape().dims(), i);
    for (size_t d = 0; d < at.size(); ++d) at[d] += start[d];
    out.Set(LinearIndex(out.shape().dims(), at), update.Get(i));
  }
  (void)inst;
  return out;
}

StatusOr<Literal> EvaluateGather(const Instruction& inst, const std::vector<const Literal*>& operands) {
  VKXLA_ASSIGN_OR_RETURN(GatherPlan plan, PlanGather(inst));
  const Literal& x = *operands[0];
  const Literal& indices = *operands[1];
  const OperandIndexWiring& w = plan.operand;
  Literal out(Shape(inst.shape.element_type(), plan.result_dims));
  for (int64_t i = 0; i < out.element_count(); ++i) {
    const std::vector<int64_t> r = MultiIndex(plan.result_dims, i);
    std::vector<int64_t> at = WindowStart(indices, plan.indices, w, r);
    for (int64_t d = 0; d < x.shape().rank(); ++d) {
      if (w.start_component[d] >= 0) at[d] = std::clamp<int64_t>(at[d], 0, x.shape().dim(d) - w.window_size[d]);
      if (w.window_from[d] >= 0) at[d] += r[w.window_from[d]];
    }
    out.Set(i, x.GetAt(at));
  }
  return out;
}

StatusOr<Literal> EvaluateScatter(const Instruction& inst, const std::vector<const Literal*>& operands,
                                  const ScalarFunction& combine) {
  VKXLA_ASSIGN_OR_RETURN(ScatterPlan plan, PlanScatter(inst));
  const int64_t n = plan.arity;
  const Shape& operand = operands[0]->shape();
  const Literal& indices = *operands[n];
  const Shape& updates = operands[n + 1]->shape();
  const OperandIndexWiring& w = plan.operand;
  std::vector<Literal> out;
  for (int64_t k = 0; k < n; ++k) out.push_back(*operands[k]);
  std::vector<int64_t> scatter_extent;
  for (int64_t u : plan.update_scatter_dims) scatter_extent.push_back(updates.dim(u));
  std::vector<int64_t> window_extent;
  for (int64_t u : plan.dims.update_window_dims) window_extent.push_back(updates.dim(u));
  int64_t scatter_count = 1, window_count = 1;
  for (int64_t e : scatter_extent) scatter_count *= e;
  for (int64_t e : window_extent) window_count *= e;
  std::vector<Scalar> args(2 * n);
  for (int64_t s = 0; s < scatter_count; ++s) {
    std::vector<int64_t> u(updates.rank(), 0);
    const std::vector<int64_t> g = MultiIndex(scatter_extent, s);
    for (size_t k = 0; k < g.size(); ++k) u[plan.update_scatter_dims[k]] = g[k];
    const std::vector<int64_t> start = WindowStart(indices, plan.indices, w, u);
    bool fits = true;
    for (int64_t d = 0; d < operand.rank(); ++d)
      fits = fits && start[d] >= 0 && start[d] <= operand.dim(d) - w.window_size[d];
    if (!fits) continue;  // XLA skips an update whose window falls outside, whole
    for (int64_t e = 0; e < window_count; ++e) {
      const std::vector<int64_t> wi = MultiIndex(window_extent, e);
      for (size_t k = 0; k < wi.size(); ++k) u[plan.dims.update_window_dims[k]] = wi[k];
      std::vector<int64_t> at = start;
      for (int64_t d = 0; d < operand.rank(); ++d)
        if (w.window_from[d] >= 0) at[d] += u[w.window_from[d]];
      const int64_t o = LinearIndex(operand.dims(), at), ui = LinearIndex(updates.dims(), u);
      for (int64_t k = 0; k < n; ++k) {
        args[k] = out[k].Get(o);
        args[n + k] = operands[n + 1 + k]->Get(ui);
      }
      VKXLA_ASSIGN_OR_RETURN(std::vector<Scalar> result, combine(args));
      for (int64_t k = 0; k < n; ++k) out[k].Set(o, result[k]);
    }
  }
  if (n == 1) return std::move(out[0]);
  return Literal::Tuple(std::move(out));
}

}  // namespace vkxla
