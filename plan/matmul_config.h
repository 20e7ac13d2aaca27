// How a dot runs (the canonical form of ops/dot.h: batches of M x K times
// K x N). A workgroup computes a tile_m x tile_n tile of one batch; each
// invocation a thread_m x thread_n block of it in registers, walking the
// contraction once and reading its operands through their fused
// producers. Consecutive invocations take consecutive column blocks, so on
// SIMD CPUs the lanes of a vector share their rows (their lhs loads are
// uniform) and on GPUs neighbours read neighbouring columns. A contraction
// longer than the loop budget (or too little parallelism for a long one)
// splits into chunks whose partial sums a second kernel adds in order
// (split-K), then applies the epilogue.
#pragma once

#include <cstdint>

#include "ir/instruction.h"
#include "ir/status.h"
#include "plan/target_features.h"

namespace vkxla {

struct MatmulConfig {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  int64_t thread_m = 1, thread_n = 1;    // the register block of one invocation
  int64_t threads_m = 1, threads_n = 1;  // invocations of a workgroup along m and n
  int64_t tile_m = 1, tile_n = 1;        // threads * thread
  int64_t tiles_m = 1, tiles_n = 1;
  int64_t splits = 1;                    // chunks of the contraction
  int64_t k_chunk = 1;                   // contraction steps of one chunk
  uint32_t local_size = 1;
  uint64_t workgroups = 0;               // batch * tiles_m * tiles_n * splits
  bool split() const { return splits > 1; }
  uint64_t Invocations() const { return workgroups * local_size; }
  // The second kernel of a split: one invocation per result element.
  uint64_t SumInvocations() const { return static_cast<uint64_t>(batch * m * n); }
};

// The type a dot accumulates in for result type `t`: f32 for f32 and
// narrower floats, f64, c64, c128; 32- or 64-bit integers of the result's
// signedness (products wrap like the result's); pred.
ElementType MatmulAccumulator(ElementType t);

// `step_trips`: loop trips of loading one element of each operand (their
// fused producers' math-library loops).
StatusOr<MatmulConfig> ChooseMatmulConfig(const Instruction& dot, int64_t step_trips, const TargetFeatures& target);

}  // namespace vkxla
