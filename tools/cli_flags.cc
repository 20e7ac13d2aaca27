#include "tools/cli_flags.h"

#include "ir/numbers.h"

namespace vkxla {

StatusOr<int64_t> IntFlag(const std::string& flag, const std::string& value, int64_t min, int64_t max) {
  const std::optional<int64_t> v = ParseInt64(value);
  if (!v || *v < min || *v > max)
    return InvalidArgument(flag + " takes a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                           ", not '" + value + "'");
  return *v;
}

}  // namespace vkxla
