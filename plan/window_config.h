// How reduce-window and select-and-scatter run. Each invocation owns one
// result element and loops over window positions; windows longer than the
// loop budget fold in passes, the partial result kept in the result buffer
// between them. Select-and-scatter runs in two kernels: one per source
// element picks its window's selected position (in passes over the window,
// the best so far in scratch), then one per operand element adds in the
// source values of the windows that picked it. Either way each loop is one
// window long, not a window squared.
#pragma once

#include <cstdint>

#include "ir/instruction.h"
#include "vkxla/status.h"
#include "plan/target_features.h"

namespace vkxla {

struct WindowConfig {
  int64_t window = 1;        // window positions
  int64_t chunk = 1;         // positions one pass folds
  int64_t passes = 1;
  uint64_t invocations = 0;  // one per physical element of the first result
  // Select-and-scatter: the selection, one invocation per source element
  // over `window` positions in `passes`; then the scatter, one per operand
  // element over the windows that may contain it.
  uint64_t select_invocations = 0;
  int64_t containing = 1;       // prod ceil(size / stride): windows that may hold an element
  int64_t containing_chunk = 1;
  int64_t containing_passes = 1;
};

// `position_trips`: loop trips of one window position (fused operands and
// the computations applied there).
StatusOr<WindowConfig> ChooseWindowConfig(const Instruction& op, const Shape& first_result, int64_t position_trips,
                                          const TargetFeatures& target);

}  // namespace vkxla
