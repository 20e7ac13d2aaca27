// The Vulkan instance: loader, optional validation layers (VKXLA_VALIDATION=1)
// whose messages are counted so tests can fail on any, and the list of
// physical devices with their capability tables.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/capabilities.h"

namespace vkxla {

class VulkanContext {
 public:
  // The process-wide instance, created on first use.
  static StatusOr<VulkanContext*> Get();
  ~VulkanContext();

  VkInstance instance() const { return instance_; }
  const std::vector<VkPhysicalDevice>& physical_devices() const { return devices_; }
  const std::vector<DeviceInfo>& device_infos() const { return infos_; }
  bool validation_enabled() const { return validation_; }
  // Validation messages seen so far (warnings and errors).
  int validation_message_count() const { return messages_.load(); }
  std::string last_validation_message() const {
    std::lock_guard<std::mutex> lock(message_mu_);
    return last_message_;
  }

  // The device index to use: `requested` if >= 0, else VKXLA_DEVICE, else 0.
  StatusOr<uint32_t> ResolveDeviceIndex(int requested) const;

 private:
  VulkanContext() = default;
  static VKAPI_ATTR VkBool32 VKAPI_CALL OnMessage(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                                  const VkDebugUtilsMessengerCallbackDataEXT*, void*);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  bool validation_ = false;
  std::atomic<int> messages_{0};
  mutable std::mutex message_mu_;
  std::string last_message_;  // guarded by message_mu_
  std::vector<VkPhysicalDevice> devices_;
  std::vector<DeviceInfo> infos_;
};

}  // namespace vkxla
