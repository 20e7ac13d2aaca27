// Relayout: an N x N f32 array from {1,0} to {0,1:T(8,128)} and back, as a
// copy between layouts, against the reference stream kernel.
#pragma once

#include "runtime/device.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/device_limits.h"

namespace vkxla {

Status RunLayoutBenchmarks(Device& device, const DeviceLimits& limits, uint64_t elements, BenchReport& report);

}  // namespace vkxla
