// How a loop kernel (elementwise fusions, data movement, gathers, a sort's
// results) covers its output: each invocation owns one uvec4 of it, or, when
// the output runs along one dim in memory and an operand along another, a
// square block that it transposes in registers so every load and store
// stays a whole vector.
#pragma once

#include <cstdint>
#include <vector>

#include "vkxla/status.h"
#include "plan/materialized.h"
#include "plan/target_features.h"

namespace vkxla {

// Block coordinates come from the invocation id as digits, fastest first;
// each adds digit * scale to dim's block origin.
struct BlockDigit {
  int64_t dim = 0, extent = 1, scale = 1;
};

// Copies of an element's code a written-out strip holds (driver compile
// time grows with them: a strip of 16 vectors in 2 rows written out was
// 1 MB of GLSL and 18 s of compiling on llvmpipe).
inline constexpr int64_t kMaxWrittenOutStripElements = 32;
// Inline cost (plan/cost_model.h) below which a kernel without a strip
// writes its narrow elements out: cheaper than one transcendental.
inline constexpr int64_t kMaxWrittenOutElementCost = 32;

struct LoopConfig {
  int per_vector = 4;    // physical output elements one invocation owns (a uvec4)
  uint64_t vectors = 0;  // output vectors in vector mode
  // Vector mode: each invocation owns `strip` vectors strip_stride apart
  // (vectors * strip_stride * strip divides evenly), so reads through
  // index maps that several share (a depthwise convolution's weights and
  // overlapping windows) can be merged by the driver's compiler.
  int strip = 1;
  int64_t strip_stride = 1;
  int64_t strip_dim = -1;  // the output dim consecutive vectors of a strip step along
  // Where the stencil also spans the next dim out (a 2-D window), each
  // invocation takes `strip_rows` such strips, strip_row_stride vectors
  // apart along strip_row_dim, sharing windows down the rows as well.
  int strip_rows = 1;
  int64_t strip_row_stride = 1;
  int64_t strip_row_dim = -1;
  // Narrow elements (8 or 16 to a vector) written out element by element
  // with their lanes constants, instead of a loop over each vector's
  // elements: a CPU driver's strips (at most kMaxWrittenOutStripElements
  // copies of the element's code), and pairs of cheap elements; not where
  // the 8-bit floats decode through long functions of their own.
  bool written_out = false;
  // Vector mode on a CPU driver with 64-bit integers: each of those
  // vectors comes with its neighbour along the unit-stride dim (`pair` 2),
  // the two stored as one 32-byte u64vec4 word. llvmpipe stores a lane at
  // a time, so a wider word costs fewer of its per-lane store loops: 64 MB
  // written in 3.3 ms as u64vec4 words against 4.9 as u64vec2 (the stream
  // kernel 35 GB/s against 30).
  int pair = 1;
  uint32_t local_size = 256;  // vector mode's workgroup size
  // Block mode: 0 off, else 4 (4x4 uvec4 words) or 8 (8x8 as u64vec4 words).
  int block = 0;
  int64_t block_a = -1;  // the output's unit-stride dim
  int64_t block_b = -1;  // the transposed operand's unit-stride dim, as an output dim
  bool transposed_operand_tiled = false;
  std::vector<BlockDigit> digits;
  uint64_t blocks = 0;   // invocations in block mode
  // The output is a dynamic-update-slice written in place: the buffer
  // already holds its operand (a loop's carried array), and one invocation
  // per update element writes just the update's window.
  bool in_place_update = false;

  // Invocations the kernel runs (vector or block mode).
  uint64_t invocations() const {
    return block ? blocks : vectors / static_cast<uint64_t>(strip * strip_rows * pair);
  }
};

// `root` computes the output (nullptr when it is an element of a tuple,
// which never blocks); `out` carries the output's layout.
StatusOr<LoopConfig> ChooseLoopConfig(const Instruction* root, const Shape& out, const MaterializedLayoutFn& materialized,
                                      const TargetFeatures& target);

}  // namespace vkxla
