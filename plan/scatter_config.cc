#include "plan/scatter_config.h"

#include <algorithm>

#include "ir/instruction.h"
#include "ir/tiled_index.h"
#include "ops/gather_scatter_plan.h"

namespace vkxla {

StatusOr<ScatterConfig> ChooseScatterConfig(const Instruction& scatter, const Shape& first_result, int64_t update_trips,
                                            const TargetFeatures& target) {
  VKXLA_ASSIGN_OR_RETURN(ScatterPlan plan, PlanScatter(scatter));
  ScatterConfig c;
  const Shape& updates = scatter.operands[plan.arity + 1]->shape;
  c.updates = 1;
  for (int64_t u : plan.update_scatter_dims) c.updates *= updates.dim(u);
  if (updates.element_count() == 0) c.updates = 0;
  const int64_t budget = std::max<int64_t>(1, (static_cast<int64_t>(target.max_loop_trips) - 16) / (1 + update_trips));
  c.chunk = std::max<int64_t>(1, std::min(c.updates, budget));
  c.passes = std::max<int64_t>(1, (c.updates + c.chunk - 1) / c.chunk);
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(first_result));
  c.invocations = static_cast<uint64_t>(map.physical_element_count());
  return c;
}

}  // namespace vkxla
