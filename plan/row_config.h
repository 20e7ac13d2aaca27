// Row fusions: softmax, layer norm and their kin as one kernel. The group
// is one or more reduces over the same dims (a "row") of operands of one
// shape, the elementwise work on whole rows between and after them, and the
// broadcasts that bring each row's results back along the row. One
// workgroup owns a row: it walks the row once per reduce (stages; each
// stage's result meets in shared memory and is then known to every
// invocation) and once more to store the outputs. A row of at most
// kMaxRowLength elements stays in the caches between walks, so memory sees
// one read and one write per element, where the unfused plan reads x three
// times and writes twice. The fusion pass (plan/fusion.h) chooses the
// group; this file says how its kernel covers it.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/instruction.h"
#include "plan/materialized.h"
#include "plan/target_features.h"
#include "vkxla/status.h"

namespace vkxla {

// Longest row one workgroup walks: with 256 invocations, 64 trips a walk.
inline constexpr int64_t kMaxRowLength = 16384;
// Reduces one row kernel chains at most (each a walk over the row).
inline constexpr int64_t kMaxRowStages = 8;
// Elements of the cached value one invocation keeps: a CPU driver's
// private arrays live in its stack (in cache); a GPU's must stay in registers.
inline constexpr int64_t kMaxCachedRowElementsCpu = 1024;
inline constexpr int64_t kMaxCachedRowElementsGpu = 16;
// A lane a row keeps its whole row's (128 KiB of stack for a SIMD slice of
// 8 at 4096 f32; llvmpipe, softmax over f32[4096,4096]: 41 ms cached, 57
// computing exp twice).
inline constexpr int64_t kMaxCachedRowElementsLanePerRow = 4096;
// Rows a CPU device's workgroup walks a lane each (its SIMD width), where
// there are at least kMinLanePerRowRows rows to keep every core busy.
inline constexpr int64_t kMinLanePerRowRows = 64;
// Inline cost (plan/cost_model.h) of an element worth keeping rather than
// computing twice: a transcendental's.
inline constexpr int64_t kCostlyRowElement = 32;

struct RowConfig {
  std::vector<const Instruction*> reduces;  // the stages, in definition order
  std::vector<int64_t> row_dims;            // the reduced dims of the row shape, ascending
  std::vector<int64_t> batch_dims;          // the kept dims, ascending (a reduce's result dims)
  std::vector<int64_t> row_shape;           // the shape the reduces read
  int64_t rows = 0;        // workgroups: the product of the kept dims
  int64_t length = 0;      // elements per row: the product of the reduced dims
  int64_t local_size = 0;  // invocations per row, a power of two
  // Rows a workgroup walks, one invocation each (local_size 1: no shared
  // memory, no barriers), on a CPU device where many rows let every SIMD
  // lane stream a row of its own; else 1.
  int64_t rows_per_group = 1;
  // Each trip of a walk takes one vector of every buffer placed like the
  // first reduce's operand (`x_layout`): 4 consecutive elements of 32
  // bits, 8 of 16, where the row's last dim is unit-stride in it and holds
  // whole vectors; else 1.
  int64_t per_trip = 1;
  int vector_bits = 32;  // the width of those elements where per_trip > 1
  Layout x_layout;
  int64_t trips = 0;  // iterations of one walk: ceil(length / (local_size * per_trip))
  // The last stage's operand where it costs a transcendental and the
  // outputs read it too (softmax's exp(x - max)): the last stage keeps each
  // of an invocation's elements of it in a private array (trips * per_trip
  // of them, at most kMaxCachedRowElements) that the outputs' walk reads
  // instead of computing it again.
  const Instruction* cached = nullptr;
  // Every invocation has the same whole trips: no bounds checks.
  bool uniform() const { return length % (local_size * per_trip) == 0; }

  uint64_t Invocations() const {
    return static_cast<uint64_t>((rows + rows_per_group - 1) / rows_per_group * rows_per_group * local_size);
  }
  uint32_t WorkgroupSize() const { return static_cast<uint32_t>(local_size * rows_per_group); }
};

// `reduces`: the group's reduces in definition order, all single-operand
// reduces of the same dims of operands of one shape; `element_trips`: the
// inline loop trips of computing one element of everything.
// `fused`: everything the kernel computes inline (to see who reads the
// last stage's operand).
StatusOr<RowConfig> ChooseRowConfig(const std::vector<const Instruction*>& reduces, const std::vector<const Instruction*>& fused,
                                    int64_t element_trips, const MaterializedLayoutFn& materialized,
                                    const TargetFeatures& target);

// Invocations per row (a power of two where the target's subgroup size
// is): the fewest on a CPU driver, enough for the row on a GPU, and more
// where one invocation's loops would pass the target's max_loop_trips.
int64_t RowLocalSize(int64_t length, int64_t per_trip, int64_t stages, int64_t element_trips, const TargetFeatures& target);

// Loop trips one invocation runs for `stages` reduces over rows of
// `length` elements whose every element costs `element_trips` of inline
// loops: what must stay under the target's max_loop_trips.
int64_t RowKernelTrips(int64_t length, int64_t stages, int64_t element_trips, const TargetFeatures& target);

}  // namespace vkxla
