// StableHLO's dot forms read onto HLO's attributes: stablehlo.dot_general's
// dimension numbers (pretty `batching_dims = [0] x [0], contracting_dims =
// [2] x [1]` or generic `#stablehlo.dot<lhs_batching_dimensions = ...>`),
// `precision` (`[DEFAULT, HIGH]` or `[#stablehlo<precision DEFAULT>, ...]`)
// and `algorithm` (StableHLO's DotAlgorithm struct, named as XLA names it),
// and chlo.ragged_dot's `#chlo.ragged_dot<...>`.
#pragma once

#include <map>
#include <string>

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

// Sets the dot attributes `inst` needs from the raw attributes of `op`
// ("dot", "dot_general" or "ragged_dot"); errors say what was written and
// what is expected (the caller adds where).
Status ReadStablehloDotAttributes(const std::string& op, const std::map<std::string, std::string>& attributes,
                                  Instruction& inst);

// `precision = [DEFAULT, HIGH]` or `precision_config = [...]` as HLO's
// operand_precision (dots and convolutions).
Status ReadStablehloPrecision(const std::map<std::string, std::string>& attributes, Instruction& inst);

// XLA's name for a StableHLO DotAlgorithm ("<lhs_precision_type = bf16,
// rhs_precision_type = bf16, accumulation_type = f32, ...>" gives
// "dot_bf16_bf16_f32").
StatusOr<std::string> XlaDotAlgorithmName(const std::string& raw);

}  // namespace vkxla
