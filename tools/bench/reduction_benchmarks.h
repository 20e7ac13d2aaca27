// Row and column sums of an N x N f32 array against the reference stream
// kernel, and a sort of 1M f32 keys with an s32 payload next to
// std::stable_sort of the same pairs on the host.
#pragma once

#include "runtime/device.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/device_limits.h"

namespace vkxla {

Status RunReductionBenchmarks(Device& device, const DeviceLimits& limits, uint64_t elements, BenchReport& report);

}  // namespace vkxla
