// Collective rows: an all-reduce (add) of 64 MiB of f32 over 4 replicas on
// one device (processes sharing its queue), as bus bandwidth in
// nccl-tests' sense (bytes / time × 2(n-1)/n) against the copy kernel.
#pragma once

#include "runtime/device.h"
#include "tools/bench/bench_report.h"

namespace vkxla {

Status RunCollectiveBenchmarks(Device& device, BenchReport& report);

}  // namespace vkxla
