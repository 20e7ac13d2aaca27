// Convolution (operation_semantics: Conv, ConvWithGeneralPadding,
// ConvWithGeneralDimensions, ConvGeneral, ConvGeneralDilated;
// stablehlo_spec.md: convolution), as HLO writes it:
//   convolution(lhs, rhs), window={size=3x3 stride=2x2 pad=1_1x1_1
//     lhs_dilate=.. rhs_dilate=.. rhs_reversal=..},
//     dim_labels=b01f_01io->b01f, feature_group_count=1, batch_group_count=1
// dim_labels names each dim of the input (b batch, f feature), the kernel
// (i input feature, o output feature) and the output (b, f); digit j marks
// spatial dim j of each, the window's dim j. Each output element is the dot
// product of a window of the padded, lhs-dilated input (window elements
// rhs_dilate apart, the kernel reversed where rhs_reversal says) with the
// kernel's slice for its output feature. feature_group_count splits the
// input features and the output features into groups that only meet their
// own (grouped and depthwise convolutions); batch_group_count splits the
// input batch instead (weight gradients). The result's element type is the
// written one (preferred_element_type); products follow Dot's rules.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "ops/window.h"
#include "vkxla/status.h"

namespace vkxla {

struct ConvolutionDimensions {
  int64_t input_batch = 0, input_feature = 1;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0, kernel_output_feature = 1;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0, output_feature = 1;
  std::vector<int64_t> output_spatial;
  int64_t spatial_rank() const { return static_cast<int64_t>(input_spatial.size()); }
};

// "b01f_01io->b01f" (also "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", as
// StableHLO prints it) into dimension numbers, each side checked to name
// every dim once.
StatusOr<ConvolutionDimensions> ParseDimLabels(const std::string& text);
std::string DimLabelsText(const ConvolutionDimensions& d);  // "b01f_01io->b01f"

struct ConvolutionParams {
  ConvolutionDimensions dims;
  Window window;  // one dim per spatial dim; size = the kernel's spatial dims
  int64_t feature_group_count = 1, batch_group_count = 1;
  std::vector<int64_t> output_spatial;  // windows along each spatial dim
};

// The attributes as written, checked against the operands (the spec's
// C1-C25); errors quote the shapes. The strides, paddings and dilations are
// bounded so that every size derived from them fits in int64.
StatusOr<ConvolutionParams> ReadConvolution(const Instruction& inst);
StatusOr<Shape> InferConvolutionShape(const Instruction& inst);
// The reference: each output element summed over its window and features
// with Dot's arithmetic (ops/dot_arithmetic.h), skipping padding and
// dilation holes.
StatusOr<Literal> EvaluateConvolution(const Instruction& inst, const Literal& lhs, const Literal& rhs);

// Writes window, dim_labels and the group counts (builders and readers).
void SetConvolutionAttributes(Instruction& inst, const ConvolutionParams& p);

}  // namespace vkxla
