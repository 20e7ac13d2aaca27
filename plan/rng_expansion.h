// rng-bit-generator as two values the kernels compute apart: the bits, an
// rng-bit-generator whose result is just the bits array (each element
// computes its own counter block inline, so the bits fuse into whatever
// reads them like an iota), and the new state in ordinary ops (the key,
// then the counter plus the blocks used, with the carry into a 128-bit
// Philox counter's high word). The array-shaped form exists only inside
// the planner's copy of the module.
//
// rng (RngUniform, RngNormal; ops/rng.h) becomes what XLA's expander makes
// of it: rng-get-and-update-state (a host step on the executable's
// counter), Philox bits from the state [kRngKey, counter] (the same
// array-shaped form, fused), and the conversion in ordinary ops that fuse
// with the bits into one kernel.
#pragma once

#include <memory>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// A copy of `module` with every rng-bit-generator split and every rng
// expanded, or null when it has neither.
StatusOr<std::shared_ptr<const Module>> ExpandRngBitGenerators(const Module& module);

}  // namespace vkxla
