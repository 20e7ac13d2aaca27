// Charts people can look at, as standalone SVG: a few rectangles and text,
// written directly (Debian packages no C++ SVG writer worth a dependency).
#pragma once

#include <string>
#include <vector>

namespace vkxla {

// One bar: `value` against a scale; a tick at `target` when it is > 0.
struct BarRow {
  std::string label;
  double value = 0;
  double target = 0;
  std::string value_text;  // printed after the bar
};
// Horizontal bars scaled to the larger of 1 and the largest value or
// target, with a dashed line at 1.0 (a ratio's "at the limit").
std::string RatioBarChart(const std::string& title, const std::vector<BarRow>& rows);

// One bar of parts laid end to end (counts), each with its colour.
struct StackedRow {
  std::string label;
  std::vector<std::pair<double, std::string>> parts;  // (amount, CSS colour)
  std::string text;
};
std::string StackedBarChart(const std::string& title, const std::vector<StackedRow>& rows,
                            const std::vector<std::pair<std::string, std::string>>& legend);

// Text made safe inside XML and HTML.
std::string EscapeXml(const std::string& text);

}  // namespace vkxla
