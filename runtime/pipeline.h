// A compute pipeline over N storage-buffer bindings, built from SPIR-V.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>
#include <vector>

#include "runtime/device.h"

namespace vkxla {

class ComputePipeline {
 public:
  static StatusOr<std::unique_ptr<ComputePipeline>> Create(Device& device, const std::vector<uint32_t>& spirv,
                                                           uint32_t bindings);
  ~ComputePipeline();
  VkPipeline pipeline() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }
  uint32_t bindings() const { return bindings_; }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  uint32_t bindings_ = 0;
};

}  // namespace vkxla
