// Host-side placement of literals on the device: logical data <-> the
// physical bytes of an array under its layout (tiles, padding, packed
// sub-byte elements), through ir/tiled_index.h, the same index arithmetic
// the kernels use.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

// Bits one element occupies in memory under `layout`: E(n) when the layout
// gives one (S4/U4 with E(4) pack two to a byte), else the type's storage
// width (PRED and unpacked S4/U4 take a byte). An E(n) the project cannot
// place is an error naming the type and layout.
StatusOr<int> ElementStorageBits(ElementType type, const Layout& layout);

// Bytes the array occupies, padding of partial tiles included, rounded up to
// whole 32-bit words (what a device buffer holds).
StatusOr<int64_t> PhysicalByteSize(const Shape& shape);

// The literal's logical data placed by `layout`; padding bytes are zero.
StatusOr<std::vector<uint8_t>> ToPhysical(const Literal& literal, const Layout& layout);
// The same written into `out`, which holds `size` bytes (a mapped buffer:
// no staging copy); fewer than the placement needs is an error.
Status ToPhysicalInto(const Literal& literal, const Layout& layout, uint8_t* out, int64_t size);
// The inverse: physical bytes of `shape` (with its layout) as a logical literal.
StatusOr<Literal> FromPhysical(const uint8_t* data, const Shape& shape);

}  // namespace vkxla
