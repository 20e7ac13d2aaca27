#include "plan/target_features.h"

namespace vkxla {

std::string TargetFeatures::CacheKey() const {
  return device_name + "|cpu=" + std::to_string(cpu) + "|f64=" + std::to_string(float64) + "|f64p=" + std::to_string(float64_pairs) + "|i64=" + std::to_string(int64) +
         "|f16=" + std::to_string(float16) + "|i8=" + std::to_string(int8) +
         "|sga=" + std::to_string(subgroup_arithmetic) + "|sgb=" + std::to_string(subgroup_broadcast) + "|fatomic=" + std::to_string(float32_atomic_add) +
         "|i64atomic=" + std::to_string(int64_atomics) + "|bda=" + std::to_string(buffer_device_address) + "|sg=" + std::to_string(subgroup_size) +
         "|vk=" + std::to_string(vulkan_api_version) + "|coop=" + std::to_string(cooperative_matrix_f16) +
         "|texel=" + std::to_string(max_texel_buffer_elements) + "|exactdiv=" + std::to_string(exact_div_sqrt) +
         "|halfwiden=" + std::to_string(exact_half_widen) +
         "|calls=" + std::to_string(soft_float_calls) +
         "|sub32=" + std::to_string(f32_subnormals_kept) + "|fc=" + float_controls.CacheKey() +
         "|mmt=" + std::to_string(matmul_tuning.threads_m) + "." + std::to_string(matmul_tuning.threads_n) + "." +
         std::to_string(matmul_tuning.tile_k) + "." + std::to_string(matmul_tuning.groups);
}

std::vector<uint32_t> FloatControls::Widths(uint8_t mask) {
  std::vector<uint32_t> widths;
  for (uint32_t w : {16u, 32u, 64u})
    if (mask & Bit(w)) widths.push_back(w);
  return widths;
}

std::string FloatControls::CacheKey() const {
  return std::to_string(denorm_preserve) + "." + std::to_string(signed_zero_inf_nan_preserve) + "." +
         std::to_string(rounding_rte) + "." + std::to_string(no_contraction) + "." + std::to_string(independent_widths);
}

}  // namespace vkxla
