#include "plan/window_config.h"

#include <algorithm>

#include "ir/instruction.h"
#include "ir/tiled_index.h"
#include "ops/window.h"

namespace vkxla {

StatusOr<WindowConfig> ChooseWindowConfig(const Instruction& op, const Shape& first_result, int64_t position_trips,
                                          const TargetFeatures& target) {
  WindowConfig c;
  VKXLA_ASSIGN_OR_RETURN(Window w, WindowOf(op, op.operands[0]->shape.rank()));
  for (int64_t s : w.size) c.window *= s;
  const int64_t budget = std::max<int64_t>(1, (static_cast<int64_t>(target.max_loop_trips) - 16) / (1 + position_trips));
  c.chunk = std::max<int64_t>(1, std::min(c.window, budget));
  c.passes = std::max<int64_t>(1, (c.window + c.chunk - 1) / c.chunk);
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(first_result));
  c.invocations = static_cast<uint64_t>(map.physical_element_count());
  if (op.opcode == Opcode::kSelectAndScatter) {
    c.select_invocations = static_cast<uint64_t>(op.operands[1]->shape.element_count());
    for (int64_t d = 0; d < w.rank(); ++d) c.containing *= (w.size[d] + w.stride[d] - 1) / std::max<int64_t>(w.stride[d], 1);
    c.containing_chunk = std::max<int64_t>(1, std::min(c.containing, budget));
    c.containing_passes = std::max<int64_t>(1, (c.containing + c.containing_chunk - 1) / c.containing_chunk);
  }
  return c;
}

}  // namespace vkxla
