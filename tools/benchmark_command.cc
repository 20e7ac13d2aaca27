#include "tools/benchmark_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "frontends/module_file.h"
#include "runtime/executable.h"
#include "tools/bench/module_timing.h"
#include "tools/cli_flags.h"
#include "tools/constant_values.h"
#include "tools/input_values.h"

namespace vkxla {
namespace {

struct BenchmarkOptions {
  std::string module_path, function;
  std::vector<std::string> inputs, constants;
  int device = -1, warmup = 2, repetitions = 10;
  bool json = false;
};

Status Benchmark(const BenchmarkOptions& o) {
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, LoadModuleForInputs(o.module_path, o.function, o.inputs));
  VKXLA_RETURN_IF_ERROR(SetConstantValues(*module, o.constants));
  // Inputs not given are random.
  std::vector<Shape> shapes;
  for (const InputSlot& slot : EntryInputSlots(*module->entry())) shapes.push_back(slot.shape);
  VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> inputs, ReadInputs(o.inputs, shapes));
  for (size_t i = inputs.size(); i < shapes.size(); ++i) inputs.push_back(RandomBenchLiteral(shapes[i], 100 + i));
  VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> arguments, EntryArguments(std::move(inputs), *module->entry(), o.module_path));
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Device> device, Device::Open(o.device));
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, Executable::Compile(*module, *device));
  VKXLA_RETURN_IF_ERROR(exe->Run(arguments).status());
  for (int w = 0; w < o.warmup; ++w) VKXLA_RETURN_IF_ERROR(exe->TimeKernels(1).status());
  std::vector<double> times;
  bool from_timestamps = true;
  for (int r = 0; r < o.repetitions; ++r) {
    VKXLA_ASSIGN_OR_RETURN(Timing t, exe->TimeKernels(1));
    times.push_back(t.seconds);
    from_timestamps = from_timestamps && t.from_timestamps;
  }
  std::sort(times.begin(), times.end());
  // Each kernel's median over the repetitions, from per-dispatch timestamps.
  std::vector<Executable::KernelTime> kernels;
  std::string kernels_note;
  std::vector<std::vector<double>> samples;
  for (int r = 0; r < o.repetitions; ++r) {
    StatusOr<std::vector<Executable::KernelTime>> each = exe->TimeEachKernel();
    if (!each.ok()) {
      kernels_note = each.status().message();
      kernels.clear();
      break;
    }
    if (kernels.empty()) kernels = *each;
    samples.resize(kernels.size());
    for (size_t k = 0; k < kernels.size(); ++k) samples[k].push_back((*each)[k].seconds);
  }
  for (size_t k = 0; k < kernels.size(); ++k) {
    std::sort(samples[k].begin(), samples[k].end());
    kernels[k].seconds = samples[k][samples[k].size() / 2];
  }
  const double min_ms = times.front() * 1e3, median_ms = times[times.size() / 2] * 1e3, max_ms = times.back() * 1e3;
  if (o.json) {
    nlohmann::ordered_json j = {{"module", o.module_path},
                                {"device", device->info().name},
                                {"dispatches", exe->kernel_count()},
                                {"barriers", exe->barrier_count()},
                                {"warmup", o.warmup},
                                {"repetitions", o.repetitions},
                                {"clock", from_timestamps ? "gpu-timestamps" : "host"},
                                {"min_ms", min_ms},
                                {"median_ms", median_ms},
                                {"max_ms", max_ms}};
    nlohmann::ordered_json per_kernel = nlohmann::ordered_json::array();
    for (const Executable::KernelTime& k : kernels) per_kernel.push_back({{"kernel", k.name}, {"median_ms", k.seconds * 1e3}});
    j["kernels"] = std::move(per_kernel);
    if (!kernels_note.empty()) j["kernels_note"] = kernels_note;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::printf("%s on %s: %d dispatches, %d barriers; %s time over %d runs (after %d warm-up): "
                "min %.3f ms, median %.3f ms, max %.3f ms\n",
                o.module_path.c_str(), device->info().name.c_str(), exe->kernel_count(), exe->barrier_count(),
                from_timestamps ? "device" : "host", o.repetitions, o.warmup, min_ms, median_ms, max_ms);
    if (!kernels_note.empty()) std::printf("per kernel: %s\n", kernels_note.c_str());
    double total = 0;
    for (const Executable::KernelTime& k : kernels) total += k.seconds;
    std::printf("%-60s %12s %7s\n", "kernel (in program order)", "median ms", "share");
    for (const Executable::KernelTime& k : kernels)
      std::printf("%-60s %12.4f %6.1f%%\n", k.name.c_str(), k.seconds * 1e3, total > 0 ? 100 * k.seconds / total : 0.0);
  }
  return OkStatus();
}

}  // namespace

void AddBenchmarkCommand(CLI::App& app, int& exit_code) {
  CLI::App* command = AddCommand(app, "benchmark", "Time a module's dispatches on a device");
  auto o = std::make_shared<BenchmarkOptions>();
  command->add_option("module", o->module_path, "the module: .hlo (HLO text) or .mlir (StableHLO)")->required();
  command->add_option("--constant", o->constants, "NAME=VALUE: a constant's value, as `vkxla run --constant` takes it")
      ->allow_extra_args(false);
  command->add_option("--input,-i", o->inputs, "a parameter's value as `vkxla run` takes it; the rest are random")
      ->allow_extra_args(false);
  command->add_option("--function", o->function, "StableHLO: the function to run (default @main, else the first)");
  AddDeviceOption(*command, o->device);
  command->add_option("--warmup", o->warmup, "untimed runs first")->check(CLI::Range(0, 1000))->capture_default_str();
  command->add_option("--repetitions", o->repetitions, "timed runs")->check(CLI::Range(1, 1000000))->capture_default_str();
  command->add_flag("--json", o->json, "print the result as JSON");
  command->callback([o, &exit_code] {
    const Status s = Benchmark(*o);
    exit_code = s.ok() ? kExitOk : ReportError("benchmark", s);
  });
}

}  // namespace vkxla
