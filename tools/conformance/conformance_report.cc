#include "tools/conformance/conformance_report.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace vkxla {
namespace {

std::string FirstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  for (char& c : line)
    if (c == '|') c = '/';
  return line;
}

std::string Percent(int part, int whole) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

}  // namespace

std::string SummaryLine(const std::vector<DeviceRun>& runs) {
  int passed = 0, failed = 0, skipped = 0;
  for (const DeviceRun& r : runs)
    for (const CaseResult& c : r.results) {
      passed += c.outcome == Outcome::kPassed;
      failed += c.outcome == Outcome::kFailed;
      skipped += c.outcome == Outcome::kSkipped;
    }
  const int total = passed + failed + skipped;
  return std::to_string(passed) + " passed (" + Percent(passed, total) + "), " + std::to_string(failed) + " failed (" +
         Percent(failed, total) + "), " + std::to_string(skipped) + " skipped (" + Percent(skipped, total) + ") of " +
         std::to_string(total) + " cases";
}

std::string MarkdownReport(const std::vector<ConformanceCase>& cases, const std::vector<DeviceRun>& runs,
                           const std::string& date) {
  std::ostringstream o;
  o << "# vkxla conformance\n\n" << date << ", " << cases.size() << " cases of the StableHLO interpreter's tests.\n\n";
  o << "| device | driver | passed | failed | skipped |\n|---|---|---|---|---|\n";
  for (const DeviceRun& r : runs) {
    int counts[3] = {0, 0, 0};
    for (const CaseResult& c : r.results) ++counts[static_cast<int>(c.outcome)];
    const int total = counts[0] + counts[1] + counts[2];
    o << "| " << r.device << " | " << r.driver << " | " << counts[0] << " (" << Percent(counts[0], total) << ") | "
      << counts[1] << " (" << Percent(counts[1], total) << ") | " << counts[2] << " (" << Percent(counts[2], total)
      << ") |\n";
  }
  o << "\n| op family |";
  for (const DeviceRun& r : runs) o << " " << r.device << " (passed / failed / skipped) |";
  o << "\n|---|";
  for (size_t i = 0; i < runs.size(); ++i) o << "---|";
  o << "\n";
  std::vector<std::string> families;
  for (const ConformanceCase& c : cases)
    if (families.empty() || families.back() != c.family) families.push_back(c.family);
  for (const std::string& family : families) {
    o << "| " << family << " |";
    for (const DeviceRun& r : runs) {
      int p = 0, f = 0, s = 0;
      for (size_t i = 0; i < cases.size(); ++i) {
        if (cases[i].family != family) continue;
        p += r.results[i].outcome == Outcome::kPassed;
        f += r.results[i].outcome == Outcome::kFailed;
        s += r.results[i].outcome == Outcome::kSkipped;
      }
      o << " " << p << " / " << f << " / " << s << " |";
    }
    o << "\n";
  }
  for (const DeviceRun& r : runs) {
    o << "\n## " << r.device << "\n\n### Failed\n\n";
    bool any = false;
    for (size_t i = 0; i < cases.size(); ++i)
      if (r.results[i].outcome == Outcome::kFailed) {
        o << "- `" << cases[i].id() << "`: " << FirstLine(r.results[i].detail) << "\n";
        any = true;
      }
    if (!any) o << "None.\n";
    o << "\n### Skipped (not supported yet)\n\n";
    any = false;
    for (size_t i = 0; i < cases.size(); ++i)
      if (r.results[i].outcome == Outcome::kSkipped) {
        o << "- `" << cases[i].id() << "`: " << FirstLine(r.results[i].detail) << "\n";
        any = true;
      }
    if (!any) o << "None.\n";
  }
  return o.str();
}

std::map<std::string, std::string> ReadExpectations(const std::string& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    out[line.substr(0, tab)] = tab == std::string::npos ? "" : line.substr(tab + 1);
  }
  return out;
}

std::string ExpectationsText(const std::vector<ConformanceCase>& cases, const DeviceRun& run) {
  std::ostringstream o;
  o << "# Conformance cases that may not pass yet, each with the reason (written by\n"
       "# vkxla conformance --write-expectations). CI fails when a case not listed here\n"
       "# fails or is skipped, and when a listed case passes: the list only shrinks.\n";
  for (size_t i = 0; i < cases.size(); ++i)
    if (run.results[i].outcome != Outcome::kPassed)
      o << cases[i].id() << "\t" << (run.results[i].outcome == Outcome::kFailed ? "FAILS: " : "") << FirstLine(run.results[i].detail) << "\n";
  return o.str();
}

std::vector<std::string> CheckExpectations(const std::vector<ConformanceCase>& cases, const DeviceRun& run,
                                           const std::map<std::string, std::string>& expected) {
  std::vector<std::string> problems;
  for (size_t i = 0; i < cases.size(); ++i) {
    const bool listed = expected.count(cases[i].id()) > 0;
    const CaseResult& r = run.results[i];
    if (r.outcome != Outcome::kPassed && !listed)
      problems.push_back(cases[i].id() + " " + (r.outcome == Outcome::kFailed ? "failed" : "was skipped") +
                         " and is not in the expectations: " + FirstLine(r.detail));
    if (r.outcome == Outcome::kPassed && listed)
      problems.push_back(cases[i].id() + " passes now; remove it from the expectations");
  }
  return problems;
}

}  // namespace vkxla
