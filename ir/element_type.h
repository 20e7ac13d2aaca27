// The static properties of XLA's element types (the enum itself is public:
// vkxla/element_type.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vkxla/element_type.h"
#include "vkxla/status.h"

namespace vkxla {

// Size of one element in bits as XLA stores it unpacked (S4 is 4, S2 2; PRED 8).
int BitWidth(ElementType t);

bool IsArrayType(ElementType t);  // everything but token and tuple

bool IsSignedInt(ElementType t);
bool IsUnsignedInt(ElementType t);
inline bool IsInteger(ElementType t) { return IsSignedInt(t) || IsUnsignedInt(t); }
bool IsFloat(ElementType t);      // real floating point, f8 included
bool IsComplex(ElementType t);
inline bool IsFloatOrComplex(ElementType t) { return IsFloat(t) || IsComplex(t); }
// The real component type of a complex type (c64 -> f32), else t itself.
ElementType ComplexComponentType(ElementType t);
// Number of exponent and mantissa bits of a float type (mantissa without the
// implicit bit) and its exponent bias; ReducePrecision and the narrow float
// conversions use them. 0 for a type that is not a real float.
int ExponentBits(ElementType t);
int MantissaBits(ElementType t);
int ExponentBias(ElementType t);

// How a float type spends its special encodings (ml_dtypes' and LLVM's
// naming: f = finite, n = special NaN, uz = unsigned zero, u = unsigned).
enum class FloatEncoding {
  kIeee,                   // infinities and NaNs at the all-ones exponent
  kFiniteNan,              // fn: no infinities; all ones (either sign) is NaN
  kFiniteNanUnsignedZero,  // fnuz: no infinities, no -0; NaN is the sign bit alone
  kFinite,                 // fn (MX f4/f6): no infinities, no NaN; overflow saturates
  kExponentOnly,           // f8e8m0fnu: no sign, mantissa or zero; all ones is NaN
};
FloatEncoding FloatEncodingOf(ElementType t);

// The smallest and largest values of an integer type (pred: 0 and 1);
// readers check values against them rather than let them wrap.
int64_t IntegerMin(ElementType t);
uint64_t IntegerMax(ElementType t);

// Host arrays (the public Array, .npy files) hold pred and the sub-byte
// integers one element per byte, signed ones sign-extended; an error naming
// `what` and the first byte that is not a value of the type (other types:
// OK). A wrapped value would reach the device as another number.
Status CheckOneByteValues(ElementType t, const uint8_t* bytes, size_t count, const std::string& what);

}  // namespace vkxla
