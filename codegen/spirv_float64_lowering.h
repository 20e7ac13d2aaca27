// Doubles on devices without shaderFloat64: a SPIR-V pass over a kernel as
// glslang wrote it (before optimization), which turns every double into a
// pair of 32-bit words (uvec2, low word first; a dvec2 into uvec4) and
// every double instruction into a call of shaders/float64_soft.glsl (IEEE
// binary64 in software, correctly rounded), whose functions the kernel's
// source carries (LibraryNeeds::float64_soft). The optimizer then inlines
// the calls. The same engine as the 64-bit integer pass
// (spirv_word_pair_lowering.h); kernels keep double and dvec2, and the
// double-precision math of shaders/real_math.glsl, written with basic
// operations only, runs on the software ones unchanged.
#pragma once

#include <cstdint>
#include <vector>

#include "vkxla/status.h"

namespace vkxla {

// Whether the module declares the Float64 capability (uses doubles).
bool SpirvUsesFloat64(const std::vector<uint32_t>& spirv);

// keep_calls: the library's functions are marked DontInline, so the
// optimizer leaves the calls to the driver (TargetFeatures::soft_float_calls).
StatusOr<std::vector<uint32_t>> LowerFloat64ToSoftFloat(const std::vector<uint32_t>& spirv, bool keep_calls);

}  // namespace vkxla
