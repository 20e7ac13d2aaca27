// XLA's primitive element types, as the public API names an array's elements.
// Part of the installed public API; ir/element_type.h adds the properties
// the engine needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace vkxla {

enum class ElementType : uint8_t {
  kInvalid = 0,
  kPred,
  kS2, kS4, kS8, kS16, kS32, kS64,
  kU2, kU4, kU8, kU16, kU32, kU64,
  kF16, kBF16, kF32, kF64,
  kF8E4M3FN, kF8E5M2, kF8E4M3, kF8E3M4,
  kF8E4M3FNUZ, kF8E5M2FNUZ, kF8E4M3B11FNUZ, kF8E8M0FNU, kF4E2M1FN, kF6E2M3FN, kF6E3M2FN,
  kC64, kC128,
  kToken,
  kTuple,  // only as a Shape's kind, never as an array's elements
};

// Lower-case XLA spelling: "f32", "bf16", "f8e4m3fn", "pred", "token".
std::string_view ElementTypeName(ElementType t);
std::optional<ElementType> ParseElementType(std::string_view name);

// Every array element type (all but token and tuple): pred, the signed and
// unsigned integers, the floats, the complex types.
const std::vector<ElementType>& ArrayElementTypes();

// Bytes one element takes in a host array (S2/U2, S4/U4, F4 and F6 take one
// byte each, PRED one byte), as ml_dtypes stores them.
int ByteWidth(ElementType t);

}  // namespace vkxla
