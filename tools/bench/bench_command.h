// `vkxla bench [--device N] [--markdown FILE] [--elements N] [--only GROUP]`:
// measures the device limits, then every benchmark against them, prints the
// table and optionally merges it into a markdown file (BENCHMARKS.md).
#pragma once

#include <CLI/CLI.hpp>

namespace vkxla {

void AddBenchCommand(CLI::App& app, int& exit_code);

}  // namespace vkxla
