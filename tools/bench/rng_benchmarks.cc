#include "tools/bench/rng_benchmarks.h"

#include <algorithm>

#include "tools/bench/module_timing.h"

namespace vkxla {

Status RunRngBenchmarks(Device& device, const DeviceLimits& limits, BenchReport& report) {
  // 64M u32, or as many as one binding reaches (lavapipe: 128 MiB).
  const int64_t elements =
      std::min<int64_t>(int64_t{64} << 20, static_cast<int64_t>(device.target().max_storage_buffer_range / 4));
  const std::string count = std::to_string(elements >> 20) + "M";
  for (const char* algorithm : {"rng_philox", "rng_three_fry"}) {
    const std::string text = "HloModule rng\nENTRY main {\n  s = u64[2] parameter(0)\n  ROOT r = (u64[2], u32[" +
                             std::to_string(elements) + "]) rng-bit-generator(s), algorithm=" + algorithm + "\n}\n";
    Literal state(Shape(ElementType::kU64, {2}));
    state.Set(0, Scalar::UInt(ElementType::kU64, 0x0123456789abcdefull));
    state.Set(1, Scalar::UInt(ElementType::kU64, 42));
    VKXLA_ASSIGN_OR_RETURN(ModuleTiming m, TimeModuleKernels(device, text, {state}, 5, 2));
    const double gbps = static_cast<double>(elements) * 4 / m.kernels.seconds * 1e-9;
    report.rows.push_back(LimitRow(std::string("rng-bit-generator ") + algorithm + ", " + count + " u32 (" +
                                       std::to_string(m.kernel_count) + " kernels)",
                                   Format("%.1f GB/s", gbps), gbps, BenchLimit::kStream, 0.8,
                                   Format("%.3f ms", m.kernels.seconds * 1e3)));
  }
  return OkStatus();
}

}  // namespace vkxla
