// `vkxla run MODULE [--input VALUE]... [--output @FILE.npy]... [--output-dir
// DIR] [--function NAME] [--infeed FILE.npy]... [--outfeed FILE.npy]...
// [--device N] [--print] [--layout-report] [--dump-plan] [--dump-kernels
// DIR]`: runs a module once; results go to files and/or stdout.
#pragma once

#include <CLI/CLI.hpp>

namespace vkxla {

void AddRunCommand(CLI::App& app, int& exit_code);

}  // namespace vkxla
