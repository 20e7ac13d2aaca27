// RngBitGenerator rows: 64M u32 of random bits from each algorithm, the
// bytes written per second against the stream kernel (target >= 0.8: the
// rounds hide under the stores).
#pragma once

#include "runtime/device.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/device_limits.h"

namespace vkxla {

Status RunRngBenchmarks(Device& device, const DeviceLimits& limits, BenchReport& report);

}  // namespace vkxla
