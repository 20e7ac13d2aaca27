// Where a fused operand can be read 16 bytes at a time. A kernel that
// walks an operand along one dim (a matmul along its contraction or a free
// dim) reads blocks of consecutive elements there; when every block sits
// contiguous in one buffer, starting on a vector, it reads whole vectors
// (llvmpipe's loads cost a loop over the lanes each: vectors more than
// doubled f32 1024^3 there). The operand may be the buffer's value itself
// or reach it through index maps (slices, pads, reshapes, transposes,
// broadcasts, gathers): the walk proves that the tracked dim passes
// through each of them unchanged as the buffer's unit-stride dim, that a
// block never straddles a padding edge, and code generation computes the
// address of a block's first element through the same maps once per
// block. An implicit-GEMM convolution's windows (a gather of the padded
// input) are read this way along the input features, one padding test and
// one address per vector.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/instruction.h"
#include "plan/materialized.h"

namespace vkxla {

struct VectorSource {
  const Instruction* value = nullptr;  // the value whose buffer is read
  Layout layout;                       // of that buffer
  // The instructions from the operand down to `value` (the operand first,
  // `value` excluded; empty where the operand is the value itself).
  std::vector<const Instruction*> chain;
  // The one pad on the way, whose padding value fills blocks outside the
  // padded array (nullptr: none).
  const Instruction* pad = nullptr;
};

// Whether blocks of `block` elements along dim `dim` of `x`, starting at
// multiples of `block`, each lie contiguous in one buffer (or wholly in
// padding). `block` counts elements of x's type; the buffer must store
// them at their own width without tiles.
std::optional<VectorSource> FindVectorSource(const Instruction* x, int64_t dim, int64_t block,
                                             const MaterializedLayoutFn& materialized);

// Where the chain only shifts (stride-1 slices, copies, and a pad without
// interior on the value itself, all of its rank): the offset that reading
// element i of the operand reads element i + shift of `value`, or padding.
// Two such reads of the same value and padding at the same shifted index
// read the same vector.
std::optional<std::vector<int64_t>> ShiftOf(const VectorSource& source);

// Whether reading `x` through its index maps ignores index `dim` (a
// broadcast along it): every element along that dim reads the same one.
bool ReadIgnoresDim(const Instruction* x, int64_t dim, const MaterializedLayoutFn& materialized);

}  // namespace vkxla
