#include "ir/element_type.h"

#include <array>

namespace vkxla {
namespace {

struct TypeInfo {
  ElementType type;
  std::string_view name;
  int bits;
};

constexpr std::array<TypeInfo, 25> kTypes = {{
    {ElementType::kPred, "pred", 8},
    {ElementType::kS2, "s2", 2},
    {ElementType::kS4, "s4", 4},
    {ElementType::kS8, "s8", 8},
    {ElementType::kS16, "s16", 16},
    {ElementType::kS32, "s32", 32},
    {ElementType::kS64, "s64", 64},
    {ElementType::kU2, "u2", 2},
    {ElementType::kU4, "u4", 4},
    {ElementType::kU8, "u8", 8},
    {ElementType::kU16, "u16", 16},
    {ElementType::kU32, "u32", 32},
    {ElementType::kU64, "u64", 64},
    {ElementType::kF16, "f16", 16},
    {ElementType::kBF16, "bf16", 16},
    {ElementType::kF32, "f32", 32},
    {ElementType::kF64, "f64", 64},
    {ElementType::kF8E4M3FN, "f8e4m3fn", 8},
    {ElementType::kF8E5M2, "f8e5m2", 8},
    {ElementType::kF8E4M3, "f8e4m3", 8},
    {ElementType::kF8E3M4, "f8e3m4", 8},
    {ElementType::kC64, "c64", 64},
    {ElementType::kC128, "c128", 128},
    {ElementType::kToken, "token", 0},
    {ElementType::kTuple, "tuple", 0},
}};

const TypeInfo* Find(ElementType t) {
  for (const auto& i : kTypes)
    if (i.type == t) return &i;
  return nullptr;
}

}  // namespace

std::string_view ElementTypeName(ElementType t) {
  const TypeInfo* i = Find(t);
  return i ? i->name : "invalid";
}

std::optional<ElementType> ParseElementType(std::string_view name) {
  for (const auto& i : kTypes)
    if (i.name == name) return i.type;
  return std::nullopt;
}

int BitWidth(ElementType t) {
  const TypeInfo* i = Find(t);
  return i ? i->bits : 0;
}

int ByteWidth(ElementType t) {
  int bits = BitWidth(t);
  return bits == 0 ? 0 : (bits + 7) / 8;
}

bool IsArrayType(ElementType t) {
  return t != ElementType::kInvalid && t != ElementType::kToken && t != ElementType::kTuple;
}

bool IsSignedInt(ElementType t) {
  return t == ElementType::kS2 || t == ElementType::kS4 || t == ElementType::kS8 || t == ElementType::kS16 ||
         t == ElementType::kS32 || t == ElementType::kS64;
}

bool IsUnsignedInt(ElementType t) {
  return t == ElementType::kU2 || t == ElementType::kU4 || t == ElementType::kU8 || t == ElementType::kU16 ||
         t == ElementType::kU32 || t == ElementType::kU64;
}

bool IsFloat(ElementType t) {
  return t == ElementType::kF16 || t == ElementType::kBF16 || t == ElementType::kF32 ||
         t == ElementType::kF64 || t == ElementType::kF8E4M3FN || t == ElementType::kF8E5M2 || t == ElementType::kF8E4M3 ||
         t == ElementType::kF8E3M4;
}

bool IsComplex(ElementType t) { return t == ElementType::kC64 || t == ElementType::kC128; }

ElementType ComplexComponentType(ElementType t) {
  if (t == ElementType::kC64) return ElementType::kF32;
  if (t == ElementType::kC128) return ElementType::kF64;
  return t;
}

int ExponentBits(ElementType t) {
  switch (t) {
    case ElementType::kF16: return 5;
    case ElementType::kBF16: return 8;
    case ElementType::kF32: return 8;
    case ElementType::kF64: return 11;
    case ElementType::kF8E4M3FN: case ElementType::kF8E4M3: return 4;
    case ElementType::kF8E3M4: return 3;
    case ElementType::kF8E5M2: return 5;
    default: return 0;
  }
}

int MantissaBits(ElementType t) {
  switch (t) {
    case ElementType::kF16: return 10;
    case ElementType::kBF16: return 7;
    case ElementType::kF32: return 23;
    case ElementType::kF64: return 52;
    case ElementType::kF8E4M3FN: case ElementType::kF8E4M3: return 3;
    case ElementType::kF8E3M4: return 4;
    case ElementType::kF8E5M2: return 2;
    default: return 0;
  }
}

int64_t IntegerMin(ElementType t) {
  if (!IsSignedInt(t)) return 0;
  const int bits = BitWidth(t);
  return bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
}

uint64_t IntegerMax(ElementType t) {
  if (t == ElementType::kPred) return 1;
  const int bits = BitWidth(t) - (IsSignedInt(t) ? 1 : 0);
  return bits >= 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
}

Status CheckOneByteValues(ElementType t, const uint8_t* bytes, size_t count, const std::string& what) {
  if (t != ElementType::kPred && !(IsInteger(t) && BitWidth(t) < 8)) return OkStatus();
  const int64_t lo = IntegerMin(t), hi = static_cast<int64_t>(IntegerMax(t));
  for (size_t i = 0; i < count; ++i) {
    const int64_t v = lo < 0 ? static_cast<int8_t>(bytes[i]) : bytes[i];
    if (v < lo || v > hi)
      return InvalidArgument(what + " element " + std::to_string(i) + " is " + std::to_string(v) + ", outside " +
                             std::string(ElementTypeName(t)) + "'s range [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "]");
  }
  return OkStatus();
}

}  // namespace vkxla
