// Reference semantics of the ops that index with run-time values:
// dynamic-slice, dynamic-update-slice, gather and scatter. Start indices
// are clamped the way XLA does (dynamic-slice, dynamic-update-slice and
// gather); a scatter update whose window does not fit is skipped whole.
#pragma once

#include <functional>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "ir/status.h"

namespace vkxla {

// The update computation of scatter, applied to N current values and N
// update values; returns the N new values.
using ScatterCombiner = std::function<StatusOr<std::vector<Scalar>>(const std::vector<Scalar>&)>;

StatusOr<Literal> EvaluateDynamicSlice(const Instruction& inst, const std::vector<const Literal*>& operands);
StatusOr<Literal> EvaluateDynamicUpdateSlice(const Instruction& inst, const std::vector<const Literal*>& operands);
StatusOr<Literal> EvaluateGather(const Instruction& inst, const std::vector<const Literal*>& operands);
// Updates are applied in row-major order of the update scatter index, so
// colliding indices give a deterministic result for any computation.
StatusOr<Literal> EvaluateScatter(const Instruction& inst, const std::vector<const Literal*>& operands,
                                  const ScatterCombiner& combine);

}  // namespace vkxla
