// The collectives that only move elements (ops/collectives.h's
// MovesElementsOnly) as copies of byte ranges between the members' device
// buffers: where every member of a group shares one device, each member
// copies what its result leaves hold straight from the other members'
// operand buffers (runtime/device_collectives.h), nothing through the host.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

// `bytes` bytes from offset `from` of member `member`'s operand leaf `leaf`
// to offset `to` of a result leaf.
struct ByteMove {
  int64_t member = 0;
  size_t leaf = 0;
  uint64_t from = 0, to = 0, bytes = 0;
  bool operator==(const ByteMove&) const = default;
};
// One result leaf: all zeros, or the copies that fill it (consecutive
// bytes merged into one copy).
struct LeafBytes {
  bool zeros = false;
  std::vector<ByteMove> moves;
};

// Copies one member's result leaves may take at most: past it (a gather
// along a short minor-most dimension of many rows) the region lists would
// grow to gigabytes, and the members stage through host memory instead.
constexpr int64_t kMaxByteMoves = int64_t{1} << 20;

// Whether `op` moves bytes between device buffers of these leaf shapes
// (with their layouts): MovesElementsOnly, untiled layouts of whole-byte
// elements, every result leaf's minor-most dimension minor-most in the
// operands too (so copies are runs along it, not single elements), and at
// most kMaxByteMoves runs a result leaf.
bool MovesBytesBetweenBuffers(const Instruction& op, const std::vector<Shape>& operand_leaves,
                              const std::vector<Shape>& result_leaves);

// Whether a reduce-scatter (ops' ScattersFold) finds each member's block
// of every operand leaf as one run of bytes laid out as its result leaf:
// untiled layouts of whole-byte elements, the same minor_to_major, the
// scattered dimension the major-most. Then a member folds its block of
// every member's operand straight into its result.
bool ScatteredBlocksAreRuns(const Instruction& op, const std::vector<Shape>& operand_leaves,
                            const std::vector<Shape>& result_leaves);

// Member `position`'s result leaves in a group of `group_size`.
StatusOr<std::vector<LeafBytes>> CollectiveByteMoves(const Instruction& op, int64_t group_size, int64_t position,
                                                     const std::vector<Shape>& operand_leaves,
                                                     const std::vector<Shape>& result_leaves);

}  // namespace vkxla
