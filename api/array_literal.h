// Public arrays <-> engine literals. Both hold logical row-major data; they
// differ only in sub-byte integers, which an Array keeps sign- or
// zero-extended (so int8/uint8 views read them) and a Literal as raw low
// bits (as Scalar::Bits gives them).
#pragma once

#include "ir/literal.h"
#include "vkxla/array.h"

namespace vkxla {

Literal ToLiteral(const Array& array);
StatusOr<Array> FromLiteral(Literal literal);

}  // namespace vkxla
