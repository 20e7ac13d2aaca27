// GLSL compute source -> SPIR-V through glslang's library API, then
// SPIRV-Tools validation and optimization. A compile error is an Internal
// error that quotes the generated source's failing line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/target_features.h"
#include "vkxla/status.h"

namespace vkxla {

// Initializes glslang's process state once and keeps it for the life of
// the process (libraries that compile with glslang too, VkFFT, rely on it).
void InitializeGlslangOnce();

// vulkan_version: VK_API_VERSION_1_1 / _1_2 / ... of the target device;
// float_controls: the modes and decorations the optimized module gets
// (codegen/spirv_float_controls.h), checked by the validator with the rest.
// lower_int64: 64-bit integers become word pairs (the device lacks
// shaderInt64; codegen/spirv_int64_lowering.h); lower_float64: doubles
// become software floats (no shaderFloat64; spirv_float64_lowering.h),
// their library left as calls where soft_float_calls says the driver takes
// them (TargetFeatures::soft_float_calls). A kernel carrying the libraries
// of either is lowered in any case.
StatusOr<std::vector<uint32_t>> CompileGlslToSpirv(const std::string& glsl, uint32_t vulkan_version, bool optimize = true,
                                                   const FloatControls& float_controls = {}, bool lower_int64 = false,
                                                   bool lower_float64 = false, bool soft_float_calls = false);

}  // namespace vkxla
