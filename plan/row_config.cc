#include "plan/row_config.h"

#include <algorithm>

#include "ir/module.h"
#include "ops/reduction_shapes.h"
#include "plan/cost_model.h"

namespace vkxla {

namespace {

int64_t Trips(int64_t length, int64_t ls, int64_t stages, int64_t element_trips) {
  const int64_t elements = (length + ls - 1) / ls;  // an invocation's per walk
  int64_t tree = 0;
  for (int64_t s = 1; s < ls; s *= 2) ++tree;
  return (stages + 1) * elements * (1 + element_trips) + stages * tree;
}

}  // namespace

StatusOr<RowConfig> ChooseRowConfig(const std::vector<const Instruction*>& reduces, const std::vector<const Instruction*>& fused,
                                    int64_t element_trips, const MaterializedLayoutFn& materialized,
                                    const TargetFeatures& target) {
  if (reduces.empty()) return Internal("a row fusion without a reduce");
  RowConfig c;
  c.reduces = reduces;
  const Instruction& first = *reduces[0];
  VKXLA_ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(first));
  c.row_dims = plan.reduced;
  c.batch_dims = plan.kept;
  c.row_shape = first.operands[0]->shape.dims();
  for (const Instruction* r : reduces) {
    VKXLA_ASSIGN_OR_RETURN(ReducePlan p, PlanReduce(*r));
    if (p.arity != 1 || p.reduced != c.row_dims || r->operands[0]->shape.dims() != c.row_shape)
      return Internal("row fusion of " + first.Describe() + ": " + r->Describe() + " reduces another row");
  }
  if (static_cast<int64_t>(reduces.size()) > kMaxRowStages)
    return Internal("row fusion of " + first.Describe() + ": more than " + std::to_string(kMaxRowStages) + " reduces");
  c.rows = 1;
  for (int64_t d : c.batch_dims) c.rows *= c.row_shape[d];
  c.length = 1;
  for (int64_t d : c.row_dims) c.length *= c.row_shape[d];
  if (c.length < 1 || c.length > kMaxRowLength)
    return Internal("row fusion of " + first.Describe() + ": rows of " + std::to_string(c.length) + " elements");
  const Instruction* x = first.operands[0];
  c.x_layout = LeafLayout(x, nullptr, Layout(), materialized);
  const int64_t last = c.row_dims.back();
  const int bits = BitWidth(x->shape.element_type());
  if (c.x_layout.tiles.empty() && !c.x_layout.minor_to_major.empty() && c.x_layout.minor_to_major[0] == last &&
      (bits == 32 || bits == 16) && c.row_shape[last] % (128 / bits) == 0) {
    c.per_trip = 128 / bits;
    c.vector_bits = bits;
  }
  c.local_size = RowLocalSize(c.length, c.per_trip, static_cast<int64_t>(reduces.size()), element_trips, target);
  // A CPU driver runs a workgroup's invocations as the lanes of SIMD
  // slices: a lane per row walks each row as one sequential stream, with
  // no trees or barriers, where the row's walks fit one invocation's loop
  // budget (llvmpipe, over f32[4096,4096]: layer norm 42.5 ms with 8 lanes
  // a row, 30.6 ms a lane a row; softmax 55 ms, 41 ms).
  if (target.cpu && c.rows >= kMinLanePerRowRows &&
      Trips(c.length, 1, static_cast<int64_t>(reduces.size()), element_trips) <= target.max_loop_trips) {
    c.rows_per_group = target.subgroup_size > 1 ? target.subgroup_size : 8;
    c.local_size = 1;
  }
  c.trips = (c.length + c.local_size * c.per_trip - 1) / (c.local_size * c.per_trip);
  const Instruction* v = reduces.back()->operands[0];
  const int64_t limit = !target.cpu ? kMaxCachedRowElementsGpu : c.rows_per_group > 1 ? kMaxCachedRowElementsLanePerRow : kMaxCachedRowElementsCpu;
  bool reread = false;
  for (const Instruction* u : fused)
    if (u != reduces.back())
      for (const Instruction* o : u->operands) reread = reread || o == v;
  if (reread && !materialized(v) && c.trips * c.per_trip <= limit &&
      (InlineLoopTrips(v, materialized) > 0 || InlineElementCost(v, materialized) >= kCostlyRowElement))
    c.cached = v;
  return c;
}


int64_t RowLocalSize(int64_t length, int64_t per_trip, int64_t stages, int64_t element_trips, const TargetFeatures& target) {
  const int64_t limit = std::max<int64_t>(1, std::min<int64_t>(256, target.max_workgroup_invocations));
  // A CPU driver runs a workgroup's SIMD-wide slices as coroutines that
  // every barrier switches between: as few slices per row as the loop
  // budget allows make the stages' trees nearly free (llvmpipe, layer norm
  // of 4096-element rows: 3.4x faster with 8 invocations than with 256).
  // A GPU: enough invocations for the row, at least a few SIMD widths.
  int64_t ls = target.cpu ? (target.subgroup_size > 1 ? target.subgroup_size : 8) : 32;
  if (!target.cpu)
    while (ls * per_trip < length && ls < limit) ls *= 2;
  while (ls < limit && Trips(length, ls, stages, element_trips) > target.max_loop_trips) ls *= 2;
  while (ls > limit) ls /= 2;
  return std::max<int64_t>(ls, 1);
}

int64_t RowKernelTrips(int64_t length, int64_t stages, int64_t element_trips, const TargetFeatures& target) {
  return Trips(length, RowLocalSize(length, 1, stages, element_trips, target), stages, element_trips);
}

}  // namespace vkxla
