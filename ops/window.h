// XLA's window attribute (`window={size=2x3 stride=2x1 pad=0_1x1_1
// lhs_dilate=2x1 rhs_dilate=1x3 rhs_reversal=0x1}`) of reduce-window,
// select-and-scatter and convolution: reading, printing, the result dims it
// gives and the builder's SAME/VALID padding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

struct Window {
  std::vector<int64_t> size, stride, pad_low, pad_high;
  std::vector<int64_t> base_dilation;    // lhs_dilate: holes between operand elements
  std::vector<int64_t> window_dilation;  // rhs_dilate: holes between window elements
  std::vector<int64_t> reversal;         // rhs_reversal: 1 where a convolution's kernel is reversed
  int64_t rank() const { return static_cast<int64_t>(size.size()); }
  std::string ToString() const;  // the attribute's text, "{size=2x3 ...}"
};

// A window of the given sizes with unit strides and dilations, no padding.
Window UnitWindow(const std::vector<int64_t>& size);

// Reads `window=` of inst and checks it against an operand of `rank`.
// Only a convolution's window may reverse (rhs_reversal) or have size 0
// (an empty kernel).
enum class WindowUse { kReduction, kConvolution };
StatusOr<Window> WindowOf(const Instruction& inst, int64_t rank, WindowUse use = WindowUse::kReduction);

// The number of window positions along each dim over `operand_dims`.
std::vector<int64_t> WindowedDims(const std::vector<int64_t>& operand_dims, const Window& w);

enum class Padding { kValid, kSame };
// The padding the builder's SAME/VALID gives for these strides: SAME pads
// so that the result has ceil(dim / stride) positions, the odd element at
// the high end (XLA's MakePadding).
void SetPadding(Window& w, const std::vector<int64_t>& operand_dims, Padding padding);

}  // namespace vkxla
