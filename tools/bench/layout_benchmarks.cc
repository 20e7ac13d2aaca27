#include "tools/bench/layout_benchmarks.h"

#include <cmath>
#include <cstdio>

#include "tools/bench/module_timing.h"

namespace vkxla {
namespace {

// y = op(x) on an f32[n,n] array: "copy" between layouts, or a transpose.
std::string MoveModule(int64_t n, const std::string& from, const std::string& to, const std::string& op) {
  const std::string s = "f32[" + std::to_string(n) + "," + std::to_string(n) + "]";
  return "HloModule move\n\nENTRY main {\n  x = " + s + from + " parameter(0)\n  ROOT y = " + s + to + " " + op +
         "(x)" + (op == "transpose" ? ", dimensions={1,0}" : "") + "\n}\n";
}

}  // namespace

Status RunLayoutBenchmarks(Device& device, const DeviceLimits& limits, uint64_t elements, BenchReport& report) {
  const int64_t n = std::max<int64_t>(128, static_cast<int64_t>(std::sqrt(static_cast<double>(elements))) / 128 * 128);
  const std::string tiled = "{0,1:T(8,128)}", row_major = "{1,0}";
  Shape row(ElementType::kF32, {n, n});
  std::vector<Literal> args = {RandomBenchLiteral(row, 3)};
  struct Case {
    std::string from, to, op;
  };
  for (const Case& c : {Case{row_major, tiled, "copy"}, Case{tiled, row_major, "copy"}, Case{row_major, row_major, "transpose"}}) {
    VKXLA_ASSIGN_OR_RETURN(ModuleTiming m, TimeModuleKernels(device, MoveModule(n, c.from, c.to, c.op), args));
    const double gbps = 2.0 * n * n * 4 / m.kernels.seconds * 1e-9;
    char name[128], result[64];
    if (c.op == "copy")
      std::snprintf(name, sizeof name, "relayout f32[%lld,%lld]%s → %s", static_cast<long long>(n),
                    static_cast<long long>(n), c.from.c_str(), c.to.c_str());
    else
      std::snprintf(name, sizeof name, "transpose f32[%lld,%lld]{1,0} → {1,0}", static_cast<long long>(n),
                    static_cast<long long>(n));
    std::snprintf(result, sizeof result, "%.1f GB/s", gbps);
    report.rows.push_back(LimitRow(name, result, gbps, BenchLimit::kStream, 0.8));
  }
  return OkStatus();
}

}  // namespace vkxla
