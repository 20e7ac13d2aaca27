// Real math for one float type. Instantiated by codegen/shader_library.cc
// with FLOAT = float or double (constants are written FLOAT(...LF); the
// float instance drops the LF). Built only from +,-,*, which Vulkan rounds
// correctly, with `precise` where error-free transforms need it: Vulkan
// leaves the built-ins' precision (division, sqrt, exp, ...) too loose for
// XLA's results, and GLSL has no double exp/log/sin at all.

#if WIDTH_OF_FLOAT == 32
float pow2_float(int k) { return uintBitsToFloat(uint(k + 127) << 23); }
bool isnan_float(float x) { return (floatBitsToUint(x) & 0x7FFFFFFFu) > 0x7F800000u; }
bool isfinite_float(float x) { return (floatBitsToUint(x) & 0x7F800000u) != 0x7F800000u; }
int exponent_float(float x) { return int((floatBitsToUint(x) >> 23) & 0xFFu) - 127; }
float mantissa_float(float x) { return uintBitsToFloat((floatBitsToUint(x) & 0x807FFFFFu) | 0x3F800000u); }
float inf_float() { return uintBitsToFloat(0x7F800000u); }
float nan_float() { return uintBitsToFloat(0x7FC00000u); }
bool signbit_float(float x) { return (floatBitsToUint(x) & 0x80000000u) != 0u; }
#define MANT_float 24
#define SPLIT_float 4097.0
#define SCALE_STEP_float 120
#define DEKKER_RANGE_float 100  // |exponent| below this: Dekker's split (SPLIT x) neither overflows nor underflows
#define EMIN_float (-126)
#else
double pow2_double(int k) { return packDouble2x32(uvec2(0u, uint(k + 1023) << 20)); }
bool isnan_double(double x) {
  uvec2 b = unpackDouble2x32(x);
  uint hi = b.y & 0x7FFFFFFFu;
  return hi > 0x7FF00000u || (hi == 0x7FF00000u && b.x != 0u);
}
bool isfinite_double(double x) { return (unpackDouble2x32(x).y & 0x7FF00000u) != 0x7FF00000u; }
int exponent_double(double x) { return int((unpackDouble2x32(x).y >> 20) & 0x7FFu) - 1023; }
double mantissa_double(double x) {
  uvec2 b = unpackDouble2x32(x);
  return packDouble2x32(uvec2(b.x, (b.y & 0x800FFFFFu) | 0x3FF00000u));
}
double inf_double() { return packDouble2x32(uvec2(0u, 0x7FF00000u)); }
double nan_double() { return packDouble2x32(uvec2(0u, 0x7FF80000u)); }
bool signbit_double(double x) { return (unpackDouble2x32(x).y & 0x80000000u) != 0u; }
#define MANT_double 53
#define SPLIT_double 134217729.0LF
#define SCALE_STEP_double 1000
#define DEKKER_RANGE_double 960
#define EMIN_double (-1022)
#endif

FLOAT copysign_FLOAT(FLOAT m, FLOAT s) { return signbit_FLOAT(s) ? -abs(m) : abs(m); }

// x * 2^k without intermediate overflow or underflow.
FLOAT scale_FLOAT(FLOAT x, int k) {
  k = clamp(k, -3 * SCALE_STEP_FLOAT, 3 * SCALE_STEP_FLOAT);
  while (k > SCALE_STEP_FLOAT) { x *= pow2_FLOAT(SCALE_STEP_FLOAT); k -= SCALE_STEP_FLOAT; }
  while (k < -SCALE_STEP_FLOAT) { x *= pow2_FLOAT(-SCALE_STEP_FLOAT); k += SCALE_STEP_FLOAT; }
  return x * pow2_FLOAT(k);
}

// x * 2^k for k within twice the exponent range (exp's, expm1's and
// division's scaling): two exact powers of two, so one rounding and no loop.
FLOAT scale_by_halves_FLOAT(FLOAT x, int k) {
  int h = k / 2;
  return (x * pow2_FLOAT(h)) * pow2_FLOAT(k - h);
}

// Dekker: a*b = p + e exactly (no fma needed).
void two_prod_FLOAT(FLOAT a, FLOAT b, out FLOAT p, out FLOAT e) {
#if WIDTH_OF_FLOAT == 64 && EMULATED_F64
  // Software doubles have an exact fma, a tenth of Dekker's cost there.
  precise FLOAT pp = a * b;
  p = pp;
  e = fma(a, b, -pp);
#else
  precise FLOAT pp = a * b;
  precise FLOAT ta = SPLIT_FLOAT * a;
  precise FLOAT ah = ta - (ta - a);
  precise FLOAT al = a - ah;
  precise FLOAT tb = SPLIT_FLOAT * b;
  precise FLOAT bh = tb - (tb - b);
  precise FLOAT bl = b - bh;
  precise FLOAT err = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
  p = pp;
  e = err;
#endif
}

// Knuth: a+b = s + e exactly.
void two_sum_FLOAT(FLOAT a, FLOAT b, out FLOAT s, out FLOAT e) {
  precise FLOAT ss = a + b;
  precise FLOAT bb = ss - a;
  precise FLOAT err = (a - (ss - bb)) + (b - bb);
  s = ss;
  e = err;
}

bool safe_range_FLOAT(FLOAT x) {
  int e = exponent_FLOAT(abs(x));
  return x == FLOAT(0) || (e > -SCALE_STEP_FLOAT && e < SCALE_STEP_FLOAT);
}

// floor(log2(|x|)) for finite x != 0, subnormals too (exponent_FLOAT reads
// the field, which is the same for every subnormal).
int true_exponent_FLOAT(FLOAT x) {
  int e = exponent_FLOAT(abs(x));
  if (e < EMIN_FLOAT) e = exponent_FLOAT(abs(x) * pow2_FLOAT(MANT_FLOAT)) - MANT_FLOAT;
  return e;
}

// Where two_prod of x and a value of similar size stays exact.
bool dekker_range_FLOAT(FLOAT x) {
  int e = exponent_FLOAT(abs(x));
  return x == FLOAT(0) || (e > -DEKKER_RANGE_FLOAT && e < DEKKER_RANGE_FLOAT);
}

// Correctly rounded division: the driver's quotient, fixed by its exact
// residual where the driver may round it loosely (EXACT_DIV_SQRT: it does not).
FLOAT div_FLOAT(FLOAT a, FLOAT b) {
  precise FLOAT q = a / b;
#if EXACT_DIV_SQRT || (WIDTH_OF_FLOAT == 64 && EMULATED_F64)  // software doubles round exactly
  return q;
#else
  if (!isfinite_FLOAT(q) || q == FLOAT(0) || !isfinite_FLOAT(a) || !isfinite_FLOAT(b)) return q;
  FLOAT p, e;
  if (dekker_range_FLOAT(a) && dekker_range_FLOAT(b) && dekker_range_FLOAT(q)) {
    two_prod_FLOAT(q, b, p, e);
    precise FLOAT r = (a - p) - e;
    return q + r / b;
  }
  // Far exponents: the operands brought near 1 (exactly), their quotient
  // corrected, then scaled back, which is exact unless the quotient is
  // subnormal (there the driver's stands) or overflows. No loops here:
  // sixteen inlined copies of scale_FLOAT's loops in one matmul epilogue
  // kept llvmpipe's compiler busy for half an hour.
  int ea = exponent_FLOAT(abs(a)), eb = exponent_FLOAT(abs(b));
  FLOAT as = scale_by_halves_FLOAT(a, -ea), bs = scale_by_halves_FLOAT(b, -eb);
  precise FLOAT qs = as / bs;
  two_prod_FLOAT(qs, bs, p, e);
  precise FLOAT r = (as - p) - e;
  precise FLOAT c = qs + r / bs;
  int k = exponent_FLOAT(abs(c)) + (ea - eb);
  if (k < EMIN_FLOAT) return q;
  if (k > -EMIN_FLOAT + 1) return copysign_FLOAT(inf_FLOAT(), c);
  return scale_by_halves_FLOAT(c, ea - eb);
#endif
}

FLOAT sqrt_FLOAT(FLOAT x) {
  if (x < FLOAT(0)) return nan_FLOAT();
  if (x == FLOAT(0) || !isfinite_FLOAT(x)) return x;
#if EXACT_DIV_SQRT || (WIDTH_OF_FLOAT == 64 && EMULATED_F64)  // software doubles round exactly
  precise FLOAT root = sqrt(x);
  return root;
#else
  int k = 0;
  if (!safe_range_FLOAT(x)) {
    k = exponent_FLOAT(x) / 2;
    if (exponent_FLOAT(x) <= -SCALE_STEP_FLOAT) k = -SCALE_STEP_FLOAT / 2 - MANT_FLOAT;
    x = scale_FLOAT(x, -2 * k);
  }
  precise FLOAT s = sqrt(x);
  FLOAT p, e;
  two_prod_FLOAT(s, s, p, e);
  precise FLOAT r = (x - p) - e;
  return scale_FLOAT(s + r / (FLOAT(2) * s), k);
#endif
}

FLOAT rsqrt_FLOAT(FLOAT x) { return div_FLOAT(FLOAT(1), sqrt_FLOAT(x)); }

// ln2 split so that k * LN2_HI is exact for every exponent k in range.
#if WIDTH_OF_FLOAT == 32
const float LN2_HI_float = 0.693145751953125;
const float LN2_LO_float = 1.428606765330187045e-06;
#else
const double LN2_HI_double = 6.93147180369123816490e-01LF;
const double LN2_LO_double = 1.90821492927058770002e-10LF;
#endif
const FLOAT LOG2E_FLOAT = FLOAT(1.44269504088896338700e+00LF);
const FLOAT PI_FLOAT = FLOAT(3.14159265358979311600e+00LF);
const FLOAT PI_LO_FLOAT = FLOAT(1.22464679914735317720e-16LF);
const FLOAT PIO2_FLOAT = FLOAT(1.57079632679489655800e+00LF);
const FLOAT PIO2_LO_FLOAT = FLOAT(6.12323399573676588613e-17LF);

// (e^r - 1) / r for |r| <= ln2/2 and a little more (pow's correction): the
// Taylor series to r^7/8! (f32, truncation < 2^-30) or r^13/14! (f64,
// < 2^-60) in Horner form with constant coefficients. No loop and no
// division: a division per term was most of exp's time on llvmpipe.
FLOAT expm1_quotient_FLOAT(FLOAT r) {
#if WIDTH_OF_FLOAT == 32
  FLOAT q = FLOAT(2.48015873015873e-05LF);
#else
  FLOAT q = FLOAT(1.1470745597729725e-11LF);
  q = q * r + FLOAT(1.6059043836821613e-10LF);
  q = q * r + FLOAT(2.08767569878681e-09LF);
  q = q * r + FLOAT(2.505210838544172e-08LF);
  q = q * r + FLOAT(2.755731922398589e-07LF);
  q = q * r + FLOAT(2.7557319223985893e-06LF);
  q = q * r + FLOAT(2.48015873015873e-05LF);
#endif
  q = q * r + FLOAT(0.0001984126984126984LF);
  q = q * r + FLOAT(0.001388888888888889LF);
  q = q * r + FLOAT(0.008333333333333333LF);
  q = q * r + FLOAT(0.041666666666666664LF);
  q = q * r + FLOAT(0.16666666666666666LF);
  q = q * r + FLOAT(0.5LF);
  return q * r + FLOAT(1);
}

// e^r for |r| <= ln2/2.
FLOAT exp_kernel_FLOAT(FLOAT r) { return FLOAT(1) + r * expm1_quotient_FLOAT(r); }


// e^(x + xl), xl a small correction to x (used by pow).
FLOAT exp2part_FLOAT(FLOAT x, FLOAT xl) {
  if (isnan_FLOAT(x)) return x;
  const FLOAT hi = MANT_FLOAT == 24 ? FLOAT(88.72283935546875LF) : FLOAT(709.782712893383973096LF);
  const FLOAT lo = MANT_FLOAT == 24 ? FLOAT(-103.972077083991796413LF) : FLOAT(-745.1332191019412076235LF);
  if (x > hi) return inf_FLOAT();
  if (x < lo) return FLOAT(0);
  FLOAT k = roundEven(x * LOG2E_FLOAT);
  precise FLOAT r = (x - k * LN2_HI_FLOAT) - k * LN2_LO_FLOAT;
  r += xl;
  return scale_by_halves_FLOAT(exp_kernel_FLOAT(r), int(k));
}

FLOAT exp_FLOAT(FLOAT x) { return exp2part_FLOAT(x, FLOAT(0)); }

FLOAT expm1_FLOAT(FLOAT x) {
  if (isnan_FLOAT(x)) return x;
  if (x > FLOAT(80) * FLOAT(MANT_FLOAT == 24 ? 1 : 8)) return exp_FLOAT(x);
  if (x < -FLOAT(MANT_FLOAT + 2) * LN2_HI_FLOAT) return FLOAT(-1);
  if (abs(x) < pow2_FLOAT(-MANT_FLOAT - 1)) return x;
  FLOAT k = roundEven(x * LOG2E_FLOAT);
  precise FLOAT r = (x - k * LN2_HI_FLOAT) - k * LN2_LO_FLOAT;
  FLOAT em = r * expm1_quotient_FLOAT(r);  // expm1(r)
  // e^x - 1 = 2^k (expm1(r) + 1) - 1, regrouped by k's size so that
  // nothing cancels; one scaling serves every case (a SIMD driver would run
  // one for each).
  int ik = int(k);
  FLOAT base = ik > MANT_FLOAT ? em + FLOAT(1) : ik > 0 ? em + (FLOAT(1) - pow2_FLOAT(-ik)) : em;
  FLOAT scaled = scale_by_halves_FLOAT(base, ik);
  if (ik == 0) return em;
  if (ik > MANT_FLOAT) return scaled - FLOAT(1);
  if (ik > 0) return scaled;
  return scaled + (pow2_FLOAT(ik) - FLOAT(1));
}

// log(x) as hi + lo (double-word), for pow; plain log uses hi + lo.
void log_ext_FLOAT(FLOAT x, out FLOAT hi, out FLOAT lo) {
  int e = 0;
  if (exponent_FLOAT(x) <= -SCALE_STEP_FLOAT) { x = scale_FLOAT(x, 2 * MANT_FLOAT); e = -2 * MANT_FLOAT; }
  e += exponent_FLOAT(x);
  FLOAT m = mantissa_FLOAT(x);
  if (m > FLOAT(1.41421356237309504880LF)) { m *= FLOAT(0.5); e += 1; }
  precise FLOAT f = m - FLOAT(1);
  // s = f / (2 + f) as s_hi + s_lo.
  FLOAT t_hi, t_lo;
  two_sum_FLOAT(FLOAT(2), f, t_hi, t_lo);
  FLOAT s_hi = div_FLOAT(f, t_hi);
  FLOAT p, pe;
  two_prod_FLOAT(s_hi, t_hi, p, pe);
  precise FLOAT s_lo = (((f - p) - pe) - s_hi * t_lo) / t_hi;
  FLOAT z = s_hi * s_hi;
  // 2/3 + 2/5 z + 2/7 z^2 + ..., written out: a driver need not unroll a
  // loop or fold its divisions (llvmpipe ran both, a vector divide a term).
#if WIDTH_OF_FLOAT == 32
  FLOAT R = FLOAT(0.11764705882352941LF);
#else
  FLOAT R = FLOAT(0.06896551724137931LF);
  R = FLOAT(0.07407407407407407LF) + z * R;
  R = FLOAT(0.08LF) + z * R;
  R = FLOAT(0.08695652173913043LF) + z * R;
  R = FLOAT(0.09523809523809523LF) + z * R;
  R = FLOAT(0.10526315789473684LF) + z * R;
  R = FLOAT(0.11764705882352941LF) + z * R;
#endif
  R = FLOAT(0.13333333333333333LF) + z * R;
  R = FLOAT(0.15384615384615385LF) + z * R;
  R = FLOAT(0.18181818181818182LF) + z * R;
  R = FLOAT(0.2222222222222222LF) + z * R;
  R = FLOAT(0.2857142857142857LF) + z * R;
  R = FLOAT(0.4LF) + z * R;
  R = FLOAT(0.6666666666666666LF) + z * R;
  FLOAT tail = s_hi * z * R;  // 2s^3/3 + 2s^5/5 + ...
  FLOAT fe = FLOAT(e);
  FLOAT h, hl;
  two_sum_FLOAT(fe * LN2_HI_FLOAT, FLOAT(2) * s_hi, h, hl);
  precise FLOAT l = hl + (fe * LN2_LO_FLOAT + (FLOAT(2) * s_lo + tail));
  two_sum_FLOAT(h, l, hi, lo);
}

FLOAT log_FLOAT(FLOAT x) {
  if (isnan_FLOAT(x)) return x;
  if (x < FLOAT(0)) return nan_FLOAT();
  if (x == FLOAT(0)) return -inf_FLOAT();
  if (!isfinite_FLOAT(x)) return x;
  FLOAT hi, lo;
  log_ext_FLOAT(x, hi, lo);
  return hi + lo;
}

FLOAT log1p_FLOAT(FLOAT x) {
  if (isnan_FLOAT(x)) return x;
  precise FLOAT u = FLOAT(1) + x;
  if (u == FLOAT(1)) return x;
  // One log for both outcomes: a SIMD driver runs both.
  FLOAT l = log_FLOAT(u);
  if (!isfinite_FLOAT(u) || u <= FLOAT(0)) return l;
  precise FLOAT d = u - FLOAT(1);
  return l * div_FLOAT(x, d);
}

#ifndef VKXLA_TWO_OVER_PI
#define VKXLA_TWO_OVER_PI
// 2/pi, 32 bits at a time: enough for Payne-Hanek reduction of any finite
// double (a window of 192 bits from bit e - 1, e up to 971).
const uint kTwoOverPi[40] = uint[40](
  0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u,
  0xB7246E3Au, 0x424DD2E0u, 0x06492EEAu, 0x09D1921Cu, 0xFE1DEB1Cu, 0xB129A73Eu, 0xE88235F5u, 0x2EBB4484u,
  0xE99C7026u, 0xB45F7E41u, 0x3991D639u, 0x835339F4u, 0x9C845F8Bu, 0xBDF9283Bu, 0x1FF897FFu, 0xDE05980Fu,
  0xEF2F118Bu, 0x5A0A6D1Fu, 0x6D367ECFu, 0x27CB09B7u, 0x4F463F66u, 0x9E5FEA2Du, 0x7527BAC7u, 0xEBE5F17Bu,
  0x3D0739F7u, 0x8A5292EAu, 0x6BFB5FB1u, 0x1F8D5D08u, 0x56033046u, 0xFC7B6BABu, 0xF0CFBC20u, 0x9AF4361Du);

// Bits p .. p+31 of 2/pi; bit 1 is the first after the point.
uint two_over_pi_word(int p) {
  int i = p - 1;
  if (i <= -32) return 0u;
  if (i < 0) return kTwoOverPi[0] >> uint(-i);
  int w = i >> 5, sh = i & 31;
  return sh == 0 ? kTwoOverPi[w] : (kTwoOverPi[w] << uint(sh)) | (kTwoOverPi[w + 1] >> uint(32 - sh));
}

// |x| = (m1 * 2^32 + m0) * 2^e, reduced by Payne-Hanek: x * 2/pi mod 4
// from the K words of 2/pi that can reach below the point (the bits
// before them add multiples of 4). Returns the quarter turns and the
// fraction in [-1/2, 1/2] as K 32-bit limbs (little-endian) and a sign.
void payne_hanek(uint m0, uint m1, int e, int K, out int q, out uint f[6], out bool negative) {
  uint v[6], p[8];
  for (int j = 0; j < 6; ++j) v[j] = j < K ? two_over_pi_word(e - 1 + 32 * (K - 1 - j)) : 0u;
  for (int j = 0; j < 8; ++j) p[j] = 0u;
  // p = m * v, schoolbook over 32-bit limbs.
  for (int a = 0; a < 2; ++a) {
    uint m = a == 0 ? m0 : m1;
    uint carry = 0u;
    for (int j = 0; j < 6; ++j) {
      uint hi, lo, c1, c2;
      umulExtended(m, v[j], hi, lo);
      p[a + j] = uaddCarry(p[a + j], lo, c1);
      p[a + j] = uaddCarry(p[a + j], carry, c2);
      carry = hi + c1 + c2;
    }
    if (a + 6 < 8) p[a + 6] += carry;
  }
  // x * 2/pi = p * 2^(2 - 32K): bits 32K-2 and 32K-1 are the quarter turns.
  q = int(p[K - 1] >> 30);
  for (int j = 0; j < 6; ++j) f[j] = j < K ? p[j] : 0u;
  f[K - 1] &= 0x3FFFFFFFu;
  negative = (f[K - 1] & 0x20000000u) != 0u;  // fraction >= 1/2: round k up
  if (negative) {
    q = (q + 1) & 3;
    uint borrow = 0u;
    for (int j = 0; j < 6; ++j) {
      uint b1, b2;
      f[j] = usubBorrow(0u, f[j], b1);
      f[j] = usubBorrow(f[j], borrow, b2);
      borrow = b1 + b2;
    }
    f[K - 1] &= 0x3FFFFFFFu;
  }
}
#endif

#if WIDTH_OF_FLOAT == 32
// Word w <= 6 of 2/pi (bits 32w+1 .. 32w+32), all an f32 argument reaches,
// by selects: a dynamically indexed array becomes a ladder of branches,
// which a SIMD CPU driver runs in full for every lane whether any lane
// takes the large-argument path or not (llvmpipe, sin over 16M f32:
// 540 ms with the array, 55 with these).
uint two_over_pi_low_word(int w) {
  uint r = kTwoOverPi[0];
  r = w == 1 ? kTwoOverPi[1] : r;
  r = w == 2 ? kTwoOverPi[2] : r;
  r = w == 3 ? kTwoOverPi[3] : r;
  r = w == 4 ? kTwoOverPi[4] : r;
  r = w == 5 ? kTwoOverPi[5] : r;
  r = w == 6 ? kTwoOverPi[6] : r;
  return r;
}

// Bits p .. p+31 of 2/pi for -31 < p < 192 (two_over_pi_word's for f32).
uint two_over_pi_word_f32(int p) {
  int i = max(p - 1, 0);
  int w = i >> 5, sh = i & 31;
  uint lo = two_over_pi_low_word(w), hi = two_over_pi_low_word(w + 1);
  uint v = sh == 0 ? lo : (lo << uint(sh)) | (hi >> uint(32 - sh));
  return p < 1 ? kTwoOverPi[0] >> uint(min(1 - p, 31)) : v;
}
#endif

// x = k*pi/2 + r, |r| <= pi/4; returns r and k mod 4. Small arguments
// by Cody-Waite (products of k with the leading parts of pi/2 are exact
// while k stays small), large ones by Payne-Hanek.
FLOAT reduce_pio2_large_FLOAT(FLOAT x, out int q) {
#if WIDTH_OF_FLOAT == 32
  // Payne-Hanek with one 24-bit limb: the 24-bit mantissa m = |x| * 2^-e
  // times the 96 bits of 2/pi from bit e - 1 on is x * 2/pi * 2^94 modulo
  // 2^96; the bits of 2/pi before them add multiples of 4.
  uint bits = floatBitsToUint(x) & 0x7FFFFFFFu;
  uint m = (bits & 0x7FFFFFu) | 0x800000u;
  int e = int(bits >> 23) - 150;
  uint v0 = two_over_pi_word_f32(e + 63), v1 = two_over_pi_word_f32(e + 31), v2 = two_over_pi_word_f32(e - 1);
  uint h0, p0, h1, l1, c;
  umulExtended(m, v0, h0, p0);
  umulExtended(m, v1, h1, l1);
  uint p1 = uaddCarry(l1, h0, c);
  uint p2 = m * v2 + h1 + c;
  q = int(p2 >> 30);
  p2 &= 0x3FFFFFFFu;
  // A fraction of 1/2 or more rounds to the next quarter turn: negate.
  bool negative = (p2 & 0x20000000u) != 0u;
  uint n0 = ~p0 + 1u;
  uint n1 = ~p1 + (p0 == 0u ? 1u : 0u);
  uint n2 = (~p2 + (p0 == 0u && p1 == 0u ? 1u : 0u)) & 0x3FFFFFFFu;
  q = negative ? (q + 1) & 3 : q;
  p0 = negative ? n0 : p0;
  p1 = negative ? n1 : p1;
  p2 = negative ? n2 : p2;
  FLOAT frac = FLOAT(p0) * pow2_FLOAT(-94) + FLOAT(p1) * pow2_FLOAT(-62) + FLOAT(p2) * pow2_FLOAT(-30);
#else
  const int K = 6;
  uvec2 b = unpackDouble2x32(x);
  uint m0 = b.x;
  uint m1 = (b.y & 0xFFFFFu) | 0x100000u;
  int e = int((b.y >> 20) & 0x7FFu) - 1075;
  uint f[6];
  bool negative;
  payne_hanek(m0, m1, e, K, q, f, negative);
  FLOAT frac = FLOAT(0);
  for (int j = 0; j < K; ++j) frac += FLOAT(f[j]) * pow2_FLOAT(32 * j + 2 - 32 * K);
#endif
  precise FLOAT r = frac * FLOAT(1.57079632679489655800e+00LF) + frac * FLOAT(6.12323399573676603587e-17LF);
  if (negative) r = -r;
  if (signbit_FLOAT(x)) {
    q = (4 - q) & 3;
    r = -r;
  }
  return r;
}

FLOAT reduce_pio2_FLOAT(FLOAT x, out int q) {
#if WIDTH_OF_FLOAT == 32 && HAVE_F64
  if (abs(x) >= FLOAT(524288.0LF)) return reduce_pio2_large_FLOAT(x, q);
  double dx = double(x);
  double k = roundEven(dx * 0.636619772367581382433LF);
  double r = (dx - k * 1.57079632673412561417e+00LF) - k * 6.07710050650619224932e-11LF;
  q = int(k) & 3;  // |k| < 2^19: exact; mod() would divide (a slow double division on CPU drivers)
  return float(r);
#else
#if WIDTH_OF_FLOAT == 32
  if (abs(x) >= FLOAT(1024.0LF)) return reduce_pio2_large_FLOAT(x, q);
#else
  if (abs(x) >= FLOAT(524288.0LF)) return reduce_pio2_large_FLOAT(x, q);
#endif
  FLOAT k = roundEven(x * FLOAT(0.636619772367581382433LF));
#if WIDTH_OF_FLOAT == 32
  precise FLOAT r = ((x - k * 1.5703125) - k * 4.837512969970703125e-4) - k * 7.54978995489188216e-8;
#else
  precise FLOAT r = ((x - k * 1.57079632673412561417e+00LF) - k * 6.07710050630396597660e-11LF) - k * 2.02226624879595063154e-21LF;
#endif
  q = int(mod(k, FLOAT(4)));
  return r;
#endif
}

// The Taylor terms of sin and cos nested, their coefficients written out
// (see log_ext_FLOAT).
FLOAT sin_kernel_FLOAT(FLOAT r) {
  FLOAT z = r * r;
  FLOAT s = FLOAT(1);
#if WIDTH_OF_FLOAT != 32  // the wider type's higher terms
  s = FLOAT(1) - z * FLOAT(0.002380952380952381LF) * s;
  s = FLOAT(1) - z * FLOAT(0.0029239766081871343LF) * s;
  s = FLOAT(1) - z * FLOAT(0.003676470588235294LF) * s;
  s = FLOAT(1) - z * FLOAT(0.004761904761904762LF) * s;
#endif
  s = FLOAT(1) - z * FLOAT(0.00641025641025641LF) * s;
  s = FLOAT(1) - z * FLOAT(0.00909090909090909LF) * s;
  s = FLOAT(1) - z * FLOAT(0.013888888888888888LF) * s;
  s = FLOAT(1) - z * FLOAT(0.023809523809523808LF) * s;
  s = FLOAT(1) - z * FLOAT(0.05LF) * s;
  s = FLOAT(1) - z * FLOAT(0.16666666666666666LF) * s;
  return r * s;
}

FLOAT cos_kernel_FLOAT(FLOAT r) {
  FLOAT z = r * r;
  FLOAT c = FLOAT(1);
#if WIDTH_OF_FLOAT != 32  // the wider type's higher terms
  c = FLOAT(1) - z * FLOAT(0.002631578947368421LF) * c;
  c = FLOAT(1) - z * FLOAT(0.0032679738562091504LF) * c;
  c = FLOAT(1) - z * FLOAT(0.004166666666666667LF) * c;
  c = FLOAT(1) - z * FLOAT(0.005494505494505495LF) * c;
#endif
  c = FLOAT(1) - z * FLOAT(0.007575757575757576LF) * c;
  c = FLOAT(1) - z * FLOAT(0.011111111111111112LF) * c;
  c = FLOAT(1) - z * FLOAT(0.017857142857142856LF) * c;
  c = FLOAT(1) - z * FLOAT(0.03333333333333333LF) * c;
  c = FLOAT(1) - z * FLOAT(0.08333333333333333LF) * c;
  c = FLOAT(1) - z * FLOAT(0.5LF) * c;
  return c;
}

FLOAT sin_FLOAT(FLOAT x) {
  if (!isfinite_FLOAT(x)) return nan_FLOAT();
  if (abs(x) < pow2_FLOAT(-MANT_FLOAT / 2 - 1)) return x;
  int q;
  FLOAT r = reduce_pio2_FLOAT(x, q);
  FLOAT v = (q & 1) == 0 ? sin_kernel_FLOAT(r) : cos_kernel_FLOAT(r);
  return (q & 2) == 0 ? v : -v;
}

FLOAT cos_FLOAT(FLOAT x) {
  if (!isfinite_FLOAT(x)) return nan_FLOAT();
  int q;
  FLOAT r = reduce_pio2_FLOAT(x, q);
  FLOAT v = (q & 1) == 0 ? cos_kernel_FLOAT(r) : sin_kernel_FLOAT(r);
  return (q == 1 || q == 2) ? -v : v;
}

FLOAT tan_FLOAT(FLOAT x) {
  if (!isfinite_FLOAT(x)) return nan_FLOAT();
  if (abs(x) < pow2_FLOAT(-MANT_FLOAT / 2 - 1)) return x;
  int q;
  FLOAT r = reduce_pio2_FLOAT(x, q);
  FLOAT s = sin_kernel_FLOAT(r), c = cos_kernel_FLOAT(r);
  return (q & 1) == 0 ? div_FLOAT(s, c) : -div_FLOAT(c, s);
}

// atan on [0, inf], result in [0, pi/2].
FLOAT atan_positive_FLOAT(FLOAT a) {
  bool inverted = a > FLOAT(1);
  if (inverted) a = div_FLOAT(FLOAT(1), a);
  FLOAT offset = FLOAT(0);
  const FLOAT SQRT3 = FLOAT(1.73205080756887729353LF);
  if (a > FLOAT(0.267949192431122706473LF)) {  // tan(pi/12)
    a = div_FLOAT(a * SQRT3 - FLOAT(1), a + SQRT3);
    offset = FLOAT(0.523598775598298873077LF);  // pi/6
  }
  FLOAT z = a * a;
#if WIDTH_OF_FLOAT == 32
  FLOAT p = FLOAT(-0.06666666666666667LF);
#else
  FLOAT p = FLOAT(-0.03225806451612903LF);
  p = FLOAT(0.034482758620689655LF) + z * p;
  p = FLOAT(-0.037037037037037035LF) + z * p;
  p = FLOAT(0.04LF) + z * p;
  p = FLOAT(-0.043478260869565216LF) + z * p;
  p = FLOAT(0.047619047619047616LF) + z * p;
  p = FLOAT(-0.05263157894736842LF) + z * p;
  p = FLOAT(0.058823529411764705LF) + z * p;
  p = FLOAT(-0.06666666666666667LF) + z * p;
#endif
  p = FLOAT(0.07692307692307693LF) + z * p;
  p = FLOAT(-0.09090909090909091LF) + z * p;
  p = FLOAT(0.1111111111111111LF) + z * p;
  p = FLOAT(-0.14285714285714285LF) + z * p;
  p = FLOAT(0.2LF) + z * p;
  p = FLOAT(-0.3333333333333333LF) + z * p;
  FLOAT r = offset + (a + a * z * p);
  if (inverted) r = (PIO2_FLOAT - r) + PIO2_LO_FLOAT;
  return r;
}

FLOAT atan2_FLOAT(FLOAT y, FLOAT x) {
  if (isnan_FLOAT(x) || isnan_FLOAT(y)) return nan_FLOAT();
  bool yneg = signbit_FLOAT(y);
  FLOAT ay = abs(y), ax = abs(x);
  FLOAT r;
  if (ay == FLOAT(0)) {
    r = signbit_FLOAT(x) ? PI_FLOAT : FLOAT(0);
  } else if (ax == FLOAT(0)) {
    r = PIO2_FLOAT;
  } else if (!isfinite_FLOAT(ay)) {
    r = !isfinite_FLOAT(ax) ? (x > FLOAT(0) ? PI_FLOAT / FLOAT(4) : FLOAT(3) * PI_FLOAT / FLOAT(4)) : PIO2_FLOAT;
  } else if (!isfinite_FLOAT(ax)) {
    r = x > FLOAT(0) ? FLOAT(0) : PI_FLOAT;
  } else {
    FLOAT t = atan_positive_FLOAT(div_FLOAT(ay, ax));
    r = x > FLOAT(0) ? t : (PI_FLOAT - t) + PI_LO_FLOAT;
  }
  return yneg ? -r : r;
}

FLOAT tanh_FLOAT(FLOAT x) {
  if (isnan_FLOAT(x)) return x;
  FLOAT a = abs(x);
  if (a < pow2_FLOAT(-MANT_FLOAT / 2 - 1)) return x;
  if (a > FLOAT(MANT_FLOAT == 24 ? 9 : 19)) return copysign_FLOAT(FLOAT(1), x);
  FLOAT e = expm1_FLOAT(FLOAT(2) * a);
  return copysign_FLOAT(div_FLOAT(e, e + FLOAT(2)), x);
}

FLOAT cosh_FLOAT(FLOAT x) {
  if (isnan_FLOAT(x)) return x;
  FLOAT a = abs(x);
  if (a > FLOAT(MANT_FLOAT == 24 ? 20 : 40)) {
    FLOAT h = exp_FLOAT(a * FLOAT(0.5));
    return (h * FLOAT(0.5)) * h;
  }
  FLOAT e = exp_FLOAT(a);
  return FLOAT(0.5) * e + div_FLOAT(FLOAT(0.5), e);
}

FLOAT sinh_FLOAT(FLOAT x) {
  if (isnan_FLOAT(x)) return x;
  FLOAT a = abs(x), r;
  if (a > FLOAT(MANT_FLOAT == 24 ? 20 : 40)) {
    FLOAT h = exp_FLOAT(a * FLOAT(0.5));
    r = (h * FLOAT(0.5)) * h;
  } else {
    FLOAT em = expm1_FLOAT(a);
    r = FLOAT(0.5) * (em + div_FLOAT(em, em + FLOAT(1)));
  }
  return copysign_FLOAT(r, x);
}

// 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below: one exponential,
// e^-|x|, serves both (a SIMD driver runs both sides of a branch).
FLOAT logistic_FLOAT(FLOAT x) {
  if (isnan_FLOAT(x)) return x;
  FLOAT e = exp_FLOAT(-abs(x));
  return div_FLOAT(x >= FLOAT(0) ? FLOAT(1) : e, FLOAT(1) + e);
}

// erf. f32: fixed polynomials, no data-dependent loop (whose longest
// lane a SIMD driver runs for every lane: the series below took llvmpipe
// 354 ms over 16M f32). Fitted in double (Chebyshev, then the power
// basis) to erf(a)/a - 1 in a^2 on [0, 1), and to erfc(a) e^(a^2) in
// a - 2.25 on [1, 3.92), where erf(a) = 1 - e^(-a^2) erfc(a) e^(a^2) with a^2
// split exactly; from 3.92 on erf rounds to 1. At most 1.4 ULP over every
// f32 (1.0 from 1 on) with each operation rounded.
// Wider types: erf(a) = 2a/sqrt(pi) e^(-a^2) sum_n (2a^2)^n / (1*3*...*(2n+1)),
// all terms positive, so no cancellation.
FLOAT erf_FLOAT(FLOAT x) {
  if (isnan_FLOAT(x)) return x;
  FLOAT a = abs(x);
#if WIDTH_OF_FLOAT == 32
  float s = a * a;
  float q = 7.88249745e-05;
  q = q * s + (-0.000801885501);
  q = q * s + 0.00518931216;
  q = q * s + (-0.0268543288);
  q = q * s + 0.112835974;
  q = q * s + (-0.37612626);
  q = q * s + 0.128379166;
  float small = a + a * q;
  float p, pe;
  two_prod_float(a, a, p, pe);
  float t = a - 2.25;
  float g = -4.72001517e-07;
  g = g * t + 2.92636696e-06;
  g = g * t + (-9.19928152e-06);
  g = g * t + 2.82466663e-05;
  g = g * t + (-0.000100658042);
  g = g * t + 0.000349233334;
  g = g * t + (-0.00114536262);
  g = g * t + 0.00361882453;
  g = g * t + (-0.0110015441);
  g = g * t + 0.0319926403;
  g = g * t + (-0.0884865448);
  g = g * t + 0.231087252;
  float large = 1.0 - (exp_float(-p) * (1.0 - pe)) * g;
  return copysign_float(a < 1.0 ? small : a < 3.92 ? large : 1.0, x);
#else
  if (a >= FLOAT(6)) return copysign_FLOAT(FLOAT(1), x);
  const FLOAT TWO_OVER_SQRTPI = FLOAT(1.12837916709551257390LF);
  if (a < pow2_FLOAT(-MANT_FLOAT / 2 - 1)) return x * TWO_OVER_SQRTPI;
  FLOAT p, pe;
  two_prod_FLOAT(a, a, p, pe);
  FLOAT ex = exp_FLOAT(-p) * (FLOAT(1) - pe);
  FLOAT z = FLOAT(2) * p, term = FLOAT(1), sum = FLOAT(1);
  for (int n = 1; n < 400; ++n) {
    term *= z / FLOAT(2 * n + 1);
    sum += term;
    if (term < sum * pow2_FLOAT(-MANT_FLOAT - 1)) break;
  }
  return copysign_FLOAT(min(FLOAT(1), (TWO_OVER_SQRTPI * a) * ex * sum), x);
#endif
}

FLOAT cbrt_FLOAT(FLOAT x) {
  if (x == FLOAT(0) || !isfinite_FLOAT(x)) return x;
  FLOAT a = abs(x);
  int bias = 0;
  if (exponent_FLOAT(a) <= -SCALE_STEP_FLOAT) { a = scale_FLOAT(a, 3 * MANT_FLOAT); bias = -MANT_FLOAT; }
  int e = exponent_FLOAT(a);
  int q = e >= 0 ? e / 3 : -((-e + 2) / 3);
  FLOAT m = scale_FLOAT(mantissa_FLOAT(a), e - 3 * q);  // in [1, 8)
  FLOAT y = FLOAT(1.5);
  for (int i = 0; i < (MANT_FLOAT == 24 ? 5 : 7); ++i) y = (FLOAT(2) * y + m / (y * y)) / FLOAT(3);
  FLOAT y2, y2e;
  two_prod_FLOAT(y, y, y2, y2e);
  FLOAT y3, y3e;
  two_prod_FLOAT(y2, y, y3, y3e);
  precise FLOAT resid = ((m - y3) - y3e) - y2e * y;
  y += div_FLOAT(resid, FLOAT(3) * y * y);
  return copysign_FLOAT(scale_FLOAT(y, q + bias), x);
}

FLOAT pow_FLOAT(FLOAT x, FLOAT y) {
  if (y == FLOAT(0) || x == FLOAT(1)) return FLOAT(1);
  if (isnan_FLOAT(x) || isnan_FLOAT(y)) return nan_FLOAT();
  FLOAT ay = abs(y), ax = abs(x);
  bool y_int = isfinite_FLOAT(y) && floor(y) == y;
  bool y_odd = y_int && ay < pow2_FLOAT(MANT_FLOAT) && fract(y * FLOAT(0.5)) != FLOAT(0);
  if (!isfinite_FLOAT(y)) {
    if (ax == FLOAT(1)) return FLOAT(1);
    return ((ax > FLOAT(1)) == (y > FLOAT(0))) ? inf_FLOAT() : FLOAT(0);
  }
  if (x == FLOAT(0)) {
    if (y < FLOAT(0)) return y_odd ? copysign_FLOAT(inf_FLOAT(), x) : inf_FLOAT();
    return y_odd ? x : FLOAT(0);
  }
  if (!isfinite_FLOAT(x)) {
    FLOAT r = y > FLOAT(0) ? inf_FLOAT() : FLOAT(0);
    return (x < FLOAT(0) && y_odd) ? -r : r;
  }
  if (x < FLOAT(0) && !y_int) return nan_FLOAT();
  FLOAT lh, ll;
  log_ext_FLOAT(ax, lh, ll);
  FLOAT p, pe;
  two_prod_FLOAT(y, lh, p, pe);
  FLOAT r = exp2part_FLOAT(p, pe + y * ll);
  return (x < FLOAT(0) && y_odd) ? -r : r;
}

// Exact fmod: subtract the largest b*2^k that fits, which is exact.
FLOAT fmod_FLOAT(FLOAT a, FLOAT b) {
  if (isnan_FLOAT(a) || isnan_FLOAT(b) || !isfinite_FLOAT(a) || b == FLOAT(0)) return nan_FLOAT();
  if (!isfinite_FLOAT(b)) return a;
  FLOAT r = abs(a), m = abs(b);
  // Each pass takes off m * 2^k, the largest such multiple at most r, exactly
  // (Sterbenz), so r loses at least one binade a pass: the loop ends within
  // the exponent range (2100 binades for f64), subnormal m included.
  const int em = true_exponent_FLOAT(m);
  for (int i = 0; i < 2200 && r >= m; ++i) {
    FLOAT t = scale_FLOAT(m, true_exponent_FLOAT(r) - em);
    if (t > r) t *= FLOAT(0.5);
    if (t < m) t = m;
    r -= t;
  }
  return copysign_FLOAT(r, a);
}

// XLA max/min: NaN propagates, -0 < +0.
FLOAT max_FLOAT(FLOAT a, FLOAT b) {
  if (isnan_FLOAT(a) || isnan_FLOAT(b)) return nan_FLOAT();
  if (a == b) return signbit_FLOAT(a) ? b : a;
  return a > b ? a : b;
}
FLOAT min_FLOAT(FLOAT a, FLOAT b) {
  if (isnan_FLOAT(a) || isnan_FLOAT(b)) return nan_FLOAT();
  if (a == b) return signbit_FLOAT(a) ? a : b;
  return a < b ? a : b;
}

FLOAT sign_FLOAT(FLOAT x) {
  if (isnan_FLOAT(x) || x == FLOAT(0)) return x;
  return x > FLOAT(0) ? FLOAT(1) : FLOAT(-1);
}

// Rounding to integers without the driver's roundEven and trunc: on
// llvmpipe (Mesa 22.3) the f64 ones return x unchanged from about 2^27 on
// (143997358.91 stayed as it was). floor and ceil are right there.
FLOAT round_even_FLOAT(FLOAT x) {
#if WIDTH_OF_FLOAT == 64 && PAIRED_F64
  // A pair of f32 holds x + 2^52's fraction: the pairs library rounds itself.
  return roundEven(x);
#endif
  // From 2^(p-1) on every float is an integer; below it, adding that power
  // rounds away the fraction (to even), and taking it off again is exact.
  const FLOAT big = pow2_FLOAT(MANT_FLOAT - 1);
  if (!(abs(x) < big)) return x;
  precise FLOAT r = (abs(x) + big) - big;
  return copysign_FLOAT(r, x);
}
FLOAT trunc_FLOAT(FLOAT x) { return x < FLOAT(0) ? ceil(x) : floor(x); }

FLOAT round_afz_FLOAT(FLOAT x) {
  if (!isfinite_FLOAT(x)) return x;
  FLOAT t = trunc_FLOAT(x);
  return abs(x - t) >= FLOAT(0.5) ? t + sign_FLOAT(x) : t;
}
