// The results of one `vkxla bench` run on one device, printed as a table and
// merged into BENCHMARKS.md: each device has its own section, and a run
// replaces only its device's section, so figures from several machines
// (lavapipe in CI, a desktop GPU) sit side by side.
#pragma once

#include <string>
#include <vector>

#include "vkxla/status.h"

namespace vkxla {

// printf of one number: Format("%.1f GB/s", 9.2).
std::string Format(const char* fmt, double v);

// The device limits a row may divide by (tools/bench/device_limits.h).
enum class BenchLimit { kNone, kCopy, kStream, kFma };

struct BenchRow {
  std::string name;    // "fused 8-op elementwise, 16M f32"
  std::string result;  // "41.2 GB/s"
  std::string limit;   // what the ratio divides by: "reference stream kernel 45.0 GB/s"
  double ratio = 0;    // result / limit (0: no ratio)
  double target = 0;   // the ratio the project aims for (0: none)
  std::string note;
  // Rows against a device limit keep their measured value (in the limit's
  // unit); limit text and ratio are filled in once the run's limits are
  // final (ApplyLimits).
  BenchLimit against = BenchLimit::kNone;
  double value = 0;
};

// A row whose ratio divides `value` (GB/s or GFLOP/s) by a device limit.
BenchRow LimitRow(std::string name, std::string result, double value, BenchLimit against, double target,
                  std::string note = "");

struct BenchReport {
  std::string device;   // device name, the section heading
  std::string details;  // driver, API version, timing source, date
  std::vector<BenchRow> rows;

  std::string Table() const;            // for the terminal
  std::string MarkdownSection() const;  // "## device\n..." with a table
};

// Writes `report` into the markdown file at `path`, replacing the section of
// the same device if there is one and keeping every other section.
Status MergeIntoMarkdown(const std::string& path, const BenchReport& report);

// The rows with a ratio of every device section of such a file, for
// charting recorded figures (`vkxla bench --chart-from BENCHMARKS.md`).
struct RecordedRatio {
  std::string device, name;
  double ratio = 0, target = 0;  // target 0: none
};
StatusOr<std::vector<RecordedRatio>> ReadRecordedRatios(const std::string& path);

}  // namespace vkxla
