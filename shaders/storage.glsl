// Narrow float formats <-> f32, bit-exact, rounding to nearest even.
// Written with integer operations so no device float16/int8 feature and no
// driver rounding mode is involved.

// Selects, not branches, in these: a SIMD driver runs every branch its
// lanes take (llvmpipe, f16 add over 16M: 31 -> 22 ms).
float f16_to_f32(uint h) {
  uint s = (h & 0x8000u) << 16;
  uint e = (h >> 10) & 0x1Fu;
  uint m = h & 0x3FFu;
  // Normal: the exponent rebiased; infinities and NaNs: all ones, the payload kept.
  float normal = uintBitsToFloat(s | (mix(e + 112u, 255u, e == 31u) << 23) | (m << 13));
  // Subnormal or zero: m * 2^-24, exact and normal in f32, with the sign.
  float subnormal = uintBitsToFloat(s | floatBitsToUint(float(m) * 5.9604644775390625e-8));
  return mix(normal, subnormal, e == 0u);
}

// How a narrow float spends its special encodings (ir/element_type.h's
// FloatEncoding, in the same order).
const uint FLOAT_IEEE = 0u;        // infinities and NaNs at the all-ones exponent
const uint FLOAT_FN = 1u;          // no infinities; all ones is NaN
const uint FLOAT_FNUZ = 2u;        // no infinities, no -0; NaN is the sign bit alone
const uint FLOAT_FINITE = 3u;      // no infinities, no NaN: overflow saturates, NaN -> sign-flipped 0
const uint FLOAT_EXPONENT = 4u;    // f8e8m0fnu: unsigned powers of two, 0xFF is NaN

// f32 -> f8e8m0fnu: 0 -> 2^-127, negative/inf/NaN/too large -> NaN, ties to
// the even exponent (ml_dtypes' rule).
uint f32_to_e8m0(float f) {
  uint x = floatBitsToUint(f);
  if (x == 0x80000000u) x = 0u;            // -0 is zero
  if (x >= 0x7F800000u) return 0xFFu;      // NaN, inf, negative
  uint e = x >> 23, m = x & 0x7FFFFFu;
  if (e == 0u) return m > 0x600000u ? 1u : 0u;  // below 2^-126: the nearer of 2^-127 and 2^-126
  if (m > 0x400000u || (m == 0x400000u && (e & 1u) != 0u)) e += 1u;
  return e > 254u ? 0xFFu : e;
}

// f32 -> a narrow float with `eb` exponent, `mb` mantissa bits and the given
// bias, rounding to nearest even, exactly (integer operations only).
uint f32_to_narrow_float(float f, uint eb, uint mb, int bias, uint kind) {
  if (kind == FLOAT_EXPONENT) return f32_to_e8m0(f);
  uint x = floatBitsToUint(f);
  uint sign_bit = 1u << (eb + mb);
  uint sign = (x >> 31) != 0u ? sign_bit : 0u;
  uint a = x & 0x7FFFFFFFu;
  uint exp_all = (1u << eb) - 1u;
  uint all_ones = sign_bit - 1u;
  uint max_bits = kind == FLOAT_IEEE ? (exp_all << mb) - 1u : kind == FLOAT_FN ? all_ones - 1u : all_ones;
  // A NaN keeps the leading bits of its payload (a value only moved,
  // decoded and stored again, keeps every bit), or is the quiet NaN.
  uint payload = (a & 0x7FFFFFu) >> (23u - mb);
  uint nan_bits = kind == FLOAT_IEEE ? (sign | (exp_all << mb) | (payload != 0u ? payload : (1u << (mb - 1u))))
                : kind == FLOAT_FN ? (sign | all_ones) : kind == FLOAT_FNUZ ? sign_bit : (sign ^ sign_bit);
  uint overflow = kind == FLOAT_IEEE ? (sign | (exp_all << mb)) : kind == FLOAT_FINITE ? (sign | max_bits) : nan_bits;
  int e = int(a >> 23) - 127;
  // Subnormal in the target: count in units of its smallest step, exactly
  // (bounded: the value is picked only below the normal range).
  float scaled = uintBitsToFloat(a) * uintBitsToFloat(uint(127 + int(mb) - (1 - bias)) << 23);
  uint subnormal = uint(roundEven(min(scaled, 65536.0)));
  // Normal: the exponent rebiased, the mantissa rounded to nearest even.
  uint shift = 23u - mb;
  uint r = (uint(e + bias) << 23) | (a & 0x7FFFFFu);
  r += ((1u << (shift - 1u)) - 1u) + ((r >> shift) & 1u);
  uint bits = mix(r >> shift, subnormal, e < 1 - bias);
  uint result = mix(sign | bits, overflow, bits > max_bits);
  result = mix(result, 0u, bits == 0u && kind == FLOAT_FNUZ);  // no -0
  result = mix(result, overflow, a == 0x7F800000u);
  return mix(result, nan_bits, a > 0x7F800000u);
}

// A narrow float's bits -> f32, exactly (powers of two built from bits).
float narrow_float_to_f32(uint b, uint eb, uint mb, int bias, uint kind) {
  if (kind == FLOAT_EXPONENT) return b == 0xFFu ? uintBitsToFloat(0x7FC00000u) : uintBitsToFloat(b == 0u ? 0x400000u : b << 23);
  uint sign_bit = 1u << (eb + mb);
  uint s = (b & sign_bit) != 0u ? 0x80000000u : 0u;
  uint mag = b & (sign_bit - 1u);
  uint e = mag >> mb;
  uint m = mag & ((1u << mb) - 1u);
  if (kind == FLOAT_IEEE && e == (1u << eb) - 1u) return uintBitsToFloat(s | 0x7F800000u | (m << (23u - mb)));  // payload kept
  if ((kind == FLOAT_FN && mag == sign_bit - 1u) || (kind == FLOAT_FNUZ && b == sign_bit)) return uintBitsToFloat(s | 0x7FC00000u);
  if (e == 0u) return uintBitsToFloat(s) + (s != 0u ? -1.0 : 1.0) * float(m) * uintBitsToFloat(uint(127 + 1 - bias - int(mb)) << 23);
  return uintBitsToFloat(s | (uint(int(e) - bias + 127) << 23) | (m << (23u - mb)));
}

uint f32_to_f16(float f) { return f32_to_narrow_float(f, 5u, 10u, 15, FLOAT_IEEE); }

uint f32_to_bf16(float f) {
  uint x = floatBitsToUint(f);
  // A NaN keeps its sign and the leading bits of its payload (so a moved
  // value keeps every bit); one whose payload lies below them is quiet.
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (x >> 16) | (((x >> 16) & 0x7Fu) == 0u ? 0x40u : 0u);
  return (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
}
float bf16_to_f32(uint b) { return uintBitsToFloat(b << 16); }
float q_f16(float x) { return f16_to_f32(f32_to_f16(x)); }
float q_bf16(float x) { return bf16_to_f32(f32_to_bf16(x)); }

// The 8-, 6- and 4-bit floats: f32_to_<t>, <t>_to_f32 and q_<t> (round to t).
#define NARROW_FLOAT(t, eb, mb, bias, kind) \
  uint f32_to_##t(float f) { return f32_to_narrow_float(f, eb, mb, bias, kind); } \
  float t##_to_f32(uint b) { return narrow_float_to_f32(b, eb, mb, bias, kind); } \
  float q_##t(float x) { return t##_to_f32(f32_to_##t(x)); }
NARROW_FLOAT(f8e5m2, 5u, 2u, 15, FLOAT_IEEE)
NARROW_FLOAT(f8e4m3, 4u, 3u, 7, FLOAT_IEEE)
NARROW_FLOAT(f8e3m4, 3u, 4u, 3, FLOAT_IEEE)
NARROW_FLOAT(f8e4m3fn, 4u, 3u, 7, FLOAT_FN)
NARROW_FLOAT(f8e4m3fnuz, 4u, 3u, 8, FLOAT_FNUZ)
NARROW_FLOAT(f8e5m2fnuz, 5u, 2u, 16, FLOAT_FNUZ)
NARROW_FLOAT(f8e4m3b11fnuz, 4u, 3u, 11, FLOAT_FNUZ)
NARROW_FLOAT(f8e8m0fnu, 8u, 0u, 127, FLOAT_EXPONENT)
NARROW_FLOAT(f4e2m1fn, 2u, 1u, 1, FLOAT_FINITE)
NARROW_FLOAT(f6e2m3fn, 2u, 3u, 1, FLOAT_FINITE)
NARROW_FLOAT(f6e3m2fn, 3u, 2u, 3, FLOAT_FINITE)
#undef NARROW_FLOAT

// XLA's ReducePrecision on the raw bits of a format with src_eb/src_mb bits:
// round the mantissa to mb bits (nearest even), then overflow to infinity or
// flush to zero outside an eb-bit exponent range.
uint reduce_precision_bits(uint b, uint src_eb, uint src_mb, uint eb, uint mb) {
  uint sign_bit = 1u << (src_eb + src_mb);
  uint exp_mask = ((1u << src_eb) - 1u) << src_mb;
  uint mag = b & (sign_bit - 1u);
  if (mag > exp_mask) return mb == 0u ? ((b & sign_bit) | exp_mask) : b;  // NaN stays (or, with no mantissa, is inf)
  if (mb < src_mb) {
    uint shift = src_mb - mb;
    uint lsb = (mag >> shift) & 1u;
    mag += ((1u << (shift - 1u)) - 1u) + lsb;
    mag &= ~((1u << shift) - 1u);
  }
  if (eb < src_eb) {
    int src_bias = int((1u << (src_eb - 1u)) - 1u);
    int bias = int((1u << (eb - 1u)) - 1u);
    int e = int(mag >> src_mb) - src_bias;
    if (mag >= exp_mask || e > bias) mag = exp_mask;
    else if (e < 1 - bias) mag = 0u;
  }
  return (b & sign_bit) | mag;
}
