// stablehlo.convolution's attributes read onto HLO's (ops/convolution.h):
// pretty `dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window =
// {stride = [..], pad = [[lo, hi], ..], lhs_dilate = [..], rhs_dilate = [..],
// reverse = [..]}` or generic `dimension_numbers = #stablehlo.conv<...>`
// (labels or `raw input_batch_dimension = 0, ...`), `window_strides`,
// `padding`, `lhs_dilation`, `rhs_dilation`, `window_reversal`; then the
// group counts and `precision_config`.
#pragma once

#include <map>
#include <string>

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

// Sets window, dim_labels, the group counts and operand_precision on `inst`
// (its operands already set); errors say what was written and what is
// expected (the caller adds where).
Status ReadStablehloConvolutionAttributes(const std::map<std::string, std::string>& attributes, Instruction& inst);

}  // namespace vkxla
