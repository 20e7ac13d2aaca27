#include "ir/float_formats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vkxla {
namespace {

struct Format {
  int ebits, mbits, bias;
  FloatEncoding encoding;
  uint32_t sign_bit() const { return 1u << (ebits + mbits); }
  uint32_t all_ones() const { return sign_bit() - 1; }  // every bit but the sign
  uint32_t mantissa_all() const { return (1u << mbits) - 1; }
  uint32_t exponent_all() const { return (1u << ebits) - 1; }
};

Format FormatOf(ElementType t) { return {ExponentBits(t), MantissaBits(t), ExponentBias(t), FloatEncodingOf(t)}; }

// The encodings without the sign: the largest finite magnitude, and what a
// NaN, an infinity and a finite overflow become (ml_dtypes' conversions:
// non-saturating except where the type has neither NaN nor infinity).
uint32_t MaxMagnitude(const Format& f) {
  switch (f.encoding) {
    case FloatEncoding::kIeee: return (f.exponent_all() << f.mbits) - 1;
    case FloatEncoding::kFiniteNan: return f.all_ones() - 1;
    default: return f.all_ones();
  }
}

uint32_t EncodeE8M0(double v) {
  // Unsigned powers of two: zero becomes the smallest (2^-127), anything
  // negative, infinite or too large is NaN; ties go to the even exponent.
  if (std::isnan(v) || std::isinf(v) || (v < 0)) return 0xFF;
  if (v == 0) return 0;
  int e;
  const double m = std::frexp(v, &e) * 2;  // v = m * 2^(e-1), m in [1, 2)
  int64_t biased = int64_t{e} - 1 + 127;
  if (biased < 0) return 0;
  if (m > 1.5 || (m == 1.5 && (biased & 1))) ++biased;
  return biased > 254 ? 0xFF : static_cast<uint32_t>(biased);
}

}  // namespace

uint32_t EncodeNarrowFloat(double v, ElementType t) {
  const Format f = FormatOf(t);
  if (f.encoding == FloatEncoding::kExponentOnly) return EncodeE8M0(v);
  const uint32_t sign = std::signbit(v) ? f.sign_bit() : 0u;
  const uint32_t max_bits = MaxMagnitude(f);
  uint32_t nan_bits = 0, overflow_bits = 0;
  switch (f.encoding) {
    case FloatEncoding::kIeee:
      nan_bits = sign | (f.exponent_all() << f.mbits) | (1u << (f.mbits - 1));
      overflow_bits = sign | (f.exponent_all() << f.mbits);
      break;
    case FloatEncoding::kFiniteNan: nan_bits = overflow_bits = sign | f.all_ones(); break;
    case FloatEncoding::kFiniteNanUnsignedZero: nan_bits = overflow_bits = f.sign_bit(); break;
    default:  // no NaN: ml_dtypes gives the sign-flipped -0, and saturates
      nan_bits = sign ^ f.sign_bit();
      overflow_bits = sign | max_bits;
      break;
  }
  if (std::isnan(v)) return nan_bits;
  double a = std::fabs(v);
  if (std::isinf(a)) return overflow_bits;
  uint32_t bits = 0;
  if (a != 0) {
    int e;
    std::frexp(a, &e);
    e -= 1;  // a = m * 2^e with m in [1,2)
    const int min_exp = 1 - f.bias;
    if (e < min_exp) {
      bits = static_cast<uint32_t>(std::nearbyint(std::ldexp(a, f.mbits - min_exp)));  // may carry into the smallest normal
    } else {
      double m = std::nearbyint(std::ldexp(a, f.mbits - e));
      if (m >= std::ldexp(1.0, f.mbits + 1)) {
        m /= 2;
        e += 1;
      }
      const int64_t biased = int64_t{e} + f.bias;
      if (biased > static_cast<int64_t>(f.exponent_all())) return overflow_bits;
      bits = (static_cast<uint32_t>(biased) << f.mbits) | (static_cast<uint32_t>(m) - (1u << f.mbits));
    }
  }
  if (bits > max_bits) return overflow_bits;
  if (bits == 0 && f.encoding == FloatEncoding::kFiniteNanUnsignedZero) return 0;  // no -0
  return sign | bits;
}

double DecodeNarrowFloat(uint32_t bits, ElementType t) {
  const Format f = FormatOf(t);
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  if (f.encoding == FloatEncoding::kExponentOnly) return (bits & 0xFF) == 0xFF ? kNan : std::ldexp(1.0, static_cast<int>(bits & 0xFF) - 127);
  const bool neg = (bits & f.sign_bit()) != 0;
  const uint32_t mag = bits & f.all_ones();
  const uint32_t e = mag >> f.mbits, m = mag & f.mantissa_all();
  if (f.encoding == FloatEncoding::kIeee && e == f.exponent_all()) return m ? kNan : neg ? -INFINITY : INFINITY;
  if (f.encoding == FloatEncoding::kFiniteNan && mag == f.all_ones()) return kNan;
  if (f.encoding == FloatEncoding::kFiniteNanUnsignedZero && neg && mag == 0) return kNan;
  const double v = e == 0 ? std::ldexp(static_cast<double>(m), 1 - f.bias - f.mbits)
                          : std::ldexp(static_cast<double>(m | (1u << f.mbits)), static_cast<int>(e) - f.bias - f.mbits);
  return neg ? -v : v;
}

double RoundToFloatType(double v, ElementType t) {
  switch (t) {
    case ElementType::kF64: return v;
    case ElementType::kF32: return static_cast<double>(static_cast<float>(v));
    default: return IsFloat(t) ? DecodeNarrowFloat(EncodeNarrowFloat(v, t), t) : v;
  }
}

double ReducePrecisionValue(double v, ElementType input, int exponent_bits, int mantissa_bits) {
  // A type without IEEE specials has no all-ones exponent to overflow to:
  // reduce its value as an f32 (which holds it exactly), then store it.
  if (FloatEncodingOf(input) != FloatEncoding::kIeee)
    return RoundToFloatType(ReducePrecisionValue(v, ElementType::kF32, exponent_bits, mantissa_bits), input);
  // With no mantissa bits a NaN cannot stay one: XLA lets it round to
  // infinity of the same sign.
  if (std::isnan(v)) return mantissa_bits == 0 ? std::copysign(std::numeric_limits<double>::infinity(), v) : v;
  if (std::isinf(v) || v == 0) return v;
  const int src_e = ExponentBits(input), src_m = MantissaBits(input);
  const int src_min_exp = 1 - ExponentBias(input);
  double a = std::fabs(v);
  if (mantissa_bits < src_m) {
    // Round to nearest even at the reduced mantissa width, on the source's
    // bit grid (a subnormal input keeps its fixed spacing).
    int e;
    std::frexp(a, &e);
    e = std::max(e - 1, src_min_exp);
    const double scaled = std::ldexp(a, mantissa_bits - e);
    double rounded = std::nearbyint(scaled);
    // With no mantissa bits left, XLA's tie goes to the even biased
    // exponent (the last kept bit is the exponent's lowest): 12 -> 8, 24 -> 32.
    if (mantissa_bits == 0 && scaled - std::floor(scaled) == 0.5) {
      const int biased = a < std::ldexp(1.0, src_min_exp) ? 0 : e + ExponentBias(input);
      rounded = (biased & 1) ? std::ceil(scaled) : std::floor(scaled);
    }
    a = std::ldexp(rounded, e - mantissa_bits);
  }
  // Rounding up past the top of the source's range (f64's, in a double) is
  // infinity, whatever exponent range follows.
  if (exponent_bits < src_e && a != 0 && !std::isinf(a)) {
    // Out of the reduced exponent range: overflow to infinity, anything
    // below the smallest reduced normal flushes to zero (XLA's rule).
    const int bias = (1 << (exponent_bits - 1)) - 1;
    int e;
    std::frexp(a, &e);
    e -= 1;
    if (e > bias) a = std::numeric_limits<double>::infinity();
    else if (e < 1 - bias) a = 0;
  }
  return std::signbit(v) ? -a : a;
}

}  // namespace vkxla
