#include "ir/float_formats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vkxla {
namespace {

struct Format {
  int ebits, mbits;
  bool finite_only;  // f8e4m3fn: no infinities, one NaN pattern per sign
};

Format FormatOf(ElementType t) {
  switch (t) {
    case ElementType::kF16: return {5, 10, false};
    case ElementType::kBF16: return {8, 7, false};
    case ElementType::kF8E5M2: return {5, 2, false};
    case ElementType::kF8E4M3FN: return {4, 3, true};
    case ElementType::kF8E4M3: return {4, 3, false};
    case ElementType::kF8E3M4: return {3, 4, false};
    default: return {0, 0, false};
  }
}

uint32_t NanBits(const Format& f) {
  uint32_t exp_all = (1u << f.ebits) - 1;
  if (f.finite_only) return (exp_all << f.mbits) | ((1u << f.mbits) - 1);
  return (exp_all << f.mbits) | (1u << (f.mbits - 1));
}

}  // namespace

uint32_t EncodeNarrowFloat(double v, ElementType t) {
  const Format f = FormatOf(t);
  const uint32_t sign = std::signbit(v) ? 1u << (f.ebits + f.mbits) : 0u;
  if (std::isnan(v)) return sign | NanBits(f);
  const int bias = (1 << (f.ebits - 1)) - 1;
  const uint32_t exp_all = (1u << f.ebits) - 1;
  // Largest finite value's encoding without the sign.
  const uint32_t max_bits = f.finite_only ? ((exp_all << f.mbits) | ((1u << f.mbits) - 2))
                                          : (((exp_all - 1) << f.mbits) | ((1u << f.mbits) - 1));
  const uint32_t overflow_bits = f.finite_only ? NanBits(f) : (exp_all << f.mbits);
  double a = std::fabs(v);
  if (std::isinf(a)) return sign | overflow_bits;
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);
  e -= 1;  // a = m * 2^e with m in [1,2)
  const int min_exp = 1 - bias;
  uint32_t bits;
  if (e < min_exp) {
    double q = std::nearbyint(std::ldexp(a, f.mbits - min_exp));  // in units of the subnormal step
    bits = static_cast<uint32_t>(q);                            // may carry into the smallest normal
  } else {
    double m = std::nearbyint(std::ldexp(a, f.mbits - e));
    if (m >= std::ldexp(1.0, f.mbits + 1)) {
      m /= 2;
      e += 1;
    }
    int64_t biased = e + bias;
    if (biased > static_cast<int64_t>(exp_all)) return sign | overflow_bits;
    bits = (static_cast<uint32_t>(biased) << f.mbits) | (static_cast<uint32_t>(m) - (1u << f.mbits));
  }
  if (bits > max_bits) return sign | overflow_bits;
  return sign | bits;
}

double DecodeNarrowFloat(uint32_t bits, ElementType t) {
  const Format f = FormatOf(t);
  const int bias = (1 << (f.ebits - 1)) - 1;
  const uint32_t exp_all = (1u << f.ebits) - 1;
  const bool neg = (bits >> (f.ebits + f.mbits)) & 1;
  const uint32_t e = (bits >> f.mbits) & exp_all;
  const uint32_t m = bits & ((1u << f.mbits) - 1);
  double v;
  if (f.finite_only && e == exp_all && m == (1u << f.mbits) - 1) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (!f.finite_only && e == exp_all) {
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), 1 - bias - f.mbits);
  } else {
    v = std::ldexp(static_cast<double>(m | (1u << f.mbits)), static_cast<int>(e) - bias - f.mbits);
  }
  return neg ? -v : v;
}

double RoundToFloatType(double v, ElementType t) {
  switch (t) {
    case ElementType::kF64: return v;
    case ElementType::kF32: return static_cast<double>(static_cast<float>(v));
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3:
    case ElementType::kF8E3M4: return DecodeNarrowFloat(EncodeNarrowFloat(v, t), t);
    default: return v;
  }
}

double ReducePrecisionValue(double v, ElementType input, int exponent_bits, int mantissa_bits) {
  // With no mantissa bits a NaN cannot stay one: XLA lets it round to
  // infinity of the same sign.
  if (std::isnan(v)) return mantissa_bits == 0 ? std::copysign(std::numeric_limits<double>::infinity(), v) : v;
  if (std::isinf(v) || v == 0) return v;
  const int src_e = ExponentBits(input), src_m = MantissaBits(input);
  const int src_min_exp = 2 - (1 << (src_e - 1));
  double a = std::fabs(v);
  if (mantissa_bits < src_m) {
    // Round to nearest even at the reduced mantissa width, on the source's
    // bit grid (a subnormal input keeps its fixed spacing).
    int e;
    std::frexp(a, &e);
    e = std::max(e - 1, src_min_exp);
    a = std::ldexp(std::nearbyint(std::ldexp(a, mantissa_bits - e)), e - mantissa_bits);
  }
  if (exponent_bits < src_e && a != 0) {
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
