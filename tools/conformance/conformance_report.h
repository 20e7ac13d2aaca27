// The conformance results of one or more devices: the closing summary, the
// markdown report (op family x device: passed, failed, skipped; then every
// failure with its first mismatch and every skip with its reason), and the
// expectations file (case -> why it may not pass) that CI holds runs to.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tools/conformance/conformance_case.h"

namespace vkxla {

struct DeviceRun {
  std::string device;
  std::string driver;               // driver name and version, for the report's header
  std::vector<CaseResult> results;  // parallel to the cases
};

// "460 passed (88.0%), 0 failed (0.0%), 63 skipped (12.0%) of 523 cases".
std::string SummaryLine(const std::vector<DeviceRun>& runs);
// `date` is the run's day (YYYY-MM-DD), written in the header with each
// device and driver.
std::string MarkdownReport(const std::vector<ConformanceCase>& cases, const std::vector<DeviceRun>& runs,
                           const std::string& date);

// "file.mlir:case<TAB>reason" lines; '#' starts a comment.
std::map<std::string, std::string> ReadExpectations(const std::string& path);
std::string ExpectationsText(const std::vector<ConformanceCase>& cases, const DeviceRun& run);
// Cases that fail or skip without being listed, and listed cases that now
// pass (the list only shrinks); empty when the run meets the expectations.
std::vector<std::string> CheckExpectations(const std::vector<ConformanceCase>& cases, const DeviceRun& run,
                                           const std::map<std::string, std::string>& expected);

}  // namespace vkxla
