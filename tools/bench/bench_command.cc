#include "tools/bench/bench_command.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "runtime/vulkan_context.h"
#include "tools/bench/foundation_benchmarks.h"
#include "tools/bench/layout_benchmarks.h"
#include "tools/bench/control_flow_benchmarks.h"
#include "tools/bench/fft_benchmarks.h"
#include "tools/bench/rng_benchmarks.h"
#include "tools/bench/linalg_benchmarks.h"
#include "tools/bench/matmul_benchmarks.h"
#include "tools/bench/reduction_benchmarks.h"
#include "tools/cli_flags.h"

namespace vkxla {
namespace {

int Fail(const Status& s) {
  std::fprintf(stderr, "vkxla: error: bench: %s\n", s.message().c_str());
  return 1;
}

std::string Today() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

}  // namespace

int BenchCommand(const std::vector<std::string>& args) {
  int device_index = -1;
  std::string markdown;
  std::string only;  // one group of rows, for a quick look
  uint64_t elements = uint64_t{1} << 24;  // 16M f32 = 64 MiB per array
  for (size_t i = 0; i < args.size(); ++i) {
    auto value = [&]() { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (args[i] == "--device") {
      StatusOr<int64_t> d = IntFlag("--device", value(), 0, 1 << 20);
      if (!d.ok()) return Fail(d.status());
      device_index = static_cast<int>(*d);
    }
    else if (args[i] == "--markdown") markdown = value();
    else if (args[i] == "--only") only = value();
    else if (args[i] == "--elements") {
      StatusOr<int64_t> e = IntFlag("--elements", value(), 1024, int64_t{1} << 32);
      if (!e.ok()) return Fail(e.status());
      elements = static_cast<uint64_t>(*e);
    }
    else return Fail(InvalidArgument("unknown option " + args[i]));
  }
  if (elements < 1024 || elements % 1024 != 0) return Fail(InvalidArgument("--elements must be a multiple of 1024"));
  if (!only.empty() && only != "foundation" && only != "layout" && only != "reduction" && only != "matmul" &&
      only != "control" && only != "fft" && only != "rng" && only != "linalg")
    return Fail(InvalidArgument("--only takes foundation, layout, reduction, matmul, control, fft, rng or linalg, not " + only));
  if (!only.empty() && !markdown.empty()) return Fail(InvalidArgument("--markdown records whole runs; drop --only"));
  StatusOr<std::unique_ptr<Device>> device = Device::Open(device_index);
  if (!device.ok()) return Fail(device.status());
  Device& d = **device;

  BenchReport report;
  report.device = d.info().name;
  std::fprintf(stderr, "measuring device limits on %s...\n", report.device.c_str());
  StatusOr<DeviceLimits> before = MeasureDeviceLimits(d, elements);
  if (!before.ok()) return Fail(before.status());

  std::fprintf(stderr, "running benchmarks...\n");
  auto wanted = [&](const char* group) { return only.empty() || only == group; };
  Status s;
  if (s.ok() && wanted("foundation")) s = RunFoundationBenchmarks(d, *before, elements, report);
  if (s.ok() && wanted("layout")) s = RunLayoutBenchmarks(d, *before, elements, report);
  if (s.ok() && wanted("reduction")) s = RunReductionBenchmarks(d, *before, elements, report);
  if (s.ok() && wanted("matmul")) s = RunMatmulBenchmarks(d, *before, report);
  if (s.ok() && wanted("control")) s = RunControlFlowBenchmarks(d, report);
  if (s.ok() && wanted("fft")) s = RunFftBenchmarks(d, *before, report);
  if (s.ok() && wanted("rng")) s = RunRngBenchmarks(d, *before, report);
  if (s.ok() && wanted("linalg")) s = RunLinalgBenchmarks(d, report);
  if (!s.ok()) return Fail(s);
  std::fprintf(stderr, "measuring device limits again...\n");
  StatusOr<DeviceLimits> after = MeasureDeviceLimits(d, elements);
  if (!after.ok()) return Fail(after.status());
  const DeviceLimits limits = BestOf(*before, *after);
  ApplyLimits(limits, report);

  char limits_line[320];
  std::snprintf(limits_line, sizeof limits_line,
                "Limits (the better of measurements before and after the run): vkCmdCopyBuffer %.1f GB/s; reference stream "
                "kernel %.1f GB/s (local size %u; %.1f before, %.1f after); peak FMA %.1f GFLOP/s.",
                limits.copy_gbps, limits.stream_gbps, limits.stream_local_size, before->stream_gbps, after->stream_gbps,
                limits.fma_gflops);
  report.details = "Driver " + d.info().driver_name + " " + d.info().driver_info + ", Vulkan " +
                   std::to_string(VK_API_VERSION_MAJOR(d.info().api_version)) + "." +
                   std::to_string(VK_API_VERSION_MINOR(d.info().api_version)) + "." +
                   std::to_string(VK_API_VERSION_PATCH(d.info().api_version)) + "; measured " + Today() + " with " +
                   (limits.from_timestamps ? "GPU timestamps" : "host wall time (no timestamps on this queue)") +
                   ".\n" + limits_line;
  std::vector<BenchRow> head;
  head.push_back({"vkCmdCopyBuffer, " + std::to_string(elements * 4 >> 20) + " MiB", Format("%.1f GB/s", limits.copy_gbps), "", 0,
                  0, ""});
  head.push_back({"reference stream kernel c = a + b (vec4)", Format("%.1f GB/s", limits.stream_gbps), "vkCmdCopyBuffer",
                  limits.stream_gbps / limits.copy_gbps, 0, ""});
  head.push_back({"reference peak-FMA kernel (f32 fma chains in registers)", Format("%.1f GFLOP/s", limits.fma_gflops), "", 0, 0,
                  "the compute limit matmul ratios divide by"});
  if (limits.stream_wide_gbps > 0)
    head.push_back({"the same kernel over u64vec2 words", Format("%.1f GB/s", limits.stream_wide_gbps), "reference stream kernel",
                    limits.stream_wide_gbps / limits.stream_gbps, 0, "not a limit: where > 1, wider words pay on this device"});
  report.rows.insert(report.rows.begin(), head.begin(), head.end());
  std::cout << report.Table();
  if (!markdown.empty()) {
    s = MergeIntoMarkdown(markdown, report);
    if (!s.ok()) return Fail(s);
    std::cout << "written to " << markdown << "\n";
  }
  return 0;
}

}  // namespace vkxla
