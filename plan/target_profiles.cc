#include "plan/target_profiles.h"

namespace vkxla {

TargetFeatures LavapipeTarget() {
  TargetFeatures t;
  t.device_name = "llvmpipe (canned)";
  t.cpu = true;
  t.float64 = t.int64 = t.float16 = t.int8 = true;
  t.subgroup_arithmetic = t.subgroup_broadcast = true;
  t.float32_atomic_add = true;
  t.int64_atomics = true;
  t.subgroup_size = 8;
  t.max_workgroup_invocations = 1024;
  t.max_workgroup_count_x = 65535;
  t.max_shared_memory_bytes = 32768;
  t.max_storage_buffer_range = uint64_t{1} << 27;
  t.min_storage_buffer_offset_alignment = 16;
  t.max_memory_allocation_size = uint64_t{1} << 32;
  t.max_texel_buffer_elements = uint64_t{1} << 27;
  t.exact_div_sqrt = true;
  t.exact_half_widen = true;
  t.soft_float_calls = true;
  t.literal_zeros_folded = true;
  t.f32_subnormals_kept = true;
  t.vulkan_api_version = (1u << 22) | (3u << 12);
  return t;
}

TargetFeatures DesktopGpuTarget() {
  TargetFeatures t;
  t.device_name = "desktop GPU (canned)";
  t.cooperative_matrix_f16 = true;
  t.float64 = t.int64 = t.float16 = t.int8 = true;
  t.subgroup_arithmetic = t.subgroup_broadcast = true;
  t.float32_atomic_add = true;
  t.int64_atomics = true;
  t.subgroup_size = 32;
  t.max_workgroup_invocations = 1024;
  t.max_workgroup_count_x = 2147483647u;
  t.max_shared_memory_bytes = 49152;
  t.max_storage_buffer_range = uint64_t{1} << 32;
  t.min_storage_buffer_offset_alignment = 16;
  t.max_memory_allocation_size = uint64_t{1} << 34;
  t.vulkan_api_version = (1u << 22) | (3u << 12);
  return t;
}

TargetFeatures PhoneTarget() {
  TargetFeatures t;
  t.device_name = "phone GPU (canned)";
  t.float16 = t.int8 = true;
  t.subgroup_arithmetic = t.subgroup_broadcast = true;
  t.subgroup_size = 16;
  t.max_workgroup_invocations = 256;
  t.max_workgroup_count_x = 65535;
  t.max_shared_memory_bytes = 16384;
  t.max_storage_buffer_range = uint64_t{1} << 27;
  t.min_storage_buffer_offset_alignment = 64;
  t.max_memory_allocation_size = uint64_t{1} << 30;
  t.vulkan_api_version = (1u << 22) | (1u << 12);
  return t;
}

}  // namespace vkxla
