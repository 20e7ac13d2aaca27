// A called computation as the reference evaluator applies it: scalars in,
// one scalar (or several, for a tuple root) out.
#pragma once

#include <functional>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

using ScalarFunction = std::function<StatusOr<std::vector<Scalar>>(const std::vector<Scalar>&)>;
// The same over whole arrays (scan's slices).
using LiteralFunction = std::function<StatusOr<std::vector<Literal>>(const std::vector<Literal>&)>;
// How the evaluator turns a computation into those.
using ScalarFunctionOf = std::function<ScalarFunction(const Computation&)>;

}  // namespace vkxla
