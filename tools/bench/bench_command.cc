#include "tools/bench/bench_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>

#include "runtime/vulkan_context.h"
#include "tools/bench/foundation_benchmarks.h"
#include "tools/bench/layout_benchmarks.h"
#include "tools/bench/control_flow_benchmarks.h"
#include "tools/bench/fft_benchmarks.h"
#include "tools/bench/rng_benchmarks.h"
#include "tools/bench/conv_benchmarks.h"
#include "tools/bench/collective_benchmarks.h"
#include "tools/bench/dispatch_benchmarks.h"
#include "tools/bench/linalg_benchmarks.h"
#include "tools/bench/matmul_benchmarks.h"
#include "tools/bench/reduction_benchmarks.h"
#include "ir/numbers.h"
#include "tools/cli_flags.h"
#include "tools/report_date.h"
#include "tools/svg_chart.h"
#include "tools/text_file.h"

namespace vkxla {
namespace {

struct BenchOptions {
  int device = -1;
  std::string markdown;
  std::string svg;
  std::string chart_from;  // chart recorded figures instead of measuring
  std::string only;                       // one group of rows, for a quick look
  std::string samples = "samples";        // where the model samples are
  uint64_t elements = uint64_t{1} << 24;  // 16M f32 = 64 MiB per array
};

// The chart of the figures a markdown file records, one bar per row with a
// ratio (the device's name leads each label when the file has several).
Status ChartRecorded(const BenchOptions& o) {
  VKXLA_ASSIGN_OR_RETURN(std::vector<RecordedRatio> recorded, ReadRecordedRatios(o.chart_from));
  const bool several = std::any_of(recorded.begin(), recorded.end(),
                                   [&](const RecordedRatio& r) { return r.device != recorded[0].device; });
  std::vector<BarRow> bars;
  for (const RecordedRatio& r : recorded)
    bars.push_back({several ? r.device + ": " + r.name : r.name, r.ratio, r.target, Format("%.2f", r.ratio)});
  VKXLA_RETURN_IF_ERROR(WriteTextFile(
      o.svg, RatioBarChart("vkxla bench, as recorded in " + o.chart_from +
                               (several ? "" : " for " + recorded[0].device) + ": ratio to the device's limit",
                           bars)));
  std::cout << "chart of " << bars.size() << " recorded rows written to " << o.svg << "\n";
  return OkStatus();
}

Status RunBench(const BenchOptions& o) {
  if (!o.chart_from.empty()) return ChartRecorded(o);
  const std::string& only = o.only;
  const std::string& markdown = o.markdown;
  const uint64_t elements = o.elements;
  const int device_index = o.device;
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Device> device, Device::Open(device_index));
  Device& d = *device;

  BenchReport report;
  report.device = d.info().name;
  std::fprintf(stderr, "measuring device limits on %s...\n", report.device.c_str());
  VKXLA_ASSIGN_OR_RETURN(const DeviceLimits before, MeasureDeviceLimits(d, elements));

  // Each group in turn, with progress on stderr: a whole run takes minutes.
  const std::vector<std::pair<std::string, std::function<Status()>>> groups = {
      {"foundation", [&] { return RunFoundationBenchmarks(d, before, elements, report); }},
      {"layout", [&] { return RunLayoutBenchmarks(d, before, elements, report); }},
      {"reduction", [&] { return RunReductionBenchmarks(d, before, elements, report); }},
      {"matmul", [&] { return RunMatmulBenchmarks(d, before, report); }},
      {"control", [&] { return RunControlFlowBenchmarks(d, report); }},
      {"fft", [&] { return RunFftBenchmarks(d, before, report); }},
      {"rng", [&] { return RunRngBenchmarks(d, before, report); }},
      {"linalg", [&] { return RunLinalgBenchmarks(d, report); }},
      {"conv", [&] { return RunConvBenchmarks(d, o.samples, report); }},
      {"collective", [&] { return RunCollectiveBenchmarks(d, report); }},
      {"dispatch", [&] { return RunDispatchBenchmarks(d, report); }},
  };
  const size_t selected = only.empty() ? groups.size() : 1;
  size_t done = 0;
  Status s;
  for (const auto& [name, run] : groups) {
    if (!only.empty() && only != name) continue;
    const size_t rows_before = report.rows.size();
    const auto start = std::chrono::steady_clock::now();
    std::fprintf(stderr, "[%zu/%zu] %s benchmarks...\n", ++done, selected, name.c_str());
    s = run();
    if (!s.ok()) break;
    std::fprintf(stderr, "[%zu/%zu] %s: %zu rows in %.0f s\n", done, selected, name.c_str(), report.rows.size() - rows_before,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  VKXLA_RETURN_IF_ERROR(s);
  std::fprintf(stderr, "measuring device limits again...\n");
  VKXLA_ASSIGN_OR_RETURN(const DeviceLimits after, MeasureDeviceLimits(d, elements));
  const DeviceLimits limits = BestOf(before, after);
  ApplyLimits(limits, report);

  char limits_line[320];
  std::snprintf(limits_line, sizeof limits_line,
                "Limits (the better of measurements before and after the run): vkCmdCopyBuffer %.1f GB/s; reference stream "
                "kernel %.1f GB/s (local size %u; %.1f before, %.1f after); peak FMA %.1f GFLOP/s.",
                limits.copy_gbps, limits.stream_gbps, limits.stream_local_size, before.stream_gbps, after.stream_gbps,
                limits.fma_gflops);
  report.details = "Driver " + d.info().driver_name + " " + d.info().driver_info + ", Vulkan " +
                   VulkanVersionString(d.info().api_version) + "; measured " + TodayUtc() + " with " +
                   (limits.from_timestamps ? "GPU timestamps" : "host wall time (no timestamps on this queue)") +
                   ".\n" + limits_line;
  std::vector<BenchRow> head;
  head.push_back({"vkCmdCopyBuffer, " + std::to_string(elements * 4 >> 20) + " MiB", Format("%.1f GB/s", limits.copy_gbps), "", 0,
                  0, ""});
  head.push_back({"reference stream kernel c = a + b (vec4)", Format("%.1f GB/s", limits.stream_gbps), "vkCmdCopyBuffer",
                  limits.stream_gbps / limits.copy_gbps, 0,
                  limits.stream_texel ? Format("inputs read as texel buffers; from storage buffers %.1f GB/s", limits.stream_storage_gbps)
                                      : std::string()});
  head.push_back({"reference peak-FMA kernel (f32 fma chains in registers)", Format("%.1f GFLOP/s", limits.fma_gflops), "", 0, 0,
                  "the compute limit matmul ratios divide by"});
  if (limits.stream_wide_gbps > 0)
    head.push_back({"the same kernel over u64vec2 words (storage buffers)", Format("%.1f GB/s", limits.stream_wide_gbps),
                    "reference stream kernel", limits.stream_wide_gbps / limits.stream_gbps, 0,
                    "not a limit: where above the storage-buffer figure, wider words pay on this device"});
  report.rows.insert(report.rows.begin(), head.begin(), head.end());
  std::cout << report.Table();
  if (!markdown.empty()) {
    VKXLA_RETURN_IF_ERROR(MergeIntoMarkdown(markdown, report));
    std::cout << "written to " << markdown << "\n";
  }
  if (!o.svg.empty()) {
    std::vector<BarRow> bars;
    for (const BenchRow& r : report.rows)
      if (r.ratio > 0) bars.push_back({r.name, r.ratio, r.target, Format("%.2f", r.ratio)});
    VKXLA_RETURN_IF_ERROR(WriteTextFile(
        o.svg, RatioBarChart("vkxla bench on " + report.device + " (" + TodayUtc() + "): ratio to the device's limit", bars)));
    std::cout << "chart written to " << o.svg << "\n";
  }
  return OkStatus();
}

}  // namespace

void AddBenchCommand(CLI::App& app, int& exit_code) {
  CLI::App* command = AddCommand(app, "bench", "Measure the device's limits, then every benchmark as a ratio to them");
  auto o = std::make_shared<BenchOptions>();
  AddDeviceOption(*command, o->device);
  CLI::Option* markdown =
      command->add_option("--markdown", o->markdown, "merge the table into this file (BENCHMARKS.md), per device");
  CLI::Option* svg = command->add_option("--svg", o->svg, "write a bar chart of the ratios to the device's limits (SVG)");
  command->add_option("--chart-from", o->chart_from, "chart the figures FILE (BENCHMARKS.md) records instead of measuring")
      ->needs(svg)
      ->excludes(markdown);
  command->add_option("--only", o->only, "one group of rows")
      ->check(CLI::IsMember({"foundation", "layout", "reduction", "matmul", "control", "fft", "rng", "linalg", "conv", "collective", "dispatch"}))
      ->excludes(markdown);
  command->add_option("--samples", o->samples, "the directory with samples/mobilenet_v2_224_parameters.hlo")
      ->capture_default_str();
  command->add_option("--elements", o->elements, "elements per array of the streaming benchmarks (a multiple of 1024)")
      ->check(CLI::Range(uint64_t{1024}, uint64_t{1} << 32))
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            const std::optional<uint64_t> n = ParseUint64(v);
            return n && *n % 1024 == 0 ? "" : "--elements must be a multiple of 1024, not " + v;
          },
          "MULTIPLE OF 1024"))
      ->capture_default_str();
  command->callback([o, &exit_code] {
    const Status s = RunBench(*o);
    exit_code = s.ok() ? kExitOk : ReportError("bench", s);
  });
}

}  // namespace vkxla
