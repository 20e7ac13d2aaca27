#include "tools/svg_chart.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace vkxla {
namespace {

constexpr int kLabelWidth = 420, kBarWidth = 420, kRowHeight = 22, kTop = 40, kTextWidth = 160;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Labels end at the bars; a long one keeps its start and loses its end so
// it stays inside the picture (about 6.5 px per character at 12 px).
std::string FitLabel(const std::string& label) {
  constexpr size_t kMaxChars = (kLabelWidth - 16) * 2 / 13;
  if (label.size() <= kMaxChars) return label;
  size_t cut = kMaxChars - 3;
  while (cut > 0 && (static_cast<unsigned char>(label[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return label.substr(0, cut) + "...";
}

void Header(int rows, const std::string& title, std::ostringstream& o) {
  const int width = kLabelWidth + kBarWidth + kTextWidth, height = kTop + rows * kRowHeight + 30;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">" << EscapeXml(title) << "</text>\n";
}

}  // namespace

std::string EscapeXml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string RatioBarChart(const std::string& title, const std::vector<BarRow>& rows) {
  std::ostringstream o;
  Header(static_cast<int>(rows.size()), title, o);
  double scale = 1;
  for (const BarRow& r : rows) scale = std::max({scale, r.value, r.target});
  auto x = [&](double v) { return kLabelWidth + kBarWidth * std::clamp(v, 0.0, scale) / scale; };
  for (size_t i = 0; i < rows.size(); ++i) {
    const BarRow& r = rows[i];
    const int y = kTop + static_cast<int>(i) * kRowHeight;
    const bool short_of_target = r.target > 0 && r.value < r.target;
    o << "<text x=\"" << kLabelWidth - 6 << "\" y=\"" << y + 15 << "\" text-anchor=\"end\">" << EscapeXml(FitLabel(r.label))
      << "</text>\n"
      << "<rect x=\"" << kLabelWidth << "\" y=\"" << y + 3 << "\" width=\"" << Num(x(r.value) - kLabelWidth)
      << "\" height=\"" << kRowHeight - 6 << "\" fill=\"" << (short_of_target ? "#e57373" : "#4f81bd") << "\"/>\n";
    if (r.target > 0)
      o << "<line x1=\"" << Num(x(r.target)) << "\" x2=\"" << Num(x(r.target)) << "\" y1=\"" << y + 1 << "\" y2=\""
        << y + kRowHeight - 1 << "\" stroke=\"black\" stroke-width=\"2\"/>\n";
    o << "<text x=\"" << Num(x(r.value) + 4) << "\" y=\"" << y + 15 << "\">" << EscapeXml(r.value_text) << "</text>\n";
  }
  const int bottom = kTop + static_cast<int>(rows.size()) * kRowHeight;
  o << "<line x1=\"" << Num(x(1)) << "\" x2=\"" << Num(x(1)) << "\" y1=\"" << kTop - 4 << "\" y2=\"" << bottom
    << "\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n"
    << "<text x=\"" << Num(x(1)) << "\" y=\"" << bottom + 16 << "\" text-anchor=\"middle\">1.0</text>\n"
    << "<text x=\"" << kLabelWidth << "\" y=\"" << bottom + 16 << "\">0</text>\n"
    << "<text x=\"10\" y=\"" << bottom + 16 << "\" fill=\"#555\">black tick: target; red: short of it</text>\n"
    << "</svg>\n";
  return o.str();
}

std::string StackedBarChart(const std::string& title, const std::vector<StackedRow>& rows,
                            const std::vector<std::pair<std::string, std::string>>& legend) {
  std::ostringstream o;
  Header(static_cast<int>(rows.size()), title, o);
  for (size_t i = 0; i < rows.size(); ++i) {
    const StackedRow& r = rows[i];
    const int y = kTop + static_cast<int>(i) * kRowHeight;
    double total = 0;
    for (const auto& part : r.parts) total += part.first;
    o << "<text x=\"" << kLabelWidth - 6 << "\" y=\"" << y + 15 << "\" text-anchor=\"end\">" << EscapeXml(FitLabel(r.label))
      << "</text>\n";
    double at = kLabelWidth;
    for (const auto& [amount, colour] : r.parts) {
      const double w = total > 0 ? kBarWidth * amount / total : 0;
      o << "<rect x=\"" << Num(at) << "\" y=\"" << y + 3 << "\" width=\"" << Num(w) << "\" height=\"" << kRowHeight - 6
        << "\" fill=\"" << EscapeXml(colour) << "\"/>\n";
      at += w;
    }
    o << "<text x=\"" << kLabelWidth + kBarWidth + 4 << "\" y=\"" << y + 15 << "\">" << EscapeXml(r.text) << "</text>\n";
  }
  int lx = 10;
  const int ly = kTop + static_cast<int>(rows.size()) * kRowHeight + 14;
  for (const auto& [name, colour] : legend) {
    o << "<rect x=\"" << lx << "\" y=\"" << ly - 10 << "\" width=\"12\" height=\"12\" fill=\"" << EscapeXml(colour)
      << "\"/><text x=\"" << lx + 16 << "\" y=\"" << ly << "\">" << EscapeXml(name) << "</text>\n";
    lx += 30 + 7 * static_cast<int>(name.size());
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace vkxla
