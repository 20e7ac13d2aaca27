#include "runtime/gpu_timer.h"

#include <chrono>

#include "runtime/live_objects.h"
#include "runtime/vk_check.h"

namespace vkxla {

StatusOr<Timing> TimeCommands(Device& device, const std::function<Status(Scheduler&)>& record) {
  const bool stamps = device.timestamp_period_ns() > 0;
  VkQueryPool pool = VK_NULL_HANDLE;
  if (stamps) {
    VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qci.queryCount = 2;
    VKXLA_VK_RETURN_IF_ERROR(vkCreateQueryPool(device.handle(), &qci, nullptr, &pool));
    CountVulkanObject(VulkanObject::kQueryPool, 1);
  }
  std::unique_lock<std::recursive_mutex> recording(device.command_pool_mutex());
  VKXLA_ASSIGN_OR_RETURN(VkCommandBuffer cb, device.AllocateCommandBuffer());
  auto cleanup = [&] {
    device.FreeCommandBuffer(cb);  // takes the pool lock itself
    if (pool) {
      vkDestroyQueryPool(device.handle(), pool, nullptr);
      CountVulkanObject(VulkanObject::kQueryPool, -1);
    }
  };
  Scheduler s(cb);
  Status status = s.Begin();
  if (status.ok() && stamps) {
    vkCmdResetQueryPool(cb, pool, 0, 2);
    s.Timestamp(pool, 0);
  }
  if (status.ok()) status = record(s);
  if (status.ok() && stamps) s.Timestamp(pool, 1);
  if (status.ok()) status = s.End();
  recording.unlock();
  const auto start = std::chrono::steady_clock::now();
  if (status.ok()) status = device.SubmitAndWait(cb);
  const auto end = std::chrono::steady_clock::now();
  Timing t;
  t.seconds = std::chrono::duration<double>(end - start).count();
  if (status.ok() && stamps) {
    uint64_t ticks[2] = {0, 0};
    status = VkStatus(vkGetQueryPoolResults(device.handle(), pool, 0, 2, sizeof ticks, ticks, sizeof(uint64_t),
                                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                      "vkGetQueryPoolResults");
    t.seconds = static_cast<double>(ticks[1] - ticks[0]) * device.timestamp_period_ns() * 1e-9;
    t.from_timestamps = true;
  }
  cleanup();
  VKXLA_RETURN_IF_ERROR(status);
  return t;
}

}  // namespace vkxla
