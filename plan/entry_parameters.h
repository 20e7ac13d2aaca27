// Entry parameters that are tuples or tokens, written into a copy of the
// module before planning: a tuple parameter becomes one parameter per array
// leaf (depth first) and a tuple instruction that rebuilds it, a token
// parameter an after-all (a token holds no data), and the parameters are
// numbered again in order. The program's parameters are then the array
// leaves of the entry's arguments in order (ArrayLeafShapes), which is how
// Executable::Run hands them over. Older TensorFlow dumps pass a cluster's
// arguments as one tuple; XLA's token-threading tests pass a token.
#pragma once

#include <memory>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// A copy of `module` whose entry takes array parameters only, or null when
// it already does.
StatusOr<std::shared_ptr<const Module>> FlattenEntryParameters(const Module& module);

}  // namespace vkxla
