#include "tools/conformance/conformance_html.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "tools/svg_chart.h"

namespace vkxla {
namespace {

constexpr const char* kPassedColour = "#43a047";
constexpr const char* kFailedColour = "#e53935";
constexpr const char* kSkippedColour = "#bdbdbd";

struct Cell {
  int passed = 0, failed = 0, skipped = 0;
  double max_ulp = 0;
};

// Green when exact, through yellow to orange as the largest ULP distance grows.
const char* UlpColour(double ulp) {
  if (ulp == 0) return "#2e7d32";
  if (ulp <= 1) return "#66bb6a";
  if (ulp <= 4) return "#c0ca33";
  if (ulp <= 64) return "#ffb300";
  return "#fb8c00";
}

std::string CellColour(const Cell& c) {
  if (c.failed > 0) return kFailedColour;
  if (c.passed == 0) return kSkippedColour;
  return UlpColour(c.max_ulp);
}

std::string UlpText(double ulp) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ulp == 0 ? "exact" : "%.3g ULP", ulp);
  return buf;
}

}  // namespace

std::string HtmlReport(const std::vector<ConformanceCase>& cases, const std::vector<DeviceRun>& runs,
                       const std::string& date) {
  std::vector<std::string> families;
  for (const ConformanceCase& c : cases)
    if (std::find(families.begin(), families.end(), c.family) == families.end()) families.push_back(c.family);
  std::vector<StackedRow> summary;
  for (const DeviceRun& r : runs) {
    Cell total;
    for (const CaseResult& c : r.results) {
      total.passed += c.outcome == Outcome::kPassed;
      total.failed += c.outcome == Outcome::kFailed;
      total.skipped += c.outcome == Outcome::kSkipped;
    }
    summary.push_back({r.device,
                       {{total.passed, kPassedColour}, {total.failed, kFailedColour}, {total.skipped, kSkippedColour}},
                       std::to_string(total.passed) + " / " + std::to_string(total.failed) + " / " +
                           std::to_string(total.skipped)});
  }
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>vkxla conformance " << EscapeXml(date)
    << "</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
       "td,th{border:1px solid #ccc;padding:2px 8px;font-size:13px}td.c{color:white;text-align:center}"
       "th{background:#f5f5f5}</style></head><body>\n"
    << "<h1>vkxla conformance</h1>\n<p>" << EscapeXml(date) << ", " << cases.size()
    << " cases of the StableHLO interpreter's tests on " << runs.size() << " device(s).</p>\n<ul>\n";
  for (const DeviceRun& r : runs) o << "<li>" << EscapeXml(r.device) << ": " << EscapeXml(r.driver) << " — " << EscapeXml(SummaryLine({r})) << "</li>\n";
  o << "</ul>\n"
    << StackedBarChart("passed / failed / skipped per device", summary,
                       {{"passed", kPassedColour}, {"failed", kFailedColour}, {"skipped", kSkippedColour}})
    << "<p>Cells: passed / failed / skipped, and the largest ULP distance of the passed cases. Colours: "
    << "<span style=\"color:" << UlpColour(0) << "\">exact</span>, <span style=\"color:" << UlpColour(1)
    << "\">≤ 1 ULP</span>, <span style=\"color:" << UlpColour(4) << "\">≤ 4</span>, <span style=\"color:"
    << UlpColour(64) << "\">≤ 64</span>, <span style=\"color:" << UlpColour(65) << "\">more</span>, "
    << "<span style=\"color:" << kFailedColour << "\">a failure</span>, <span style=\"color:" << kSkippedColour
    << "\">all skipped</span>.</p>\n<table>\n<tr><th>op family</th>";
  for (const DeviceRun& r : runs) o << "<th>" << EscapeXml(r.device) << "</th>";
  o << "</tr>\n";
  for (const std::string& family : families) {
    o << "<tr><td>" << EscapeXml(family) << "</td>";
    for (const DeviceRun& r : runs) {
      Cell cell;
      std::string failures;
      for (size_t i = 0; i < cases.size(); ++i) {
        if (cases[i].family != family) continue;
        const CaseResult& c = r.results[i];
        cell.passed += c.outcome == Outcome::kPassed;
        cell.skipped += c.outcome == Outcome::kSkipped;
        if (c.outcome == Outcome::kFailed) {
          ++cell.failed;
          failures += cases[i].id() + ": " + c.detail.substr(0, c.detail.find('\n')) + "\n";
        }
        if (c.outcome == Outcome::kPassed) cell.max_ulp = std::max(cell.max_ulp, c.max_ulp);
      }
      o << "<td class=\"c\" style=\"background:" << CellColour(cell) << "\" title=\"" << EscapeXml(failures) << "\">"
        << cell.passed << " / " << cell.failed << " / " << cell.skipped
        << (cell.passed > 0 ? " · " + UlpText(cell.max_ulp) : "") << "</td>";
    }
    o << "</tr>\n";
  }
  o << "</table>\n</body></html>\n";
  return o.str();
}

}  // namespace vkxla
