#include "plan/sort_config.h"

#include <algorithm>

#include "ir/instruction.h"
#include "ops/reduction_shapes.h"

namespace vkxla {

int SharedBytesOf(ElementType t) {
  if (t == ElementType::kC128) return 16;
  if (t == ElementType::kF64 || t == ElementType::kS64 || t == ElementType::kU64 || t == ElementType::kC64) return 8;
  return 4;  // narrower types compute as 32-bit values (bool, int, float)
}

StatusOr<SortConfig> ChooseSortConfig(const Instruction& sort, const TargetFeatures& target) {
  SortConfig c;
  const Shape& x = sort.operands[0]->shape;
  if (sort.opcode == Opcode::kTopK) {
    c.dim = x.rank() - 1;
  } else {
    VKXLA_ASSIGN_OR_RETURN(c.dim, SortDimension(sort));
  }
  c.length = x.dim(c.dim);
  while (c.padded < std::max<int64_t>(c.length, 1)) c.padded <<= 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != c.dim) c.lines *= x.dim(d);
  // A block holds each element's index and keys in shared memory, within
  // the device's limit (at most 2048: 256 invocations, 8 elements each).
  int record_bytes = 4;
  const size_t key_count = sort.opcode == Opcode::kTopK ? 1 : sort.operands.size();
  for (size_t k = 0; k < key_count; ++k) record_bytes += SharedBytesOf(sort.operands[k]->shape.element_type());
  const int64_t shared = std::min<int64_t>(target.max_shared_memory_bytes, 16384);
  c.block = std::min<int64_t>(c.padded, 2048);
  while (c.block > 1 && c.block * record_bytes > shared) c.block >>= 1;
  if (c.lines == 0 || c.length == 0) return c;
  const uint32_t block = static_cast<uint32_t>(c.block);
  // The whole network up to the block size in one pass, from the identity.
  c.passes.push_back({0, {2, block, 1, 1}});
  for (uint64_t k = 2ull * block; k <= static_cast<uint64_t>(c.padded); k <<= 1) {
    // Steps wider than a block go through memory; the rest of the stage in shared memory.
    for (uint64_t j = k / 2; j >= block; j >>= 1) c.passes.push_back({1, {static_cast<uint32_t>(k), 0, static_cast<uint32_t>(j), 0}});
    c.passes.push_back({0, {static_cast<uint32_t>(k), static_cast<uint32_t>(k), block / 2, 0}});
  }
  return c;
}

Shape PermutationShape(const SortConfig& c) {
  Shape s(ElementType::kU32, {std::max<int64_t>(c.lines * c.padded, 1)});
  s.set_layout(s.layout_or_default());
  return s;
}

}  // namespace vkxla
