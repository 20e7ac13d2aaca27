// Dispatch overhead: a chain of 1,000 small kernels (8x8 matmuls, each
// reading the last one's result), as dispatches per second, against the
// same number of dispatches of a trivial kernel with a barrier between
// each, recorded by hand in the same run (the device's own limit for a
// dependent chain).
#pragma once

#include "runtime/device.h"
#include "tools/bench/bench_report.h"

namespace vkxla {

Status RunDispatchBenchmarks(Device& device, BenchReport& report);

}  // namespace vkxla
