#include "plan/scatter_config.h"

#include <algorithm>
#include <limits>

#include "ir/instruction.h"
#include "ir/layout_index.h"
#include "ir/module.h"
#include "ir/tiled_index.h"
#include "ops/gather_scatter_plan.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

// Whether `target` combines `op` into a 32-bit element of type t atomically.
bool AtomicOn(Opcode op, ElementType t, const TargetFeatures& target) {
  const bool integer = t == ElementType::kS32 || t == ElementType::kU32;
  switch (op) {
    case Opcode::kAdd: return integer || (t == ElementType::kF32 && target.float32_atomic_add);
    case Opcode::kMinimum: case Opcode::kMaximum: return integer || t == ElementType::kF32;
    case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor: return integer;
    default: return false;
  }
}

}  // namespace

ScatterConfig::Mode ChooseScatterMode(const Instruction& scatter, const Shape& result, const TargetFeatures& target) {
  StatusOr<ScatterPlan> plan = PlanScatter(scatter);
  if (!plan.ok() || plan->arity != 1 || !result.IsArray()) return ScatterConfig::Mode::kOwner;
  // One invocation per update element, counted in a uint.
  const Shape& updates = scatter.operands[2]->shape;
  if (updates.element_count() >= int64_t{std::numeric_limits<uint32_t>::max()}) return ScatterConfig::Mode::kOwner;
  if (plan->dims.unique_indices) return ScatterConfig::Mode::kUnique;
  const Computation* combine = nullptr;
  for (const auto& [key, c] : scatter.called_computations)
    if (key == "to_apply") combine = c;
  if (!combine) return ScatterConfig::Mode::kOwner;
  // The update replaces the element: the last update (in scatter index
  // order) wins, found with an atomic max on a u32 per element.
  const auto params = combine->parameters();
  if (params.size() == 2 && combine->root() == params[1] && result.element_count() < int64_t{1} << 32)
    return ScatterConfig::Mode::kLastWins;
  if (!IsOneCommutativeOp(*combine)) return ScatterConfig::Mode::kOwner;
  StatusOr<int> bits = ElementStorageBits(result.element_type(), result.layout_or_default());
  if (!bits.ok()) return ScatterConfig::Mode::kOwner;
  if (*bits == 32 && AtomicOn(combine->root()->opcode, result.element_type(), target)) return ScatterConfig::Mode::kAtomic;
  // Words of 32 bits, or 64 where the device swaps those.
  if (*bits > 64 || (*bits == 64 && !target.int64_atomics) || (*bits < 64 && IsComplex(result.element_type())))
    return ScatterConfig::Mode::kOwner;
  return ScatterConfig::Mode::kCompareSwap;
}

StatusOr<ScatterConfig> ChooseScatterConfig(const Instruction& scatter, const Shape& first_result, int64_t update_trips,
                                            const TargetFeatures& target) {
  VKXLA_ASSIGN_OR_RETURN(ScatterPlan plan, PlanScatter(scatter));
  ScatterConfig c;
  const Shape& updates = scatter.operands[plan.arity + 1]->shape;
  c.updates = 1;
  for (int64_t u : plan.update_scatter_dims) c.updates *= updates.dim(u);
  if (updates.element_count() == 0) c.updates = 0;
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(first_result));
  c.invocations = static_cast<uint64_t>(map.physical_element_count());
  c.mode = ChooseScatterMode(scatter, first_result, target);
  if (c.one_pass()) {
    for (const auto& [key, comb] : scatter.called_computations)
      if (key == "to_apply") c.atomic_op = comb->root()->opcode;
    c.update_invocations = static_cast<uint64_t>(updates.element_count());
    return c;
  }
  const int64_t budget = std::max<int64_t>(1, (static_cast<int64_t>(target.max_loop_trips) - 16) / (1 + update_trips));
  c.chunk = std::max<int64_t>(1, std::min(c.updates, budget));
  c.passes = std::max<int64_t>(1, (c.updates + c.chunk - 1) / c.chunk);
  return c;
}

}  // namespace vkxla
