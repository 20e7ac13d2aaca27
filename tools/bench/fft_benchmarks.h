// Fft rows: the time of vkxla's Fft (the VkFFT step with what the plan puts
// around it) against VkFFT's own plan of the same transform called
// directly in the same run (target: ratio >= 0.95, i.e. at most 5% over
// raw VkFFT), and the bytes a transform moves against the stream kernel.
#pragma once

#include "runtime/device.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/device_limits.h"

namespace vkxla {

Status RunFftBenchmarks(Device& device, const DeviceLimits& limits, BenchReport& report);

}  // namespace vkxla
