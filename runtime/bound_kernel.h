// One kernel ready to record: a compute pipeline, a descriptor set that
// binds its buffers (each a slice of a buffer, in binding order; texel
// views of those the kernel reads as texel buffers),
// and the launch grid for a number of invocations.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "runtime/pipeline.h"
#include "runtime/scheduler.h"

namespace vkxla {

struct BufferSlice {
  VkBuffer buffer = VK_NULL_HANDLE;
  uint64_t offset = 0, size = 0;
};
inline BufferSlice Whole(const Buffer& b) { return {b.handle(), 0, b.size()}; }

class BoundKernel {
 public:
  static StatusOr<BoundKernel> Create(Device& device, std::shared_ptr<ComputePipeline> pipeline,
                                      std::vector<BufferSlice> bindings, uint64_t invocations, uint32_t local_size);
  BoundKernel() = default;
  BoundKernel(BoundKernel&& o) noexcept { *this = std::move(o); }
  BoundKernel& operator=(BoundKernel&& o) noexcept;
  ~BoundKernel();

  void Record(Scheduler& s, const std::vector<uint32_t>& push_constants = {}) const;
  // With the group counts taken from `grid` (a device-decided launch).
  void RecordIndirect(Scheduler& s, VkBuffer grid, uint64_t offset, const std::vector<uint32_t>& push_constants = {}) const;
  // The group counts Record dispatches (x, y).
  std::array<uint32_t, 2> grid() const { return {groups_x_, groups_y_}; }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  std::vector<VkBufferView> views_;  // per binding; null for storage buffers
  std::shared_ptr<ComputePipeline> pipeline_;
  uint32_t groups_x_ = 0, groups_y_ = 0;
};

}  // namespace vkxla
