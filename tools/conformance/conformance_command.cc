#include "tools/conformance/conformance_command.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "runtime/vulkan_context.h"
#include <nlohmann/json.hpp>

#include "frontends/module_file.h"
#include "ir/numbers.h"
#include "tools/cli_flags.h"
#include "tools/report_date.h"
#include "tools/text_file.h"
#include "tools/conformance/conformance_html.h"
#include "tools/conformance/conformance_report.h"

namespace vkxla {
namespace {

std::vector<std::string> MlirFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().extension() == ".mlir") files.push_back(e.path().string());
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A one-line progress bar on a terminal (nothing when stderr is a file). The
// case name is fitted to the terminal's width by dropping its start, where
// the shared folder is: the file and function stay readable.
class Progress {
 public:
  Progress(size_t total, std::string label) : total_(total), label_(std::move(label)), tty_(isatty(2)) {
    winsize w{};
    if (tty_ && ioctl(2, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) columns_ = w.ws_col;
  }
  void Step(const std::string& item) {
    std::lock_guard<std::mutex> lock(mu_);
    ++done_;
    if (!tty_) return;
    const int width = 30, filled = static_cast<int>(width * done_ / std::max<size_t>(total_, 1));
    std::string line = label_ + " [" + std::string(filled, '=') + std::string(width - filled, ' ') + "] " +
                       std::to_string(done_) + "/" + std::to_string(total_) + " ";
    const size_t room = columns_ > line.size() + 4 ? columns_ - line.size() - 1 : 0;
    line += item.size() <= room ? item : "..." + item.substr(item.size() - (room > 3 ? room - 3 : 0));
    std::fprintf(stderr, "\r%-*s", static_cast<int>(columns_ - 1), line.c_str());
    if (done_ == total_) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  std::mutex mu_;
  size_t total_, done_ = 0;
  std::string label_;
  bool tty_;
  size_t columns_ = 80;
};


struct ConformanceOptions {
  std::vector<std::string> paths;
  std::string device = "";  // an index, "all", or empty: $VKXLA_DEVICE, else 0
  std::string report_path, html_path, expectations_path, write_expectations;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool json = false;
};

const char* OutcomeName(Outcome o) {
  return o == Outcome::kPassed ? "passed" : o == Outcome::kFailed ? "failed" : "skipped";
}

std::string JsonReport(const std::vector<ConformanceCase>& cases, const std::vector<DeviceRun>& runs) {
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const DeviceRun& run : runs) {
    int counts[3] = {0, 0, 0};
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    for (size_t i = 0; i < cases.size(); ++i) {
      const CaseResult& r = run.results[i];
      ++counts[static_cast<int>(r.outcome)];
      results.push_back({{"case", cases[i].id()}, {"outcome", OutcomeName(r.outcome)}, {"detail", r.detail}});
    }
    devices.push_back({{"device", run.device},
                       {"passed", counts[0]},
                       {"failed", counts[1]},
                       {"skipped", counts[2]},
                       {"cases", std::move(results)}});
  }
  return nlohmann::ordered_json{{"cases", cases.size()}, {"devices", std::move(devices)}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

// 0 when every case did what it should (or what the expectations say), 1
// otherwise; an error for input that cannot be read.
StatusOr<int> RunConformance(const ConformanceOptions& o) {
  const std::vector<std::string>& paths = o.paths;
  const std::string& device_arg = o.device;
  const std::string& report_path = o.report_path;
  const std::string& expectations_path = o.expectations_path;
  const std::string& write_expectations = o.write_expectations;
  const int jobs = o.jobs;
  std::vector<ConformanceCase> cases;
  for (const std::string& file : MlirFiles(paths)) {
    VKXLA_ASSIGN_OR_RETURN(const std::string text, ReadModuleText(file));
    for (ConformanceCase& c : SplitCases(file, text)) cases.push_back(std::move(c));
  }
  if (cases.empty()) return InvalidArgument("no cases found in the given paths");

  VKXLA_ASSIGN_OR_RETURN(VulkanContext * ctx, VulkanContext::Get());
  std::vector<int> devices;
  if (device_arg == "all") {
    for (size_t d = 0; d < ctx->device_infos().size(); ++d) devices.push_back(static_cast<int>(d));
  } else {
    // The option's validator let through only "all" or a whole number.
    devices.push_back(device_arg.empty() ? -1 : static_cast<int>(*ParseInt64(device_arg)));
  }

  std::vector<DeviceRun> runs;
  for (int index : devices) {
    VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Device> device, Device::Open(index));
    DeviceRun run;
    run.device = device->info().name;
    run.driver = device->info().driver_name + " " + device->info().driver_info;
    run.results.resize(cases.size());
    Progress progress(cases.size(), run.device.substr(0, 24));
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i = next++; i < cases.size(); i = next++) {
        run.results[i] = RunCase(cases[i], *device);
        progress.Step(cases[i].id());
      }
    };
    std::vector<std::thread> pool;
    for (int j = 0; j < jobs; ++j) pool.emplace_back(worker);
    for (std::thread& t : pool) t.join();
    if (devices.size() > 1 && !o.json) std::cout << run.device << ": " << SummaryLine({run}) << "\n";
    runs.push_back(std::move(run));
  }

  if (!report_path.empty()) {
    VKXLA_RETURN_IF_ERROR(WriteTextFile(report_path, MarkdownReport(cases, runs, TodayUtc())));
  }
  if (!o.html_path.empty()) VKXLA_RETURN_IF_ERROR(WriteTextFile(o.html_path, HtmlReport(cases, runs, TodayUtc())));
  if (!write_expectations.empty())
    VKXLA_RETURN_IF_ERROR(WriteTextFile(write_expectations, ExpectationsText(cases, runs[0])));
  int status = 0;
  if (!expectations_path.empty()) {
    if (!std::filesystem::exists(expectations_path)) return NotFound("cannot read " + expectations_path);
    for (const std::string& p : CheckExpectations(cases, runs[0], ReadExpectations(expectations_path))) {
      std::cerr << "unexpected: " << p << "\n";
      status = 1;
    }
  } else {
    for (const DeviceRun& r : runs)
      for (const CaseResult& c : r.results) status |= c.outcome == Outcome::kFailed ? 1 : 0;
  }
  if (ctx->validation_message_count() > 0) {
    std::cerr << "validation: " << ctx->validation_message_count() << " messages, last: "
              << ctx->last_validation_message() << "\n";
    status = 1;
  }
  if (o.json) std::cout << JsonReport(cases, runs) << "\n";
  else std::cout << SummaryLine(runs) << "\n";
  return status;
}

}  // namespace

void AddConformanceCommand(CLI::App& app, int& exit_code) {
  CLI::App* command = AddCommand(app, "conformance", "Run StableHLO interpreter test files and check their results");
  auto o = std::make_shared<ConformanceOptions>();
  command->add_option("paths", o->paths, "test files (.mlir) or folders of them")->required();
  command->add_option("--device", o->device, "a device index, or all (default: $VKXLA_DEVICE, else 0)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            const std::optional<int64_t> d = ParseInt64(v);
            return v == "all" || (d && *d >= 0 && *d <= (1 << 20)) ? "" : "--device takes a device index or all, not " + v;
          },
          "N|all"));
  command->add_option("--report", o->report_path, "write a markdown report (per case, per device)");
  command->add_option("--html", o->html_path,
                      "write one HTML page: op families x devices coloured by outcome and ULP error, with an SVG chart");
  command->add_option("--jobs,-j", o->jobs, "cases run at once")->check(CLI::Range(1, 256));
  command->add_option("--expectations", o->expectations_path, "cases allowed to fail or skip, with the reason");
  command->add_option("--write-expectations", o->write_expectations, "write today's failures and skips as expectations");
  command->add_flag("--json", o->json, "print every case's outcome as JSON instead of the summary line");
  command->callback([o, &exit_code] {
    StatusOr<int> status = RunConformance(*o);
    exit_code = status.ok() ? *status : ReportError("conformance", status.status());
  });
}

}  // namespace vkxla
