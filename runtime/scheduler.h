// Records an executable's copies and dispatches once into a command buffer,
// inserting a barrier only where a command reads or overwrites a buffer an
// earlier command wrote (or overwrites one it read) since the last barrier.
// Independent dispatches run back to back. The recording is replayed as is.
#pragma once

#include <vulkan/vulkan.h>

#include <set>
#include <vector>

#include "ir/status.h"

namespace vkxla {

class Scheduler {
 public:
  explicit Scheduler(VkCommandBuffer cb) : cb_(cb) {}
  Status Begin();
  void Copy(VkBuffer src, VkBuffer dst, uint64_t bytes);
  void Dispatch(VkPipeline pipeline, VkPipelineLayout layout, VkDescriptorSet set, const std::vector<VkBuffer>& reads,
                const std::vector<VkBuffer>& writes, uint32_t groups_x, uint32_t groups_y,
                const std::vector<uint32_t>& push_constants = {});
  // Writes a timestamp once every earlier command has finished (slot of a
  // VK_QUERY_TYPE_TIMESTAMP pool reset earlier in this recording).
  void Timestamp(VkQueryPool pool, uint32_t slot);
  VkCommandBuffer command_buffer() const { return cb_; }
  // Makes every write visible to the host and ends the recording.
  Status End();
  int barriers() const { return barriers_; }

 private:
  void Hazard(const std::vector<VkBuffer>& reads, const std::vector<VkBuffer>& writes);
  VkCommandBuffer cb_;
  VkPipeline bound_pipeline_ = VK_NULL_HANDLE;
  std::set<VkBuffer> pending_reads_, pending_writes_;
  int barriers_ = 0;
};

}  // namespace vkxla
