#include "tools/bench/bench_report.h"

#include <cstdio>
#include <optional>
#include <fstream>
#include <sstream>

#include "ir/numbers.h"

namespace vkxla {

BenchRow LimitRow(std::string name, std::string result, double value, BenchLimit against, double target, std::string note) {
  BenchRow r;
  r.name = std::move(name);
  r.result = std::move(result);
  r.value = value;
  r.against = against;
  r.target = target;
  r.note = std::move(note);
  return r;
}

std::string Format(const char* fmt, double v) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}
namespace {

constexpr const char* kPreamble =
    "# Benchmarks\n"
    "\n"
    "Written by `vkxla bench --markdown BENCHMARKS.md` (`./dev.sh bench`, which also redraws\n"
    "[BENCHMARKS.svg](BENCHMARKS.svg), every recorded ratio as a bar against its target). Every figure is a ratio to a\n"
    "limit of the same device measured in the same run: `vkCmdCopyBuffer` bandwidth, and a hand-written\n"
    "streaming kernel (`c = a + b` over vec4, the best local size of 64/128/256) that stands for what a\n"
    "plain shader does on that device. On CPU drivers vkxla reads its inputs through uniform texel\n"
    "buffers (llvmpipe fetches a texel for all lanes at once, but loads from a storage buffer lane by\n"
    "lane), so there the reference reads texels too where that is faster, and the row says so with the\n"
    "storage-buffer figure beside it; stores go to storage buffers, as u64vec2 words where the device has\n"
    "64-bit integers (the same kernel over u64vec2 words is reported beside the reference).\n"
    "Device times come from GPU timestamps around the recorded dispatches; bandwidth counts bytes read\n"
    "plus bytes written; matrix products count 2·M·N·K operations against a peak-FMA kernel (independent\n"
    "f32 fma chains in registers), the device's own compute limit. Limits are measured before and after\n"
    "the run and the better of each is used: interference only slows a measurement. Each device has its\n"
    "own section; a run replaces only its own. lavapipe runs on the host CPU of a shared 2-core VM here:\n"
    "its figures, the stream reference included, moved by up to ±30% between runs on the same day\n"
    "(f32 matmul 1024^3 between 18 and 27 GFLOP/s, the stream kernel between 5.6 and 10.7 GB/s), so a\n"
    "single run's ratio near a target says little; on slow-memory days (the storage-buffer stream\n"
    "figure near 1.4 GB/s against 6-7 on others) kernels bound by storage loads and stores, such as the\n"
    "sorts and scatters, run 3-4x slower than on other days. The fused-epilogue row times both products\n"
    "alternately to compare them under the same interference, and each FFT row times VkFFT's own plan\n"
    "(warmed first: lavapipe compiles a pipeline at its first dispatch) after each of our trials.\n"
    "Control-flow rows time whole runs on the host clock (a counted loop replays up to 256 trips per\n"
    "submission; a loop only the device can count runs gated, 1, 8, then 64 trips per submission): the\n"
    "counted While's trip against one run of its body's dispatches, and a While+DynamicUpdateSlice scan\n"
    "against one Scan op. On GPUs each timed row first keeps the device busy for 0.25 s, and a trial\n"
    "repeats a program up to 1,000 times to last 20 ms: clocks that fell while the host compiled come back.\n";

std::string Ratio(double r) {
  if (r <= 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, r < 0.1 ? "%.2g" : "%.2f", r);
  return buf;
}

}  // namespace

std::string BenchReport::Table() const {
  std::ostringstream o;
  o << device << "\n" << details << "\n";
  for (const BenchRow& r : rows) {
    o << "  " << r.name << ": " << r.result;
    if (r.ratio > 0) o << "  (" << Ratio(r.ratio) << " of " << r.limit << (r.target > 0 ? ", target " + Ratio(r.target) : "") << ")";
    else if (!r.limit.empty()) o << "  (" << r.limit << ")";
    if (!r.note.empty()) o << "  " << r.note;
    o << "\n";
  }
  return o.str();
}

std::string BenchReport::MarkdownSection() const {
  std::ostringstream o;
  o << "## " << device << "\n\n" << details << "\n\n";
  o << "| benchmark | result | limit (same run) | ratio | target | note |\n";
  o << "|---|---|---|---|---|---|\n";
  for (const BenchRow& r : rows) {
    std::string target = r.target > 0 ? "≥ " + Ratio(r.target) : "";
    std::string mark = r.target > 0 ? (r.ratio >= r.target ? " ✓" : " ✗") : "";
    o << "| " << r.name << " | " << r.result << " | " << r.limit << " | " << Ratio(r.ratio) << mark << " | " << target
      << " | " << r.note << " |\n";
  }
  return o.str();
}

Status MergeIntoMarkdown(const std::string& path, const BenchReport& report) {
  std::ifstream in(path);
  std::vector<std::pair<std::string, std::string>> sections;  // heading line, body
  std::string line, heading, body;
  bool any = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      if (any) sections.emplace_back(heading, body);
      heading = line;
      body.clear();
      any = true;
    } else if (any) {
      body += line + "\n";
    }
  }
  if (any) sections.emplace_back(heading, body);

  const std::string mine = report.MarkdownSection();
  const std::string my_heading = "## " + report.device;
  std::string out = kPreamble;
  bool replaced = false;
  for (const auto& [h, b] : sections) {
    out += "\n";
    if (h == my_heading) {
      out += mine;
      replaced = true;
    } else {
      std::string trimmed = b;
      while (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
      out += h + "\n" + trimmed + "\n";
    }
  }
  if (!replaced) out += "\n" + mine;
  std::ofstream f(path);
  if (!f) return InvalidArgument("cannot write " + path);
  f << out;
  return OkStatus();
}

namespace {

// The cells of a markdown table row "| a | b |", trimmed.
std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  size_t at = line.find('|');
  while (at != std::string::npos) {
    const size_t next = line.find('|', at + 1);
    if (next == std::string::npos) break;
    std::string cell = line.substr(at + 1, next - at - 1);
    while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
    while (!cell.empty() && cell.back() == ' ') cell.pop_back();
    cells.push_back(cell);
    at = next;
  }
  return cells;
}

// The number a cell starts with ("1.07 ✓", "≥ 0.90"), if any.
std::optional<double> LeadingNumber(std::string cell) {
  if (cell.rfind("≥ ", 0) == 0) cell = cell.substr(std::string("≥ ").size());
  return ParseDouble(cell.substr(0, cell.find(' ')));
}

}  // namespace

StatusOr<std::vector<RecordedRatio>> ReadRecordedRatios(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot open " + path);
  std::vector<RecordedRatio> out;
  std::string line, device;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) device = line.substr(3);
    if (device.empty() || line.rfind("| ", 0) != 0) continue;
    const std::vector<std::string> cells = Cells(line);  // benchmark, result, limit, ratio, target, note
    if (cells.size() < 5) continue;
    const std::optional<double> ratio = LeadingNumber(cells[3]);
    if (!ratio || *ratio <= 0) continue;  // the header, and rows without a ratio
    out.push_back({device, cells[0], *ratio, LeadingNumber(cells[4]).value_or(0)});
  }
  if (out.empty()) return InvalidArgument(path + " holds no benchmark rows with a ratio");
  return out;
}

}  // namespace vkxla
