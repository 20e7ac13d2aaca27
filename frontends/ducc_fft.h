// jaxlib's CPU FFT kernels as 2023 exports call them, read as the XLA Fft
// they stand for: ducc_fft(descriptor, x), its descriptor a flatbuffer
// (DuccFftDescriptor: dtype, fft_type, shape, strides, axes, forward,
// scale), and dynamic_ducc_fft(descriptor, x, shape, strides_in,
// strides_out, scale, output shape) whose descriptor holds ndims, dtype,
// fft_type, axes and forward. The transformed axes must be the trailing
// ones and the strides row-major (what jax.numpy.fft wrote); the scale
// multiplies the transform (ducc's inverse is unnormalized, XLA's is not).
#pragma once

#include <string>
#include <vector>

#include "frontends/xla_custom_calls.h"

namespace vkxla {

bool IsDuccFft(const std::string& target);

StatusOr<std::vector<Instruction*>> LowerDuccFft(const ExpandedCustomCall& c, const HloMaker& make, const ConstantMaker& constant);

}  // namespace vkxla
