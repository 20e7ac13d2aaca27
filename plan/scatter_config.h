// How scatter runs: each invocation owns one result element, starts from
// the operand's value and combines in every update whose window covers it,
// in order of the update's scatter index; no two invocations write one
// element, so any combiner and any collisions give one deterministic
// answer. More updates than the loop budget allows are taken in passes,
// the partial result kept in the result buffer between them.
#pragma once

#include <cstdint>

#include "ir/instruction.h"
#include "vkxla/status.h"
#include "plan/target_features.h"

namespace vkxla {

struct ScatterConfig {
  int64_t updates = 0;  // scatter indices (the loop's length)
  int64_t chunk = 1;    // scatter indices one pass takes
  int64_t passes = 1;
  uint64_t invocations = 0;  // one per physical element of the first result
};

// `update_trips`: loop trips of one update (its index, value and combiner).
StatusOr<ScatterConfig> ChooseScatterConfig(const Instruction& scatter, const Shape& first_result, int64_t update_trips,
                                            const TargetFeatures& target);

}  // namespace vkxla
