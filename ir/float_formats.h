// Host conversions between double and XLA's narrow float formats (f16, bf16,
// and the f8, f6 and f4 types), rounding to nearest even like XLA's converts. Used by
// literals, the reference evaluator and .npy I/O.
#pragma once

#include <cstdint>

#include "ir/element_type.h"

namespace vkxla {

// Encodes v into the bit pattern of the narrow float type t.
uint32_t EncodeNarrowFloat(double v, ElementType t);
double DecodeNarrowFloat(uint32_t bits, ElementType t);
// Rounds v to the nearest value of float type t (f32 and f64 included),
// the way storing into a t and reading it back would.
double RoundToFloatType(double v, ElementType t);

// XLA's ReducePrecision on a double holding a value of its input type.
double ReducePrecisionValue(double v, ElementType input, int exponent_bits, int mantissa_bits);

}  // namespace vkxla
