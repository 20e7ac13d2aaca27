// The vkxla command line (CLI11): devices, run, benchmark, bench,
// conformance; -h/--help and --version at every level.
//
// Exit codes: 0 ok; 1 an error in the input or at run time; 2 a usage error
// (tools/cli_flags.h).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

#include "tools/benchmark_command.h"
#include "tools/cli_flags.h"
#include "tools/conformance/conformance_command.h"
#include "tools/devices_command.h"
#include "tools/ops_command.h"
#include "tools/run_command.h"
#include "vkxla/vkxla.h"
#ifdef VKXLA_WITH_BENCHMARKS
#include "tools/bench/bench_command.h"
#endif

namespace {

void AddBenchCommandOrNote(CLI::App& app, int& exit_code) {
#ifdef VKXLA_WITH_BENCHMARKS
  vkxla::AddBenchCommand(app, exit_code);
#else
  CLI::App* command = vkxla::AddCommand(app, "bench", "(not in this build: configure with -DVKXLA_BUILD_BENCHMARKS=ON)");
  command->allow_extras();
  command->callback([&exit_code] {
    std::fputs("vkxla: error: bench: this build has no benchmarks (configure with -DVKXLA_BUILD_BENCHMARKS=ON)\n", stderr);
    exit_code = vkxla::kExitUsage;
  });
#endif
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("vkxla: XLA programs (HLO text, StableHLO) on any Vulkan GPU", "vkxla");
  app.set_version_flag("--version", std::string("vkxla ") + std::string(vkxla::Version()));
  app.require_subcommand(1);
  app.footer("Exit status: 0 ok, 1 an error in the input or at run time, 2 a usage error.");
  int exit_code = vkxla::kExitOk;
  vkxla::AddDevicesCommand(app, exit_code);
  vkxla::AddRunCommand(app, exit_code);
  vkxla::AddBenchmarkCommand(app, exit_code);
  AddBenchCommandOrNote(app, exit_code);
  vkxla::AddConformanceCommand(app, exit_code);
  vkxla::AddOpsCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and version print and succeed; every other parse error is usage.
    const int code = app.exit(e);
    return code == 0 ? vkxla::kExitOk : vkxla::kExitUsage;
  } catch (const std::exception& e) {
    // The commands report errors as values; this is the last guard against
    // a library's exception (out of memory, a stream) ending in abort().
    std::fprintf(stderr, "vkxla: error: %s\n", e.what());
    return vkxla::kExitError;
  }
  return exit_code;
}
