#include "runtime/bound_kernel.h"

#include <algorithm>

#include "runtime/live_objects.h"
#include "runtime/vk_check.h"

namespace vkxla {

StatusOr<BoundKernel> BoundKernel::Create(Device& device, std::shared_ptr<ComputePipeline> pipeline,
                                          std::vector<BufferSlice> bindings, uint64_t invocations, uint32_t local_size) {
  BoundKernel k;
  k.device_ = device.handle();
  const uint32_t count = static_cast<uint32_t>(bindings.size());
  if (count != pipeline->bindings())
    return Internal("kernel expects " + std::to_string(pipeline->bindings()) + " buffers, " + std::to_string(count) +
                    " were bound");
  uint32_t texels = 0;
  for (uint32_t b = 0; b < count; ++b) texels += pipeline->texel(b) ? 1 : 0;
  const VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(1u, count - texels)},
                                         {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, std::max(1u, texels)}};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = 1;
  dpci.poolSizeCount = 2;
  dpci.pPoolSizes = sizes;
  VKXLA_VK_RETURN_IF_ERROR(vkCreateDescriptorPool(k.device_, &dpci, nullptr, &k.pool_));
  CountVulkanObject(VulkanObject::kDescriptorPool, 1);
  VkDescriptorSetLayout layout = pipeline->set_layout();
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = k.pool_;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &layout;
  VKXLA_VK_RETURN_IF_ERROR(vkAllocateDescriptorSets(k.device_, &ai, &k.set_));
  std::vector<VkDescriptorBufferInfo> infos(count);
  std::vector<VkWriteDescriptorSet> updates(count);
  k.views_.assign(count, VK_NULL_HANDLE);
  for (uint32_t b = 0; b < count; ++b) {
    infos[b] = {bindings[b].buffer, bindings[b].offset, bindings[b].size};
    updates[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, k.set_, b, 0, 1,
                  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nullptr, &infos[b], nullptr};
    if (!pipeline->texel(b)) continue;
    // A view of whole RGBA32UI texels over the slice (slices start at
    // multiples of the texel offset alignment, and buffers are whole
    // texels long; plan/ keeps views within maxTexelBufferElements).
    const uint64_t texels = (bindings[b].size + 15) / 16;
    // The hardware's limit: a kernel planned for another target (a test's
    // canned one, or texels masked off after planning) still binds.
    const uint64_t limit = device.info().hardware.max_texel_buffer_elements;
    if (texels == 0 || texels > limit)
      return Internal("a texel binding of " + std::to_string(bindings[b].size) + " bytes does not fit one view (" +
                      std::to_string(limit) + " texels)");
    VkBufferViewCreateInfo vci{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
    vci.buffer = bindings[b].buffer;
    vci.format = VK_FORMAT_R32G32B32A32_UINT;
    vci.offset = bindings[b].offset;
    vci.range = texels * 16;
    VKXLA_VK_RETURN_IF_ERROR(vkCreateBufferView(k.device_, &vci, nullptr, &k.views_[b]));
    updates[b].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
    updates[b].pBufferInfo = nullptr;
    updates[b].pTexelBufferView = &k.views_[b];
  }
  vkUpdateDescriptorSets(k.device_, count, updates.data(), 0, nullptr);
  // Grids beyond maxComputeWorkGroupCount[0] fold into y; kernels linearize
  // the invocation id the same way and bound-check it.
  const uint64_t groups = std::max<uint64_t>(1, (invocations + local_size - 1) / local_size);
  const uint64_t max_x = device.target().max_workgroup_count_x;
  k.groups_x_ = static_cast<uint32_t>(std::min<uint64_t>(groups, max_x));
  k.groups_y_ = static_cast<uint32_t>((groups + k.groups_x_ - 1) / k.groups_x_);
  k.pipeline_ = std::move(pipeline);
  return k;
}

BoundKernel& BoundKernel::operator=(BoundKernel&& o) noexcept {
  std::swap(device_, o.device_);
  std::swap(pool_, o.pool_);
  std::swap(set_, o.set_);
  std::swap(views_, o.views_);
  std::swap(pipeline_, o.pipeline_);
  std::swap(groups_x_, o.groups_x_);
  std::swap(groups_y_, o.groups_y_);
  return *this;
}

BoundKernel::~BoundKernel() {
  for (VkBufferView v : views_)
    if (v) vkDestroyBufferView(device_, v, nullptr);
  if (pool_) {
    vkDestroyDescriptorPool(device_, pool_, nullptr);
    CountVulkanObject(VulkanObject::kDescriptorPool, -1);
  }
}

void BoundKernel::Record(Scheduler& s, const std::vector<uint32_t>& push_constants) const {
  s.Dispatch(pipeline_->pipeline(), pipeline_->layout(), set_, groups_x_, groups_y_, push_constants);
}

void BoundKernel::RecordIndirect(Scheduler& s, VkBuffer grid, uint64_t offset, const std::vector<uint32_t>& push_constants) const {
  s.DispatchIndirect(pipeline_->pipeline(), pipeline_->layout(), set_, grid, offset, push_constants);
}

}  // namespace vkxla
