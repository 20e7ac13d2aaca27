// The vkxla command line: devices, run (.hlo or StableHLO .mlir), bench,
// conformance.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "frontends/hlo_text.h"
#include "ops/evaluator.h"
#include "plan/planner.h"
#include "runtime/executable.h"
#include "runtime/vulkan_context.h"
#include "frontends/stablehlo_reader.h"
#ifdef VKXLA_WITH_BENCHMARKS
#include "tools/bench/bench_command.h"
#endif
#include "tools/benchmark_command.h"
#include "tools/cli_flags.h"
#include "tools/conformance/conformance_command.h"
#include "tools/layout_report.h"
#include "tools/npy.h"

namespace vkxla {
namespace {

int Fail(const Status& s) {
  std::fprintf(stderr, "vkxla: error: %s\n", s.message().c_str());
  return 1;
}

int Devices() {
  StatusOr<VulkanContext*> ctx = VulkanContext::Get();
  if (!ctx.ok()) return Fail(ctx.status());
  for (const DeviceInfo& d : (*ctx)->device_infos()) std::cout << d.Table();
  return 0;
}

void FlattenLeaves(const Literal& l, std::vector<const Literal*>& out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) FlattenLeaves(e, out);
  } else {
    out.push_back(&l);
  }
}

int Run(const std::vector<std::string>& args) {
  std::string module_path, output_dir, dump_dir;
  std::vector<std::string> inputs, infeeds, outfeeds;
  int device_index = -1;
  bool print = false, layout_report = false, dump_plan = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) return "";
      return args[++i];
    };
    if (a == "--input") inputs.push_back(value());
    else if (a == "--infeed") infeeds.push_back(value());
    else if (a == "--outfeed") outfeeds.push_back(value());
    else if (a == "--output-dir") output_dir = value();
    else if (a == "--device") {
      StatusOr<int64_t> d = IntFlag("--device", value(), 0, 1 << 20);
      if (!d.ok()) return Fail(d.status());
      device_index = static_cast<int>(*d);
    }
    else if (a == "--print") print = true;
    else if (a == "--layout-report") layout_report = true;
    else if (a == "--dump-plan") dump_plan = true;
    else if (a == "--dump-kernels") dump_dir = value();
    else if (!a.empty() && a[0] == '-') return Fail(InvalidArgument("run: unknown option " + a));
    else if (module_path.empty()) module_path = a;
    else return Fail(InvalidArgument("run: more than one module given (" + module_path + ", " + a + ")"));
  }
  if (module_path.empty())
    return Fail(InvalidArgument("usage: vkxla run MODULE.hlo|MODULE.mlir [--input FILE.npy]... [--infeed FILE.npy]... "
                                "[--outfeed FILE.npy]... [--output-dir DIR] [--device N] [--print] [--layout-report] "
                                "[--dump-plan] [--dump-kernels DIR]"));
  const bool mlir = module_path.size() > 5 && module_path.substr(module_path.size() - 5) == ".mlir";
  StatusOr<std::unique_ptr<Module>> module = Unimplemented("");
  if (mlir) {
    StatusOr<StablehloProgram> program = LoadStablehloFile(module_path);
    if (program.ok()) module = std::move(program->module);
    else module = program.status();
  } else {
    module = LoadHloFile(module_path);
  }
  if (!module.ok()) return Fail(module.status());
  if (layout_report) {
    StatusOr<std::string> report = LayoutReport((*module)->EntryProgramShape());
    if (!report.ok()) return Fail(report.status());
    std::cout << *report;
  }
  auto params = (*module)->entry()->parameters();
  if (inputs.size() != params.size())
    return Fail(InvalidArgument(module_path + ": the entry takes " + std::to_string(params.size()) + " parameters, " +
                                std::to_string(inputs.size()) + " --input files were given"));
  std::vector<Literal> arguments;
  for (size_t i = 0; i < inputs.size(); ++i) {
    StatusOr<Literal> lit = ReadNpy(inputs[i], params[i]->shape.element_type());
    if (!lit.ok()) return Fail(lit.status());
    if (!FitsShape(lit->shape(), params[i]->shape))
      return Fail(InvalidArgument("parameter " + std::to_string(i) + " (%" + params[i]->name + ") is " +
                                  params[i]->shape.ToString() + " but " + inputs[i] + " holds " + lit->shape().ToString()));
    arguments.push_back(std::move(lit).value());
  }
  StatusOr<std::unique_ptr<Device>> device = Device::Open(device_index);
  if (!device.ok()) return Fail(device.status());
  if (dump_plan) {
    // Printed before compiling, so a plan whose kernels fail still shows.
    StatusOr<Program> program = PlanModule(**module, (*device)->target());
    if (!program.ok()) return Fail(program.status());
    std::cout << program->ToString();
  }
  StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(**module, **device);
  if (!exe.ok()) return Fail(exe.status());
  if (!dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dump_dir, ec);
    const auto& sources = (*exe)->kernel_sources();
    for (size_t i = 0; i < sources.size(); ++i) {
      std::ofstream(dump_dir + "/kernel" + std::to_string(i) + ".comp") << sources[i];
    }
  }
  // Infeed values in order; outfeed values go to the --outfeed files in order.
  for (const std::string& path : infeeds) {
    StatusOr<Literal> lit = ReadNpy(path);
    if (!lit.ok()) return Fail(lit.status());
    (*device)->infeed().Push(std::move(lit).value());
  }
  StatusOr<Literal> result = (*exe)->Run(arguments);
  if (!result.ok()) return Fail(result.status());
  for (const std::string& path : outfeeds) {
    std::optional<Literal> v = (*device)->outfeed().Pop();
    if (!v) return Fail(InvalidArgument("--outfeed " + path + ": the program wrote fewer outfeed values than --outfeed files"));
    Status s = WriteNpy(path, *v);
    if (!s.ok()) return Fail(s);
  }
  std::vector<const Literal*> leaves;
  FlattenLeaves(*result, leaves);
  if (!output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(output_dir, ec);
    for (size_t i = 0; i < leaves.size(); ++i) {
      Status s = WriteNpy(output_dir + "/out" + std::to_string(i) + ".npy", *leaves[i]);
      if (!s.ok()) return Fail(s);
    }
  }
  if (print || output_dir.empty()) std::cout << result->ToString() << "\n";
  return 0;
}

}  // namespace
}  // namespace vkxla

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::string usage =
      "usage: vkxla devices\n"
      "       vkxla run MODULE.hlo [--input FILE.npy]... [--infeed FILE.npy]... [--outfeed FILE.npy]...\n"
      "                 [--output-dir DIR] [--device N] [--print]\n"
      "                 [--layout-report] [--dump-plan] [--dump-kernels DIR]\n"
      "       vkxla bench [--device N] [--markdown FILE] [--elements N] [--only foundation|layout|reduction|matmul|control|fft|rng|linalg]\n"
      "       vkxla benchmark MODULE [--input FILE.npy]... [--device N] [--repetitions N]\n"
      "       vkxla conformance PATH... [--device N|all] [--report FILE.md] [--jobs N]\n"
      "                         [--expectations FILE] [--write-expectations FILE]\n";
  if (args.empty()) {
    std::fputs(usage.c_str(), stderr);
    return 2;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "devices") return vkxla::Devices();
  if (cmd == "run") return vkxla::Run(args);
  if (cmd == "bench") {
#ifdef VKXLA_WITH_BENCHMARKS
    return vkxla::BenchCommand(args);
#else
    std::fputs("vkxla: error: this build has no benchmarks (configure with -DVKXLA_BUILD_BENCHMARKS=ON)\n", stderr);
    return 2;
#endif
  }
  if (cmd == "benchmark") return vkxla::BenchmarkCommand(args);
  if (cmd == "conformance") return vkxla::ConformanceCommand(args);
  std::fprintf(stderr, "vkxla: unknown command '%s'\n%s", cmd.c_str(), usage.c_str());
  return 2;
}
