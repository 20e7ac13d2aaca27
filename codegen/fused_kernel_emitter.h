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
#include <vector>

#include "codegen/kernel.h"
#include "plan/target_features.h"
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
StatusOr<std::vector<KernelSource>> EmitSortPermutation(const Instruction& sort, const Shape& permutation,
                                                        const BufferLayoutFn& buffer_layout, const TargetFeatures& target);

// A long reduction whose results lie along the operand's rows (column sums)
// folds in passes (split-K): blocks of kReduceBlockRows rows into partial
// results in a buffer of their own, then blocks of partials into fewer,
// and the reduce kernel folds the last few after the init value. Blocks
// are consecutive and fold in order, so the order of the elements is kept.
constexpr int64_t kReduceBlockRows = 16;
struct ReduceSplit {
  int64_t outputs = 0;         // O: the result's physical elements; partial j of result p is word j * O + p
  std::vector<int64_t> parts;  // partials per result after each pass; the last is at most kReduceBlockRows
  Shape partials;              // T[words]: two regions the passes alternate between
  // Word offset of the partials that pass `pass` writes.
  int64_t RegionOffset(size_t pass) const { return pass % 2 == 0 ? 0 : parts[0] * outputs; }
};
// nullopt where the reduce runs as one kernel.
StatusOr<std::optional<ReduceSplit>> PlanReduceSplit(const Instruction& reduce, const Shape& output_with_layout,
                                                     const BufferLayoutFn& buffer_layout, const TargetFeatures& target);
StatusOr<std::vector<KernelSource>> EmitReducePartials(const Instruction& reduce, const Shape& output_with_layout,
                                                       const ReduceSplit& split, const BufferLayoutFn& buffer_layout,
                                                       const TargetFeatures& target);

// The stand-in instruction that names a buffer the runtime planned for an
// op's own use (a sort's permutation, a reduce's partials), or nullptr.
using PlannedBufferFn = std::function<const Instruction*(const Instruction* op)>;

StatusOr<KernelSource> EmitFusedKernel(const Instruction& root, const Shape& output_with_layout,
                                       const BufferLayoutFn& buffer_layout, const TargetFeatures& target,
                                       const PlannedBufferFn& planned_buffer = nullptr);

}  // namespace vkxla
