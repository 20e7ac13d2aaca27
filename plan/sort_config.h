// How a sort or topk runs: a bitonic network sorts each line's element
// indices (padded to a power of two with sentinels that sort last) into a
// permutation buffer. Blocks of up to 2048 sort and merge in shared memory
// (kernel 0); each step wider than a block is one dispatch of kernel 1. The
// results then fuse into their consumers as reads through the permutation.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/instruction.h"
#include "vkxla/status.h"
#include "plan/target_features.h"

namespace vkxla {

struct SortConfig {
  int64_t dim = 0;     // the sorted dim (topk: the last)
  int64_t length = 0;  // elements per line
  int64_t padded = 1;  // length rounded up to a power of two
  int64_t lines = 1;
  int64_t block = 1;   // elements a shared-memory block holds
  // The network's dispatches in order: kernel (0 local, 1 wide step) and
  // its push constants {k0, k1, j0, initial} or {k, 0, j, 0}.
  struct Pass {
    int kernel = 0;
    std::vector<uint32_t> push_constants;
  };
  std::vector<Pass> passes;
  uint64_t LocalInvocations() const { return static_cast<uint64_t>(lines * (padded / block)) * 256; }
  uint64_t StepInvocations() const { return static_cast<uint64_t>(lines * padded / 2); }
};

// Bytes one element of `t` takes in shared memory as its compute type.
int SharedBytesOf(ElementType t);
StatusOr<SortConfig> ChooseSortConfig(const Instruction& sort, const TargetFeatures& target);
// u32[lines * padded]: the permutation a sort's network writes.
Shape PermutationShape(const SortConfig& c);

}  // namespace vkxla
