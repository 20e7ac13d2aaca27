// Scalar arithmetic of the fused kernels: unary and binary ops, converts
// and bit casts, as GLSL expressions over each type's compute type.
#include "codegen/element_emitter.h"

#include <cmath>

#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "ops/op_traits.h"

namespace vkxla {
namespace {

std::string Transcendental(Opcode op) {
  switch (op) {
    case Opcode::kExp: return "exp";
    case Opcode::kExpm1: return "expm1";
    case Opcode::kLog: return "log";
    case Opcode::kLog1p: return "log1p";
    case Opcode::kSin: return "sin";
    case Opcode::kCos: return "cos";
    case Opcode::kTan: return "tan";
    case Opcode::kTanh: return "tanh";
    case Opcode::kCosh: return "cosh";
    case Opcode::kLogistic: return "logistic";
    case Opcode::kSqrt: return "sqrt";
    case Opcode::kRsqrt: return "rsqrt";
    case Opcode::kCbrt: return "cbrt";
    case Opcode::kErf: return "erf";
    default: return "";
  }
}

}  // namespace

std::string ElementEmitter::Bits64(ElementType t, const std::string& x) {
  switch (t) {
    case ElementType::kF64: return "unpackDouble2x32(" + x + ")";
    case ElementType::kS64: case ElementType::kU64: return "unpackUint2x32(uint64_t(" + x + "))";
    case ElementType::kC64: return "uvec2(floatBitsToUint(" + x + ".x), floatBitsToUint(" + x + ".y))";
    default: return "uvec2(" + EncodeToBits(t, x) + ", 0u)";
  }
}

std::string ElementEmitter::FromBits64(ElementType t, const std::string& b) {
  switch (t) {
    case ElementType::kF64: return "packDouble2x32(" + b + ")";
    case ElementType::kS64: return "int64_t(packUint2x32(" + b + "))";
    case ElementType::kU64: return "packUint2x32(" + b + ")";
    case ElementType::kC64: return "vec2(uintBitsToFloat(" + b + ".x), uintBitsToFloat(" + b + ".y))";
    default: return "";
  }
}

// A device that flushes f32 subnormals (TargetFeatures::f32_subnormals_kept)
// does so in its arithmetic but not in floor, ceil or bit operations, which
// the math library mixes: round-nearest-afz of -1e-40 came out -1 on NVIDIA.
// The library's real f32 operands are flushed first, so each function sees
// the zero the device's arithmetic sees.
std::string ElementEmitter::FlushedForMath(ElementType t, const std::string& x) {
  if (target_.f32_subnormals_kept || !IsFloat(t) || t == ElementType::kF64) return x;
  Helper("ftz_float", "float ftz_float(float x) {\n  const uint b = floatBitsToUint(x);\n"
                      "  return (b & 0x7F800000u) == 0u ? uintBitsToFloat(b & 0x80000000u) : x;\n}\n");
  return "ftz_float(" + x + ")";
}

StatusOr<std::string> ElementEmitter::Unary(const Instruction& n, const std::string& x) {
  const ElementType it = n.operands[0]->shape.element_type();
  const ElementType t = n.shape.element_type();
  const std::string s = MathSuffix(it);
  // The library's functions get flushed operands; the operations the
  // device computes itself take x as it is.
  const std::string fx = FlushedForMath(it, x);
  const int bits = BitWidth(it);
  const std::string mask = bits >= 32 ? "0xFFFFFFFFu" : U((int64_t{1} << bits) - 1);
  VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, n.Describe()));
  switch (n.opcode) {
    case Opcode::kConvert: return Convert(x, it, t);
    case Opcode::kAbs:
      if (IsComplex(it)) return "cabs_" + s + "(" + x + ")";
      if (bits == 64 && IsSignedInt(it)) {
        // Not abs(): glslang 11's constant folder takes abs() of a 64-bit
        // constant for the constant itself (abs(-2L) gave -2).
        const std::string v = Temp(g.compute, x);
        return "(" + v + " < " + g.compute + "(0) ? -" + v + " : " + v + ")";
      }
      return "abs(" + x + ")";
    case Opcode::kNegate: return "(-" + x + ")";
    case Opcode::kSign:
      if (IsComplex(it)) return "csign_" + s + "(" + x + ")";
      if (IsFloat(it)) return "sign_" + s + "(" + fx + ")";
      if (bits == 64 && IsSignedInt(it)) {
        // Not sign(): glslang 11 folds sign() of a 64-bit constant to
        // garbage (sign(-2L) gave 4294967295 or 7234014060897894399); and
        // not two nested 64-bit compares: llvmpipe (Mesa 22.3) gave 1 for
        // the sign of a zero count of leading zeros computed inline. From
        // the words: the high one's sign bit, then whether any bit is set.
        const std::string w = Temp("uvec2", "unpackUint2x32(uint64_t(" + x + "))"), c = g.compute;
        return "(int(" + w + ".y) < 0 ? " + c + "(-1) : (" + w + ".x | " + w + ".y) != 0u ? " + c + "(1) : " + c + "(0))";
      }
      return "sign(" + x + ")";
    case Opcode::kNot: return it == ElementType::kPred ? "(!" + x + ")" : "(~" + x + ")";
    case Opcode::kPopulationCount:
      if (bits == 64) return g.compute + "(bitCount(unpackUint2x32(uint64_t(" + x + "))).x + bitCount(unpackUint2x32(uint64_t(" + x + "))).y)";
      return g.compute + "(bitCount(uint(" + x + ") & " + mask + "))";
    case Opcode::kClz:
      if (bits == 64)
        return g.compute + "(unpackUint2x32(uint64_t(" + x + ")).y != 0u ? 31 - findMSB(unpackUint2x32(uint64_t(" + x +
               ")).y) : 63 - findMSB(unpackUint2x32(uint64_t(" + x + ")).x))";
      return g.compute + "(" + std::to_string(bits - 1) + " - findMSB(uint(" + x + ") & " + mask + "))";
    case Opcode::kCeil: return "ceil(" + x + ")";
    case Opcode::kFloor: return "floor(" + x + ")";
    case Opcode::kRoundNearestEven: return "round_even_" + s + "(" + fx + ")";
    case Opcode::kRoundNearestAfz: return "round_afz_" + s + "(" + fx + ")";
    case Opcode::kIsFinite: return "isfinite_" + s + "(" + x + ")";
    case Opcode::kReal: return IsComplex(it) ? x + ".x" : x;
    case Opcode::kImag: return IsComplex(it) ? x + ".y" : g.compute + "(0)";
    case Opcode::kReducePrecision: {
      if (it == ElementType::kF64) {
        int64_ = true;
        Helper("reduce_precision_f64",
               "double reduce_precision_f64(double x, uint eb, uint mb) {\n"
               "  uint64_t b = doubleBitsToUint64(x);\n"
               "  uint64_t sign = b & 0x8000000000000000ul, mag = b & 0x7FFFFFFFFFFFFFFFul;\n"
               "  if (mag > 0x7FF0000000000000ul) return mb == 0u ? uint64BitsToDouble(sign | 0x7FF0000000000000ul) : x;\n"
               "  if (mb < 52u) {\n    uint shift = 52u - mb;\n    uint64_t lsb = (mag >> shift) & 1ul;\n"
               "    mag += ((1ul << (shift - 1u)) - 1ul) + lsb;\n    mag &= ~((1ul << shift) - 1ul);\n  }\n"
               "  if (eb < 11u) {\n    int bias = int((1u << (eb - 1u)) - 1u);\n    int e = int(mag >> 52) - 1023;\n"
               "    if (mag >= 0x7FF0000000000000ul || e > bias) mag = 0x7FF0000000000000ul;\n"
               "    else if (e < 1 - bias) mag = 0ul;\n  }\n  return uint64BitsToDouble(sign | mag);\n}\n");
        return "reduce_precision_f64(" + x + ", " + U(std::min<int64_t>(n.exponent_bits, 31)) + ", " +
               U(std::min<int64_t>(n.mantissa_bits, 63)) + ")";
      }
      // A type without IEEE specials is reduced as the f32 that holds it
      // exactly, then stored (ir/float_formats.cc's ReducePrecisionValue).
      const bool ieee = FloatEncodingOf(it) == FloatEncoding::kIeee;
      const ElementType source = ieee ? it : ElementType::kF32;
      std::string reduced = "reduce_precision_bits(" + EncodeToBits(source, x) + ", " + U(ExponentBits(source)) + ", " +
                            U(MantissaBits(source)) + ", " + U(std::min<int64_t>(n.exponent_bits, 31)) + ", " +
                            U(std::min<int64_t>(n.mantissa_bits, 31)) + ")";
      if (!ieee) return NormalizeExpression(it, "uintBitsToFloat(" + reduced + ")");
      return it == ElementType::kF32 ? "uintBitsToFloat(" + reduced + ")" : DecodeNarrowFloatBits(it, reduced);
    }
    default: break;
  }
  std::string fn = Transcendental(n.opcode);
  if (fn.empty()) return Unimplemented(std::string(OpcodeName(n.opcode)) + " " + n.Describe() + ": no Vulkan lowering");
  return IsComplex(it) ? "c" + fn + "_" + s + "(" + x + ")" : fn + "_" + s + "(" + fx + ")";
}

StatusOr<std::string> ElementEmitter::Binary(const Instruction& n, const std::string& a, const std::string& b) {
  const ElementType t = n.operands[0]->shape.element_type();
  const std::string s = MathSuffix(t);
  VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, n.Describe()));
  const std::string& ct = g.compute;
  const bool is_signed = IsSignedInt(t), is_float = IsFloat(t), is_complex = IsComplex(t);
  const bool is_pred = t == ElementType::kPred;
  const int bits = BitWidth(t);
  const std::string zero = ct + "(0)";
  switch (n.opcode) {
    case Opcode::kAdd: return is_pred ? "(" + a + " || " + b + ")" : "(" + a + " + " + b + ")";
    case Opcode::kSubtract: return "(" + a + " - " + b + ")";
    case Opcode::kMultiply:
      if (is_pred) return "(" + a + " && " + b + ")";
      if (is_complex) return "cmul_" + s + "(" + a + ", " + b + ")";
      return "(" + a + " * " + b + ")";
    case Opcode::kDivide:
      if (is_complex) return "cdiv_" + s + "(" + a + ", " + b + ")";
      if (is_float) return "div_" + s + "(" + FlushedForMath(t, a) + ", " + FlushedForMath(t, b) + ")";
      if (is_signed) {
        // XLA: x/0 = -1; INT_MIN/-1 = INT_MIN (narrow types wrap there by themselves).
        std::string safe = "((" + b + ") == " + zero + " || (" + b + ") == " + ct + "(-1) ? " + ct + "(1) : (" + b + "))";
        return "((" + b + ") == " + zero + " ? " + ct + "(-1) : (" + b + ") == " + ct + "(-1) ? -(" + a + ") : (" + a + ") / " + safe + ")";
      }
      return "((" + b + ") == " + zero + " ? ~" + zero + " : (" + a + ") / ((" + b + ") == " + zero + " ? " + ct + "(1) : (" + b + ")))";
    case Opcode::kRemainder:
      if (is_float) return "fmod_" + s + "(" + FlushedForMath(t, a) + ", " + FlushedForMath(t, b) + ")";
      if (is_signed) {
        std::string safe = "((" + b + ") == " + zero + " || (" + b + ") == " + ct + "(-1) ? " + ct + "(1) : (" + b + "))";
        return "((" + b + ") == " + zero + " ? (" + a + ") : (" + b + ") == " + ct + "(-1) ? " + zero + " : (" + a +
               ") - ((" + a + ") / " + safe + ") * " + safe + ")";
      }
      return "((" + b + ") == " + zero + " ? (" + a + ") : (" + a + ") % ((" + b + ") == " + zero + " ? " + ct + "(1) : (" + b + ")))";
    case Opcode::kPower: {
      if (is_complex) return "cpow_" + s + "(" + a + ", " + b + ")";
      if (is_float) return "pow_" + s + "(" + FlushedForMath(t, a) + ", " + FlushedForMath(t, b) + ")";
      std::string name = "ipow_" + std::string(ElementTypeName(t));
      std::string neg = is_signed ? "  if (e < " + zero + ") return x == " + ct + "(1) ? " + ct + "(1) : x == " + ct +
                                        "(-1) ? ((e & " + ct + "(1)) != " + zero + " ? " + ct + "(-1) : " + ct + "(1)) : " + zero + ";\n"
                                  : "";
      Helper(name, ct + " " + name + "(" + ct + " x, " + ct + " e) {\n" + neg + "  " + ct + " r = " + ct +
                       "(1);\n  for (int i = 0; i < " + std::to_string(bits) + " && e != " + zero +
                       "; ++i) {\n    if ((e & " + ct + "(1)) != " + zero + ") r = " + NormalizeExpression(t, "r * x") +
                       ";\n    x = " + NormalizeExpression(t, "x * x") + ";\n    e = e >> 1;\n  }\n  return r;\n}\n");
      return name + "(" + a + ", " + b + ")";
    }
    case Opcode::kAtan2:
      if (is_complex) return "catan2_" + s + "(" + a + ", " + b + ")";
      return "atan2_" + s + "(" + FlushedForMath(t, a) + ", " + FlushedForMath(t, b) + ")";
    case Opcode::kMaximum:
      if (is_pred) return "(" + a + " || " + b + ")";
      return is_float ? "max_" + s + "(" + a + ", " + b + ")" : "max(" + a + ", " + b + ")";
    case Opcode::kMinimum:
      if (is_pred) return "(" + a + " && " + b + ")";
      return is_float ? "min_" + s + "(" + a + ", " + b + ")" : "min(" + a + ", " + b + ")";
    case Opcode::kAnd: return is_pred ? "(" + a + " && " + b + ")" : "(" + a + " & " + b + ")";
    case Opcode::kOr: return is_pred ? "(" + a + " || " + b + ")" : "(" + a + " | " + b + ")";
    case Opcode::kXor: return is_pred ? "(" + a + " ^^ " + b + ")" : "(" + a + " ^ " + b + ")";
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightLogical:
    case Opcode::kShiftRightArithmetic: {
      // Amounts are read as unsigned; >= width gives 0 (or sign bits).
      const bool wide = bits == 64;
      const std::string ut = wide ? "uint64_t" : "uint";
      const std::string st = wide ? "int64_t" : "int";
      const std::string m = wide ? "0xFFFFFFFFFFFFFFFFul" : (bits >= 32 ? "0xFFFFFFFFu" : U((int64_t{1} << bits) - 1));
      const std::string amount = "(" + ut + "(" + b + ") & " + m + ")";
      const std::string w = wide ? "64ul" : U(bits);
      const std::string xu = "(" + ut + "(" + a + ") & " + m + ")";
      std::string r;
      if (n.opcode == Opcode::kShiftLeft) r = "(" + amount + " >= " + w + " ? " + ut + "(0) : " + xu + " << " + amount + ")";
      else if (n.opcode == Opcode::kShiftRightLogical) r = "(" + amount + " >= " + w + " ? " + ut + "(0) : " + xu + " >> " + amount + ")";
      else {
        std::string sx = bits == 32 || wide ? st + "(" + xu + ")" : "bitfieldExtract(int(" + xu + "), 0, " + std::to_string(bits) + ")";
        std::string lim = wide ? "63ul" : U(bits - 1);
        r = "(" + sx + " >> min(" + amount + ", " + lim + "))";
      }
      return ct + "(" + r + ")";
    }
    case Opcode::kComplex: return (t == ElementType::kF64 ? "dvec2(" : "vec2(") + a + ", " + b + ")";
    case Opcode::kCompare: {
      const ComparisonDirection d = n.direction;
      if (is_complex) {
        // NaN on the bits first, as for reals below.
        std::string nan;
        for (const std::string& part : {a + ".x", a + ".y", b + ".x", b + ".y"})
          nan += (nan.empty() ? "" : " || ") + std::string("isnan_") + s + "(" + part + ")";
        std::string eq = "(!(" + nan + ") && " + a + ".x == " + b + ".x && " + a + ".y == " + b + ".y)";
        return d == ComparisonDirection::kEq ? eq : "(!" + eq + ")";
      }
      std::string x = a, y = b;
      if (is_pred) { x = "uint(" + a + ")"; y = "uint(" + b + ")"; }
      if (is_float && n.comparison_type == ComparisonType::kTotalOrder) {
        if (t == ElementType::kF64) {
          std::string cmp = Helper("tcmp_double",
              "ivec2 tkey_double(double v) {\n  uvec2 b = unpackDouble2x32(v);\n"
              "  if ((b.y & 0x80000000u) != 0u) b = uvec2(~b.x, b.y ^ 0x7FFFFFFFu);\n"
              "  return ivec2(int(b.y), int(b.x ^ 0x80000000u));\n}\n"
              "int tcmp_double(double a, double b) {\n  ivec2 x = tkey_double(a), y = tkey_double(b);\n"
              "  if (x.x != y.x) return x.x < y.x ? -1 : 1;\n  if (x.y != y.y) return x.y < y.y ? -1 : 1;\n  return 0;\n}\n");
          x = cmp + "(" + a + ", " + b + ")";
          y = "0";
        } else {
          Helper("tkey_float", "int tkey_float(float v) {\n  int b = floatBitsToInt(v);\n  return b < 0 ? (b ^ 0x7FFFFFFF) : b;\n}\n");
          x = "tkey_float(" + a + ")";
          y = "tkey_float(" + b + ")";
        }
      }
      if (is_float && n.comparison_type != ComparisonType::kTotalOrder) {
        // NaN tested on the bits first: NVIDIA's compiler folded `x == x`
        // (and so x <= x) to true for an f64 NaN, even with NaNs declared
        // preserved (the interpreter suite's compare_op_test_f64_default).
        const std::string nan = "(isnan_" + s + "(" + a + ") || isnan_" + s + "(" + b + "))";
        switch (d) {
          case ComparisonDirection::kEq: return "(!" + nan + " && " + a + " == " + b + ")";
          case ComparisonDirection::kNe: return "(" + nan + " || !(" + a + " == " + b + "))";
          case ComparisonDirection::kLe: return "(!" + nan + " && " + a + " <= " + b + ")";
          case ComparisonDirection::kGe: return "(!" + nan + " && " + a + " >= " + b + ")";
          default: break;
        }
      }
      switch (d) {
        case ComparisonDirection::kEq: return "(" + x + " == " + y + ")";
        case ComparisonDirection::kNe: return "(!(" + x + " == " + y + "))";
        case ComparisonDirection::kLt: return "(" + x + " < " + y + ")";
        case ComparisonDirection::kLe: return "(" + x + " <= " + y + ")";
        case ComparisonDirection::kGt: return "(" + x + " > " + y + ")";
        case ComparisonDirection::kGe: return "(" + x + " >= " + y + ")";
      }
      return std::string("false");
    }
    default:
      return Unimplemented(std::string(OpcodeName(n.opcode)) + " " + n.Describe() + ": no Vulkan lowering");
  }
}

StatusOr<std::string> ElementEmitter::Convert(const std::string& x, ElementType from, ElementType to) {
  if (from == to) return x;
  VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(to, target_, "convert"));
  const std::string& ct = g.compute;
  if (to == ElementType::kPred) {
    if (from == ElementType::kPred) return x;
    if (IsComplex(from)) return "(!(" + x + ".x == 0.0 && " + x + ".y == 0.0))";
    if (IsFloat(from)) return "(!(" + x + " == 0.0))";
    return "(" + x + " != " + (IsSignedInt(from) ? (BitWidth(from) == 64 ? "0l" : "0") : (BitWidth(from) == 64 ? "0ul" : "0u")) + ")";
  }
  if (from == ElementType::kPred) {
    if (IsComplex(to)) return ct + "(" + (to == ElementType::kC128 ? "double" : "float") + "(" + x + "), 0.0)";
    return ct + "(" + x + ")";
  }
  if (IsComplex(to)) {
    const ElementType part = ComplexComponentType(to);
    if (IsComplex(from)) return ct + "(" + x + ")";
    VKXLA_ASSIGN_OR_RETURN(std::string re, Convert(x, from, part));
    return ct + "(" + re + ", 0.0)";
  }
  if (IsInteger(to)) {
    // A signed value widened to 64 bits is built from its two words: Mesa
    // 22.3's llvmpipe compares a sign-extended int64_t(int) against a
    // constant wrongly (int64_t(-5) > 2l was true, int64_t(1) < 2l false),
    // which made s64 sign() of a converted s8 return 1 (random program 40334).
    if (IsInteger(from) && IsSignedInt(from) && BitWidth(from) < 64 && BitWidth(to) == 64)
      return ct + "(packInt2x32(ivec2(int(" + x + "), int(" + x + ") >> 31)))";
    if (IsInteger(from)) return NormalizeExpression(to, ct + "(" + x + ")");
    // Float to integer: saturate, NaN to 0, truncate toward zero.
    VKXLA_RETURN_IF_ERROR(Use(from, Instruction()));
    const int bits = BitWidth(to);
    const std::string s = MathSuffix(from);
    const std::string fl = s;  // compare in the source float type
    // 2^k exactly (to_string prints every digit of a power of two); u64's
    // bound is 2^64, which an int64_t shift cannot make.
    auto pow2 = [&](int k) { return fl + "(" + std::to_string(std::ldexp(1.0, k)) + (s == "double" ? "LF" : "") + ")"; };
    std::string lo, hi, lo_v, hi_v;
    if (IsSignedInt(to)) {
      lo = "-" + pow2(bits - 1);
      hi = pow2(bits - 1);
      lo_v = bits == 64 ? "int64_t(0x8000000000000000ul)" : "int(" + std::to_string(-(int64_t{1} << (bits - 1))) + ")";
      hi_v = bits == 64 ? "int64_t(0x7FFFFFFFFFFFFFFFul)" : "int(" + std::to_string((int64_t{1} << (bits - 1)) - 1) + ")";
    } else {
      lo = fl + "(0)";
      hi = pow2(bits);
      lo_v = ct + "(0)";
      hi_v = bits == 64 ? "0xFFFFFFFFFFFFFFFFul" : U((int64_t{1} << bits) - 1);
    }
    return "(isnan_" + s + "(" + x + ") ? " + ct + "(0) : " + x + " <= " + lo + " ? " + lo_v + " : " + x + " >= " + hi +
           " ? " + hi_v + " : " + ct + "(" + x + "))";
  }
  // To a real float.
  if (IsComplex(from)) return Unimplemented("convert from complex to real");
  if (to == ElementType::kF64) return "double(" + x + ")";
  if (from == ElementType::kF64) {
    if (to == ElementType::kF32) return "float(" + x + ")";
    // Round to odd in f32 first so the second rounding is exact.
    // An inexact f with an even last bit steps one bit toward d: away from
    // zero (a larger magnitude) or toward it. From a zero that is the
    // smallest subnormal of d's sign (before, 0 - 1 gave a NaN's bits).
    Helper("d2f_odd", "float d2f_odd(double d) {\n  float f = float(d);\n  if (double(f) != d && (floatBitsToUint(f) & 1u) == 0u) {\n"
                      "    if (f == 0.0) return d > 0.0LF ? uintBitsToFloat(1u) : uintBitsToFloat(0x80000001u);\n"
                      "    f = uintBitsToFloat(floatBitsToUint(f) + (abs(double(f)) < abs(d) ? 1u : 0xFFFFFFFFu));\n  }\n  return f;\n}\n");
    return NormalizeExpression(to, "d2f_odd(" + x + ")");
  }
  return NormalizeExpression(to, "float(" + x + ")");
}

StatusOr<std::string> ElementEmitter::Bitcast(const Instruction* n, const std::vector<std::string>& idx) {
  const Instruction* x = n->operands[0];
  const ElementType from = x->shape.element_type(), to = n->shape.element_type();
  VKXLA_RETURN_IF_ERROR(Use(from, *n));
  VKXLA_RETURN_IF_ERROR(Use(to, *n));
  VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(to, target_, n->Describe()));
  const int fb = BitWidth(from), tb = BitWidth(to);
  if (fb == 128 || tb == 128) return Bitcast128(n, idx, g.compute);
  auto decode32 = [&](ElementType t, const std::string& bits) -> std::string {
    switch (t) {
      case ElementType::kPred: return "(" + bits + " != 0u)";
      case ElementType::kS2: return "bitfieldExtract(int(" + bits + "), 0, 2)";
      case ElementType::kS4: return "bitfieldExtract(int(" + bits + "), 0, 4)";
      case ElementType::kU2: return "((" + bits + ") & 0x3u)";
      case ElementType::kU4: return "((" + bits + ") & 0xFu)";
      case ElementType::kS8: return "bitfieldExtract(int(" + bits + "), 0, 8)";
      case ElementType::kS16: return "bitfieldExtract(int(" + bits + "), 0, 16)";
      case ElementType::kS32: return "int(" + bits + ")";
      case ElementType::kU8: case ElementType::kU16: case ElementType::kU32: return bits;
      case ElementType::kF32: return "uintBitsToFloat(" + bits + ")";
      default: return NarrowFloatName(t).empty() ? "" : DecodeNarrowFloatBits(t, bits);
    }
  };
  // The value of `to` whose bits are the low bits of the u32 `bits`.
  auto finish = [&](const std::string& bits) -> StatusOr<std::string> {
    const std::string decoded = decode32(to, bits);
    if (decoded.empty())
      return Unimplemented("bitcast-convert " + n->Describe() + ": to " + std::string(ElementTypeName(to)) +
                           " is not supported on Vulkan yet");
    return Temp(g.compute, decoded);
  };
  if (fb == tb) {
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(x, idx));
    if (fb == 64) return Temp(g.compute, FromBits64(to, Bits64(from, v)));
    return finish(EncodeToBits(from, v));
  }
  if (fb > tb) {
    // Narrower result: its minor-most index picks a part, low bits first.
    std::vector<std::string> in_idx(idx.begin(), idx.end() - 1);
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(x, in_idx));
    std::string b = Temp("uvec2", Bits64(from, v));
    std::string bit = "(" + idx.back() + " * " + U(tb) + ")";
    std::string part = tb == 32 ? "(" + bit + " == 0u ? " + b + ".x : " + b + ".y)"
                                : "bitfieldExtract(" + bit + " < 32u ? " + b + ".x : " + b + ".y, int(" + bit + " % 32u), " + std::to_string(tb) + ")";
    return finish(part);
  }
  // Wider result: gather the parts from the operand's minor-most dimension.
  std::string lo = "0u", hi = "0u";
  for (int k = 0; k < tb / fb; ++k) {
    std::vector<std::string> in_idx = idx;
    in_idx.push_back(U(k));
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(x, in_idx));
    std::string bits = fb == 64 ? "" : EncodeToBits(from, v);
    int at = k * fb;
    if (fb == 32) (at == 0 ? lo : hi) = bits;
    else (at < 32 ? lo : hi) += " | (" + bits + " << " + U(at % 32) + ")";
  }
  std::string word = Temp("uvec2", "uvec2(" + lo + ", " + hi + ")");
  if (tb == 64) return Temp(g.compute, FromBits64(to, word));
  return finish(word + ".x");
}

// c128 to and from narrower types: its four 32-bit words (the real part's
// low word first, as XLA lays out the bytes), split into or gathered from
// the other side's minor-most dimension.
StatusOr<std::string> ElementEmitter::Bitcast128(const Instruction* n, const std::vector<std::string>& idx, const std::string& type) {
  const Instruction* x = n->operands[0];
  const ElementType from = x->shape.element_type(), to = n->shape.element_type();
  const int fb = BitWidth(from), tb = BitWidth(to);
  auto words_of_c128 = [](const std::string& v) {
    return "uvec4(unpackDouble2x32(" + v + ".x), unpackDouble2x32(" + v + ".y))";
  };
  if (fb == tb) {
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(x, idx));
    return v;
  }
  if (fb == 128) {
    // Part idx.back() of the operand's words.
    if (tb != 64 && tb != 32)
      return Unimplemented("bitcast-convert " + n->Describe() + ": c128 to " + std::string(ElementTypeName(to)) +
                           " is not supported on Vulkan yet");
    std::vector<std::string> in_idx(idx.begin(), idx.end() - 1);
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(x, in_idx));
    const std::string w = Temp("uvec4", words_of_c128(v));
    const std::string part = idx.back();
    if (tb == 64) return Temp(type, FromBits64(to, "(" + part + " == 0u ? " + w + ".xy : " + w + ".zw)"));
    const std::string word = Temp("uint", w + "[" + part + "]");
    if (to == ElementType::kF32) return Temp(type, "uintBitsToFloat(" + word + ")");
    if (to == ElementType::kS32) return Temp(type, "int(" + word + ")");
    return word;  // u32
  }
  // To c128: gather 128 / fb parts of 64 or 32 bits.
  if (fb != 64 && fb != 32)
    return Unimplemented("bitcast-convert " + n->Describe() + ": " + std::string(ElementTypeName(from)) +
                         " to c128 is not supported on Vulkan yet");
  std::vector<std::string> words;
  for (int k = 0; k < 128 / fb; ++k) {
    std::vector<std::string> in_idx = idx;
    in_idx.push_back(U(k));
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(x, in_idx));
    if (fb == 64) {
      const std::string b = Temp("uvec2", Bits64(from, v));
      words.push_back(b + ".x");
      words.push_back(b + ".y");
    } else {
      words.push_back(EncodeToBits(from, v));
    }
  }
  return Temp(type, "dvec2(packDouble2x32(uvec2(" + words[0] + ", " + words[1] + ")), packDouble2x32(uvec2(" + words[2] + ", " +
                        words[3] + ")))");
}

}  // namespace vkxla
