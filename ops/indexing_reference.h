// Reference semantics of the ops that index with run-time values:
// dynamic-slice, dynamic-update-slice, gather and scatter. Start indices
// are clamped the way XLA does (dynamic-slice, dynamic-update-slice and
// gather); a scatter update whose window does not fit is skipped whole.
#pragma once

#include <functional>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"
#include "ops/scalar_function.h"

namespace vkxla {


StatusOr<Literal> EvaluateDynamicSlice(const Instruction& inst, const std::vector<const Literal*>& operands);
StatusOr<Literal> EvaluateDynamicUpdateSlice(const Instruction& inst, const std::vector<const Literal*>& operands);
StatusOr<Literal> EvaluateGather(const Instruction& inst, const std::vector<const Literal*>& operands);
// `combine` is the update computation: N current values and N update
// values in, the N new values out. Updates are applied in row-major order of the update scatter index, so
// colliding indices give a deterministic result for any computation.
StatusOr<Literal> EvaluateScatter(const Instruction& inst, const std::vector<const Literal*>& operands,
                                  const ScalarFunction& combine);

}  // namespace vkxla
