#include "tools/benchmark_command.h"

#include <algorithm>
#include <cstdio>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"
#include "runtime/executable.h"
#include "tools/bench/module_timing.h"
#include "tools/cli_flags.h"
#include "tools/npy.h"

namespace vkxla {
namespace {

int Fail(const Status& s) {
  std::fprintf(stderr, "vkxla: error: benchmark: %s\n", s.message().c_str());
  return 1;
}

}  // namespace

int BenchmarkCommand(const std::vector<std::string>& args) {
  std::string path;
  std::vector<std::string> inputs;
  int device_index = -1, repetitions = 10;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string value = i + 1 < args.size() ? args[i + 1] : "";
    if (a == "--input") {
      inputs.push_back(value);
      ++i;
    } else if (a == "--device") {
      ++i;
      StatusOr<int64_t> d = IntFlag("--device", value, 0, 1 << 20);
      if (!d.ok()) return Fail(d.status());
      device_index = static_cast<int>(*d);
    } else if (a == "--repetitions") {
      ++i;
      StatusOr<int64_t> r = IntFlag("--repetitions", value, 1, 1000000);
      if (!r.ok()) return Fail(r.status());
      repetitions = static_cast<int>(*r);
    } else if (!a.empty() && a[0] == '-') {
      return Fail(InvalidArgument("unknown option " + a));
    } else {
      path = a;
    }
  }
  if (path.empty()) return Fail(InvalidArgument("usage: vkxla benchmark MODULE [--input FILE.npy]... [--device N] [--repetitions N]"));
  StatusOr<std::unique_ptr<Module>> module = Unimplemented("");
  if (path.size() > 5 && path.substr(path.size() - 5) == ".mlir") {
    StatusOr<StablehloProgram> program = LoadStablehloFile(path);
    if (!program.ok()) return Fail(program.status());
    module = std::move(program->module);
  } else {
    module = LoadHloFile(path);
  }
  if (!module.ok()) return Fail(module.status());
  const std::vector<Shape> params = (*module)->EntryProgramShape().parameters;
  std::vector<Literal> arguments;
  for (size_t i = 0; i < params.size(); ++i) {
    if (i < inputs.size()) {
      StatusOr<Literal> l = ReadNpy(inputs[i], params[i].element_type());
      if (!l.ok()) return Fail(l.status());
      arguments.push_back(std::move(*l));
    } else {
      arguments.push_back(RandomBenchLiteral(params[i], 100 + i));
    }
  }
  StatusOr<std::unique_ptr<Device>> device = Device::Open(device_index);
  if (!device.ok()) return Fail(device.status());
  StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(**module, **device);
  if (!exe.ok()) return Fail(exe.status());
  Status run = (*exe)->Run(arguments).status();
  if (!run.ok()) return Fail(run);
  std::vector<double> times;
  for (int r = 0; r < repetitions; ++r) {
    StatusOr<Timing> t = (*exe)->TimeKernels(1);
    if (!t.ok()) return Fail(t.status());
    times.push_back(t->seconds);
  }
  std::sort(times.begin(), times.end());
  std::printf("%s: %d dispatches, %d barriers; device time over %d runs: min %.3f ms, median %.3f ms, max %.3f ms\n",
              path.c_str(), (*exe)->kernel_count(), (*exe)->barrier_count(), repetitions, times.front() * 1e3,
              times[times.size() / 2] * 1e3, times.back() * 1e3);
  return 0;
}

}  // namespace vkxla
