// `vkxla conformance PATH... [--device N|all] [--report FILE.md] [--jobs N]
//  [--expectations FILE] [--write-expectations FILE]`: runs every case of
// the StableHLO test files on one or every Vulkan device, with a progress
// bar on a terminal, and ends with "N passed, M failed, K skipped".
#pragma once

#include <string>
#include <vector>

namespace vkxla {

int ConformanceCommand(const std::vector<std::string>& args);

}  // namespace vkxla
