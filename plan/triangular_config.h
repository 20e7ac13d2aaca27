// How a Cholesky or TriangularSolve block runs (plan/linalg_expansion.h
// leaves only blocks of at most the leaf order): one invocation per system
// (a matrix to factor, or a right-hand side to substitute), its loops
// bounded by the block's order.
#pragma once

#include <cstdint>

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

struct TriangularConfig {
  int64_t order = 0;    // the matrices' order
  int64_t systems = 0;  // invocations: matrices (Cholesky) or right-hand sides (solve), over the batch
  int64_t lines = 0;    // solve: right-hand sides per matrix
};

StatusOr<TriangularConfig> ChooseTriangularConfig(const Instruction& inst);

}  // namespace vkxla
