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

namespace {

// The radix tile and the passes; false where shared memory cannot hold a
// tile's counts or a binding the keys' images (the network then sorts).
bool ChooseRadixShape(SortConfig& c, const TargetFeatures& target) {
  // A CPU runs few invocations of long loops well and pays per pass; a GPU
  // wants many invocations of short ones. (llvmpipe, 1M f32 keys: tiles of
  // 8 x 1024 sort in 83 ms, 16 x 256 in 102 ms, 32 x 128 in 113 ms.)
  if (target.cpu) {
    c.radix_bits = c.length >= 256 ? 8 : 4;  // zeroing and scanning 256 counts pays off on long lines only
    c.radix_lanes = 8;
    c.radix_per_lane = 1024;
    c.radix_lane_per_line = c.length <= 1024;
  } else {
    c.radix_bits = 4;
    c.radix_lanes = 256;
    c.radix_per_lane = 16;
    c.radix_lane_per_line = c.length <= 64;
  }
  // Shared memory: a count per (digit, lane), a word per lane for the
  // scan, a base per digit.
  auto shared_bytes = [&] { return ((c.RadixDigitValues() + 1) * c.radix_lanes + c.RadixDigitValues()) * 4; };
  while (c.radix_lanes > 8 && (shared_bytes() > target.max_shared_memory_bytes || c.radix_lanes > target.max_workgroup_invocations)) {
    c.radix_lanes /= 2;
    c.radix_per_lane *= 2;
  }
  if (shared_bytes() > target.max_shared_memory_bytes || c.radix_lanes > target.max_workgroup_invocations) return false;
  // The images' two planes are one binding: past the binding limit the
  // network (one plane of indices) still sorts.
  if (static_cast<uint64_t>(2 * c.RadixWords() * c.lines * c.length) * 4 > target.max_storage_buffer_range) return false;
  c.algorithm = SortConfig::Algorithm::kRadix;
  c.padded = c.length;
  // Short lines (batched rows) take one tile each, of runs no longer than
  // needed, or one lane each.
  c.radix_per_lane = c.radix_lane_per_line ? c.length : std::min(c.radix_per_lane, (c.length + c.radix_lanes - 1) / c.radix_lanes);
  int digits = 0;
  for (const RadixKey& k : c.radix_keys) digits += c.RadixDigitsOf(k);
  // Least significant key first; the last pass writes plane 0.
  int pass = 0;
  for (size_t k = c.radix_keys.size(); k-- > 0;) {
    uint32_t word = 0;
    for (size_t m = 0; m < k; ++m) word += c.radix_keys[m].Words();
    for (int d = 0; d < c.RadixDigitsOf(c.radix_keys[k]); ++d, ++pass) {
      const uint32_t bit = static_cast<uint32_t>(c.radix_bits * d);
      const uint32_t flags = static_cast<uint32_t>((digits - 1 - pass) % 2) | (pass == digits - 1 ? 2u : 0u);
      const std::vector<uint32_t> push = {word + bit / 32, bit % 32, pass == 0 ? 1u : 0u, flags};
      // A line of one tile needs no counts from other tiles: placing is all.
      for (int kernel = c.RadixTiles() == 1 ? 2 : 0; kernel < 3; ++kernel) c.passes.push_back({kernel, push});
    }
  }
  return true;
}

// Radix select: tiles as the radix sort's, 8-bit digits of the composite
// (the key's image bits, then the index's), the passes.
void ChooseRadixSelect(SortConfig& c, const TargetFeatures& target) {
  c.algorithm = SortConfig::Algorithm::kRadixSelect;
  c.radix_bits = 8;
  c.radix_lanes = target.cpu ? 8 : 256;
  c.radix_per_lane = target.cpu ? 1024 : 16;
  while (c.radix_lanes > 8 && c.radix_lanes > target.max_workgroup_invocations) {
    c.radix_lanes /= 2;
    c.radix_per_lane *= 2;
  }
  c.radix_per_lane = std::min(c.radix_per_lane, (c.length + c.radix_lanes - 1) / c.radix_lanes);
  c.padded = c.select_k;  // the permutation holds the k
  const RadixKey& key = c.radix_keys[0];
  int index_bits = 1;
  while ((int64_t{1} << index_bits) < c.length) ++index_bits;
  c.passes.push_back({4, {0, 0, 0, 0}});
  bool first = true;
  for (int w = 0; w < c.SelectWords(); ++w) {
    // Bits of this word that can differ: the key's (its high word's past 32
    // for a 64-bit key), the index's.
    const bool index = w + 1 == c.SelectWords();
    const int bits = index ? index_bits : key.Words() == 2 ? (w == 0 ? key.bits - 32 : 32) : key.bits;
    for (int shift = (bits - 1) / 8 * 8; shift >= 0; shift -= 8) {
      const std::vector<uint32_t> push = {static_cast<uint32_t>(w), static_cast<uint32_t>(shift), first ? 1u : 0u, 0u};
      c.passes.push_back({0, push});
      c.passes.push_back({1, push});
      first = false;
    }
  }
  c.passes.push_back({2, {0, 0, 0, 0}});
  c.passes.push_back({3, {0, 0, 0, 0}});
}

}  // namespace

bool UsesRadixSelect(const Instruction& topk) {
  if (topk.opcode != Opcode::kTopK || topk.operands.size() != 1 || !topk.operands[0]->shape.IsArray()) return false;
  const Shape& x = topk.operands[0]->shape;
  if (x.rank() < 1 || !x.is_static()) return false;
  StatusOr<TopKPlan> plan = PlanTopK(topk);
  if (!plan.ok() || plan->k < 1 || plan->k > kMaxSelectK || x.dims().back() < kMinSelectLength) return false;
  return RadixKeysOf(topk).has_value();
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
  if (UsesRadixSelect(sort)) {
    VKXLA_ASSIGN_OR_RETURN(TopKPlan plan, PlanTopK(sort));
    c.select_k = plan.k;
    c.radix_keys = *RadixKeysOf(sort);
    ChooseRadixSelect(c, target);
    return c;
  }
  // Radix wherever it applies. llvmpipe, whole runs over 4M f32 in rows:
  // rows of 1024 0.33 s (the network, rows packed, with |a| < |b|: 1.94 s),
  // of 64 0.56 s (0.94 s), of 16 about even (0.62 s, 0.55 s); 1M in one
  // line 87 ms of kernels (the network 1.6 s).
  if (c.length > 1) {
    if (std::optional<std::vector<RadixKey>> keys = RadixKeysOf(sort)) {
      c.radix_keys = *keys;
      if (ChooseRadixShape(c, target)) return c;
    }
  }
  if (target.cpu) {
    // llvmpipe: barriers and shared memory cost more than the merge passes
    // they save (1M f32 by |a| < |b|: blocks of 2048 sorted in shared
    // memory took 432 ms, a merge pass 8 ms), so each invocation sorts a
    // short run on its own.
    c.run_sort = true;
    c.block = std::min<int64_t>(c.padded, kCpuRunSort);
    c.merge_chunk = std::min<int64_t>(c.padded, kCpuMergeChunk);
  } else {
    // Lines that one block holds share a workgroup, as many as fit where a
    // block of 2048 would (llvmpipe, 262144 rows of 16 by |a| < |b|: a whole
    // run 0.37 s, one row a workgroup 8.5 s).
    if (c.block == c.padded) {
      int64_t span = 2048;
      while (span > c.block && span * record_bytes > shared) span >>= 1;
      c.lines_per_group = std::min<int64_t>(span / c.block, std::max<int64_t>(c.lines, 1));
    }
    c.merge_chunk = std::min<int64_t>(c.block, kGpuMergeChunk);
  }
  // Whole blocks and merge chunks; merge passes double the runs from a block.
  const int64_t unit = std::max(c.block, c.merge_chunk);
  c.padded = (c.length + unit - 1) / unit * unit;
  c.passes.push_back({0, {2, static_cast<uint32_t>(c.block), 1, 1}});
  for (int64_t run = c.block; run < c.padded; run <<= 1) ++c.merges;
  int pass = 0;
  for (int64_t run = c.block; run < c.padded; run <<= 1, ++pass)
    c.passes.push_back({(c.merges - 1 - pass) % 2 == 0 ? 2 : 1, {static_cast<uint32_t>(run), 0, 0, 0}});
  return c;
}

Shape PermutationShape(const SortConfig& c) {
  const int64_t planes = c.algorithm == SortConfig::Algorithm::kRadix ? 2 : 1;  // a radix select's holds k a line
  Shape s(ElementType::kU32, {std::max<int64_t>(planes * c.lines * c.padded, 1)});
  s.set_layout(s.layout_or_default());
  return s;
}

}  // namespace vkxla
