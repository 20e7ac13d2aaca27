// Counts of the Vulkan objects vkxla holds, by kind: what a soak test
// watches (a run must leave them where they were) and what a leak shows in.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace vkxla {

enum class VulkanObject { kBuffer, kMemory, kCommandBuffer, kPipeline, kDescriptorPool, kQueryPool, kCount };

// Called where an object is created (+1) and destroyed (-1).
void CountVulkanObject(VulkanObject kind, int delta);
std::array<int64_t, static_cast<size_t>(VulkanObject::kCount)> LiveVulkanObjects();
std::string LiveVulkanObjectsText();  // "buffers 3, memory 3, command buffers 1, ..."

}  // namespace vkxla
