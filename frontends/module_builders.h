// ComputationBuilders over a parsed module (HLO text), for passes that
// write new instructions and computations into it after parsing.
#pragma once

#include "frontends/array_ops.h"
#include "ir/module.h"

namespace vkxla {

// Builders adding to `c` (new computations to `m`), each instruction named
// `prefix.N` with N the first free number and placed at `location`.
ComputationBuilders BuildersInModule(Module& m, Computation* c, const std::string& prefix, SourceLocation location);

}  // namespace vkxla
