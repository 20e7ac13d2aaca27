// Reduces, reduce-windows and dots of bounded dynamic arrays, written into a copy of the
// module before planning (as XLA's dynamic padder does): each operand
// becomes a static array at its bounds holding a neutral value past the
// run-time sizes of the dims the op folds (a reduce's init value, which the
// spec asks to be an identity the computation may apply any number of
// times; zero on both sides of a dot's contraction), through iota <
// get-dimension-size and a select; the op then runs on the static bounds
// like any other, and the dims it keeps get their run-time sizes back
// (set-dimension-size; a reduce-window's, the windows that fit the size).
#pragma once

#include <memory>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// A copy of `module` with every reduce, reduce-window and dot of dynamic operands padded,
// or null when it has none.
StatusOr<std::shared_ptr<const Module>> PadDynamicOperands(const Module& module);

}  // namespace vkxla
