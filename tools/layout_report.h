// `vkxla run --layout-report`: what the device holds for each entry
// parameter and result, physical dimensions after tiling, bytes, padding.
#pragma once

#include <string>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

StatusOr<std::string> LayoutReport(const ProgramShape& program);

}  // namespace vkxla
