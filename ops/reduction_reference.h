// Reference semantics of the ops that combine elements through a called
// computation. Each folds in the order the page's pseudo-code gives (the
// init value on the left, elements in row-major order), so a computation
// that is associative but not commutative has one right answer; padding and
// base-dilation holes of a window contribute nothing. Sort is stable; TopK
// orders by total order (NaN beyond infinity), ties by smaller index.
#pragma once

#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"
#include "ops/scalar_function.h"

namespace vkxla {

StatusOr<Literal> EvaluateReduce(const Instruction& inst, const std::vector<const Literal*>& operands, const ScalarFunctionOf& fn);
StatusOr<Literal> EvaluateReduceWindow(const Instruction& inst, const std::vector<const Literal*>& operands,
                                       const ScalarFunctionOf& fn);
StatusOr<Literal> EvaluateSelectAndScatter(const Instruction& inst, const std::vector<const Literal*>& operands,
                                           const ScalarFunctionOf& fn);
StatusOr<Literal> EvaluateScan(const Instruction& inst, const std::vector<const Literal*>& operands, const LiteralFunction& step);
StatusOr<Literal> EvaluateSort(const Instruction& inst, const std::vector<const Literal*>& operands, const ScalarFunctionOf& fn);
StatusOr<Literal> EvaluateTopK(const Instruction& inst, const std::vector<const Literal*>& operands);
StatusOr<Literal> EvaluateMap(const Instruction& inst, const std::vector<const Literal*>& operands, const ScalarFunctionOf& fn);

// TopK's order: whether a comes before b (total order for floats).
bool TopKBefore(const Scalar& a, const Scalar& b, bool largest);

}  // namespace vkxla
