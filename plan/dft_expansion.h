// c128 transforms on devices without shaderFloat64. VkFFT's double
// kernels are its own code, which the software-float pass never sees, so
// there each complex transform becomes products with the DFT matrix of
// every transformed dim (a constant computed on the host in double), which
// run on the emulated doubles as any dot does. A product costs n^2 per
// transformed row instead of n log n, and its error grows with n rather
// than log n, so one product's length is bounded (kMaxDftLength); a longer
// dim of n = n1 * n2 (both within the bound) runs as the four-step split:
// products of length n1, twiddles, products of length n2 and a transpose
// (2^20 at most); a prime past the bound is an error naming
// shaderFloat64. Real transforms are expanded around complex ones before
// this (plan/fft_expansion.h, all of them for such devices).
#pragma once

#include <cstdint>
#include <memory>

#include "ir/module.h"
#include "plan/target_features.h"
#include "vkxla/status.h"

namespace vkxla {

inline constexpr int64_t kMaxDftLength = 1024;

// A copy of `module` with every c128 FFT and IFFT expanded into products,
// or null when the target has shaderFloat64 or the module has none.
StatusOr<std::shared_ptr<const Module>> ExpandDoubleFftsAsProducts(const Module& module, const TargetFeatures& target);

}  // namespace vkxla
