// Records an executable's copies and dispatches once into a command buffer,
// inserting a barrier only where a command reads or overwrites a buffer an
// earlier command wrote (or overwrites one it read) since the last barrier.
// Independent dispatches run back to back. The recording is replayed as is.
#pragma once

#include <vulkan/vulkan.h>

#include <set>
#include <vector>

#include "runtime/device.h"

namespace vkxla {

class Scheduler {
 public:
  Scheduler(Device& device, VkCommandBuffer cb);
  Status Begin();
  void Copy(VkBuffer src, VkBuffer dst, uint64_t bytes);
  void Dispatch(VkPipeline pipeline, VkPipelineLayout layout, VkDescriptorSet set, const std::vector<VkBuffer>& reads,
                const std::vector<VkBuffer>& writes, uint32_t groups_x, uint32_t groups_y);
  // Makes every write visible to the host and ends the recording.
  Status End();
  int barriers() const { return barriers_; }

 private:
  void Hazard(const std::vector<VkBuffer>& reads, const std::vector<VkBuffer>& writes);
  VkCommandBuffer cb_;
  std::set<VkBuffer> pending_reads_, pending_writes_;
  int barriers_ = 0;
};

}  // namespace vkxla
