// How a sort or topk runs: its lines' element indices are sorted into a
// permutation buffer, and the results then fuse into their consumers as
// reads through it.
// - Bitonic (any comparator): each line padded to a power of two with
//   sentinels that sort last. Blocks of up to 2048 sort and merge in shared
//   memory (kernel 0), short lines several to a workgroup; each step wider
//   than a block is one dispatch of kernel 1.
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
  enum class Algorithm { kBitonic, kRadix, kRadixSelect };
  Algorithm algorithm = Algorithm::kBitonic;
  int64_t dim = 0;     // the sorted dim (topk: the last)
  int64_t length = 0;  // elements per line
  int64_t padded = 1;  // length rounded up to a power of two
  int64_t lines = 1;
  int64_t block = 1;   // elements a shared-memory block holds
  int64_t lines_per_group = 1;  // bitonic: whole short lines a workgroup sorts together
  // The dispatches in order: kernel and push constants. Bitonic: kernel 0
  // (local) {k0, k1, j0, initial} or 1 (wide step) {k, 0, j, 0}. Radix:
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
    return static_cast<uint64_t>((lines + lines_per_group - 1) / lines_per_group * (padded / block)) * 256;
  }
  uint64_t StepInvocations() const { return static_cast<uint64_t>(lines * padded / 2); }
};

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
// lines * length, the permutation first).
Shape PermutationShape(const SortConfig& c);

}  // namespace vkxla
