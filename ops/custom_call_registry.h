// User functions behind custom-call targets. A target registered here is
// run on the host between submissions: its operands' values are read back,
// the callback computes the results, and they are written to the device.
// Registration is process-wide; a name is registered once.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/status.h"

namespace vkxla {

struct CustomCallContext {
  std::string backend_config;  // as written (raw text)
  int api_version = 0;         // api_version=API_VERSION_... (0 when absent)
};

// Fills `results` (one literal per result leaf, of the declared shapes)
// from `operands` (one per operand leaf).
using HostCustomCall = std::function<Status(const std::vector<Literal>& operands, const CustomCallContext& context,
                                            std::vector<Literal>& results)>;

// Errors when `target` is empty or already registered.
Status RegisterHostCustomCall(const std::string& target, HostCustomCall function);
// The registered function, or nullopt.
std::optional<HostCustomCall> FindHostCustomCall(const std::string& target);

}  // namespace vkxla
