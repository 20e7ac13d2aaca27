// How one Fft runs as an external step of the FFT library (VkFFT,
// runtime/vkfft_command.h): lengths, batch, precision and the temporary
// memory the library works in, planned like every other buffer. Complex
// transforms, and the one real transform VkFFT 1.2.26 computes right in
// every case we swept (a 1-D RFFT of a power-of-two length), are steps of
// their own; the other RFFTs and every IRFFT reach the step as complex
// transforms (plan/fft_expansion.h).
//
// The step reads its operand from a dense row-major buffer (never writing
// it) and writes its result to another; VkFFT keeps intermediate axes in
// the result and reorders (four-step transforms) or pads (Bluestein's
// algorithm, for lengths with a prime factor above 13) in the temporary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/instruction.h"
#include "vkxla/status.h"
#include "plan/target_features.h"

namespace vkxla {

// The largest prime factor VkFFT's radix kernels take; longer prime
// factors go through Bluestein's algorithm.
inline constexpr int64_t kLargestRadix = 13;
bool NeedsBluestein(int64_t length);
// Whether VkFFT computes this RFFT itself (its R2C): 1-D, a power of two.
bool VkfftTakesRfft(const Instruction& fft);

struct FftConfig {
  bool inverse = false;
  bool double_precision = false;   // c128 (f64 for a real input)
  bool real_input = false;         // VkFFT's R2C: the operand holds real signals
  std::vector<int64_t> lengths;    // innermost first (VkFFT's x, y, z), 1s left out; none: a copy
  int64_t batch = 1;               // product of the untransformed dims
  // One launch per batch element: VkFFT 1.2.26 batches a 3-D transform
  // wrongly when an outer dim needs Bluestein (tests/fft_test.cc finds it).
  bool per_batch = false;
  uint64_t array_bytes = 0;        // one batch element
  uint64_t temp_bytes = 0;         // VkFFT's temporary, an upper bound of what it asks
  bool operator==(const FftConfig&) const = default;

  // "inverse=1 double=0 real=0 lengths=8,4 batch=3 per_batch=0 array=256 temp=768":
  // the ExternalStep's config, which the runtime reads back.
  std::string ToString() const;
  static StatusOr<FftConfig> Parse(const std::string& text);
};

// The step for `fft` on `target` (a complex transform, or an RFFT VkFFT
// takes; the rest are expanded before planning); errors name the op, its
// type and the missing device feature.
StatusOr<FftConfig> ChooseFftConfig(const Instruction& fft, const TargetFeatures& target);

}  // namespace vkxla
