// A compute pipeline over N buffer bindings, built from SPIR-V: storage
// buffers, or uniform texel buffers where the kernel declares them.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>
#include <vector>

#include "runtime/device.h"

namespace vkxla {

constexpr uint32_t kPushConstantBytes = 16;

class ComputePipeline {
 public:
  // `use_pipeline_cache` false skips the device's VkPipelineCache (to
  // measure a cold driver compile).
  static StatusOr<std::unique_ptr<ComputePipeline>> Create(Device& device, const std::vector<uint32_t>& spirv,
                                                           uint32_t bindings, bool use_pipeline_cache = true);
  // GLSL through the kernel cache (compiled on a miss), then a pipeline.
  static StatusOr<std::unique_ptr<ComputePipeline>> FromGlsl(Device& device, const std::string& glsl, uint32_t bindings);
  ~ComputePipeline();
  VkPipeline pipeline() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }
  uint32_t bindings() const { return bindings_; }
  // Whether binding i is a uniform texel buffer (RGBA32UI texels).
  bool texel(uint32_t i) const { return i < texel_.size() && texel_[i]; }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  uint32_t bindings_ = 0;
  std::vector<bool> texel_;
};

}  // namespace vkxla
