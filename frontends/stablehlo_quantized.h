// StableHLO's quantized tensors (frontends/mlir_types.h: QuantizedType)
// by the spec's own definitions: a quantized value is held in its storage
// type, `dequantize` maps it to the expressed type ((v - zero_point) *
// scale, the subtraction in the storage type) and `quantize` back
// (x / scale + zero_point, clamped to the storage range, rounded to
// nearest even), both written as HLO ops. The reader runs every other op
// on quantized operands between them (the spec's dequantize_op_quantize).
#pragma once

#include "frontends/chlo_mulhi.h"
#include "frontends/mlir_types.h"

namespace vkxla {

// x: the storage type's array; the expressed type's array of its values.
StatusOr<Instruction*> Dequantize(Instruction* x, const QuantizedType& q, const HloMaker& make, const ConstantMaker& constant);
// x: an array of q's expressed type; the storage type's array.
StatusOr<Instruction*> Quantize(Instruction* x, const QuantizedType& q, const HloMaker& make, const ConstantMaker& constant);

}  // namespace vkxla
