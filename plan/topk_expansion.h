// TopK over long lines as a tournament, written into a copy of the module
// before planning: the line is cut into blocks of 1024, each block's top k
// found (a radix sort of each block, batched rows: plan/sort_config.h), the
// block offsets added to their indices, and the top k of those candidates
// found the same way until few remain; a last topk picks the k, and a
// gather maps its picks back to the line's indices. Every element a topk
// would pick is among its block's top k, and candidates keep the line's
// order among equal values (block by block, ascending index within one),
// so ties still go to the lowest index as the spec says.
#pragma once

#include <memory>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// A copy of `module` with every topk over lines longer than 4 blocks (a
// multiple of the block, k at most a quarter of it) that no radix select
// takes (plan/sort_config.h: UsesRadixSelect) expanded, or null when it
// has none.
StatusOr<std::shared_ptr<const Module>> ExpandLongTopKs(const Module& module);

}  // namespace vkxla
