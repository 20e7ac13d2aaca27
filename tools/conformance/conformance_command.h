// `vkxla conformance PATH... [--device N|all] [--report FILE.md] [--jobs N]
//  [--expectations FILE] [--write-expectations FILE] [--json]`: runs every
// case of the StableHLO test files on one or every Vulkan device, with a
// progress bar on a terminal, and ends with "N passed, M failed, K skipped"
// (or every case's outcome as JSON).
#pragma once

#include <CLI/CLI.hpp>

namespace vkxla {

void AddConformanceCommand(CLI::App& app, int& exit_code);

}  // namespace vkxla
