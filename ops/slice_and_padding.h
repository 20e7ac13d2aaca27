// The `slice={[start:limit:stride], ...}` and `padding=low_high_interior x
// ...` attributes of HLO text, which the parser keeps verbatim: read into
// typed form for the shape rules, the reference and codegen, and written
// back for the builder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

struct SliceDimension {
  int64_t start = 0, limit = 0, stride = 1;
};
struct PaddingDimension {
  int64_t low = 0, high = 0, interior = 0;
};

StatusOr<std::vector<SliceDimension>> SliceOf(const Instruction& inst);
StatusOr<std::vector<PaddingDimension>> PaddingOf(const Instruction& inst);
std::string SliceText(const std::vector<SliceDimension>& dims);      // "{[0:2:1], [1:3:1]}"
std::string PaddingText(const std::vector<PaddingDimension>& dims);  // "0_0_0x1_2_0"

}  // namespace vkxla
