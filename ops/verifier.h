// Checks a whole module against the ops' shape rules: every instruction's
// declared shape must be what its operands and attributes imply.
#pragma once

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

Status VerifyModule(const Module& module);
// One computation's instructions (what VerifyModule checks of each).
Status VerifyComputation(const Computation& c);

}  // namespace vkxla
