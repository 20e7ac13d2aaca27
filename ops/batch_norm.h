// BatchNormTraining, BatchNormInference and BatchNormGrad
// (operation_semantics: BatchNorm*; stablehlo_spec.md: batch_norm_*), as HLO
// writes them: `batch-norm-training(x, scale, offset), epsilon=0.001,
// feature_index=3` and so on. Every dim but feature_index is normalised
// over; scale, offset, mean and variance are vectors along feature_index.
//  - training: (x, scale, offset) -> (normalised x, mean, variance), the
//    variance biased (divided by the element count);
//  - inference: (x, scale, offset, mean, variance) -> normalised x;
//  - grad: (x, scale, mean, variance, grad_output) -> (grad_x, grad_scale,
//    grad_offset), the spec's formulas (XLA's batchnorm expander).
// Every operand and result of one floating-point type.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

inline bool IsBatchNorm(Opcode op) {
  return op == Opcode::kBatchNormTraining || op == Opcode::kBatchNormInference || op == Opcode::kBatchNormGrad;
}

struct BatchNormParams {
  double epsilon = 0;
  int64_t feature_index = 0;
};

// epsilon and feature_index as written, checked with the operands' shapes;
// errors quote them.
StatusOr<BatchNormParams> ReadBatchNorm(const Instruction& inst);
StatusOr<Shape> InferBatchNormShape(const Instruction& inst);
// The reference, in double: the mean first, then the mean square of the
// centred values (two passes), each result rounded once.
StatusOr<Literal> EvaluateBatchNorm(const Instruction& inst, const std::vector<const Literal*>& operands);

}  // namespace vkxla
