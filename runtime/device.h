// One logical Vulkan device: its compute queue, memory, command pool and the
// VkPipelineCache persisted next to the kernel cache (checked against the
// device's pipelineCacheUUID before reuse).
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <map>
#include <memory>
#include <vector>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/feed_queue.h"
#include "runtime/buffer.h"
#include "runtime/capabilities.h"

namespace vkxla {

class Device {
 public:
  // Opens device `index` (-1: VKXLA_DEVICE, else 0).
  static StatusOr<std::unique_ptr<Device>> Open(int index = -1);
  ~Device();

  const DeviceInfo& info() const { return info_; }
  const TargetFeatures& target() const { return info_.target; }
  VkDevice handle() const { return device_; }
  VkPipelineCache pipeline_cache() const { return pipeline_cache_; }

  enum class Memory { kDeviceLocal, kHostVisible };
  StatusOr<Buffer> CreateBuffer(uint64_t size, Memory memory);
  // The device address of `b`'s first byte (where the device has
  // bufferDeviceAddress; an error otherwise).
  StatusOr<uint64_t> DeviceAddress(const Buffer& b) const;
  // Command buffers and submissions may come from several threads. The
  // command pool is guarded by command_pool_mutex(), which recording must
  // hold too (Vulkan requires the pool externally synchronized while any of
  // its buffers records); the queue has its own lock.
  StatusOr<VkCommandBuffer> AllocateCommandBuffer();
  std::recursive_mutex& command_pool_mutex() { return pool_mu_; }
  void FreeCommandBuffer(VkCommandBuffer cb);
  // Submits and waits; device loss and timeouts come back as errors, and
  // both leave the device lost: every later call fails with kUnavailable
  // naming what happened (a fence still in flight is never reset or reused).
  // `queue` picks one of queue_count() queues of the compute family.
  Status SubmitAndWait(VkCommandBuffer cb, uint32_t queue = 0);
  // The compute family's queues this device opened (up to kMaxQueues): the
  // processes of a replicated run spread over them; queue 0 is the one
  // libraries and timers use.
  static constexpr uint32_t kMaxQueues = 8;
  uint32_t queue_count() const { return static_cast<uint32_t>(1 + extra_queues_.size()); }
  // OK, or why the device can no longer be used.
  Status CheckUsable() const;
  bool lost() const { return lost_.load(); }
  // Tests: the next SubmitAndWait, after its real submission and wait,
  // reports `result` (VK_ERROR_DEVICE_LOST, VK_TIMEOUT) as if the driver had.
  void InjectSubmitResultForTesting(VkResult result) { injected_ = result; }
  Status SavePipelineCache();
  // For a library that submits work of its own while it prepares (VkFFT's
  // tables and Bluestein kernels): the handles, and the lock every
  // submission to the queue holds.
  VkPhysicalDevice physical() const { return physical_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  std::mutex& queue_mutex() { return queue_mu_; }
  // Values programs read with infeed and write with outfeed, in order.
  FeedQueue& infeed() { return infeed_; }
  FeedQueue& outfeed() { return outfeed_; }
  // Host transfers by channel_id: what recv reads (the host pushes), what
  // send writes (the host pops).
  FeedQueue& to_device(int64_t channel);
  FeedQueue& from_device(int64_t channel);
  // The device's memory heaps, one line each: size and whether device-local.
  std::string HeapsDescription() const;
  // Bytes of the largest heap that is (or is not) device-local; 0 if none.
  uint64_t LargestHeapBytes(bool device_local) const;
  // Nanoseconds per timestamp tick; 0 when the compute queue has no timestamps.
  double timestamp_period_ns() const { return timestamp_period_ns_; }

 private:
  Device() = default;
  StatusOr<uint32_t> FindMemoryType(uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer);

  DeviceInfo info_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_props_{};
  double timestamp_period_ns_ = 0;
  std::mutex queue_mu_;
  // Queues 1.. of the family, each with its own fence and lock.
  struct ExtraQueue {
    VkQueue queue = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    std::mutex mu;
  };
  std::vector<std::unique_ptr<ExtraQueue>> extra_queues_;
  std::recursive_mutex pool_mu_;
  std::atomic<bool> lost_{false};
  std::mutex lost_mu_;
  std::string lost_reason_;  // written once, under lost_mu_, before lost_ is set
  std::atomic<VkResult> injected_{VK_SUCCESS};
  FeedQueue infeed_, outfeed_;
  std::mutex channels_mu_;
  std::map<int64_t, FeedQueue> to_device_, from_device_;  // nodes stay put: references stay valid
};

}  // namespace vkxla
