#include "runtime/live_objects.h"

#include <atomic>

namespace vkxla {
namespace {

std::array<std::atomic<int64_t>, static_cast<size_t>(VulkanObject::kCount)>& Counts() {
  static std::array<std::atomic<int64_t>, static_cast<size_t>(VulkanObject::kCount)> counts{};
  return counts;
}

}  // namespace

void CountVulkanObject(VulkanObject kind, int delta) { Counts()[static_cast<size_t>(kind)] += delta; }

std::array<int64_t, static_cast<size_t>(VulkanObject::kCount)> LiveVulkanObjects() {
  std::array<int64_t, static_cast<size_t>(VulkanObject::kCount)> out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = Counts()[i].load();
  return out;
}

std::string LiveVulkanObjectsText() {
  static const char* kNames[] = {"buffers", "memory", "command buffers", "pipelines", "descriptor pools", "query pools"};
  const auto counts = LiveVulkanObjects();
  std::string s;
  for (size_t i = 0; i < counts.size(); ++i) s += (i ? ", " : "") + std::string(kNames[i]) + " " + std::to_string(counts[i]);
  return s;
}

}  // namespace vkxla
