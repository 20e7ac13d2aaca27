// rng-bit-generator as two values the kernels compute apart: the bits, an
// rng-bit-generator whose result is just the bits array (each element
// computes its own counter block inline, so the bits fuse into whatever
// reads them like an iota), and the new state in ordinary ops (the key,
// then the counter plus the blocks used, with the carry into a 128-bit
// Philox counter's high word). The array-shaped form exists only inside
// the planner's copy of the module.
#pragma once

#include <memory>

#include "ir/module.h"
#include "ir/status.h"

namespace vkxla {

// A copy of `module` with every rng-bit-generator split, or null when it has none.
StatusOr<std::shared_ptr<const Module>> ExpandRngBitGenerators(const Module& module);

}  // namespace vkxla
