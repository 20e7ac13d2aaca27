// Writes an ir::Module as HLO text that ParseHloText reads back to the same
// module (print -> parse -> print is identical).
#pragma once

#include <string>

#include "ir/module.h"

namespace vkxla {

std::string PrintHloModule(const Module& module);
std::string PrintInstruction(const Instruction& inst);

}  // namespace vkxla
