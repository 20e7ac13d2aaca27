// Generates one compute kernel that computes the array `root` into a
// buffer of `output_with_layout`. Everything feeding it is fused in
// (elementwise ops, broadcasts, converts, constants, iotas, data movement,
// dynamic slices, gathers, scatters) except the values `buffer_layout`
// places in buffers, which are read through their own layouts. Each
// invocation computes the elements of one uvec4 of the output, so sub-word
// types never race; no intermediate array is materialized.
#pragma once

#include <functional>
#include <optional>

#include "codegen/kernel.h"
#include "codegen/target.h"
#include "ir/status.h"

namespace vkxla {

// The device layout of the buffer holding an instruction's value, or
// nullopt when the kernel should compute it. Parameters and array
// constants always live in buffers.
using BufferLayoutFn = std::function<std::optional<Layout>(const Instruction*)>;

// Ops whose elements are costly to compute (scatter loops over all its
// indices): they get a kernel of their own and a buffer that consumers
// read, instead of being recomputed inside every consumer.
bool NeedsOwnKernel(const Instruction& inst);

// Sort and topk are computed as a permutation of each line, in a buffer of
// its own (several dispatches: a bitonic network); their results then fuse
// as reads through it. The runtime plans that buffer and names it here.
bool NeedsPermutation(const Instruction& inst);
// u32[lines * n] with n the line length rounded up to a power of two.
Shape PermutationShape(const Instruction& sort);
using PermutationFn = std::function<const Instruction*(const Instruction* sort)>;
StatusOr<std::vector<KernelSource>> EmitSortPermutation(const Instruction& sort, const Shape& permutation,
                                                        const BufferLayoutFn& buffer_layout, const TargetFeatures& target);

StatusOr<KernelSource> EmitFusedKernel(const Instruction& root, const Shape& output_with_layout,
                                       const BufferLayoutFn& buffer_layout, const TargetFeatures& target,
                                       const PermutationFn& permutation = nullptr);

}  // namespace vkxla
