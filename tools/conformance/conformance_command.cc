#include "tools/conformance/conformance_command.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "runtime/vulkan_context.h"
#include "tools/cli_flags.h"
#include "tools/conformance/conformance_report.h"

namespace vkxla {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "vkxla: error: conformance: %s\n", message.c_str());
  return 2;
}

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

// A one-line progress bar on a terminal; nothing when stderr is a file.
class Progress {
 public:
  Progress(size_t total, std::string label) : total_(total), label_(std::move(label)), tty_(isatty(2)) {}
  void Step(const std::string& item) {
    std::lock_guard<std::mutex> lock(mu_);
    ++done_;
    if (!tty_) return;
    const int width = 30, filled = static_cast<int>(width * done_ / std::max<size_t>(total_, 1));
    std::fprintf(stderr, "\r%s [%s%s] %zu/%zu %-40.40s", label_.c_str(), std::string(filled, '=').c_str(),
                 std::string(width - filled, ' ').c_str(), done_, total_, item.c_str());
    if (done_ == total_) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  std::mutex mu_;
  size_t total_, done_ = 0;
  std::string label_;
  bool tty_;
};

}  // namespace

int ConformanceCommand(const std::vector<std::string>& args) {
  std::vector<std::string> paths;
  std::string device_arg, report_path, expectations_path, write_expectations;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (size_t i = 0; i < args.size(); ++i) {
    auto value = [&]() { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (args[i] == "--device") device_arg = value();
    else if (args[i] == "--report") report_path = value();
    else if (args[i] == "--jobs") {
      StatusOr<int64_t> j = IntFlag("--jobs", value(), 1, 256);
      if (!j.ok()) return Fail(j.status().message());
      jobs = static_cast<int>(*j);
    }
    else if (args[i] == "--expectations") expectations_path = value();
    else if (args[i] == "--write-expectations") write_expectations = value();
    else if (!args[i].empty() && args[i][0] == '-') return Fail("unknown option " + args[i]);
    else paths.push_back(args[i]);
  }
  if (paths.empty())
    return Fail("usage: vkxla conformance PATH... [--device N|all] [--report FILE.md] [--jobs N] "
                "[--expectations FILE] [--write-expectations FILE]");
  std::vector<ConformanceCase> cases;
  for (const std::string& file : MlirFiles(paths)) {
    std::ifstream in(file);
    if (!in) return Fail("cannot read " + file);
    std::stringstream ss;
    ss << in.rdbuf();
    for (ConformanceCase& c : SplitCases(file, ss.str())) cases.push_back(std::move(c));
  }
  if (cases.empty()) return Fail("no cases found in the given paths");

  StatusOr<VulkanContext*> ctx = VulkanContext::Get();
  if (!ctx.ok()) return Fail(ctx.status().message());
  std::vector<int> devices;
  if (device_arg == "all") {
    for (size_t d = 0; d < (*ctx)->device_infos().size(); ++d) devices.push_back(static_cast<int>(d));
  } else {
    int index = -1;
    if (!device_arg.empty()) {
      StatusOr<int64_t> d = IntFlag("--device", device_arg, 0, 1 << 20);
      if (!d.ok()) return Fail(d.status().message() + " (or all)");
      index = static_cast<int>(*d);
    }
    devices.push_back(index);
  }

  std::vector<DeviceRun> runs;
  for (int index : devices) {
    StatusOr<std::unique_ptr<Device>> device = Device::Open(index);
    if (!device.ok()) return Fail(device.status().message());
    DeviceRun run;
    run.device = (*device)->info().name;
    run.results.resize(cases.size());
    Progress progress(cases.size(), run.device.substr(0, 24));
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i = next++; i < cases.size(); i = next++) {
        run.results[i] = RunCase(cases[i], **device);
        progress.Step(cases[i].id());
      }
    };
    std::vector<std::thread> pool;
    for (int j = 0; j < jobs; ++j) pool.emplace_back(worker);
    for (std::thread& t : pool) t.join();
    if (devices.size() > 1) std::cout << run.device << ": " << SummaryLine({run}) << "\n";
    runs.push_back(std::move(run));
  }

  if (!report_path.empty()) {
    std::ofstream(report_path) << MarkdownReport(cases, runs);
  }
  if (!write_expectations.empty()) std::ofstream(write_expectations) << ExpectationsText(cases, runs[0]);
  int status = 0;
  if (!expectations_path.empty()) {
    if (!std::filesystem::exists(expectations_path)) return Fail("cannot read " + expectations_path);
    for (const std::string& p : CheckExpectations(cases, runs[0], ReadExpectations(expectations_path))) {
      std::cout << "unexpected: " << p << "\n";
      status = 1;
    }
  } else {
    for (const DeviceRun& r : runs)
      for (const CaseResult& c : r.results) status |= c.outcome == Outcome::kFailed ? 1 : 0;
  }
  if ((*ctx)->validation_message_count() > 0) {
    std::cout << "validation: " << (*ctx)->validation_message_count() << " messages, last: "
              << (*ctx)->last_validation_message() << "\n";
    status = 1;
  }
  std::cout << SummaryLine(runs) << "\n";
  return status;
}

}  // namespace vkxla
