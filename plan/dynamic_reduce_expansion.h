// Reduces over bounded dynamic dimensions, written into a copy of the module
// before planning: each operand becomes a static array holding its elements
// where their indices along the reduced dynamic dims are below the run-time
// sizes and the reduce's init value past them (iota < get-dimension-size,
// a select), and the reduce then runs on the static bounds like any other.
// The spec asks every init value to be an identity of the computation,
// which may apply it any number of times, so the padding changes nothing
// (XLA's dynamic padder pads a reduce's operand the same way).
#pragma once

#include <memory>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// A copy of `module` with every reduce over dynamic dimensions expanded, or
// null when it has none.
StatusOr<std::shared_ptr<const Module>> ExpandDynamicReduces(const Module& module);

}  // namespace vkxla
