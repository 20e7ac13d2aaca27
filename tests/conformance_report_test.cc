// The conformance report people read: percentages that show the skips, the
// device and driver and date in the header, the per-family table.
#include <gtest/gtest.h>

#include "tools/conformance/conformance_html.h"
#include "tools/conformance/conformance_report.h"
#include "tools/svg_chart.h"

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

TEST(ConformanceReport, HtmlMatrixColoursCellsByOutcomeAndUlp) {
  std::vector<ConformanceCase> cases(3);
  cases[0].family = "add";
  cases[1].family = "cosine";
  cases[2].family = "sort";
  DeviceRun a{"gpu <A>", "driver 1", {{Outcome::kPassed, "", 0}, {Outcome::kPassed, "", 3}, {Outcome::kFailed, "x & y", 0}}};
  DeviceRun b{"cpu", "driver 2", {{Outcome::kPassed, "", 0}, {Outcome::kSkipped, "why", 0}, {Outcome::kPassed, "", 0.5}}};
  const std::string html = HtmlReport(cases, {a, b}, "2026-11-24");
  EXPECT_NE(html.find("<th>gpu &lt;A&gt;</th>"), std::string::npos);  // escaped
  EXPECT_NE(html.find("background:#2e7d32\" title=\"\">1 / 0 / 0 · exact</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("background:#c0ca33\" title=\"\">1 / 0 / 0 · 3 ULP</td>"), std::string::npos) << html;
  const size_t failed_cell = html.find("background:#e53935");
  ASSERT_NE(failed_cell, std::string::npos) << html;
  EXPECT_NE(html.find("x &amp; y", failed_cell), std::string::npos) << html;  // the failure, escaped, as the tooltip
  EXPECT_NE(html.find("background:#bdbdbd\" title=\"\">0 / 0 / 1</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("background:#66bb6a\" title=\"\">1 / 0 / 0 · 0.5 ULP</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<svg"), std::string::npos);
}

TEST(SvgChart, RatioBarsMarkTargetsAndShortfalls) {
  const std::string svg = RatioBarChart("ratios", {{"copy <fast>", 0.9, 0.8, "0.90"}, {"sort", 0.2, 1.0, "0.20"}});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("copy &lt;fast&gt;"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#4f81bd\""), std::string::npos);  // met its target
  EXPECT_NE(svg.find("fill=\"#e57373\""), std::string::npos);  // short of it
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

}  // namespace
}  // namespace vkxla
