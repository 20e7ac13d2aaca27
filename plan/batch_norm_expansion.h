// BatchNormTraining, BatchNormInference and BatchNormGrad as the spec's
// decompositions (ops/batch_norm.h), written into a copy of the module
// before planning. f16 and bf16 compute in f32. The per-feature sums are
// one dot against ones (the Dot engine's long contractions, split and
// summed in order), every sum a pass needs stacked into that one dot so the
// operand is read once per pass:
//  - training in two passes: the sums of d = x - k and d^2, with k the
//    feature's first element (the shifted-data method: stable where the
//    naive sum of squares cancels, since k lies within the data), then the
//    normalisation;
//  - inference in one elementwise pass;
//  - grad in two: the sums of g, g * x^ and g * (x - mean), then grad_x.
#pragma once

#include <memory>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// A copy of `module` with every batch-norm op expanded, or null when it has none.
StatusOr<std::shared_ptr<const Module>> ExpandBatchNorms(const Module& module);

}  // namespace vkxla
