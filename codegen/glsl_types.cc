#include "codegen/glsl_types.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace vkxla {
namespace {

int StorageBits(ElementType t) {
  switch (t) {
    case ElementType::kPred: case ElementType::kS2: case ElementType::kU2: case ElementType::kS4: case ElementType::kU4:
    case ElementType::kF4E2M1FN: case ElementType::kF6E2M3FN: case ElementType::kF6E3M2FN:
      return 8;
    default: return BitWidth(t);
  }
}

std::string Hex(uint64_t v, bool wide) {
  char buf[32];
  std::snprintf(buf, sizeof buf, wide ? "0x%llxul" : "0x%llxu", static_cast<unsigned long long>(v));
  return buf;
}

std::string FloatLiteral(double v, bool is_double, bool opaque_zero) {
  if (opaque_zero && v == 0 && !std::signbit(v))
    return is_double ? "packDouble2x32(uvec2(gl_NumWorkGroups.z - 1u, 0u))" : "uintBitsToFloat(gl_NumWorkGroups.z - 1u)";
  if (std::isnan(v)) return is_double ? "packDouble2x32(uvec2(0u, 0x7ff80000u))" : "uintBitsToFloat(0x7fc00000u)";
  if (std::isinf(v)) {
    if (is_double) return v > 0 ? "packDouble2x32(uvec2(0u, 0x7ff00000u))" : "packDouble2x32(uvec2(0u, 0xfff00000u))";
    return v > 0 ? "uintBitsToFloat(0x7f800000u)" : "uintBitsToFloat(0xff800000u)";
  }
  if (is_double) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return "packDouble2x32(uvec2(" + Hex(bits & 0xffffffffu, false) + ", " + Hex(bits >> 32, false) + "))";
  }
  float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return "uintBitsToFloat(" + Hex(bits, false) + ")";
}

}  // namespace

StatusOr<GlslType> GlslTypeFor(ElementType t, const TargetFeatures& target, const std::string& op_context) {
  GlslType g;
  g.storage_bits = StorageBits(t);
  switch (t) {
    case ElementType::kPred: g.compute = "bool"; break;
    case ElementType::kS2: case ElementType::kS4: case ElementType::kS8: case ElementType::kS16: case ElementType::kS32:
      g.compute = "int";
      break;
    case ElementType::kU2: case ElementType::kU4: case ElementType::kU8: case ElementType::kU16: case ElementType::kU32:
      g.compute = "uint";
      break;
    case ElementType::kF32: g.compute = "float"; break;
    case ElementType::kC64: g.compute = "vec2"; break;
    // Without shaderInt64 these are word pairs (codegen/spirv_int64_lowering.h).
    case ElementType::kS64: g.compute = "int64_t"; break;
    case ElementType::kU64: g.compute = "uint64_t"; break;
    // Without shaderFloat64 these are software floats (codegen/spirv_float64_lowering.h).
    case ElementType::kF64: g.compute = "double"; break;
    case ElementType::kC128: g.compute = "dvec2"; break;
    default:
      if (!NarrowFloatName(t).empty()) {
        g.compute = "float";
        break;
      }
      return Unimplemented(op_context + ": element type " + std::string(ElementTypeName(t)) + " has no device form");
  }
  return g;
}

std::string NarrowFloatName(ElementType t) {
  if (!IsFloat(t) || BitWidth(t) > 16) return "";
  return std::string(ElementTypeName(t));
}

std::string DecodeNarrowFloatBits(ElementType t, const std::string& bits) { return NarrowFloatName(t) + "_to_f32(" + bits + ")"; }

int ElementsPerWord(ElementType t) {
  int bits = StorageBits(t);
  return bits >= 32 ? 1 : 32 / bits;
}

int WordsPerElement(ElementType t) { return StorageBits(t) <= 32 ? 1 : StorageBits(t) / 32; }

std::string SlotBitOffset(int bits, const std::string& slot) {
  if (slot == "0u") return bits == 4 ? "4u" : "0u";
  if (bits == 4) return "((((" + slot + ") >> 1u) << 3u) + ((((" + slot + ") & 1u) ^ 1u) << 2u))";
  return "((" + slot + ") * " + std::to_string(bits) + "u)";
}

std::string DecodeWords(ElementType t, const std::vector<std::string>& words, const std::string& slot, int bits) {
  if (bits == 0) bits = StorageBits(t);
  auto sub = [&](bool is_signed) {
    const std::string offset = "int(" + SlotBitOffset(bits, slot) + ")";
    return is_signed ? "bitfieldExtract(int(" + words[0] + "), " + offset + ", " + std::to_string(bits) + ")"
                     : "bitfieldExtract(" + words[0] + ", " + offset + ", " + std::to_string(bits) + ")";
  };
  switch (t) {
    case ElementType::kPred: return "(" + sub(false) + " != 0u)";
    case ElementType::kS2: return bits == 2 ? sub(true) : "bitfieldExtract(" + sub(true) + ", 0, 2)";
    case ElementType::kU2: return bits == 2 ? sub(false) : "(" + sub(false) + " & 0x3u)";
    case ElementType::kS4: return bits == 4 ? sub(true) : "bitfieldExtract(" + sub(true) + ", 0, 4)";
    case ElementType::kU4: return bits == 4 ? sub(false) : "(" + sub(false) + " & 0xFu)";
    case ElementType::kS8: case ElementType::kS16: return sub(true);
    case ElementType::kU8: case ElementType::kU16: return sub(false);
    case ElementType::kF32: return "uintBitsToFloat(" + words[0] + ")";
    case ElementType::kS32: return "int(" + words[0] + ")";
    case ElementType::kU32: return words[0];
    case ElementType::kF64: return "packDouble2x32(uvec2(" + words[0] + ", " + words[1] + "))";
    case ElementType::kS64: return "int64_t(packUint2x32(uvec2(" + words[0] + ", " + words[1] + ")))";
    case ElementType::kU64: return "packUint2x32(uvec2(" + words[0] + ", " + words[1] + "))";
    case ElementType::kC64: return "vec2(uintBitsToFloat(" + words[0] + "), uintBitsToFloat(" + words[1] + "))";
    case ElementType::kC128:
      return "dvec2(packDouble2x32(uvec2(" + words[0] + ", " + words[1] + ")), packDouble2x32(uvec2(" + words[2] +
             ", " + words[3] + ")))";
    default: return NarrowFloatName(t).empty() ? "0" : DecodeNarrowFloatBits(t, sub(false));
  }
}

std::string LoadExpression(ElementType t, const std::string& b, const std::string& i, int bits, const std::string& word) {
  if (bits == 0) bits = StorageBits(t);
  const int per = bits >= 32 ? 1 : 32 / bits, n = WordsPerElement(t);
  if (n == 1) {
    if (per == 1) return DecodeWords(t, {word + "(" + b + ", " + i + ")"}, "0u", bits);
    const int shift = per == 2 ? 1 : per == 4 ? 2 : 3;
    return DecodeWords(t, {word + "(" + b + ", (" + i + ") >> " + std::to_string(shift) + "u)"},
                       "((" + i + ") & " + std::to_string(per - 1) + "u)", bits);
  }
  std::vector<std::string> words;
  for (int k = 0; k < n; ++k)
    words.push_back(word + "(" + b + ", " + std::to_string(n) + "u * (" + i + ") + " + std::to_string(k) + "u)");
  return DecodeWords(t, words, "0u");
}

std::string EncodeToBits(ElementType t, const std::string& v) {
  switch (t) {
    case ElementType::kPred: return "uint(" + v + ")";
    case ElementType::kS2: return "(uint(" + v + ") & 0x3u)";
    case ElementType::kU2: return "((" + v + ") & 0x3u)";
    case ElementType::kS4: return "(uint(" + v + ") & 0xFu)";
    case ElementType::kU4: return "((" + v + ") & 0xFu)";
    case ElementType::kS8: return "(uint(" + v + ") & 0xFFu)";
    case ElementType::kU8: return "((" + v + ") & 0xFFu)";
    case ElementType::kS16: return "(uint(" + v + ") & 0xFFFFu)";
    case ElementType::kU16: return "((" + v + ") & 0xFFFFu)";
    case ElementType::kS32: return "uint(" + v + ")";
    case ElementType::kU32: return "(" + v + ")";
    case ElementType::kF32: return "floatBitsToUint(" + v + ")";
    default: return NarrowFloatName(t).empty() ? "0u" : "f32_to_" + NarrowFloatName(t) + "(" + v + ")";
  }
}

std::string NormalizeExpression(ElementType t, const std::string& v) {
  switch (t) {
    case ElementType::kS2: return "bitfieldExtract(" + v + ", 0, 2)";
    case ElementType::kU2: return "((" + v + ") & 0x3u)";
    case ElementType::kS4: return "bitfieldExtract(" + v + ", 0, 4)";
    case ElementType::kS8: return "bitfieldExtract(" + v + ", 0, 8)";
    case ElementType::kS16: return "bitfieldExtract(" + v + ", 0, 16)";
    case ElementType::kU4: return "((" + v + ") & 0xFu)";
    case ElementType::kU8: return "((" + v + ") & 0xFFu)";
    case ElementType::kU16: return "((" + v + ") & 0xFFFFu)";
    default: return NarrowFloatName(t).empty() ? v : "q_" + NarrowFloatName(t) + "(" + v + ")";
  }
}

std::string GlslLiteral(const Scalar& x, bool opaque_zeros) {
  const ElementType t = x.type;
  const std::string zero_word = "(gl_NumWorkGroups.z - 1u)";
  if (opaque_zeros && !IsFloat(t) && !IsComplex(t) && x.u == 0 && x.s == 0) {
    switch (t) {
      case ElementType::kPred: return "(" + zero_word + " != 0u)";
      case ElementType::kS64: return "int64_t" + zero_word;
      case ElementType::kU64: return "uint64_t" + zero_word;
      default: return IsSignedInt(t) ? "int" + zero_word : zero_word;
    }
  }
  switch (t) {
    case ElementType::kPred: return x.pred() ? "true" : "false";
    case ElementType::kS2: case ElementType::kS4: case ElementType::kS8: case ElementType::kS16: case ElementType::kS32:
      return "int(" + Hex(static_cast<uint32_t>(x.s), false) + ")";
    case ElementType::kU2: case ElementType::kU4: case ElementType::kU8: case ElementType::kU16: case ElementType::kU32:
      return Hex(x.u, false);
    case ElementType::kS64: return "int64_t(" + Hex(static_cast<uint64_t>(x.s), true) + ")";
    case ElementType::kU64: return Hex(x.u, true);
    case ElementType::kF64: return FloatLiteral(x.re, true, opaque_zeros);
    case ElementType::kC64: return "vec2(" + FloatLiteral(x.re, false, opaque_zeros) + ", " + FloatLiteral(x.im, false, opaque_zeros) + ")";
    case ElementType::kC128: return "dvec2(" + FloatLiteral(x.re, true, opaque_zeros) + ", " + FloatLiteral(x.im, true, opaque_zeros) + ")";
    default: return FloatLiteral(x.re, false, opaque_zeros);  // f32 and the narrow floats, already rounded
  }
}

}  // namespace vkxla
