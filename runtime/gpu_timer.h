// Device time of recorded work, for benchmarks: GPU timestamps around the
// commands (host wall time around the submission where the queue has none),
// or between marks within them (per kernel).
#pragma once

#include <functional>
#include <vector>

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

// Records `record` with a timestamp at the start and one wherever it calls
// `mark` (at most `max_marks` times); returns the seconds between
// consecutive stamps, one per mark. An error on a queue without timestamps.
using MarkFn = std::function<void()>;
StatusOr<std::vector<double>> TimeSegments(Device& device, uint32_t max_marks,
                                           const std::function<Status(Scheduler&, const MarkFn& mark)>& record);

}  // namespace vkxla
