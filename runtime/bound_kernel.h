// One dispatch ready to record: a compute pipeline, a descriptor set that
// binds its storage buffers (reads first, then writes, in binding order),
// and the launch grid for a number of invocations.
#pragma once

#include <memory>
#include <vector>

#include "runtime/pipeline.h"
#include "runtime/scheduler.h"

namespace vkxla {

class BoundKernel {
 public:
  static StatusOr<BoundKernel> Create(Device& device, std::shared_ptr<ComputePipeline> pipeline,
                                      std::vector<VkBuffer> reads, std::vector<VkBuffer> writes,
                                      uint64_t invocations, uint32_t local_size,
                                      std::vector<uint32_t> push_constants = {});
  BoundKernel() = default;
  BoundKernel(BoundKernel&& o) noexcept { *this = std::move(o); }
  BoundKernel& operator=(BoundKernel&& o) noexcept;
  ~BoundKernel();

  // Records the dispatch; the scheduler adds a barrier if a hazard needs one.
  void Record(Scheduler& s) const;

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  std::shared_ptr<ComputePipeline> pipeline_;
  std::vector<VkBuffer> reads_, writes_;
  uint32_t groups_x_ = 0, groups_y_ = 0;
  std::vector<uint32_t> push_;
};

}  // namespace vkxla
