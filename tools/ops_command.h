// `vkxla ops [--markdown FILE]`: the op × element-type support table
// (tools/op_support.h), printed or written to FILE (docs/ops.md).
#pragma once

#include <CLI/CLI.hpp>

namespace vkxla {

void AddOpsCommand(CLI::App& app, int& exit_code);

}  // namespace vkxla
