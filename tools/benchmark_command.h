// `vkxla benchmark MODULE [--input VALUE]... [--device N] [--warmup N]
// [--repetitions N] [--json]`: compiles a module, runs it with the inputs
// (random values for parameters not given), warms up, then times its
// dispatches alone over the repetitions: fastest, median and slowest device
// time, and each kernel's median time from per-dispatch timestamps, as a
// table or as JSON.
#pragma once

#include <CLI/CLI.hpp>

namespace vkxla {

void AddBenchmarkCommand(CLI::App& app, int& exit_code);

}  // namespace vkxla
