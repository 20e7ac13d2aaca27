// Logical index <-> physical placement of an array under its layout. The one
// definition the host relayout and the code generator share (tiles are the
// next step: see ARCHITECTURE.md).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/literal.h"
#include "ir/status.h"

namespace vkxla {

// Element strides of each logical dimension for an untiled layout.
std::vector<int64_t> PhysicalStrides(const Shape& shape, const Layout& layout);
// Bytes the array occupies on the device, rounded up to whole 32-bit words.
int64_t PhysicalByteSize(const Shape& shape);
// The literal's logical data placed by `layout`, padded to PhysicalByteSize.
StatusOr<std::vector<uint8_t>> ToPhysical(const Literal& literal, const Layout& layout);
// The inverse: physical bytes of `shape` (with its layout) as a logical literal.
StatusOr<Literal> FromPhysical(const uint8_t* data, const Shape& shape);

}  // namespace vkxla
