// Narrow float formats <-> f32, bit-exact, rounding to nearest even.
// Written with integer operations so no device float16/int8 feature and no
// driver rounding mode is involved.

float f16_to_f32(uint h) {
  uint s = (h & 0x8000u) << 16;
  uint e = (h >> 10) & 0x1Fu;
  uint m = h & 0x3FFu;
  if (e == 0u) return uintBitsToFloat(s) + (s != 0u ? -1.0 : 1.0) * float(m) * 5.9604644775390625e-8;
  if (e == 31u) return uintBitsToFloat(s | 0x7F800000u | (m << 13));
  return uintBitsToFloat(s | ((e + 112u) << 23) | (m << 13));
}

// Generic encoder for small IEEE-like formats with `eb` exponent and `mb`
// mantissa bits. finite_only: no infinities, all-ones is NaN (f8e4m3fn).
uint f32_to_small_float(float f, uint eb, uint mb, bool finite_only) {
  uint x = floatBitsToUint(f);
  uint sign = (x >> 31) << (eb + mb);
  uint a = x & 0x7FFFFFFFu;
  uint exp_all = (1u << eb) - 1u;
  uint nan_bits = finite_only ? ((exp_all << mb) | ((1u << mb) - 1u)) : ((exp_all << mb) | (1u << (mb - 1u)));
  uint max_bits = finite_only ? ((exp_all << mb) | ((1u << mb) - 2u)) : (((exp_all - 1u) << mb) | ((1u << mb) - 1u));
  uint overflow = finite_only ? nan_bits : (exp_all << mb);
  if (a > 0x7F800000u) return sign | nan_bits;
  if (a == 0x7F800000u) return sign | overflow;
  int bias = int((1u << (eb - 1u)) - 1u);
  int e = int(a >> 23) - 127;
  uint bits;
  if (e < 1 - bias) {
    // Subnormal in the target: count in units of its smallest step, exactly.
    float scaled = uintBitsToFloat(a) * uintBitsToFloat(uint(127 + int(mb) - (1 - bias)) << 23);
    bits = uint(roundEven(scaled));
  } else {
    uint shift = 23u - mb;
    uint r = (uint(e + bias) << 23) | (a & 0x7FFFFFu);
    uint lsb = (r >> shift) & 1u;
    r += ((1u << (shift - 1u)) - 1u) + lsb;
    bits = r >> shift;
  }
  if (bits > max_bits) return sign | overflow;
  return sign | bits;
}

uint f32_to_f16(float f) { return f32_to_small_float(f, 5u, 10u, false); }
uint f32_to_f8e5m2(float f) { return f32_to_small_float(f, 5u, 2u, false); }
uint f32_to_f8e4m3fn(float f) { return f32_to_small_float(f, 4u, 3u, true); }
uint f32_to_f8e4m3(float f) { return f32_to_small_float(f, 4u, 3u, false); }
uint f32_to_f8e3m4(float f) { return f32_to_small_float(f, 3u, 4u, false); }

uint f32_to_bf16(float f) {
  uint x = floatBitsToUint(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (x >> 16) | 0x40u;  // quiet NaN, sign kept
  return (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
}

float f8e4m3fn_to_f32(uint b) {
  uint s = (b & 0x80u) << 24;
  uint e = (b >> 3) & 0xFu;
  uint m = b & 0x7u;
  if (e == 15u && m == 7u) return uintBitsToFloat(s | 0x7FC00000u);
  if (e == 0u) return uintBitsToFloat(s) + (s != 0u ? -1.0 : 1.0) * float(m) * 0.001953125;
  return uintBitsToFloat(s | ((e + 120u) << 23) | (m << 20));
}

// Decoder for small IEEE-like formats with infinities and NaNs (eb
// exponent, mb mantissa bits); powers of two built from bits, exactly.
float small_float_to_f32(uint b, uint eb, uint mb) {
  uint s = (b >> (eb + mb)) << 31;
  uint e = (b >> mb) & ((1u << eb) - 1u);
  uint m = b & ((1u << mb) - 1u);
  int bias = int((1u << (eb - 1u)) - 1u);
  if (e == (1u << eb) - 1u) return uintBitsToFloat(s | 0x7F800000u | (m != 0u ? 0x400000u : 0u));
  if (e == 0u) return uintBitsToFloat(s) + (s != 0u ? -1.0 : 1.0) * float(m) * uintBitsToFloat(uint(127 + 1 - bias - int(mb)) << 23);
  return uintBitsToFloat(s | (uint(int(e) - bias + 127) << 23) | (m << (23u - mb)));
}
float f8e4m3_to_f32(uint b) { return small_float_to_f32(b, 4u, 3u); }
float f8e3m4_to_f32(uint b) { return small_float_to_f32(b, 3u, 4u); }

float q_f16(float x) { return f16_to_f32(f32_to_f16(x)); }
float q_bf16(float x) { return uintBitsToFloat(f32_to_bf16(x) << 16); }
float q_f8e5m2(float x) { return f16_to_f32(f32_to_f8e5m2(x) << 8); }
float q_f8e4m3fn(float x) { return f8e4m3fn_to_f32(f32_to_f8e4m3fn(x)); }
float q_f8e4m3(float x) { return f8e4m3_to_f32(f32_to_f8e4m3(x)); }
float q_f8e3m4(float x) { return f8e3m4_to_f32(f32_to_f8e3m4(x)); }

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
