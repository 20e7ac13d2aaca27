// ScaledDot (operation_semantics: ScaledDot; HLO `scaled-dot(lhs, rhs,
// lhs_scale, rhs_scale)` with dot's dimension numbers): a DotGeneral of
// block-scaled operands, lhs * R(lhs_scale) . rhs * R(rhs_scale), where
// R repeats each scale element over a block of the operand: a scale of the
// operand's rank whose every dim divides the operand's (the blocks are the
// quotients; MX formats scale 32 elements along the contraction), or a
// scalar that leaves its operand unscaled. Products and sums are taken in
// the accumulator's precision (f32, or f64 for f64 results).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"
#include "ops/dot.h"

namespace vkxla {

struct ScaledDotPlan {
  DotPlan dot;
  // Per operand (0 lhs, 1 rhs): the block each scale element covers, per
  // operand dim; empty where the scale is a scalar (no scaling).
  std::vector<int64_t> blocks[2];
};

StatusOr<ScaledDotPlan> PlanScaledDot(const Instruction& inst);
StatusOr<Shape> InferScaledDotShape(const Instruction& inst);
// The scale's index for operand `side`'s element at `index`.
std::vector<int64_t> ScaleIndex(const ScaledDotPlan& plan, int side, const std::vector<int64_t>& index);
StatusOr<Literal> EvaluateScaledDot(const Instruction& inst, const Literal& lhs, const Literal& rhs, const Literal& lhs_scale,
                                    const Literal& rhs_scale);

}  // namespace vkxla
