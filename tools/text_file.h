// Writing a whole text file (reports, charts, kernels, tables), with an
// error naming the path when it cannot be written: an unwritable report is
// not a silent success.
#pragma once

#include <string>

#include "vkxla/status.h"

namespace vkxla {

Status WriteTextFile(const std::string& path, const std::string& text);

}  // namespace vkxla
