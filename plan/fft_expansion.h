// RFFT and IRFFT as the complex-to-complex transforms the FFT step runs,
// with the real side expressed in ops that fuse into the kernels around
// it (no pass of their own):
//  - RFFT(x) = slice(FFT(complex(x, 0)))[..., :n/2+1]: the conversion
//    fuses into the kernel that writes the step's operand, the slice into
//    the readers of the result.
//  - IRFFT(y) = real(IFFT(Y)), Y the whole spectrum of a real signal:
//    Y[i, k] = y[i, k] for k <= n/2 and conj(y[-i, n - k]) beyond, -i
//    taken modulo each outer transformed dim (concatenates, reverses and
//    slices, fused into the operand's kernel). Inverting the outer dims
//    first and then the innermost (the spec's order) gives the same
//    values, and the real part drops the imaginary parts of the DC and
//    Nyquist terms as a real inverse does.
// We take this path rather than VkFFT's own R2C/C2R, which in 1.2.26
// returns wrong values for many shapes (odd lengths, 3-D, f64 inverses),
// except for a 1-D RFFT of a power-of-two length, which VkFFT computes
// right and twice as fast (plan/fft_config.h: VkfftTakesRfft).
#pragma once

#include <memory>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// A copy of `module` with every IRFFT and every RFFT VkFFT does not take expanded (its computations
// copied and their calls rewired), or null when it has none. every_double: f64 RFFTs expand even where
// VkFFT would take them (without shaderFloat64 they become products: plan/dft_expansion.h).
StatusOr<std::shared_ptr<const Module>> ExpandRealFfts(const Module& module, bool every_double = false);

}  // namespace vkxla
