// Device time of recorded work, for benchmarks: GPU timestamps around the
// commands (host wall time around the submission where the queue has none).
#pragma once

#include <functional>

#include "runtime/device.h"
#include "runtime/scheduler.h"

namespace vkxla {

struct Timing {
  double seconds = 0;
  bool from_timestamps = false;  // false: host wall time, submission included
};

// Records `record` into a fresh command buffer between two timestamps,
// submits it, waits, and returns the time between the stamps.
StatusOr<Timing> TimeCommands(Device& device, const std::function<Status(Scheduler&)>& record);

}  // namespace vkxla
