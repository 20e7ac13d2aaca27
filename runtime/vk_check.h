// Turns VkResult failures into Status values naming the call.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

#include "vkxla/status.h"

namespace vkxla {

std::string VkResultName(VkResult r);

inline Status VkStatus(VkResult r, const char* call) {
  if (r == VK_SUCCESS) return OkStatus();
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
    return ResourceExhausted(std::string(call) + " failed: " + VkResultName(r));
  return Internal(std::string(call) + " failed: " + VkResultName(r));
}

}  // namespace vkxla

#define VKXLA_VK_RETURN_IF_ERROR(call) VKXLA_RETURN_IF_ERROR(::vkxla::VkStatus((call), #call))
