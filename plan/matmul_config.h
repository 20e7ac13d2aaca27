// How a dot runs (the canonical form of ops/dot.h: batches of M x K times
// K x N). A workgroup computes a tile_m x tile_n tile of one batch; each
// invocation a thread_m x thread_n block of it in registers, walking the
// contraction once and reading its operands through their fused
// producers, or as whole vectors where they sit plainly in memory.
// Consecutive invocations take consecutive column blocks, so neighbours
// read neighbouring columns. On lavapipe, 16 x 16 blocks with 8 lanes along
// n and vectors along k for the lhs measured best (f32 1024^3: 3 GFLOP/s
// with 4 x 4 element loads, 12 with 16 x 16, 20-27 with vectors; 8 x 8 and
// 32 x 16 blocks, lanes sharing the lhs rows through subgroup broadcasts,
// and 64 lanes along n were slower or no faster, each alone). Where the
// eight lanes along n form a subgroup they now share the lhs rows
// (share_lhs): each loads an eighth of them, and blocks grow to 32 x 16,
// their products in 2 x 4 sub-blocks (f32 1024^3: 0.5-0.6 of the time of
// unshared 16 x 16 blocks on the same run). All that is for storage-buffer
// reads: where the target reads texels, blocks are 8 x 8 (16 x 16 for
// 8-bit operands) and every lane fetches its own lhs rows. A contraction
// longer than the loop budget (or too little parallelism for a long one)
// splits into chunks whose partial sums a second kernel adds in order
// (split-K), then applies the epilogue. On GPUs, 64 x 64 tiles of 16 x 16
// invocations with 4 x 4 blocks stage 16-step slices of both operands
// through shared memory (loads coalesce; each element is read from memory
// once per tile), where both dims are at least 32; a matrix-vector
// product gives each row a team of lanes along k; narrow dims keep the
// register path. Where the device multiplies f16 matrices in hardware
// (NVIDIA's tensor cores through VK_NV_cooperative_matrix), staged tiles of
// two f16 operands run there (see `cooperative`). Larger products of
// 32-bit accumulators take 128 x 128 tiles of 8 x 8 blocks in quads (see
// `quads`), eight steps a slice, f16 ones too (faster than the cooperative
// tiles on an H200); TargetFeatures::matmul_tuning overrides those shapes
// for measuring a device.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/instruction.h"
#include "vkxla/status.h"
#include "plan/materialized.h"
#include "plan/target_features.h"
#include "plan/vector_source.h"

namespace vkxla {

struct MatmulConfig {
  // How an operand is read: an element at a time through its load function
  // (any fused producers), or, where it is an 8-, 16- or 32-bit array
  // whose vectors along its innermost contraction dim or its one free dim
  // lie whole in a buffer (plan/vector_source.h: the buffer itself, or
  // slices, pads, gathers... of it), 16 bytes at a time as whole vectors
  // (llvmpipe's loads cost a loop over the lanes each; vectors more than
  // doubled f32 1024^3 there, and tripled a product of slices).
  enum class Read { kElements, kAlongK, kAlongFree };
  int64_t batch = 1, m = 1, n = 1, k = 1;
  Read lhs = Read::kElements, rhs = Read::kElements;
  int64_t k_step = 1;                    // contraction steps one iteration takes (a vector's lanes along k)
  // Read::kAlongK: contraction steps one address covers (whole vectors read
  // from it), per operand.
  int64_t k_block[2] = {1, 1};
  int64_t thread_m = 1, thread_n = 1;    // the register block of one invocation
  int64_t threads_m = 1, threads_n = 1;  // invocations of a workgroup along m and n
  int64_t tile_m = 1, tile_n = 1;        // threads * thread
  int64_t tiles_m = 1, tiles_n = 1;
  // GPUs: > 0 stages tile_k steps of both operands' tiles through shared
  // memory (each invocation loads a few elements, all read them from
  // there); 0 reads operands straight into registers.
  int64_t tile_k = 0;
  // GPUs, matrix . vector: > 1 lanes share each row's contraction (a lane
  // takes every k_lanes-th step; shared memory adds their sums).
  int64_t k_lanes = 1;
  // CPU drivers: the threads_n invocations along n are one subgroup (one
  // SIMD vector). Each loads thread_m / threads_n of the block's lhs rows
  // and takes the others from its neighbours by subgroupBroadcast, instead
  // of every lane loading every row (llvmpipe loads a lane at a time).
  bool share_lhs = false;
  // > 0: the products of an iteration run in sub-blocks of sub_m x sub_n
  // accumulators, every step of the iteration for one sub-block before the
  // next (after all its operands are loaded); 0: step by step, each step's
  // rhs loaded just before its products.
  int64_t sub_m = 0, sub_n = 0;
  // Staged tiles of two f16 operands on a device with f16 cooperative
  // matrices (TargetFeatures::cooperative_matrix_f16): the slices are staged
  // as f16, each subgroup of 32 takes a 16 x 32 part of the 64 x 64 tile as
  // two 16 x 16 f32 accumulators fed by 16 x 16 x 16 matrix products, and
  // the tile meets in shared memory before each invocation takes its 4 x 4
  // block to the usual epilogue.
  bool cooperative = false;
  // Staged tiles of 32-bit accumulators on GPUs, for products that make
  // 128 workgroups of 128 x 128 tiles (or in the tuning's shape):
  // each invocation's 8 x 8 block is four 4 x 4 quads half a tile apart
  // (rows qm * 4 + {0..3} and tile_m / 2 more; columns likewise), so a
  // step reads its operands as four 16-byte vectors from shared memory
  // whose lanes' addresses are consecutive (no bank conflicts), and the
  // next slice's loads are issued before the current slice's products.
  bool quads = false;
  // CPU drivers, blocks read straight into registers, where tiles of
  // threads_m x threads_n blocks would pad or be few: the invocations take
  // the result's blocks in order (n fastest; blocks_m x blocks_n of them),
  // so a dim that is no multiple of a tile pads a block at most rather
  // than a tile (MobileNet's 14 x 14 x 576 -> 96: 57% of a padded tile's
  // blocks in use). tiles_n
  // then counts the workgroups of a batch and chunk, tiles_m is 1;
  // invocations past the last block get rows past m (nothing stored).
  bool flat_blocks = false;
  int64_t blocks_m = 1, blocks_n = 1;
  int64_t splits = 1;                    // chunks of the contraction
  int64_t k_chunk = 1;                   // contraction steps of one chunk
  uint32_t local_size = 1;
  uint64_t workgroups = 0;               // batch * tiles_m * tiles_n * splits
  bool split() const { return splits > 1; }
  uint64_t Invocations() const { return workgroups * local_size; }
  // The second kernel of a split: one invocation per result element.
  uint64_t SumInvocations() const { return static_cast<uint64_t>(batch * m * n); }
};

// Elements of type t in one 16-byte vector read (4 of 32 bits, 8 of 16,
// 16 of 8).
int64_t VectorLanes(ElementType t);

// The type a dot accumulates in for result type `t`: f32 for f32 and
// narrower floats, f64, c64, c128; 32- or 64-bit integers of the result's
// signedness (products wrap like the result's); pred.
ElementType MatmulAccumulator(ElementType t);

// `step_trips`: loop trips of loading one element of each operand (their
// fused producers' math-library loops).
StatusOr<MatmulConfig> ChooseMatmulConfig(const Instruction& dot, int64_t step_trips, const MaterializedLayoutFn& materialized,
                                          const TargetFeatures& target);

}  // namespace vkxla
