// Matrix products against the device's peak-FMA kernel: f32 at 256^3,
// 1024^3 and 4096^3, f16, bf16 and s8 -> s32 operands, a matrix-vector
// product, a batch of small products, and relu(x.W + b) next to the bare
// product (the fused epilogue's cost).
#pragma once

#include "runtime/device.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/device_limits.h"

namespace vkxla {

Status RunMatmulBenchmarks(Device& device, const DeviceLimits& limits, BenchReport& report);

}  // namespace vkxla
