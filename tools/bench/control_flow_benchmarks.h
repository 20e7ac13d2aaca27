// Control-flow rows: a counted While of 10,000 trips with a small body
// (time per trip against one run of the body's own dispatches: no host
// round trip per trip), the same loop when its trip count is not known
// (the predicate read back each trip), and a 1,000-step While +
// DynamicUpdateSlice scan against the same work as one Scan op.
#pragma once

#include "runtime/device.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/device_limits.h"

namespace vkxla {

Status RunControlFlowBenchmarks(Device& device, BenchReport& report);

}  // namespace vkxla
