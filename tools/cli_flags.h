// Reading the CLI's numeric flags: whole decimal numbers in a range, or an
// error naming the flag and what was given (never atoi's silent 0).
#pragma once

#include <cstdint>
#include <string>

#include "vkxla/status.h"

namespace vkxla {

StatusOr<int64_t> IntFlag(const std::string& flag, const std::string& value, int64_t min, int64_t max);

}  // namespace vkxla
