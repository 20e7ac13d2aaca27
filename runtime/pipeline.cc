#include "runtime/pipeline.h"

#include "codegen/kernel_cache.h"
#include "codegen/spirv_demands.h"
#include "runtime/live_objects.h"
#include "runtime/vk_check.h"

namespace vkxla {

StatusOr<std::unique_ptr<ComputePipeline>> ComputePipeline::Create(Device& device, const std::vector<uint32_t>& spirv,
                                                                   uint32_t bindings, bool use_pipeline_cache) {
  auto p = std::make_unique<ComputePipeline>();
  p->device_ = device.handle();
  p->bindings_ = bindings;
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = spirv.size() * 4;
  smci.pCode = spirv.data();
  VKXLA_VK_RETURN_IF_ERROR(vkCreateShaderModule(p->device_, &smci, nullptr, &p->module_));
  // Storage buffers, but for the bindings the kernel reads as uniform texel
  // buffers (TargetFeatures::max_texel_buffer_elements).
  VKXLA_ASSIGN_OR_RETURN(KernelDemands demands, ReadKernelDemands(spirv));
  p->texel_.assign(bindings, false);
  for (uint32_t t : demands.texel_bindings) {
    if (t >= bindings) return Internal("a kernel reads texel binding " + std::to_string(t) + " of " + std::to_string(bindings));
    p->texel_[t] = true;
  }
  std::vector<VkDescriptorSetLayoutBinding> b(bindings);
  for (uint32_t i = 0; i < bindings; ++i)
    b[i] = {i, p->texel_[i] ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
            VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo dl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dl.bindingCount = bindings;
  dl.pBindings = b.data();
  VKXLA_VK_RETURN_IF_ERROR(vkCreateDescriptorSetLayout(p->device_, &dl, nullptr, &p->set_layout_));
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &p->set_layout_;
  // Every layout has room for a few words of push constants (multi-pass
  // kernels such as sort's steps read theirs from there).
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &push;
  VKXLA_VK_RETURN_IF_ERROR(vkCreatePipelineLayout(p->device_, &pl, nullptr, &p->layout_));
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, p->module_, "main", nullptr};
  ci.layout = p->layout_;
  VKXLA_VK_RETURN_IF_ERROR(vkCreateComputePipelines(p->device_, use_pipeline_cache ? device.pipeline_cache() : VK_NULL_HANDLE, 1, &ci, nullptr, &p->pipeline_));
  CountVulkanObject(VulkanObject::kPipeline, 1);
  return p;
}

StatusOr<std::unique_ptr<ComputePipeline>> ComputePipeline::FromGlsl(Device& device, const std::string& glsl,
                                                                     uint32_t bindings) {
  VKXLA_ASSIGN_OR_RETURN(std::vector<uint32_t> spirv, KernelCache::Global().GetOrCompile(glsl, device.target()));
  // Kernels are sized from the target's limits; one that is not is a
  // planning bug, reported here rather than left to the driver.
  VKXLA_ASSIGN_OR_RETURN(KernelDemands demands, ReadKernelDemands(spirv));
  const size_t name_at = glsl.find("// kernel ");
  const std::string name = name_at == std::string::npos ? "kernel" : glsl.substr(name_at + 3, glsl.find('\n', name_at) - name_at - 3);
  VKXLA_RETURN_IF_ERROR(CheckKernelFits(demands, device.target(), name));
  return Create(device, spirv, bindings);
}

ComputePipeline::~ComputePipeline() {
  if (!device_) return;
  if (pipeline_) {
    vkDestroyPipeline(device_, pipeline_, nullptr);
    CountVulkanObject(VulkanObject::kPipeline, -1);
  }
  if (layout_) vkDestroyPipelineLayout(device_, layout_, nullptr);
  if (set_layout_) vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
  if (module_) vkDestroyShaderModule(device_, module_, nullptr);
}

}  // namespace vkxla
