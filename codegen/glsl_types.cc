#include "codegen/glsl_types.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace vkxla {
namespace {

int StorageBits(ElementType t) {
  switch (t) {
    case ElementType::kPred: case ElementType::kS4: case ElementType::kU4: return 8;
    default: return BitWidth(t);
  }
}

std::string Hex(uint64_t v, bool wide) {
  char buf[32];
  std::snprintf(buf, sizeof buf, wide ? "0x%llxul" : "0x%llxu", static_cast<unsigned long long>(v));
  return buf;
}

std::string FloatLiteral(double v, bool is_double) {
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
  auto need = [&](bool have, const char* feature) -> Status {
    if (have) return OkStatus();
    return Unimplemented(op_context + ": element type " + std::string(ElementTypeName(t)) + " needs the device feature " +
                         feature + ", which " + target.device_name + " lacks (or VKXLA_MASK hides)");
  };
  GlslType g;
  g.storage_bits = StorageBits(t);
  switch (t) {
    case ElementType::kPred: g.compute = "bool"; break;
    case ElementType::kS4: case ElementType::kS8: case ElementType::kS16: case ElementType::kS32: g.compute = "int"; break;
    case ElementType::kU4: case ElementType::kU8: case ElementType::kU16: case ElementType::kU32: g.compute = "uint"; break;
    case ElementType::kF16: case ElementType::kBF16: case ElementType::kF32: case ElementType::kF8E4M3FN:
    case ElementType::kF8E5M2: g.compute = "float"; break;
    case ElementType::kC64: g.compute = "vec2"; break;
    case ElementType::kS64: RETURN_IF_ERROR(need(target.int64, "shaderInt64")); g.compute = "int64_t"; break;
    case ElementType::kU64: RETURN_IF_ERROR(need(target.int64, "shaderInt64")); g.compute = "uint64_t"; break;
    case ElementType::kF64: RETURN_IF_ERROR(need(target.float64, "shaderFloat64")); g.compute = "double"; break;
    case ElementType::kC128: RETURN_IF_ERROR(need(target.float64, "shaderFloat64")); g.compute = "dvec2"; break;
    default:
      return Unimplemented(op_context + ": element type " + std::string(ElementTypeName(t)) + " has no device form");
  }
  return g;
}

int ElementsPerWord(ElementType t) {
  int bits = StorageBits(t);
  return bits >= 32 ? 1 : 32 / bits;
}

std::string LoadExpression(ElementType t, const std::string& b, const std::string& i) {
  const std::string w = b + ".w";
  auto sub = [&](int bits, bool is_signed) {
    int per = 32 / bits;
    std::string word = w + "[(" + i + ") / " + std::to_string(per) + "u]";
    std::string offset = "int(((" + i + ") % " + std::to_string(per) + "u) * " + std::to_string(bits) + "u)";
    return is_signed ? "bitfieldExtract(int(" + word + "), " + offset + ", " + std::to_string(bits) + ")"
                     : "bitfieldExtract(" + word + ", " + offset + ", " + std::to_string(bits) + ")";
  };
  auto word = [&](int k, int n) { return w + "[" + std::to_string(n) + "u * (" + i + ") + " + std::to_string(k) + "u]"; };
  switch (t) {
    case ElementType::kPred: return "(" + sub(8, false) + " != 0u)";
    case ElementType::kS4: return "bitfieldExtract(" + sub(8, true) + ", 0, 4)";
    case ElementType::kU4: return "(" + sub(8, false) + " & 0xFu)";
    case ElementType::kS8: return sub(8, true);
    case ElementType::kU8: return sub(8, false);
    case ElementType::kS16: return sub(16, true);
    case ElementType::kU16: return sub(16, false);
    case ElementType::kF16: return "f16_to_f32(" + sub(16, false) + ")";
    case ElementType::kBF16: return "uintBitsToFloat(" + sub(16, false) + " << 16)";
    case ElementType::kF8E4M3FN: return "f8e4m3fn_to_f32(" + sub(8, false) + ")";
    case ElementType::kF8E5M2: return "f16_to_f32(" + sub(8, false) + " << 8)";
    case ElementType::kF32: return "uintBitsToFloat(" + w + "[" + i + "])";
    case ElementType::kS32: return "int(" + w + "[" + i + "])";
    case ElementType::kU32: return w + "[" + i + "]";
    case ElementType::kF64: return "packDouble2x32(uvec2(" + word(0, 2) + ", " + word(1, 2) + "))";
    case ElementType::kS64: return "int64_t(packUint2x32(uvec2(" + word(0, 2) + ", " + word(1, 2) + ")))";
    case ElementType::kU64: return "packUint2x32(uvec2(" + word(0, 2) + ", " + word(1, 2) + "))";
    case ElementType::kC64:
      return "vec2(uintBitsToFloat(" + word(0, 2) + "), uintBitsToFloat(" + word(1, 2) + "))";
    case ElementType::kC128:
      return "dvec2(packDouble2x32(uvec2(" + word(0, 4) + ", " + word(1, 4) + ")), packDouble2x32(uvec2(" + word(2, 4) +
             ", " + word(3, 4) + ")))";
    default: return "0";
  }
}

std::string EncodeToBits(ElementType t, const std::string& v) {
  switch (t) {
    case ElementType::kPred: return "uint(" + v + ")";
    case ElementType::kS4: return "(uint(" + v + ") & 0xFu)";
    case ElementType::kU4: return "((" + v + ") & 0xFu)";
    case ElementType::kS8: return "(uint(" + v + ") & 0xFFu)";
    case ElementType::kU8: return "((" + v + ") & 0xFFu)";
    case ElementType::kS16: return "(uint(" + v + ") & 0xFFFFu)";
    case ElementType::kU16: return "((" + v + ") & 0xFFFFu)";
    case ElementType::kS32: return "uint(" + v + ")";
    case ElementType::kU32: return "(" + v + ")";
    case ElementType::kF32: return "floatBitsToUint(" + v + ")";
    case ElementType::kF16: return "f32_to_f16(" + v + ")";
    case ElementType::kBF16: return "f32_to_bf16(" + v + ")";
    case ElementType::kF8E4M3FN: return "f32_to_f8e4m3fn(" + v + ")";
    case ElementType::kF8E5M2: return "f32_to_f8e5m2(" + v + ")";
    default: return "0u";
  }
}

std::string NormalizeExpression(ElementType t, const std::string& v) {
  switch (t) {
    case ElementType::kF16: return "q_f16(" + v + ")";
    case ElementType::kBF16: return "q_bf16(" + v + ")";
    case ElementType::kF8E4M3FN: return "q_f8e4m3fn(" + v + ")";
    case ElementType::kF8E5M2: return "q_f8e5m2(" + v + ")";
    case ElementType::kS4: return "bitfieldExtract(" + v + ", 0, 4)";
    case ElementType::kS8: return "bitfieldExtract(" + v + ", 0, 8)";
    case ElementType::kS16: return "bitfieldExtract(" + v + ", 0, 16)";
    case ElementType::kU4: return "((" + v + ") & 0xFu)";
    case ElementType::kU8: return "((" + v + ") & 0xFFu)";
    case ElementType::kU16: return "((" + v + ") & 0xFFFFu)";
    default: return v;
  }
}

std::string GlslLiteral(const Scalar& x) {
  const ElementType t = x.type;
  switch (t) {
    case ElementType::kPred: return x.pred() ? "true" : "false";
    case ElementType::kS4: case ElementType::kS8: case ElementType::kS16: case ElementType::kS32:
      return "int(" + Hex(static_cast<uint32_t>(x.s), false) + ")";
    case ElementType::kU4: case ElementType::kU8: case ElementType::kU16: case ElementType::kU32:
      return Hex(x.u, false);
    case ElementType::kS64: return "int64_t(" + Hex(static_cast<uint64_t>(x.s), true) + ")";
    case ElementType::kU64: return Hex(x.u, true);
    case ElementType::kF64: return FloatLiteral(x.re, true);
    case ElementType::kC64: return "vec2(" + FloatLiteral(x.re, false) + ", " + FloatLiteral(x.im, false) + ")";
    case ElementType::kC128: return "dvec2(" + FloatLiteral(x.re, true) + ", " + FloatLiteral(x.im, true) + ")";
    default: return FloatLiteral(x.re, false);  // f32 and the narrow floats, already rounded
  }
}

}  // namespace vkxla
