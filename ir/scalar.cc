#include "ir/scalar.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "ir/float_formats.h"
#include "ir/numbers.h"

namespace vkxla {
namespace {

int64_t WrapSigned(int64_t v, int bits) {
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t x = static_cast<uint64_t>(v) & mask;
  if (x >> (bits - 1)) x |= ~mask;
  return static_cast<int64_t>(x);
}

uint64_t WrapUnsigned(uint64_t v, int bits) {
  if (bits >= 64) return v;
  return v & ((uint64_t{1} << bits) - 1);
}

// Float to integer as XLA's convert does: NaN -> 0, saturating to the
// target's range, truncating toward zero.
template <typename T>
T SaturatingCast(double v, double lo, double hi) {
  if (std::isnan(v)) return 0;
  if (v <= lo) return static_cast<T>(lo);
  if (v >= hi) return static_cast<T>(hi);
  return static_cast<T>(std::trunc(v));
}

}  // namespace

Scalar Scalar::Int(ElementType t, int64_t v) {
  // An unsigned type keeps its value in u: -1 is its largest.
  if (IsUnsignedInt(t)) return UInt(t, static_cast<uint64_t>(v));
  Scalar x;
  x.type = t;
  x.s = WrapSigned(v, BitWidth(t));
  return x;
}

Scalar Scalar::UInt(ElementType t, uint64_t v) {
  Scalar x;
  x.type = t;
  x.u = WrapUnsigned(v, BitWidth(t));
  return x;
}

Scalar Scalar::Float(ElementType t, double v) {
  Scalar x;
  x.type = t;
  x.re = RoundToFloatType(v, t);
  return x;
}

Scalar Scalar::Complex(ElementType t, std::complex<double> v) {
  ElementType part = ComplexComponentType(t);
  Scalar x;
  x.type = t;
  x.re = RoundToFloatType(v.real(), part);
  x.im = RoundToFloatType(v.imag(), part);
  return x;
}

Scalar Scalar::Convert(const Scalar& from, ElementType t) {
  const ElementType f = from.type;
  if (t == ElementType::kPred) {
    if (f == ElementType::kPred) return from;
    if (IsSignedInt(f)) return Pred(from.s != 0);
    if (IsUnsignedInt(f)) return Pred(from.u != 0);
    if (IsComplex(f)) return Pred(from.re != 0 || from.im != 0);
    return Pred(from.re != 0);
  }
  if (IsSignedInt(t) || IsUnsignedInt(t)) {
    const int bits = BitWidth(t);
    if (f == ElementType::kPred || IsSignedInt(f)) {
      return IsSignedInt(t) ? Int(t, from.s) : UInt(t, static_cast<uint64_t>(from.s));
    }
    if (IsUnsignedInt(f)) {
      return IsSignedInt(t) ? Int(t, static_cast<int64_t>(from.u)) : UInt(t, from.u);
    }
    // Float or complex (real part) to integer: saturate, NaN to zero.
    double v = from.re;
    if (IsSignedInt(t)) {
      double hi = std::ldexp(1.0, bits - 1);
      if (std::isnan(v)) return Int(t, 0);
      if (v >= hi) return Int(t, bits == 64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi) - 1);
      if (v <= -hi) return Int(t, bits == 64 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(hi));
      return Int(t, static_cast<int64_t>(std::trunc(v)));
    }
    double hi = std::ldexp(1.0, bits);
    if (std::isnan(v) || v <= 0) return UInt(t, 0);
    if (v >= hi) return UInt(t, bits == 64 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(hi) - 1);
    return UInt(t, static_cast<uint64_t>(std::trunc(v)));
  }
  // To float or complex.
  std::complex<double> v;
  if (f == ElementType::kPred || IsSignedInt(f)) v = static_cast<double>(from.s);
  else if (IsUnsignedInt(f)) v = static_cast<double>(from.u);
  else v = from.c();
  // A 64-bit integer to a narrow float must round once, from the exact
  // integer; going through double first would round twice.
  if ((IsSignedInt(f) || IsUnsignedInt(f)) && BitWidth(f) == 64 && t != ElementType::kF64 &&
      t != ElementType::kC128) {
    long double exact = IsSignedInt(f) ? static_cast<long double>(from.s) : static_cast<long double>(from.u);
    if (ComplexComponentType(t) == ElementType::kF32) {
      float r = static_cast<float>(exact);
      return IsComplex(t) ? Complex(t, {r, 0}) : Float(t, r);
    }
    v = static_cast<double>(exact);
  }
  if (IsComplex(t)) return Complex(t, IsComplex(f) ? v : std::complex<double>(v.real(), 0));
  return Float(t, v.real());
}

uint64_t Scalar::Bits() const {
  switch (type) {
    case ElementType::kPred: return s ? 1 : 0;
    case ElementType::kF32: {
      float f = static_cast<float>(re);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    case ElementType::kF64: {
      uint64_t b;
      std::memcpy(&b, &re, 8);
      return b;
    }
    default:
      if (IsFloat(type)) return EncodeNarrowFloat(re, type);  // the 16-bit and narrower floats
      break;
  }
  if (IsSignedInt(type)) return WrapUnsigned(static_cast<uint64_t>(s), BitWidth(type));
  if (IsUnsignedInt(type)) return u;
  return 0;
}

Scalar Scalar::FromBits(ElementType t, uint64_t bits) {
  Scalar x;
  x.type = t;
  switch (t) {
    case ElementType::kPred: x.s = (bits & 0xff) != 0; return x;
    case ElementType::kF32: {
      uint32_t b = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &b, 4);
      x.re = f;
      return x;
    }
    case ElementType::kF64: std::memcpy(&x.re, &bits, 8); return x;
    default:
      if (IsFloat(t)) {
        x.re = DecodeNarrowFloat(static_cast<uint32_t>(bits), t);
        return x;
      }
      break;
  }
  if (IsSignedInt(t)) x.s = WrapSigned(static_cast<int64_t>(bits), BitWidth(t));
  if (IsUnsignedInt(t)) x.u = WrapUnsigned(bits, BitWidth(t));
  return x;
}

int64_t FloatTotalOrderKey(const Scalar& x) {
  const uint64_t b = x.Bits();
  switch (FloatEncodingOf(x.type)) {
    case FloatEncoding::kExponentOnly: return static_cast<int64_t>(b);
    case FloatEncoding::kFiniteNanUnsignedZero:
      if (std::isnan(x.re)) return INT64_MIN;
      break;
    default: break;
  }
  const int bits = BitWidth(x.type);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return (b & sign) ? -static_cast<int64_t>((b & ~sign) & mask) - 1 : static_cast<int64_t>(b & mask);
}

std::string FormatFloat(double v, ElementType t) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  // At least as many digits as the integer part has, so 10 prints as "10".
  const int min_precision = std::fabs(v) >= 1 && std::fabs(v) < 1e16 ? static_cast<int>(std::log10(std::fabs(v))) + 1 : 1;
  for (int precision = min_precision; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (RoundToFloatType(ParseDouble(buf).value_or(0), t) == v) break;
  }
  return buf;
}

std::string Scalar::ToString() const {
  if (type == ElementType::kPred) return s ? "true" : "false";
  if (IsSignedInt(type)) return std::to_string(s);
  if (IsUnsignedInt(type)) return std::to_string(u);
  if (IsComplex(type)) {
    ElementType part = ComplexComponentType(type);
    return "(" + FormatFloat(re, part) + ", " + FormatFloat(im, part) + ")";
  }
  return FormatFloat(re, type);
}

}  // namespace vkxla
