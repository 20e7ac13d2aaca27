// Doubles on devices without shaderFloat64 (or where the user asks for
// pairs of f32, VKXLA_F64=pairs): a SPIR-V pass over a kernel as
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

// What a double becomes: IEEE binary64 on word pairs (float64_soft.glsl),
// or the sum of two f32 (float64_pairs.glsl, TargetFeatures::float64_pairs:
// faster, about 48 bits and f32's exponent range; memory keeps binary64).
enum class Float64Form { kSoft, kPairs };

// keep_calls: the library's functions are marked DontInline, so the
// optimizer leaves the calls to the driver (TargetFeatures::soft_float_calls).
StatusOr<std::vector<uint32_t>> LowerFloat64(const std::vector<uint32_t>& spirv, Float64Form form, bool keep_calls);

}  // namespace vkxla
