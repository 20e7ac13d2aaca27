// Cholesky and TriangularSolve rows: n = 2048 f32, the useful flops per
// second (n^3/3 for Cholesky, n^3 for a solve with n right-hand sides)
// against a matmul of the same flops timed in the same run (target >= 0.5:
// the blocked algorithms are mostly matmul).
#pragma once

#include "runtime/device.h"
#include "tools/bench/bench_report.h"

namespace vkxla {

Status RunLinalgBenchmarks(Device& device, BenchReport& report);

}  // namespace vkxla
