// 64-bit integers on devices without shaderInt64: a SPIR-V pass over a
// kernel as glslang wrote it (before optimization), which turns every
// 64-bit integer into a pair of 32-bit words (uvec2, low word first) and
// every 64-bit instruction into a call of shaders/int64_words.glsl, whose
// functions the kernel's source carries (ShaderLibrarySource with
// LibraryNeeds::int64_words). The optimizer then inlines the calls.
//
// One pass at the SPIR-V level instead of a second spelling of every
// integer expression in the emitters: kernels keep int64_t and uint64_t,
// and what they mean is decided once, here. An instruction the pass does
// not know on 64-bit integers (atomics, subgroup arithmetic, vectors of
// them) is an error naming it, never a kernel that computes something else.
#pragma once

#include <cstdint>
#include <vector>

#include "vkxla/status.h"

namespace vkxla {

// Whether the module declares the Int64 capability (uses 64-bit integers).
bool SpirvUsesInt64(const std::vector<uint32_t>& spirv);

StatusOr<std::vector<uint32_t>> LowerInt64ToWordPairs(const std::vector<uint32_t>& spirv);

}  // namespace vkxla
