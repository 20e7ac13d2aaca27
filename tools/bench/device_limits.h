// The bandwidth limits every benchmark divides by, measured on the device in
// the same run: vkCmdCopyBuffer, and the reference streaming kernel
// (c = a + b over vec4 at the best of three local sizes).
#pragma once

#include <functional>

#include "runtime/device.h"
#include "runtime/gpu_timer.h"
#include "tools/bench/bench_report.h"

namespace vkxla {

struct DeviceLimits {
  double copy_gbps = 0;
  double stream_gbps = 0;      // reference kernel, bytes read + written: the better of its storage and texel reads
  uint32_t stream_local_size = 0;
  double stream_storage_gbps = 0;  // its inputs read from storage buffers
  // Where the device reads vectors through texel buffers
  // (TargetFeatures::max_texel_buffer_elements), the reference reading its
  // inputs so too, when that was the faster.
  bool stream_texel = false;
  // The same kernel over u64vec2 words (devices with 64-bit integers): on a
  // CPU driver, which moves each component separately, fewer and wider
  // words go faster, so vkxla's kernels use them there and may beat the
  // vec4 reference. Reported beside it, not divided by; 0 where not run.
  double stream_wide_gbps = 0;
  // The device's own f32 compute limit: a kernel of independent fma chains
  // in registers (the best of a few shapes), in GFLOP/s (an fma is 2).
  double fma_gflops = 0;
  bool from_timestamps = false;
};

// The fastest of `trials` timings of `measure` after one warm-up call.
StatusOr<Timing> BestTiming(int trials, const std::function<StatusOr<Timing>()>& measure);

// Measured over arrays of `elements` f32.
StatusOr<DeviceLimits> MeasureDeviceLimits(Device& device, uint64_t elements);
// The peak-FMA reference alone (MeasureDeviceLimits includes it).
StatusOr<double> MeasurePeakFma(Device& device);
// The better of two measurements of each limit: interference from other
// work only slows a measurement, so limits taken before and after a run
// bound the device better than either.
DeviceLimits BestOf(const DeviceLimits& a, const DeviceLimits& b);
// Fills in the limit text and ratio of every row measured against a limit.
void ApplyLimits(const DeviceLimits& limits, BenchReport& report);

}  // namespace vkxla
