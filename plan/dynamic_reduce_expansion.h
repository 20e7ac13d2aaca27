// Reduces of bounded dynamic arrays, written into a copy of the module
// before planning: each operand becomes a static array holding its elements
// where their indices along the reduced dynamic dims are below the run-time
// sizes and the reduce's init value past them (iota < get-dimension-size,
// a select), the reduce runs on the static bounds like any other, and the
// dims it keeps get their operand's run-time sizes back
// (set-dimension-size). The spec asks every init value to be an identity
// of the computation, which may apply it any number of times, so the
// padding changes nothing (XLA's dynamic padder pads a reduce's operand the
// same way).
#pragma once

#include <memory>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// A copy of `module` with every reduce over dynamic dimensions expanded, or
// null when it has none.
StatusOr<std::shared_ptr<const Module>> ExpandDynamicReduces(const Module& module);

}  // namespace vkxla
