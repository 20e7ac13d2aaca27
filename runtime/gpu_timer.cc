#include "runtime/gpu_timer.h"

#include <chrono>

#include "runtime/live_objects.h"
#include "runtime/vk_check.h"

namespace vkxla {
namespace {

// Records and submits `record` in a fresh command buffer; the submission's
// host wall time.
StatusOr<double> RecordAndSubmit(Device& device, const std::function<Status(Scheduler&)>& record) {
  std::unique_lock<std::recursive_mutex> recording(device.command_pool_mutex());
  VKXLA_ASSIGN_OR_RETURN(VkCommandBuffer cb, device.AllocateCommandBuffer());
  Scheduler s(cb);
  Status status = s.Begin();
  if (status.ok()) status = record(s);
  if (status.ok()) status = s.End();
  recording.unlock();
  const auto start = std::chrono::steady_clock::now();
  if (status.ok()) status = device.SubmitAndWait(cb);
  const auto end = std::chrono::steady_clock::now();
  device.FreeCommandBuffer(cb);  // takes the pool lock itself
  VKXLA_RETURN_IF_ERROR(status);
  return std::chrono::duration<double>(end - start).count();
}

}  // namespace

StatusOr<std::vector<double>> TimeSegments(Device& device, uint32_t max_marks,
                                           const std::function<Status(Scheduler&, const MarkFn& mark)>& record) {
  if (device.timestamp_period_ns() <= 0)
    return Unimplemented("timing kernels one by one needs timestamps, which the queue of " + device.info().name + " lacks");
  const uint32_t slots = max_marks + 1;
  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qci.queryCount = slots;
  VkQueryPool pool = VK_NULL_HANDLE;
  VKXLA_VK_RETURN_IF_ERROR(vkCreateQueryPool(device.handle(), &qci, nullptr, &pool));
  CountVulkanObject(VulkanObject::kQueryPool, 1);
  uint32_t used = 1;
  StatusOr<double> submitted = RecordAndSubmit(device, [&](Scheduler& s) -> Status {
    vkCmdResetQueryPool(s.command_buffer(), pool, 0, slots);
    s.Timestamp(pool, 0);
    Status marks_ok = OkStatus();
    VKXLA_RETURN_IF_ERROR(record(s, [&] {
      if (used < slots) s.Timestamp(pool, used++);
      else marks_ok = Internal("TimeSegments: more marks than the " + std::to_string(max_marks) + " announced");
    }));
    return marks_ok;
  });
  std::vector<uint64_t> ticks(used, 0);
  Status status = submitted.status();
  if (status.ok())
    status = VkStatus(vkGetQueryPoolResults(device.handle(), pool, 0, used, ticks.size() * sizeof(uint64_t), ticks.data(),
                                            sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                      "vkGetQueryPoolResults");
  vkDestroyQueryPool(device.handle(), pool, nullptr);
  CountVulkanObject(VulkanObject::kQueryPool, -1);
  VKXLA_RETURN_IF_ERROR(status);
  std::vector<double> seconds;
  for (uint32_t i = 1; i < used; ++i)
    seconds.push_back(static_cast<double>(ticks[i] - ticks[i - 1]) * device.timestamp_period_ns() * 1e-9);
  return seconds;
}

StatusOr<Timing> TimeCommands(Device& device, const std::function<Status(Scheduler&)>& record) {
  if (device.timestamp_period_ns() > 0) {
    VKXLA_ASSIGN_OR_RETURN(std::vector<double> segment, TimeSegments(device, 1, [&](Scheduler& s, const MarkFn& mark) {
      VKXLA_RETURN_IF_ERROR(record(s));
      mark();
      return OkStatus();
    }));
    return Timing{segment.at(0), true};
  }
  VKXLA_ASSIGN_OR_RETURN(double wall, RecordAndSubmit(device, record));
  return Timing{wall, false};
}

}  // namespace vkxla
