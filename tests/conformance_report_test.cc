// The conformance report people read: percentages that show the skips, the
// device and driver and date in the header, the per-family table.
#include <gtest/gtest.h>

#include "tools/conformance/conformance_report.h"

namespace vkxla {
namespace {

TEST(ConformanceReport, SummaryAndHeaderShowSkipsAsPercentages) {
  std::vector<ConformanceCase> cases(4);
  cases[0].family = cases[1].family = "add";
  cases[2].family = cases[3].family = "sort";
  DeviceRun run;
  run.device = "llvmpipe";
  run.driver = "llvmpipe Mesa 22.3.6";
  run.results = {{Outcome::kPassed, ""}, {Outcome::kPassed, ""}, {Outcome::kFailed, "bad\nmore"}, {Outcome::kSkipped, "why"}};
  EXPECT_EQ(SummaryLine({run}), "2 passed (50.0%), 1 failed (25.0%), 1 skipped (25.0%) of 4 cases");
  const std::string report = MarkdownReport(cases, {run}, "2026-11-24");
  EXPECT_NE(report.find("2026-11-24, 4 cases"), std::string::npos) << report;
  EXPECT_NE(report.find("| llvmpipe | llvmpipe Mesa 22.3.6 | 2 (50.0%) | 1 (25.0%) | 1 (25.0%) |"), std::string::npos)
      << report;
  EXPECT_NE(report.find("| add | 2 / 0 / 0 |"), std::string::npos) << report;
  EXPECT_NE(report.find("| sort | 0 / 1 / 1 |"), std::string::npos) << report;
  EXPECT_EQ(SummaryLine({}), "0 passed (0.0%), 0 failed (0.0%), 0 skipped (0.0%) of 0 cases");
}

}  // namespace
}  // namespace vkxla
