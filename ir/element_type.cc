#include "ir/element_type.h"

#include <array>

namespace vkxla {
namespace {

struct TypeInfo {
  ElementType type;
  std::string_view name;
  int bits;
};

constexpr std::array<TypeInfo, 32> kTypes = {{
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
    {ElementType::kF8E4M3FNUZ, "f8e4m3fnuz", 8},
    {ElementType::kF8E5M2FNUZ, "f8e5m2fnuz", 8},
    {ElementType::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    {ElementType::kF8E8M0FNU, "f8e8m0fnu", 8},
    {ElementType::kF4E2M1FN, "f4e2m1fn", 4},
    {ElementType::kF6E2M3FN, "f6e2m3fn", 6},
    {ElementType::kF6E3M2FN, "f6e3m2fn", 6},
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

const std::vector<ElementType>& ArrayElementTypes() {
  static const std::vector<ElementType> types = [] {
    std::vector<ElementType> v;
    for (const TypeInfo& i : kTypes)
      if (IsArrayType(i.type)) v.push_back(i.type);
    return v;
  }();
  return types;
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

bool IsFloat(ElementType t) { return ExponentBits(t) > 0; }

bool IsComplex(ElementType t) { return t == ElementType::kC64 || t == ElementType::kC128; }

ElementType ComplexComponentType(ElementType t) {
  if (t == ElementType::kC64) return ElementType::kF32;
  if (t == ElementType::kC128) return ElementType::kF64;
  return t;
}

namespace {

struct FloatInfo {
  ElementType type;
  int exponent_bits, mantissa_bits, bias;
  FloatEncoding encoding;
};

constexpr FloatInfo kFloats[] = {
    {ElementType::kF16, 5, 10, 15, FloatEncoding::kIeee},
    {ElementType::kBF16, 8, 7, 127, FloatEncoding::kIeee},
    {ElementType::kF32, 8, 23, 127, FloatEncoding::kIeee},
    {ElementType::kF64, 11, 52, 1023, FloatEncoding::kIeee},
    {ElementType::kF8E5M2, 5, 2, 15, FloatEncoding::kIeee},
    {ElementType::kF8E4M3, 4, 3, 7, FloatEncoding::kIeee},
    {ElementType::kF8E3M4, 3, 4, 3, FloatEncoding::kIeee},
    {ElementType::kF8E4M3FN, 4, 3, 7, FloatEncoding::kFiniteNan},
    {ElementType::kF8E4M3FNUZ, 4, 3, 8, FloatEncoding::kFiniteNanUnsignedZero},
    {ElementType::kF8E5M2FNUZ, 5, 2, 16, FloatEncoding::kFiniteNanUnsignedZero},
    {ElementType::kF8E4M3B11FNUZ, 4, 3, 11, FloatEncoding::kFiniteNanUnsignedZero},
    {ElementType::kF8E8M0FNU, 8, 0, 127, FloatEncoding::kExponentOnly},
    {ElementType::kF4E2M1FN, 2, 1, 1, FloatEncoding::kFinite},
    {ElementType::kF6E2M3FN, 2, 3, 1, FloatEncoding::kFinite},
    {ElementType::kF6E3M2FN, 3, 2, 3, FloatEncoding::kFinite},
};

const FloatInfo* FindFloat(ElementType t) {
  for (const FloatInfo& f : kFloats)
    if (f.type == t) return &f;
  return nullptr;
}

}  // namespace

int ExponentBits(ElementType t) {
  const FloatInfo* f = FindFloat(t);
  return f ? f->exponent_bits : 0;
}

int MantissaBits(ElementType t) {
  const FloatInfo* f = FindFloat(t);
  return f ? f->mantissa_bits : 0;
}

int ExponentBias(ElementType t) {
  const FloatInfo* f = FindFloat(t);
  return f ? f->bias : 0;
}

FloatEncoding FloatEncodingOf(ElementType t) {
  const FloatInfo* f = FindFloat(t);
  return f ? f->encoding : FloatEncoding::kIeee;
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
