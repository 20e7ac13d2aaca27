// `vkxla benchmark MODULE [--input x.npy]... [--device N] [--repetitions N]`:
// compiles a module, runs it once (with the inputs, or random ones), then
// times its dispatches alone over several repetitions and prints the
// fastest, median and slowest device time.
#pragma once

#include <string>
#include <vector>

namespace vkxla {

int BenchmarkCommand(const std::vector<std::string>& args);

}  // namespace vkxla
