// The foundation figures: a fused 8-op elementwise kernel against the
// device limits, the cost of one dispatch inside a recorded command buffer,
// and kernel compile time cold and from the disk cache.
#pragma once

#include "runtime/device.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/device_limits.h"

namespace vkxla {

Status RunFoundationBenchmarks(Device& device, const DeviceLimits& limits, uint64_t elements, BenchReport& report);

}  // namespace vkxla
