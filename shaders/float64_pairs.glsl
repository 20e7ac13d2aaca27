// Doubles as pairs of f32, for users who opt in (VKXLA_F64=pairs): a double
// is the unevaluated sum hi + lo of two floats with |lo| <= ulp(hi) / 2,
// held in the words of a uvec2 (x: hi's bits, y: lo's). Kernels keep double
// and dvec2; codegen/spirv_float64_lowering.cc turns each double
// instruction into a call of one of these functions, as it does for the
// IEEE library (shaders/float64_soft.glsl), and packDouble2x32 /
// unpackDouble2x32 (how every kernel meets memory) into the conversions
// from and to binary64 bits, so buffers keep binary64.
//
// What it is not: IEEE binary64. About 48 significant bits (arithmetic
// within a few units of 2^-48 relative, of the larger operand for sums),
// fma is a multiply then an add, and the exponent range is f32's: a double
// of magnitude past 3.4e38 becomes an infinity, one below about 1e-38
// loses its low half and below 1.2e-38 (2^-126) goes to f32's subnormals
// or to zero. In exchange every operation is a handful of f32 operations
// (Dekker and Knuth's error-free transformations) rather than integer
// arithmetic on 64-bit words.
//
// Error-free transformations need each f32 operation rounded once, as
// written: `precise` keeps drivers from contracting or reassociating them.
// Products split their operands (Veltkamp's 4097) rather than use fma,
// which Vulkan does not promise to fuse.
//
// f64p_keep() calls every function behind a specialization constant the
// lowering freezes to 0 (glslang emits only functions a kernel calls).

#define F64P_SIGN 0x80000000u

// ---- f32 building blocks ----
vec2 f64p_v(uvec2 a) { return uintBitsToFloat(a); }
uvec2 f64p_w(vec2 v) { return floatBitsToUint(v); }
vec2 f64p_pickv(bool c, vec2 if_true, vec2 if_false) { return mix(if_false, if_true, bvec2(c)); }
bool f64p_finite(float x) { return (floatBitsToUint(x) & 0x7F800000u) != 0x7F800000u; }
bool f64p_nanf(float x) { return (floatBitsToUint(x) & 0x7FFFFFFFu) > 0x7F800000u; }
vec2 f64p_two_sum(float a, float b) {
  precise float s = a + b;
  precise float bb = s - a;
  precise float e = (a - (s - bb)) + (b - bb);
  return vec2(s, e);
}
vec2 f64p_fast_two_sum(float a, float b) {  // |a| >= |b|, or a == 0
  precise float s = a + b;
  precise float e = b - (s - a);
  return vec2(s, e);
}
// Veltkamp's split a = h + l, each half of 12 bits; past 2^100 on a copy
// scaled down by 2^32 (4097 a would overflow past 2^115), scaled back exactly.
vec2 f64p_split(float a) {
  const bool big = abs(a) > uintBitsToFloat(0x71800000u);
  precise float s = big ? a * uintBitsToFloat(0x2F800000u) : a;
  precise float t = 4097.0 * s;
  precise float h = t - (t - s);
  precise float l = s - h;
  return big ? vec2(h, l) * uintBitsToFloat(0x4F800000u) : vec2(h, l);
}
vec2 f64p_two_prod(float a, float b) {
  precise float p = a * b;
  const vec2 x = f64p_split(a), y = f64p_split(b);
  precise float e = ((x.x * y.x - p) + x.x * y.y + x.y * y.x) + x.y * y.y;
  return vec2(p, e);
}
// A result whose f32 approximation `raw` is not finite is that alone, and
// one whose renormalization overflowed is that infinity.
vec2 f64p_fix(float raw, vec2 r) {
  return f64p_pickv(f64p_finite(r.x), r, vec2(f64p_finite(raw) ? r.x : raw, 0.0));
}

// ---- arithmetic on pairs ----
// The highs summed exactly, the lows added to the error: within 2^-48 of
// the larger operand (a cancelling sum keeps that absolute error).
vec2 f64p_add2(vec2 a, vec2 b) {
  const vec2 s = f64p_two_sum(a.x, b.x);
  precise float e = s.y + (a.y + b.y);
  const vec2 r = f64p_fast_two_sum(s.x, e);
  // A zero sum keeps IEEE's sign of the highs' sum (-0 + -0 is -0).
  return f64p_fix(s.x, f64p_pickv(r.x == 0.0, vec2(s.x == 0.0 ? s.x : 0.0, 0.0), r));
}
vec2 f64p_mul2(vec2 a, vec2 b) {
  const vec2 p = f64p_two_prod(a.x, b.x);
  precise float c = a.x * b.y + a.y * b.x;
  precise float e = (f64p_finite(p.y) ? p.y : 0.0) + c;
  const vec2 r = f64p_fast_two_sum(p.x, e);
  return f64p_fix(p.x, f64p_pickv(p.x == 0.0, vec2(p.x, 0.0), r));
}
// A pair times a float.
vec2 f64p_mulf(vec2 a, float b) {
  const vec2 p = f64p_two_prod(a.x, b);
  precise float e = (f64p_finite(p.y) ? p.y : 0.0) + a.y * b;
  return f64p_fix(p.x, f64p_pickv(p.x == 0.0, vec2(p.x, 0.0), f64p_fast_two_sum(p.x, e)));
}
vec2 f64p_div2(vec2 a, vec2 b) {
  // Three quotient digits, each from the remainder left by the ones
  // before, so one reciprocal serves all three.
  const float inverse = 1.0 / b.x;
  precise float q1 = a.x * inverse;
  vec2 r = f64p_add2(a, -f64p_mulf(b, q1));
  precise float q2 = r.x * inverse;
  r = f64p_add2(r, -f64p_mulf(b, q2));
  precise float q3 = r.x * inverse;
  vec2 q = f64p_fast_two_sum(q1, q2);
  q = f64p_add2(q, vec2(q3, 0.0));
  const bool lost = q1 == 0.0 || !f64p_finite(q.x) || !f64p_finite(q.y);  // remainders out of f32's range
  const float raw = a.x / b.x;
  return f64p_fix(raw, f64p_pickv(lost, vec2(raw, 0.0), q));
}
vec2 f64p_sqrt2(vec2 a) {
  // Two Newton steps from the f32 root, each with its residual in pairs.
  const float s = sqrt(a.x);
  precise float c1 = f64p_add2(a, -f64p_two_prod(s, s)).x / (2.0 * s);
  const vec2 r1 = f64p_fast_two_sum(s, c1);
  precise float c2 = f64p_add2(a, -f64p_mul2(r1, r1)).x / (2.0 * r1.x);
  const vec2 r2 = f64p_add2(r1, vec2(c2, 0.0));
  return f64p_fix(s, f64p_pickv(a.x == 0.0, vec2(a.x, 0.0), r2));
}
bool f64p_less2(vec2 a, vec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }  // of non-NaN pairs
bool f64p_same2(vec2 a, vec2 b) { return a.x == b.x && a.y == b.y; }
// floor: where hi is an integer, lo's floor joins it.
vec2 f64p_floor2(vec2 a) {
  const float fh = floor(a.x), fl = floor(a.y);
  const vec2 r = f64p_pickv(fh == a.x && fl != 0.0, f64p_fast_two_sum(fh, fl), vec2(fh, 0.0));
  return f64p_pickv(f64p_finite(a.x), r, vec2(a.x, 0.0));
}
// An integral result of zero takes the operand's sign (as IEEE rounds).
vec2 f64p_signed_zero(vec2 r, vec2 a) {
  return f64p_pickv(r.x == 0.0, vec2(uintBitsToFloat(floatBitsToUint(a.x) & F64P_SIGN), 0.0), r);
}

// ---- memory: binary64 bits ----
// 2^e for e in f32's normal exponents, from its bits.
float f64p_pow2(int e) { return uintBitsToFloat(uint(clamp(e, -126, 127) + 127) << 23); }
// The leading 24 bits of the significand and the 29 below them, each
// scaled exactly (in two steps below 2^-100, where 2^e is no normal f32),
// then renormalized: 48 bits kept, the rest rounded. Past f32's range an
// infinity (or the NaN), far below it a zero.
uvec2 f64p_from_bits(uvec2 w) {
  const int e = int((w.y >> 20) & 0x7FFu) - 1023;
  const uint top = 0x800000u | ((w.y & 0xFFFFFu) << 3) | (w.x >> 29);
  const bool tiny = e < -100;
  const float scale = f64p_pow2(tiny ? e + 60 : e);
  const vec2 r = f64p_fast_two_sum(float(top) * (tiny ? uintBitsToFloat(0x16000000u) : uintBitsToFloat(0x34000000u)) * scale,
                                   float(w.x & 0x1FFFFFFFu) * (tiny ? uintBitsToFloat(0x07800000u) : uintBitsToFloat(0x25800000u)) * scale);
  const bool nan = e == 1024 && ((w.y & 0xFFFFFu) | w.x) != 0u;
  vec2 m = f64p_pickv(e > 127 || !f64p_finite(r.x), vec2(uintBitsToFloat(nan ? 0x7FC00000u : 0x7F800000u), 0.0), r);
  m = f64p_pickv(e < -180, vec2(0.0), m);
  return f64p_w(m) ^ uvec2(w.y & F64P_SIGN);
}
// hi = M * 2^x with M of 24 bits (a subnormal hi scaled by 2^64 first,
// its lo is zero), and lo is rounded to binary64's grid at hi's binade
// (2^(x - 29), or 2^(x - 30) where hi is a power of two and lo pulls
// toward zero), to even: hi is a multiple of that grid, so this rounds the
// sum once. N = M * 2^t + L is then the significand with its leading bit
// at 52 (2^53 where rounding carries: the exponent takes the carry).
uvec2 f64p_to_bits(uvec2 p) {
  const vec2 a = f64p_v(p);
  const bool subnormal = (p.x & 0x7F800000u) == 0u;
  const uint hb = floatBitsToUint(subnormal ? a.x * uintBitsToFloat(0x5F800000u) : a.x), sign = hb & F64P_SIGN, eh = (hb >> 23) & 0xFFu;
  const uint M = (hb & 0x7FFFFFu) | 0x800000u;
  const int x = int(eh) - (subnormal ? 214 : 150);
  const float toward = sign != 0u ? -a.y : a.y;
  const int t = M == 0x800000u && toward < 0.0 ? 30 : 29;
  const int k = t - x, k1 = k / 2;
  const int L = int(roundEven(toward * f64p_pow2(k1) * f64p_pow2(k - k1)));
  uint carry;
  const uint lo = uaddCarry(M << uint(t), uint(L), carry);
  const uint hi = (M >> uint(32 - t)) + carry + (L < 0 ? 0xFFFFFFFFu : 0u);
  uvec2 bits = uvec2(lo, sign | ((uint(x - t + 1074) << 20) + hi));
  bits = (p.x & 0x7FFFFFFFu) == 0u ? uvec2(0u, p.x) : bits;
  return eh == 0xFFu ? uvec2(0u, sign | ((hb & 0x7FFFFFu) != 0u ? 0x7FF80000u : 0x7FF00000u)) : bits;
}

// ---- what the lowering calls (uvec2 in, uvec2 out) ----
uvec2 f64p_add(uvec2 a, uvec2 b) { return f64p_w(f64p_add2(f64p_v(a), f64p_v(b))); }
uvec2 f64p_sub(uvec2 a, uvec2 b) { return f64p_w(f64p_add2(f64p_v(a), -f64p_v(b))); }
uvec2 f64p_mul(uvec2 a, uvec2 b) { return f64p_w(f64p_mul2(f64p_v(a), f64p_v(b))); }
uvec2 f64p_div(uvec2 a, uvec2 b) { return f64p_w(f64p_div2(f64p_v(a), f64p_v(b))); }
uvec2 f64p_sqrt(uvec2 a) { return f64p_w(f64p_sqrt2(f64p_v(a))); }
uvec2 f64p_inverse_sqrt(uvec2 a) { return f64p_w(f64p_div2(vec2(1.0, 0.0), f64p_sqrt2(f64p_v(a)))); }
uvec2 f64p_fma(uvec2 a, uvec2 b, uvec2 c) { return f64p_w(f64p_add2(f64p_mul2(f64p_v(a), f64p_v(b)), f64p_v(c))); }
uvec2 f64p_neg(uvec2 a) { return a ^ uvec2(F64P_SIGN); }
uvec2 f64p_abs(uvec2 a) { return a ^ uvec2(a.x & F64P_SIGN); }
bool f64p_isnan(uvec2 a) { return f64p_nanf(f64p_v(a).x); }
bool f64p_isinf(uvec2 a) { return (a.x & 0x7FFFFFFFu) == 0x7F800000u; }
bool f64p_isfinite(uvec2 a) { return f64p_finite(f64p_v(a).x); }
bool f64p_unord(uvec2 a, uvec2 b) { return f64p_isnan(a) || f64p_isnan(b); }
bool f64p_less(uvec2 a, uvec2 b) { return f64p_less2(f64p_v(a), f64p_v(b)); }
bool f64p_same(uvec2 a, uvec2 b) { return f64p_same2(f64p_v(a), f64p_v(b)); }
bool f64p_oeq(uvec2 a, uvec2 b) { return !f64p_unord(a, b) && f64p_same(a, b); }
bool f64p_ueq(uvec2 a, uvec2 b) { return f64p_unord(a, b) || f64p_same(a, b); }
bool f64p_one(uvec2 a, uvec2 b) { return !f64p_unord(a, b) && !f64p_same(a, b); }
bool f64p_une(uvec2 a, uvec2 b) { return f64p_unord(a, b) || !f64p_same(a, b); }
bool f64p_olt(uvec2 a, uvec2 b) { return !f64p_unord(a, b) && f64p_less(a, b); }
bool f64p_ult(uvec2 a, uvec2 b) { return f64p_unord(a, b) || f64p_less(a, b); }
bool f64p_ole(uvec2 a, uvec2 b) { return !f64p_unord(a, b) && (f64p_less(a, b) || f64p_same(a, b)); }
bool f64p_ule(uvec2 a, uvec2 b) { return f64p_unord(a, b) || f64p_less(a, b) || f64p_same(a, b); }
bool f64p_ogt(uvec2 a, uvec2 b) { return f64p_olt(b, a); }
bool f64p_ugt(uvec2 a, uvec2 b) { return f64p_ult(b, a); }
bool f64p_oge(uvec2 a, uvec2 b) { return f64p_ole(b, a); }
bool f64p_uge(uvec2 a, uvec2 b) { return f64p_ule(b, a); }
uvec2 f64p_select(bool c, uvec2 a, uvec2 b) { return mix(b, a, bvec2(c)); }
// min and max return the other operand for one NaN, as the IEEE library does.
uvec2 f64p_min(uvec2 a, uvec2 b) { return f64p_select(f64p_isnan(b) || (!f64p_isnan(a) && !f64p_less(b, a)), a, b); }
uvec2 f64p_max(uvec2 a, uvec2 b) { return f64p_select(f64p_isnan(b) || (!f64p_isnan(a) && !f64p_less(a, b)), a, b); }
uvec2 f64p_clamp(uvec2 x, uvec2 lo, uvec2 hi) { return f64p_min(f64p_max(x, lo), hi); }
uvec2 f64p_sign(uvec2 a) {
  const float h = f64p_v(a).x;
  return f64p_select(f64p_isnan(a) || h == 0.0, a, uvec2(floatBitsToUint(h < 0.0 ? -1.0 : 1.0), 0u));
}
uvec2 f64p_floor(uvec2 a) { return f64p_w(f64p_signed_zero(f64p_floor2(f64p_v(a)), f64p_v(a))); }
uvec2 f64p_ceil(uvec2 a) { return f64p_w(f64p_signed_zero(-f64p_floor2(-f64p_v(a)), f64p_v(a))); }
uvec2 f64p_trunc(uvec2 a) { return f64p_select((a.x & F64P_SIGN) != 0u, f64p_ceil(a), f64p_floor(a)); }
uvec2 f64p_round(uvec2 a) {  // half away from zero
  const vec2 v = f64p_v(a), t = f64p_v(f64p_trunc(a));
  const vec2 d = f64p_add2(v, -t);
  const bool up = abs(d.x) > 0.5 || (abs(d.x) == 0.5 && d.y * sign(d.x) >= 0.0);
  return f64p_w(f64p_signed_zero(f64p_pickv(up, f64p_add2(t, vec2(sign(v.x), 0.0)), t), v));
}
uvec2 f64p_round_even(uvec2 a) {
  const vec2 v = f64p_v(a), f = f64p_floor2(v);
  const vec2 d = f64p_add2(v, -f);  // in [0, 1)
  // f's parity: lo where it holds the units (hi is then even), else hi's.
  const bool odd = mod(abs(f.y != 0.0 ? f.y : f.x), 2.0) == 1.0;
  const bool up = d.x > 0.5 || (d.x == 0.5 && (d.y > 0.0 || (d.y == 0.0 && odd)));
  const vec2 r = f64p_pickv(up, f64p_add2(f, vec2(1.0, 0.0)), f);
  return f64p_w(f64p_signed_zero(f64p_pickv(f64p_finite(v.x), r, vec2(v.x, 0.0)), v));
}
uvec2 f64p_fract(uvec2 a) { return f64p_sub(a, f64p_floor(a)); }
uvec2 f64p_mod(uvec2 a, uvec2 b) { return f64p_sub(a, f64p_mul(b, f64p_floor(f64p_div(a, b)))); }
uvec2 f64p_ldexp(uvec2 a, int n) {
  const vec2 v = f64p_v(a);
  const int k = clamp(n, -400, 400), h = k / 2;
  return f64p_w(f64p_fix(v.x, vec2(ldexp(ldexp(v.x, h), k - h), ldexp(ldexp(v.y, h), k - h))));
}

// ---- conversions ----
uvec2 f64p_from_f32(float f) { return uvec2(floatBitsToUint(f), 0u); }
float f64p_to_f32(uvec2 a) { return f64p_v(a).x; }  // hi is the pair rounded to f32
// The upper 16 bits and the lower, each exact in f32, summed exactly.
uvec2 f64p_from_i32(int v) { return f64p_w(f64p_two_sum(float(v >> 16) * 65536.0, float(v & 0xFFFF))); }
uvec2 f64p_from_u32(uint v) { return f64p_w(f64p_two_sum(float(v >> 16) * 65536.0, float(v & 0xFFFFu))); }
// 64-bit integers through binary64 (the IEEE library's conversions): rare
// enough that their cost does not matter, and they saturate the same way.
uvec2 f64p_from_u64(uvec2 v) { return f64p_from_bits(f64s_from_u64(v)); }
uvec2 f64p_from_s64(uvec2 v) { return f64p_from_bits(f64s_from_s64(v)); }
uvec2 f64p_to_u64(uvec2 a) { return f64s_to_u64(f64p_to_bits(a)); }
uvec2 f64p_to_s64(uvec2 a) { return f64s_to_s64(f64p_to_bits(a)); }
uint f64p_to_u32(uvec2 a) { return f64s_to_u32(f64p_to_bits(a)); }
int f64p_to_i32(uvec2 a) { return f64s_to_i32(f64p_to_bits(a)); }

layout(constant_id = 202) const uint f64p_never = 0u;
void f64p_keep() {
  uvec2 a = uvec2(f64p_never), s = uvec2(0u);
  const uint u = f64p_never;
  const bool b = f64p_oeq(a, a) || f64p_ueq(a, a) || f64p_one(a, a) || f64p_une(a, a) || f64p_olt(a, a) ||
                 f64p_ult(a, a) || f64p_ole(a, a) || f64p_ule(a, a) || f64p_ogt(a, a) || f64p_ugt(a, a) ||
                 f64p_oge(a, a) || f64p_uge(a, a) || f64p_isnan(a) || f64p_isinf(a) || f64p_isfinite(a);
  s += f64p_add(a, a) + f64p_sub(a, a) + f64p_mul(a, a) + f64p_div(a, a) + f64p_sqrt(a) + f64p_fma(a, a, a) +
       f64p_neg(a) + f64p_abs(a) + f64p_sign(a) + f64p_select(b, a, a) + f64p_min(a, a) + f64p_max(a, a) +
       f64p_clamp(a, a, a) + f64p_from_f32(float(u)) + uvec2(floatBitsToUint(f64p_to_f32(a))) + f64p_from_u64(a) +
       f64p_from_s64(a) + f64p_from_u32(u) + f64p_from_i32(int(u)) + f64p_to_u64(a) + f64p_to_s64(a) +
       uvec2(f64p_to_u32(a) + uint(f64p_to_i32(a))) + f64p_trunc(a) + f64p_floor(a) + f64p_ceil(a) +
       f64p_round_even(a) + f64p_round(a) + f64p_fract(a) + f64p_mod(a, a) + f64p_ldexp(a, int(u)) +
       f64p_inverse_sqrt(a) + f64p_from_bits(a) + f64p_to_bits(a);
}
