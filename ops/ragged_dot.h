// RaggedDot (operation_semantics: RaggedDot, which defers to StableHLO's
// chlo.ragged_dot): a DotGeneral whose lhs has one ragged dim, cut into g
// consecutive groups by `group_sizes` (operands lhs, rhs, group_sizes;
// attributes those of dot plus `lhs_ragged_dims` and `rhs_group_dims`).
// The ragged dim's kind picks the mode:
//  - non-contracting: the rhs has a group dim of size g; a row in group i
//    is multiplied by rhs matrix i, a row in no group is zero;
//  - contracting: the result gets a leading dim of size g; entry i sums
//    only over the contraction indices in group i;
//  - batch: the result is the DotGeneral's (group sizes change nothing).
// Group i covers [start_i, start_i + group_sizes[..., i]) of the ragged
// dim, start_i the sum of the sizes before it. group_sizes is [g] or
// [prefix..., g], the prefix the dims of the lhs that come before the
// ragged dim (batch dims, then the free dims before it in mode
// non-contracting or the contracting dims listed before it in mode
// contracting). With negative sizes (which XLA leaves undefined) a row
// belongs to the first group whose range holds it.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"
#include "ops/dot.h"

namespace vkxla {

enum class RaggedMode { kNonContracting, kContracting, kBatch };

struct RaggedDotPlan {
  DotPlan dot;  // the dot without the rhs's group dim
  RaggedMode mode = RaggedMode::kNonContracting;
  int64_t lhs_ragged = 0;  // the lhs's ragged dim
  int64_t rhs_group = -1;  // the rhs's group dim (non-contracting mode only)
  int64_t groups = 0;
  // The lhs dims whose coordinates index group_sizes before its last dim,
  // in group_sizes' order; empty when group_sizes is [g].
  std::vector<int64_t> prefix;
};

StatusOr<RaggedDotPlan> PlanRaggedDot(const Instruction& inst);
StatusOr<Shape> InferRaggedDotShape(const Instruction& inst);
StatusOr<Literal> EvaluateRaggedDot(const Instruction& inst, const Literal& lhs, const Literal& rhs,
                                    const Literal& group_sizes);

}  // namespace vkxla
