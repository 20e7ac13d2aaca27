// XLA's primitive element types and their static properties.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vkxla {

enum class ElementType : uint8_t {
  kInvalid = 0,
  kPred,
  kS2, kS4, kS8, kS16, kS32, kS64,
  kU2, kU4, kU8, kU16, kU32, kU64,
  kF16, kBF16, kF32, kF64,
  kF8E4M3FN, kF8E5M2, kF8E4M3, kF8E3M4,
  kC64, kC128,
  kToken,
  kTuple,  // only as a Shape's kind, never as an array's elements
};

// Lower-case XLA spelling: "f32", "bf16", "f8e4m3fn", "pred", "token".
std::string_view ElementTypeName(ElementType t);
std::optional<ElementType> ParseElementType(std::string_view name);

// Size of one element in bits as XLA stores it unpacked (S4 is 4, S2 2; PRED 8).
int BitWidth(ElementType t);
// Bytes one element takes in an unpacked host buffer (S2/U2, S4/U4 take one byte).
int ByteWidth(ElementType t);

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
// implicit bit); ReducePrecision and the f8 conversions use them.
int ExponentBits(ElementType t);
int MantissaBits(ElementType t);

}  // namespace vkxla
