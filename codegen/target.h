// What the code generator may use on the device it compiles for. Filled by
// runtime/capabilities.cc from Vulkan queries (minus VKXLA_MASK); pure data
// so codegen stays independent of Vulkan calls.
#pragma once

#include <cstdint>
#include <string>

namespace vkxla {

struct TargetFeatures {
  std::string device_name = "unknown";
  // A CPU driver (lavapipe): access patterns are sized for its caches and
  // 8-wide SIMD rather than for a GPU's coalescing.
  bool cpu = false;
  bool float64 = false;          // shaderFloat64
  bool int64 = false;            // shaderInt64
  bool float16 = false;          // shaderFloat16 arithmetic (we compute f16 in f32 regardless)
  bool int8 = false;             // shaderInt8
  bool subgroup_arithmetic = false;
  uint32_t subgroup_size = 1;
  uint32_t max_workgroup_invocations = 128;
  uint32_t max_workgroup_count_x = 65535;
  uint64_t max_storage_buffer_range = 1u << 27;
  uint32_t vulkan_api_version = 0;  // VK_MAKE_API_VERSION packed

  // Stable text for cache keys: changes whenever generated code could.
  std::string CacheKey() const;
};

}  // namespace vkxla
