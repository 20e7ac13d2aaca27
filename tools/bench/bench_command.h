// `vkxla bench [--device N] [--markdown FILE] [--elements N]`: measures the
// device limits, then every benchmark against them, prints the table and
// optionally merges it into a markdown file (BENCHMARKS.md).
#pragma once

#include <string>
#include <vector>

namespace vkxla {

int BenchCommand(const std::vector<std::string>& args);

}  // namespace vkxla
