// The values of a replicated run in files: each process's value of a
// parameter or result stacked on a new leading axis, one slice per process
// (as jax.pmap takes and gives them).
#pragma once

#include <vector>

#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

// The `count` slices of `stacked` along its leading axis; `what` names it in errors.
StatusOr<std::vector<Literal>> UnstackLiteral(const Literal& stacked, int64_t count, const std::string& what);
// `slices` (arrays of one shape) on a new leading axis.
StatusOr<Literal> StackLiterals(const std::vector<const Literal*>& slices);

}  // namespace vkxla
