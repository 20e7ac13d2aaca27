// A Vulkan buffer with its own memory: device-local for data, host-visible
// (and mapped) for staging.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <utility>

namespace vkxla {

class Device;

class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;
  ~Buffer() { Reset(); }

  VkBuffer handle() const { return buffer_; }
  uint64_t size() const { return size_; }
  void* mapped() const { return mapped_; }  // null unless host-visible

 private:
  friend class Device;
  void Reset();
  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint64_t size_ = 0;
  void* mapped_ = nullptr;
};

}  // namespace vkxla
