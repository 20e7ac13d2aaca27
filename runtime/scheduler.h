// Records commands into a command buffer: copies, fills and dispatches,
// with a memory barrier wherever the caller says one is needed (the plan
// derives them: plan/barriers.h). The recording is replayed as is.
#pragma once

#include <vulkan/vulkan.h>

#include <vector>

#include "vkxla/status.h"

namespace vkxla {

class Scheduler {
 public:
  explicit Scheduler(VkCommandBuffer cb) : cb_(cb) {}
  Status Begin();
  // Makes every earlier shader or transfer write visible to later reads
  // (indirect grids included) and writes, and orders later writes after
  // earlier reads.
  void Barrier();
  void Copy(VkBuffer src, uint64_t src_offset, VkBuffer dst, uint64_t dst_offset, uint64_t bytes);
  void Fill(VkBuffer dst, uint64_t offset, uint64_t bytes, uint32_t word);
  void Dispatch(VkPipeline pipeline, VkPipelineLayout layout, VkDescriptorSet set, uint32_t groups_x, uint32_t groups_y,
                const std::vector<uint32_t>& push_constants = {});
  // The same with the group counts read from `grid` at `offset` (three u32).
  void DispatchIndirect(VkPipeline pipeline, VkPipelineLayout layout, VkDescriptorSet set, VkBuffer grid, uint64_t offset,
                        const std::vector<uint32_t>& push_constants = {});
  // Writes a timestamp once every earlier command has finished (slot of a
  // VK_QUERY_TYPE_TIMESTAMP pool reset earlier in this recording).
  void Timestamp(VkQueryPool pool, uint32_t slot);
  VkCommandBuffer command_buffer() const { return cb_; }
  // Makes every write visible to the host and ends the recording.
  Status End();
  int barriers() const { return barriers_; }

 private:
  VkCommandBuffer cb_;
  void Bind(VkPipeline pipeline, VkPipelineLayout layout, VkDescriptorSet set, const std::vector<uint32_t>& push_constants);
  VkPipeline bound_pipeline_ = VK_NULL_HANDLE;
  int barriers_ = 0;
};

}  // namespace vkxla
