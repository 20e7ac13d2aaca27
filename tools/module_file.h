// Reading the module a command runs: `.mlir` files are StableHLO (the
// entry is `function`, else @main, else the first), others HLO text.
#pragma once

#include <memory>
#include <string>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

StatusOr<std::unique_ptr<Module>> LoadModuleFile(const std::string& path, const std::string& function = "");

}  // namespace vkxla
