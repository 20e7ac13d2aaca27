// chlo.mulhi: the high half of the double-width product of two integers
// (signed or unsigned), written as HLO ops the way CHLO's decomposition
// does: widened multiplies for 8-, 16- and 32-bit types, and for 64-bit
// types four 32x32 products of the halves, with carries, corrected for
// signs.
#pragma once

#include <functional>
#include <vector>

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

// Add an instruction of `op` and `shape` over `operands` (or a scalar
// constant) to the computation being built.
using HloMaker = std::function<Instruction*(Opcode op, const Shape& shape, std::vector<Instruction*> operands)>;
using ConstantMaker = std::function<Instruction*(Literal value)>;

StatusOr<Instruction*> LowerMulhi(Instruction* lhs, Instruction* rhs, const HloMaker& make, const ConstantMaker& constant);

}  // namespace vkxla
