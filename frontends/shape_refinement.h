// Shape-polymorphic StableHLO (jax.export with symbolic dimensions writes
// `tensor<?x4xf32>` and computes shapes with get_dimension_size and
// arithmetic) made static once the entry's argument shapes are known, as
// StableHLO's refine-shapes pass does before XLA compiles such a module:
// every value's open dimensions follow from its operands, and the shape
// operands of the dynamic_* ops fold to constants.
#pragma once

#include <optional>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

// `inst`'s shape with its open dimensions (kUnknownDim) filled from its
// operands, which are static; an error where they do not follow or the
// written ones disagree.
StatusOr<Shape> RefinedShape(const Instruction& inst);

// An entry argument `declared` with open dimensions, given as `given`:
// `given` where it fits (same type and rank, the same written dimensions).
StatusOr<Shape> RefinedArgument(const Shape& declared, const Shape& given);

// The entry's argument shapes from the shapes of the arrays it takes
// (`declared`'s array leaves in order; tokens take none): what the reader
// refines with, where callers know arrays only.
StatusOr<std::vector<Shape>> ArgumentShapesFromArrays(const std::vector<Shape>& declared, const std::vector<Shape>& arrays);

// `v`'s value where it depends on constants alone (a small expression: the
// shape arithmetic of a polymorphic export), else nullopt.
StatusOr<std::optional<Literal>> FoldConstantExpression(const Instruction& v);

}  // namespace vkxla
