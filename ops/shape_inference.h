// XLA's shape rules: the result shape an op produces from its operands and
// attributes, or an error that names the op and quotes the shapes.
#pragma once

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

// Reads inst.operands and attributes. For ops whose result type is not
// implied by the operands (parameter, constant, iota, convert,
// bitcast-convert) inst.shape supplies it. Layouts are not inferred.
StatusOr<Shape> InferShape(const Instruction& inst);

// Whether InferShape needs nothing of inst.shape for `op` (so text may
// leave the shape out, as XLA's parser allows): elementwise ops but
// convert and bitcast-convert, and the structural ops whose attributes say
// the rest. Not parameter, constant, iota, the converts, broadcast,
// reshape, bitcast, collectives, custom calls, random numbers.
bool ShapeFollowsFromOperands(Opcode op);

}  // namespace vkxla
