// `vkxla run --constant NAME=VALUE` (and `vkxla benchmark`): values for a
// module's constants, chiefly the ones a dump elides as `constant({...})`,
// which the reader fills with zeros. VALUE takes every form --input takes
// (@w.npy, inline values); it must match the constant's type and dims.
// Then says on stderr which elided constants are still zeros.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

Status SetConstantValues(Module& module, const std::vector<std::string>& specs);

}  // namespace vkxla
