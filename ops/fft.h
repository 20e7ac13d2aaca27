// Fft (operation_semantics: Fft; stablehlo_spec.md: fft): `fft(x),
// fft_type=FFT|IFFT|RFFT|IRFFT, fft_length={..}` transforms the innermost
// L = size(fft_length) dims (1 <= L <= 3).
//  - FFT, IFFT: c64 -> c64, c128 -> c128, shape kept; IFFT is scaled by
//    1 / prod(fft_length).
//  - RFFT: f32 -> c64, f64 -> c128; the innermost dim n becomes n / 2 + 1
//    (0 stays 0): the spectrum up to the Nyquist frequency.
//  - IRFFT: c64 -> f32, c128 -> f64; the innermost dim n / 2 + 1 becomes
//    n = fft_length[-1]; the other frequencies are the conjugates of those
//    given, as for a real signal (imaginary parts of the DC and Nyquist
//    terms do not reach the result); scaled by 1 / prod(fft_length).
// The transformed dims of the real side (RFFT's operand, IRFFT's result)
// and every transformed dim of a complex-to-complex transform equal
// fft_length.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

enum class FftType { kFft, kIfft, kRfft, kIrfft };
std::string_view FftTypeName(FftType t);  // "RFFT"

struct FftParams {
  FftType type = FftType::kFft;
  std::vector<int64_t> lengths;  // fft_length, outermost transformed dim first
  bool inverse() const { return type == FftType::kIfft || type == FftType::kIrfft; }
};

// fft_type and fft_length as written, checked against the operand.
StatusOr<FftParams> ReadFft(const Instruction& inst);
StatusOr<Shape> InferFftShape(const Instruction& inst);
// The reference: a discrete Fourier transform along each transformed dim in
// double precision (exact twiddles, O(n) per element and dim).
StatusOr<Literal> EvaluateFft(const Instruction& inst, const Literal& operand);

// Writes fft_type and fft_length on an instruction (builders and readers).
void SetFftAttributes(Instruction& inst, FftType type, const std::vector<int64_t>& lengths);

}  // namespace vkxla
