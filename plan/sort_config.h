// How a sort or topk runs: its lines' element indices are sorted into a
// permutation buffer, and the results then fuse into their consumers as
// reads through it.
// - Block merge (any comparator): each line padded to a whole number of
//   blocks with sentinels that sort last. Kernel 0 sorts the blocks: on a
//   GPU a workgroup's bitonic network in shared memory, blocks of up to
//   2048 (short lines several to a workgroup); on a CPU device (llvmpipe,
//   where barriers cost most) each invocation's insertion sort of 16.
//   Then each merge pass doubles the sorted runs: an invocation
//   finds where its `merge_chunk` outputs start by a binary search along
//   the merge path of its two runs, then merges them sequentially. Runs
//   ping-pong between the permutation (kernel 2 writes it) and a second
//   plane (kernel 1 writes it); kernel 0 writes whichever makes the last
//   pass land in the permutation.
// - Radix (where plan/radix_sort_keys.h finds key order): an LSD sort
//   of the keys' order-preserving unsigned images, a digit a pass, stable.
//   Per pass, kernel 0 counts each tile's digits, kernel 1 scans the counts
//   across the tiles of a line, and kernel 2 writes each index and its
//   images at its digit's place. Indices and images ping-pong between two
//   planes of their buffers; the last pass writes plane 0, the permutation.
//   Lines of one tile (batched rows) run the third kernel alone; short
//   ones a line per invocation.
//   GPUs take 4-bit digits and wide tiles of short runs; a CPU device
//   (llvmpipe) 8-bit digits, half the passes, and a few long runs.
// - Radix select (topk of a long line, k at most kMaxSelectK): no sort of
//   the line. Each element's composite key is its key's image, then its
//   index (so ties go to the lowest index and the k-th composite is
//   unique). Kernel 4 clears the histograms; then per 8-bit digit, most
//   significant first, kernel 0 counts the digit among the elements whose
//   composite matches the digits chosen so far (a tile's counts meet in
//   shared memory, then in the line's histogram) and kernel 1 picks the
//   digit holding the k-th; after the last digit every element at or
//   below the chosen composite is one of the k (kernel 2 gathers their
//   indices), and kernel 3 ranks the k among themselves into the
//   permutation, which then holds k entries a line.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/instruction.h"
#include "plan/radix_sort_keys.h"
#include "vkxla/status.h"
#include "plan/target_features.h"

namespace vkxla {

struct SortConfig {
  enum class Algorithm { kBlockMerge, kRadix, kRadixSelect };
  Algorithm algorithm = Algorithm::kBlockMerge;
  int64_t dim = 0;     // the sorted dim (topk: the last)
  int64_t length = 0;  // elements per line
  int64_t padded = 1;  // the permutation's line stride: length rounded up to a power of two (radix: length; block merge: whole blocks)
  int64_t lines = 1;
  int64_t block = 1;   // elements a shared-memory block holds
  int64_t lines_per_group = 1;  // block merge: whole short lines a workgroup sorts together
  // Block merge: whether kernel 0 is an insertion sort of a block by each
  // invocation (CPU devices) rather than a workgroup's network in shared
  // memory; the outputs an invocation of a merge pass writes (runs shorter
  // than half of it merge a pair after another); the merge passes.
  bool run_sort = false;
  int64_t merge_chunk = 1;
  int merges = 0;
  // The dispatches in order: kernel and push constants. Block merge:
  // kernel 0 {2, block, 1, 1} (the stages of the network from the
  // identity), then kernels 1 or 2 {run, 0, 0, 0} (merge runs of `run`). Radix:
  // kernels 0, 1, 2 for each digit with {word, shift, first, flags}: the
  // digit is the radix_bits at `shift` of image word `word` (RadixWords);
  // `first` computes the images from the operands and starts from the
  // identity; flags 1: write plane 1 (else 0), 2: the last pass (no images).
  struct Pass {
    int kernel = 0;
    std::vector<uint32_t> push_constants;
  };
  std::vector<Pass> passes;
  // Radix: the keys, most significant first. A tile is `radix_lanes`
  // invocations with `radix_per_lane` consecutive elements each.
  std::vector<RadixKey> radix_keys;
  int radix_bits = 4;
  int64_t radix_lanes = 256, radix_per_lane = 16;
  // Short lines: a lane sorts a whole line (radix_per_lane its length), a
  // workgroup radix_lanes lines, without barriers.
  bool radix_lane_per_line = false;
  int64_t RadixDigitValues() const { return int64_t{1} << radix_bits; }
  int RadixDigitsOf(const RadixKey& k) const { return (k.bits + radix_bits - 1) / radix_bits; }
  // u32 words of the keys' images per element: radix_keys in order, 64-bit keys low word first.
  int64_t RadixWords() const {
    int64_t w = 0;
    for (const RadixKey& k : radix_keys) w += k.Words();
    return w;
  }
  int64_t RadixTile() const { return radix_lanes * radix_per_lane; }
  int64_t RadixTiles() const { return radix_lane_per_line ? 1 : (length + RadixTile() - 1) / RadixTile(); }  // per line
  int64_t RadixWorkgroups() const { return radix_lane_per_line ? (lines + radix_lanes - 1) / radix_lanes : lines * RadixTiles(); }
  int64_t RadixPlane() const { return lines * length; }
  // u32 words of the counts buffer: [line][digit][tile], then [line][digit]
  // totals (a word where lines are one tile: no kernel reads it).
  int64_t RadixCountWords() const { return RadixTiles() == 1 ? 1 : lines * RadixDigitValues() * (RadixTiles() + 1); }
  uint64_t RadixTileInvocations() const { return static_cast<uint64_t>(RadixWorkgroups() * radix_lanes); }
  uint64_t RadixScanInvocations() const { return static_cast<uint64_t>(lines * RadixDigitValues()) * 256; }

  // Radix select: k, and the counts buffer's regions: a 256-bin histogram
  // per line, then 8 state words per line (the chosen composite's words,
  // the rank still to find, the gathered count), then k candidates a line.
  int64_t select_k = 0;
  static constexpr int64_t kSelectStateWords = 8;
  int64_t SelectHistogram(int64_t line) const { return line * 256; }
  int64_t SelectState(int64_t line) const { return lines * 256 + line * kSelectStateWords; }
  int64_t SelectCandidates(int64_t line) const { return lines * (256 + kSelectStateWords) + line * select_k; }
  int64_t SelectCountWords() const { return lines * (256 + kSelectStateWords + select_k); }
  // The composite's u32 words, most significant first: the key's image, then the index.
  int SelectWords() const { return radix_keys.empty() ? 1 : radix_keys[0].Words() + 1; }

  uint64_t LocalInvocations() const {
    if (run_sort) return static_cast<uint64_t>(lines * padded / block);
    return static_cast<uint64_t>((lines + lines_per_group - 1) / lines_per_group * (padded / block)) * 256;
  }
  uint64_t MergeInvocations() const { return static_cast<uint64_t>(lines * padded / merge_chunk); }
  // Whether a merge pass with kernel 1 or 2 runs.
  bool MergesInto(int kernel) const {
    for (const Pass& p : passes)
      if (p.kernel == kernel) return true;
    return false;
  }
};

// Outputs a merge invocation writes after its binary search.
inline constexpr int64_t kCpuMergeChunk = 256;
// The run an invocation sorts on a CPU device before the merges.
inline constexpr int64_t kCpuRunSort = 16;
inline constexpr int64_t kGpuMergeChunk = 16;

// The most a radix select keeps (kernel 3 ranks each among the others).
inline constexpr int64_t kMaxSelectK = 256;
// Lines shorter than this sort (a radix select's passes read the whole line each).
inline constexpr int64_t kMinSelectLength = 4096;

// Whether `topk` runs as a radix select on every device (its key maps to
// radix images, its line is long, k small): the topk expansion into
// rounds (plan/topk_expansion.h) leaves it whole.
bool UsesRadixSelect(const Instruction& topk);

// Bytes one element of `t` takes in shared memory as its compute type.
int SharedBytesOf(ElementType t);
StatusOr<SortConfig> ChooseSortConfig(const Instruction& sort, const TargetFeatures& target);
// u32[lines * padded]: the permutation a sort writes (radix: two planes of
// lines * length, the permutation first; a block merge's second plane is a
// buffer of its own, so each stays within a binding).
Shape PermutationShape(const SortConfig& c);

}  // namespace vkxla
