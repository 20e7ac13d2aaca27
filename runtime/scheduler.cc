#include "runtime/scheduler.h"

#include "runtime/vk_check.h"

namespace vkxla {

namespace {
constexpr VkPipelineStageFlags kStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkPipelineStageFlags kReaderStages = kStages | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
}

Status Scheduler::Begin() {
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  return VkStatus(vkBeginCommandBuffer(cb_, &bi), "vkBeginCommandBuffer");
}

void Scheduler::Barrier() {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  vkCmdPipelineBarrier(cb_, kStages, kReaderStages, 0, 1, &mb, 0, nullptr, 0, nullptr);
  ++barriers_;
}

void Scheduler::Copy(VkBuffer src, uint64_t src_offset, VkBuffer dst, uint64_t dst_offset, uint64_t bytes) {
  VkBufferCopy region{src_offset, dst_offset, bytes};
  vkCmdCopyBuffer(cb_, src, dst, 1, &region);
}

void Scheduler::Fill(VkBuffer dst, uint64_t offset, uint64_t bytes, uint32_t word) {
  vkCmdFillBuffer(cb_, dst, offset, bytes, word);
}

void Scheduler::Bind(VkPipeline pipeline, VkPipelineLayout layout, VkDescriptorSet set,
                     const std::vector<uint32_t>& push_constants) {
  if (pipeline != bound_pipeline_) {  // rebinding the same pipeline costs drivers real work
    vkCmdBindPipeline(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    bound_pipeline_ = pipeline;
  }
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
  if (!push_constants.empty())
    vkCmdPushConstants(cb_, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(push_constants.size() * 4),
                       push_constants.data());
}

void Scheduler::Dispatch(VkPipeline pipeline, VkPipelineLayout layout, VkDescriptorSet set, uint32_t gx, uint32_t gy,
                         const std::vector<uint32_t>& push_constants) {
  Bind(pipeline, layout, set, push_constants);
  vkCmdDispatch(cb_, gx, gy, 1);
}

void Scheduler::DispatchIndirect(VkPipeline pipeline, VkPipelineLayout layout, VkDescriptorSet set, VkBuffer grid,
                                 uint64_t offset, const std::vector<uint32_t>& push_constants) {
  Bind(pipeline, layout, set, push_constants);
  vkCmdDispatchIndirect(cb_, grid, offset);
}

void Scheduler::Timestamp(VkQueryPool pool, uint32_t slot) {
  vkCmdWriteTimestamp(cb_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, slot);
}

Status Scheduler::End() {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb_, kStages, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  return VkStatus(vkEndCommandBuffer(cb_), "vkEndCommandBuffer");
}

}  // namespace vkxla
