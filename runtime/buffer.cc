#include "runtime/buffer.h"

#include <utility>

#include "runtime/live_objects.h"

namespace vkxla {

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    Reset();
    device_ = std::exchange(o.device_, VK_NULL_HANDLE);
    buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(o.size_, 0);
    mapped_ = std::exchange(o.mapped_, nullptr);
  }
  return *this;
}

void Buffer::Reset() {
  if (!device_) return;
  if (mapped_) vkUnmapMemory(device_, memory_);
  if (buffer_) {
    vkDestroyBuffer(device_, buffer_, nullptr);
    CountVulkanObject(VulkanObject::kBuffer, -1);
  }
  if (memory_) {
    vkFreeMemory(device_, memory_, nullptr);
    CountVulkanObject(VulkanObject::kMemory, -1);
  }
  device_ = VK_NULL_HANDLE;
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
}

}  // namespace vkxla
