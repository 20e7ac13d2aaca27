// Generates one compute kernel for a DAG of elementwise ops rooted at
// `root`, with the broadcasts, converts, constants and iotas feeding it
// fused in. Each invocation computes the elements of one 32-bit output word
// (so sub-word types never race) and reads every operand through its own
// layout; no intermediate array is materialized.
#pragma once

#include <functional>

#include "codegen/kernel.h"
#include "codegen/target.h"
#include "ir/status.h"

namespace vkxla {

// Whether the emitter can fuse `inst` into a kernel (as opposed to reading
// it from a buffer).
bool IsFusible(const Instruction& inst);

// input_layout gives the device layout of each parameter or constant read.
StatusOr<KernelSource> EmitElementwiseKernel(const Instruction& root, const Shape& output_with_layout,
                                             const std::function<Layout(const Instruction*)>& input_layout,
                                             const TargetFeatures& target);

}  // namespace vkxla
