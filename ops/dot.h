// Dot and DotGeneral (operation_semantics: Dot, DotGeneral; stablehlo_spec:
// dot_general): the dimension numbers (`lhs_batch_dims`, `rhs_batch_dims`,
// `lhs_contracting_dims`, `rhs_contracting_dims`), `operand_precision` and
// `algorithm`, checked against the operands, and the canonical form every
// consumer shares: result[b..., m..., n...] = sum over k... of
// lhs[b, m, k] * rhs[b, k, n], with the batch dims first, then lhs's free
// dims, then rhs's free dims, each in ascending order.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

struct DotDimensions {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
};

// Operands rounded to a precision before their products (XLA's
// PrecisionConfig::Algorithm, StableHLO's DotAlgorithm); accumulation is
// always at least f32 here. kInvalid: operands as they are.
struct DotAlgorithm {
  ElementType lhs_precision = ElementType::kInvalid, rhs_precision = ElementType::kInvalid;
  bool tf32 = false;  // both rounded to TensorFloat-32 (8-bit exponent, 10-bit mantissa)
};

struct DotPlan {
  DotDimensions dims;
  std::vector<int64_t> lhs_free, rhs_free;  // ascending
  // Sizes of the canonical form: batches, rows, columns, the contraction.
  int64_t batch = 1, m = 1, n = 1, k = 1;
  DotAlgorithm algorithm;
};

// The dimension numbers as written; absent ones read as empty, except a
// plain dot without any: lhs's last dim with rhs's first (Dot's rule).
StatusOr<DotDimensions> DotDimensionsOf(const Instruction& inst);
void SetDotDimensions(Instruction& inst, const DotDimensions& d);
// Checks dimension numbers, operand and result types and the attributes;
// errors quote the shapes.
// Dot, RaggedDot and ScaledDot share the dimension numbers and these
// checks (PlanDot leaves the ragged rhs's group dim out of its free dims).
StatusOr<DotPlan> PlanDot(const Instruction& inst);
// The checks products share (Dot's family and Convolution): operand types
// of one kind (pred, integers, floats, complex; complex with real), the
// result (inst's shape where it has one) of their kind, operand_precision
// and algorithm well formed.
Status CheckProductOperands(const Instruction& inst, const Shape& lhs, const Shape& rhs);
inline bool IsDotFamily(Opcode op) { return op == Opcode::kDot || op == Opcode::kRaggedDot || op == Opcode::kScaledDot; }
StatusOr<Shape> InferDotShape(const Instruction& inst);

// Dots of operands with bounded dynamic dimensions: a contracting dim sums
// over its run-time size (the lhs's where its dim is dynamic, else the
// rhs's), and the batch and free dims keep theirs in the result.
bool IsDynamicDot(const Instruction& inst);
// Marks the dims of `result` (the dot's static shape) that an operand's
// dynamic batch or free dim becomes.
void MarkDynamicDotResult(const Instruction& inst, Shape& result);
// The reference for such a dot on operands at their run-time sizes.
StatusOr<Literal> EvaluateDynamicDot(const Instruction& inst, const Literal& lhs, const Literal& rhs);
// The algorithm written as XLA's name ("dot_bf16_bf16_f32"), or an error
// naming the ones this build runs.
StatusOr<DotAlgorithm> ParseDotAlgorithm(const std::string& name);

// Operand x's index of canonical (b, f, k): f is m for the lhs, n for the
// rhs; each linear index spreads over its dims, the last listed fastest.
std::vector<int64_t> CanonicalOperandIndex(const Shape& x, const std::vector<int64_t>& batch_dims,
                                           const std::vector<int64_t>& free_dims, const std::vector<int64_t>& contracting,
                                           int64_t b, int64_t f, int64_t k);

// The reference: products and sums in double (complex<double>; exact
// integers wrapping to the result's width; pred as or-of-ands), each
// operand first converted (and rounded as the algorithm says), rounded
// once to the result type.
StatusOr<Literal> EvaluateDot(const Instruction& inst, const Literal& lhs, const Literal& rhs);

}  // namespace vkxla
