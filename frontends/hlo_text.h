// HLO text in, a verified ir::Module out: parse, then check every op's shape
// rules. What `vkxla run` and the tests use.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

StatusOr<std::unique_ptr<Module>> ParseAndVerifyHlo(std::string_view text);
StatusOr<std::unique_ptr<Module>> LoadHloFile(const std::string& path);

}  // namespace vkxla
