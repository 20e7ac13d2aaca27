// IEEE binary64 in software, for devices without shaderFloat64. A double
// is a pair of 32-bit words (uvec2: x the low word, y the high word with
// the sign and exponent), the same bits as in memory. Kernels keep double
// and dvec2; codegen/spirv_float64_lowering.cc turns each double
// instruction of their SPIR-V into a call of one of these functions (found
// by name) and the optimizer inlines them.
//
// Add, subtract, multiply, divide, square root, fma and the conversions
// round once, to nearest even, and keep subnormals: the bits of a
// conforming native double unit. A NaN operand comes back quieted (the
// first one); an invalid operation gives the default NaN.
//
// Division takes 14-bit digits estimated in f32 and corrected exactly; the
// square root one bit a step, unrolled: in llvmpipe every loop iteration of
// an invocation draws on one budget.
//
// f64s_keep() calls every function behind a specialization constant the
// lowering freezes to 0 (glslang emits only functions a kernel calls).

#define F64S_SIGN 0x80000000u
#define F64S_NAN uvec2(0u, 0x7FF80000u)

// Written without branches where it matters: every path is computed and
// mix() picks (OpSelect). An early return becomes control flow in every
// inlined copy, and llvmpipe's LLVM spends time superlinear in the blocks
// (exp's forty operations took 24 s to compile with them).

// ---- 64-bit words ----
uvec2 f64s_pick(bool c, uvec2 if_true, uvec2 if_false) { return mix(if_false, if_true, bvec2(c)); }
uvec2 f64s_wadd(uvec2 a, uvec2 b) {
  uint c;
  const uint lo = uaddCarry(a.x, b.x, c);
  return uvec2(lo, a.y + b.y + c);
}
uvec2 f64s_wsub(uvec2 a, uvec2 b) {
  uint c;
  const uint lo = usubBorrow(a.x, b.x, c);
  return uvec2(lo, a.y - b.y - c);
}
bool f64s_wlt(uvec2 a, uvec2 b) {
  return ((a.y < b.y ? 1u : 0u) | (a.y == b.y ? 1u : 0u) & (a.x < b.x ? 1u : 0u)) != 0u;
}
bool f64s_wzero(uvec2 a) { return (a.x | a.y) == 0u; }
uvec2 f64s_wshl(uvec2 a, int s) {  // 0 <= s < 64
  const uint t = uint(s) & 31u;
  const uvec2 small_ = uvec2(a.x << t, (a.y << t) | ((a.x >> 1u) >> (31u - t)));
  return f64s_pick(s >= 32, uvec2(0u, a.x << t), small_);
}
uvec2 f64s_wshr(uvec2 a, int s) {  // 0 <= s < 64
  const uint t = uint(s) & 31u;
  const uvec2 small_ = uvec2((a.x >> t) | ((a.y << 1u) << (31u - t)), a.y >> t);
  return f64s_pick(s >= 32, uvec2(a.y >> t, 0u), small_);
}
// Shifted right (by any count >= 0) with every bit shifted out ORed into
// bit 0 (sticky).
uvec2 f64s_wshr_jam(uvec2 a, int s) {
  const int c = clamp(s, 0, 63);
  const uvec2 kept = f64s_pick(s >= 64, uvec2(0u), f64s_wshr(a, c));
  const uvec2 below = f64s_pick(s >= 64, uvec2(0xFFFFFFFFu), f64s_wsub(f64s_wshl(uvec2(1u, 0u), c), uvec2(1u, 0u)));
  return uvec2(kept.x | (f64s_wzero(a & below) ? 0u : 1u), kept.y);
}
int f64s_clz(uvec2 a) { return a.y != 0u ? 31 - findMSB(a.y) : 63 - findMSB(a.x); }  // 64 for 0

// ---- classification ----
uint f64s_exp(uvec2 a) { return (a.y >> 20) & 0x7FFu; }
uvec2 f64s_frac(uvec2 a) { return uvec2(a.x, a.y & 0xFFFFFu); }
bool f64s_isnan(uvec2 a) { return (a.y & 0x7FFFFFFFu) + (a.x != 0u ? 1u : 0u) > 0x7FF00000u; }
bool f64s_isinf(uvec2 a) { return (a.y & 0x7FFFFFFFu) == 0x7FF00000u && a.x == 0u; }
bool f64s_iszero(uvec2 a) { return (a.x | (a.y & 0x7FFFFFFFu)) == 0u; }
uvec2 f64s_neg(uvec2 a) { return uvec2(a.x, a.y ^ F64S_SIGN); }
uvec2 f64s_abs(uvec2 a) { return uvec2(a.x, a.y & 0x7FFFFFFFu); }
uvec2 f64s_quiet(uvec2 a) { return uvec2(a.x, a.y | 0x00080000u); }
uvec2 f64s_nan2(uvec2 a, uvec2 b) { return f64s_quiet(f64s_pick(f64s_isnan(a), a, b)); }
uvec2 f64s_inf(uint sign) { return uvec2(0u, sign | 0x7FF00000u); }

// The significand of a finite nonzero double with its leading bit at bit
// 52, and the exponent that goes with it (subnormals normalized).
uvec2 f64s_unpack(uvec2 a, out int e) {
  const uint ex = f64s_exp(a);
  const uvec2 m = f64s_frac(a);
  const int s = max(f64s_clz(m) - 11, 0);
  e = ex != 0u ? int(ex) : 1 - s;
  return f64s_pick(ex != 0u, uvec2(m.x, m.y | 0x100000u), f64s_wshl(m, min(s, 63)));
}

// The double nearest sig * 2^(e - 1084), sig < 2^63 with its leading bit
// at bit 62 (or lower when the result is subnormal); bit 0 holds the
// sticky bit of whatever was shifted out before. The leading bit adds one
// to the exponent field as the words are summed, so a subnormal (e = 0
// after the shift) keeps a zero field.
uvec2 f64s_round_pack(uint sign, int e, uvec2 sig) {
  const bool overflow = e > 0x7FD || (e == 0x7FD && !f64s_wlt(f64s_wadd(sig, uvec2(0x200u, 0u)), uvec2(0u, 0x80000000u)));
  sig = f64s_wshr_jam(sig, -e);
  e = max(e, 0);
  const uint round_bits = sig.x & 0x3FFu;
  sig = f64s_wshr(f64s_wadd(sig, uvec2(0x200u, 0u)), 10);
  sig.x &= round_bits == 0x200u ? ~1u : ~0u;  // a tie: to even
  e = f64s_wzero(sig) ? 0 : e;
  return f64s_pick(overflow, f64s_inf(sign), uvec2(sig.x, sign + (uint(e) << 20) + sig.y));
}
uvec2 f64s_norm_round_pack(uint sign, int e, uvec2 sig) {
  const int s = clamp(f64s_clz(sig) - 1, 0, 63);
  return f64s_pick(f64s_wzero(sig), uvec2(0u, sign), f64s_round_pack(sign, e - s, f64s_wshl(sig, s)));
}

// ---- arithmetic ----
uvec2 f64s_add(uvec2 a, uvec2 b) {
  // x the operand of the larger magnitude (a NaN's bits are the largest).
  const bool swap = f64s_wlt(f64s_abs(a), f64s_abs(b));
  const uvec2 x = f64s_pick(swap, b, a), y = f64s_pick(swap, a, b);
  const uint ex = f64s_exp(x), ey = f64s_exp(y);
  // Significands with the leading bit at 61 (room for a carry).
  const uvec2 sx = f64s_wshl(uvec2(x.x, (x.y & 0xFFFFFu) | (ex != 0u ? 0x100000u : 0u)), 9);
  const uvec2 sy = f64s_wshr_jam(f64s_wshl(uvec2(y.x, (y.y & 0xFFFFFu) | (ey != 0u ? 0x100000u : 0u)), 9),
                                 int(max(ex, 1u)) - int(max(ey, 1u)));
  const bool same = ((x.y ^ y.y) & F64S_SIGN) == 0u;
  const uvec2 sig = f64s_pick(same, f64s_wadd(sx, sy), f64s_wsub(sx, sy));
  // A zero sum is +0 (rounding to nearest) unless both were -0.
  const uvec2 sum = f64s_pick(f64s_wzero(sig), uvec2(0u, same ? x.y & F64S_SIGN : 0u),
                              f64s_norm_round_pack(x.y & F64S_SIGN, int(max(ex, 1u)), sig));
  const uvec2 special = f64s_pick(f64s_isnan(a) || f64s_isnan(b), f64s_nan2(a, b),
                                  f64s_pick(ey == 0x7FFu && !same, F64S_NAN, x));
  return f64s_pick(ex == 0x7FFu, special, sum);
}
uvec2 f64s_sub(uvec2 a, uvec2 b) { return f64s_add(a, f64s_neg(b)); }

// The 106-bit product of two 53-bit significands, as four words.
uvec4 f64s_mul_wide(uvec2 a, uvec2 b) {
  uint h00, l00, h01, l01, h10, l10, h11, l11, c1, c2, c3, c4, c5;
  umulExtended(a.x, b.x, h00, l00);
  umulExtended(a.x, b.y, h01, l01);
  umulExtended(a.y, b.x, h10, l10);
  umulExtended(a.y, b.y, h11, l11);
  uint w1 = uaddCarry(h00, l01, c1);
  w1 = uaddCarry(w1, l10, c2);
  uint w2 = uaddCarry(h01, h10, c3);
  w2 = uaddCarry(w2, l11, c4);
  w2 = uaddCarry(w2, c1 + c2, c5);
  return uvec4(l00, w1, w2, h11 + c3 + c4 + c5);
}

uvec2 f64s_mul(uvec2 a, uvec2 b) {
  const uint sign = (a.y ^ b.y) & F64S_SIGN;
  int ea, eb;
  const uvec2 ma = f64s_unpack(a, ea), mb = f64s_unpack(b, eb);
  const uvec4 p = f64s_mul_wide(ma, mb);  // in [2^104, 2^106)
  // Bits 43 and up, with the rest as the sticky bit.
  const uvec2 sig = uvec2((p.y >> 11) | (p.z << 21) | ((p.y & 0x7FFu) != 0u || p.x != 0u ? 1u : 0u), (p.z >> 11) | (p.w << 21));
  const uvec2 product = f64s_norm_round_pack(sign, ea + eb - 1023, sig);
  const bool special = f64s_exp(a) == 0x7FFu || f64s_exp(b) == 0x7FFu || f64s_iszero(a) || f64s_iszero(b);
  // inf * 0 is NaN; inf * x is inf; 0 * x is 0.
  const bool invalid = (f64s_isinf(a) && f64s_iszero(b)) || (f64s_iszero(a) && f64s_isinf(b));
  const uvec2 r = f64s_pick(invalid, F64S_NAN,
                            f64s_pick(f64s_isinf(a) || f64s_isinf(b), f64s_inf(sign), uvec2(0u, sign)));
  return f64s_pick(special, f64s_pick(f64s_isnan(a) || f64s_isnan(b), f64s_nan2(a, b), r), product);
}

// One 14-bit digit of the quotient: the remainder r (0 <= r < d) times
// 2^14 over d. The digit is estimated in f32 (relative error under 2^-21,
// so within one of the true digit) and the exact remainder, which fits in
// 64 signed bits, corrects it by one either way.
uvec2 f64s_div_digit(inout uvec2 r, uvec2 d, float inverse, inout uvec2 q) {
  const float estimate = (float(r.y) * 4294967296.0 + float(r.x)) * inverse * 16384.0;
  uint digit = uint(max(floor(estimate), 0.0));
  uint high, low;
  umulExtended(digit, d.x, high, low);
  const uvec2 product = uvec2(low, high + digit * d.y);  // digit * d modulo 2^64
  uvec2 rest = f64s_wsub(uvec2(r.x << 14u, r.y << 14u | r.x >> 18u), product);
  const bool negative = int(rest.y) < 0, too_big = !negative && !f64s_wlt(rest, d);
  rest = f64s_pick(negative, f64s_wadd(rest, d), f64s_pick(too_big, f64s_wsub(rest, d), rest));
  digit = negative ? digit - 1u : too_big ? digit + 1u : digit;
  r = rest;
  q = uvec2(q.x << 14u | digit, q.y << 14u | q.x >> 18u);
  return q;
}

uvec2 f64s_div(uvec2 a, uvec2 b) {
  const uint sign = (a.y ^ b.y) & F64S_SIGN;
  int ea, eb;
  uvec2 r = f64s_unpack(a, ea);
  const uvec2 mb = f64s_unpack(b, eb);
  // ma / mb in (1/2, 2): its integer bit, then four 14-bit digits, so
  // q = floor(ma * 2^56 / mb) (56 or 57 bits) and the remainder as sticky.
  const bool one = !f64s_wlt(r, mb);
  r = f64s_pick(one, f64s_wsub(r, mb), r);
  uvec2 q = uvec2(one ? 1u : 0u, 0u);
  const float inverse = 1.0 / (float(mb.y) * 4294967296.0 + float(mb.x));
  f64s_div_digit(r, mb, inverse, q);
  f64s_div_digit(r, mb, inverse, q);
  f64s_div_digit(r, mb, inverse, q);
  f64s_div_digit(r, mb, inverse, q);
  q = f64s_wshl(q, 5);
  q.x |= f64s_wzero(r) ? 0u : 1u;
  const uvec2 quotient = f64s_norm_round_pack(sign, ea - eb + 1023, q);
  const bool special = f64s_exp(a) == 0x7FFu || f64s_exp(b) == 0x7FFu || f64s_iszero(a) || f64s_iszero(b);
  // inf/inf and 0/0 are NaN; inf/x and x/0 inf; 0/x and x/inf 0.
  const bool invalid = (f64s_isinf(a) && f64s_isinf(b)) || (f64s_iszero(a) && f64s_iszero(b));
  const uvec2 r2 = f64s_pick(invalid, F64S_NAN, f64s_pick(f64s_isinf(a) || f64s_iszero(b), f64s_inf(sign), uvec2(0u, sign)));
  return f64s_pick(special, f64s_pick(f64s_isnan(a) || f64s_isnan(b), f64s_nan2(a, b), r2), quotient);
}

uvec2 f64s_sqrt(uvec2 a) {
  int ea;
  uvec2 m = f64s_unpack(a, ea);
  int e = ea - 1075;  // a = m * 2^e, made even
  const bool odd = (e & 1) != 0;
  m = f64s_pick(odd, f64s_wshl(m, 1), m);
  e -= odd ? 1 : 0;
  // Q = floor(sqrt(m * 2^56)) a bit a step: ix is the remainder over 2^bit,
  // s twice the root so far, r the bit.
  uvec2 ix = f64s_wshl(m, 2), s = uvec2(0u), q = uvec2(0u), r = uvec2(0u, 0x400000u);  // r = 2^54
  [[unroll]] for (int i = 0; i < 55; ++i) {
    const uvec2 t = f64s_wadd(s, r);
    const bool take = !f64s_wlt(ix, t);
    s = f64s_pick(take, f64s_wadd(t, r), s);
    ix = f64s_pick(take, f64s_wsub(ix, t), ix);
    q = f64s_pick(take, q | r, q);
    ix = uvec2(ix.x << 1u, ix.y << 1u | ix.x >> 31u);
    r = uvec2(r.x >> 1u | r.y << 31u, r.y >> 1u);
  }
  q = f64s_wshl(q, 7);
  q.x |= f64s_wzero(ix) ? 0u : 1u;
  const uvec2 root = f64s_norm_round_pack(0u, (e >> 1) + 1049, q);
  // sqrt(-0) = -0; of a negative, NaN; of +inf, +inf.
  const uvec2 special = f64s_pick(f64s_isnan(a), f64s_quiet(a), f64s_pick((a.y & F64S_SIGN) != 0u, F64S_NAN, a));
  return f64s_pick(f64s_iszero(a), a, f64s_pick(f64s_isnan(a) || (a.y & F64S_SIGN) != 0u || f64s_isinf(a), special, root));
}

// a * b + c rounded once: the exact product (106 bits) and c aligned in
// 128-bit words.
uvec4 f64s_w4add(uvec4 a, uvec4 b) {
  uint c0, c1, c2, c3, c4, c5;
  const uint x = uaddCarry(a.x, b.x, c0);
  uint y = uaddCarry(a.y, b.y, c1);
  y = uaddCarry(y, c0, c2);
  uint z = uaddCarry(a.z, b.z, c3);
  z = uaddCarry(z, c1 + c2, c4);
  return uvec4(x, y, z, a.w + b.w + c3 + c4);
}
uvec4 f64s_w4neg(uvec4 a) { return f64s_w4add(~a, uvec4(1u, 0u, 0u, 0u)); }
bool f64s_w4lt(uvec4 a, uvec4 b) {
  return f64s_wlt(a.zw, b.zw) || (all(equal(a.zw, b.zw)) && f64s_wlt(a.xy, b.xy));
}
uvec4 f64s_w4shl(uvec4 a, int s) {  // 0 <= s < 128
  const int q = s >> 5;
  a = mix(a, uvec4(0u, a.xyz), bvec4(q == 1));
  a = mix(a, uvec4(0u, 0u, a.xy), bvec4(q == 2));
  a = mix(a, uvec4(0u, 0u, 0u, a.x), bvec4(q == 3));
  const uint t = uint(s) & 31u;
  return (a << t) | ((uvec4(0u, a.xyz) >> 1u) >> (31u - t));
}
uvec4 f64s_w4shr(uvec4 a, int s) {  // 0 <= s < 128
  const int q = s >> 5;
  a = mix(a, uvec4(a.yzw, 0u), bvec4(q == 1));
  a = mix(a, uvec4(a.zw, 0u, 0u), bvec4(q == 2));
  a = mix(a, uvec4(a.w, 0u, 0u, 0u), bvec4(q == 3));
  const uint t = uint(s) & 31u;
  return (a >> t) | ((uvec4(a.yzw, 0u) << 1u) << (31u - t));
}
// Shifted right (by any count >= 0) with the bits shifted out as sticky.
uvec4 f64s_w4shr_jam(uvec4 a, int s) {
  const int c = clamp(s, 0, 127);
  uvec4 r = f64s_w4shr(a, c);
  const bool lost = any(notEqual(f64s_w4shl(r, c), a)) || (s >= 128 && any(notEqual(a, uvec4(0u))));
  r = mix(r, uvec4(0u), bvec4(s >= 128));
  return uvec4(r.x | (lost ? 1u : 0u), r.yzw);
}
int f64s_w4clz(uvec4 a) {
  return a.w != 0u ? 31 - findMSB(a.w) : a.z != 0u ? 63 - findMSB(a.z) : a.y != 0u ? 95 - findMSB(a.y) : 127 - findMSB(a.x);
}

uvec2 f64s_fma(uvec2 a, uvec2 b, uvec2 c) {
  const uint product_sign = (a.y ^ b.y) & F64S_SIGN, c_sign = c.y & F64S_SIGN;
  int ea, eb, ec;
  const uvec2 ma = f64s_unpack(a, ea), mb = f64s_unpack(b, eb), mc = f64s_unpack(c, ec);
  // The exact product, its leading bit at 124 or 125, times 2^scale; c's
  // significand with its leading bit at 125. The smaller is shifted right
  // with a sticky bit, which never meets a cancellation: each has zero bits
  // below (20 and 73) that cover the shifts where one could happen.
  uvec4 p = f64s_w4shl(f64s_mul_wide(ma, mb), 20), t = f64s_w4shl(uvec4(mc, 0u, 0u), 73);
  const int pscale = ea + eb - 2170, tscale = ec - 1148;
  const bool c_zero = f64s_iszero(c), p_first = c_zero || pscale >= tscale;
  t = f64s_w4shr_jam(t, pscale - tscale);
  p = f64s_w4shr_jam(p, c_zero ? 0 : tscale - pscale);  // one of the two shifts is by nothing
  t = mix(t, uvec4(0u), bvec4(c_zero));
  const int scale = p_first ? pscale : tscale;
  const bool same = product_sign == c_sign, t_larger = f64s_w4lt(p, t);
  uvec4 sum = mix(f64s_w4add(p, f64s_w4neg(t)), f64s_w4add(p, t), bvec4(same));
  sum = mix(sum, f64s_w4add(t, f64s_w4neg(p)), bvec4(!same && t_larger));
  const uint sign = !same && t_larger ? c_sign : product_sign;
  const int lead = 127 - f64s_w4clz(sum);
  const uvec4 sig = mix(f64s_w4shl(sum, clamp(62 - lead, 0, 127)), f64s_w4shr_jam(sum, lead - 62), bvec4(lead > 62));
  const uvec2 rounded = f64s_pick(all(equal(sum, uvec4(0u))), uvec2(0u), f64s_round_pack(sign, scale + lead - 62 + 1084, sig.xy));
  // Zero products and infinities: the plain sum (its signed zeros); NaNs.
  const bool product_zero = f64s_iszero(a) || f64s_iszero(b);
  const bool infinite = f64s_isinf(a) || f64s_isinf(b) || f64s_isinf(c);
  const bool invalid = ((f64s_isinf(a) || f64s_isinf(b)) && (product_zero || (f64s_isinf(c) && c_sign != product_sign)));
  uvec2 r = f64s_pick(product_zero, f64s_add(uvec2(0u, product_sign), c), rounded);
  r = f64s_pick(infinite, f64s_pick(f64s_isinf(c), c, f64s_inf(product_sign)), r);
  r = f64s_pick(invalid, F64S_NAN, r);
  const bool any_nan = f64s_isnan(a) || f64s_isnan(b) || f64s_isnan(c);
  return f64s_pick(any_nan, f64s_quiet(f64s_pick(f64s_isnan(a), a, f64s_pick(f64s_isnan(b), b, c))), r);
}

// ---- comparisons ----
bool f64s_unord(uvec2 a, uvec2 b) { return f64s_isnan(a) || f64s_isnan(b); }
bool f64s_same(uvec2 a, uvec2 b) { return all(equal(a, b)) || (f64s_iszero(a) && f64s_iszero(b)); }
bool f64s_less(uvec2 a, uvec2 b) {  // of non-NaN values
  const bool na = (a.y & F64S_SIGN) != 0u, nb = (b.y & F64S_SIGN) != 0u;
  const bool both_zero = f64s_iszero(a) && f64s_iszero(b);
  const bool lt_positive = f64s_wlt(a, b), lt_negative = f64s_wlt(f64s_abs(b), f64s_abs(a));
  const bool magnitude = na ? lt_negative : lt_positive;
  return !both_zero && (na != nb ? na : magnitude);
}
bool f64s_oeq(uvec2 a, uvec2 b) { return !f64s_unord(a, b) && f64s_same(a, b); }
bool f64s_ueq(uvec2 a, uvec2 b) { return f64s_unord(a, b) || f64s_same(a, b); }
bool f64s_one(uvec2 a, uvec2 b) { return !f64s_unord(a, b) && !f64s_same(a, b); }
bool f64s_une(uvec2 a, uvec2 b) { return f64s_unord(a, b) || !f64s_same(a, b); }
bool f64s_olt(uvec2 a, uvec2 b) { return !f64s_unord(a, b) && f64s_less(a, b); }
bool f64s_ult(uvec2 a, uvec2 b) { return f64s_unord(a, b) || f64s_less(a, b); }
bool f64s_ole(uvec2 a, uvec2 b) { return !f64s_unord(a, b) && (f64s_less(a, b) || f64s_same(a, b)); }
bool f64s_ule(uvec2 a, uvec2 b) { return f64s_unord(a, b) || f64s_less(a, b) || f64s_same(a, b); }
bool f64s_ogt(uvec2 a, uvec2 b) { return f64s_olt(b, a); }
bool f64s_ugt(uvec2 a, uvec2 b) { return f64s_ult(b, a); }
bool f64s_oge(uvec2 a, uvec2 b) { return f64s_ole(b, a); }
bool f64s_uge(uvec2 a, uvec2 b) { return f64s_ule(b, a); }
bool f64s_isfinite(uvec2 a) { return f64s_exp(a) != 0x7FFu; }

uvec2 f64s_select(bool c, uvec2 a, uvec2 b) { return f64s_pick(c, a, b); }
// min and max return the other operand for one NaN (GLSL leaves it open).
uvec2 f64s_min(uvec2 a, uvec2 b) { return f64s_pick(f64s_isnan(b) || (!f64s_isnan(a) && !f64s_less(b, a)), a, b); }
uvec2 f64s_max(uvec2 a, uvec2 b) { return f64s_pick(f64s_isnan(b) || (!f64s_isnan(a) && !f64s_less(a, b)), a, b); }
uvec2 f64s_clamp(uvec2 x, uvec2 lo, uvec2 hi) { return f64s_min(f64s_max(x, lo), hi); }
uvec2 f64s_sign(uvec2 a) {
  return f64s_pick(f64s_isnan(a) || f64s_iszero(a), a, uvec2(0u, (a.y & F64S_SIGN) | 0x3FF00000u));
}

// ---- conversions ----
uvec2 f64s_from_f32(float f) {
  const uint u = floatBitsToUint(f), sign = u & F64S_SIGN, e = (u >> 23) & 0xFFu, m = u & 0x7FFFFFu;
  // A subnormal float is a normal double: its leading bit moved to 23.
  const int s = 23 - findMSB(m);
  const uint mn = e != 0u ? m : (m << uint(clamp(s, 0, 31))) & 0x7FFFFFu;
  const uint en = e == 0xFFu ? 0x7FFu : e != 0u ? e + 896u : m == 0u ? 0u : uint(897 - s);
  const uint quiet = e == 0xFFu && m != 0u ? 0x80000u : 0u;
  return uvec2(mn << 29, sign | (en << 20) | (mn >> 3) | quiet);
}
float f64s_to_f32(uvec2 a) {
  const uint sign = a.y & F64S_SIGN;
  int e;
  const uvec2 m = f64s_unpack(a, e);
  // The leading bit at 30 and a sticky bit; the float is sig * 2^(e32 - 156).
  uint sig = (m.x >> 22) | (m.y << 10) | ((m.x & 0x3FFFFFu) != 0u ? 1u : 0u);
  int e32 = e - 897;
  const bool overflow = e32 > 0xFD || (e32 == 0xFD && sig + 0x40u >= 0x80000000u);
  const int s = clamp(-e32, 0, 31);
  sig = -e32 >= 31 ? (sig != 0u ? 1u : 0u) : (sig >> uint(s)) | ((sig << uint(31 - s) << 1u) != 0u ? 1u : 0u);
  e32 = max(e32, 0);
  const uint round_bits = sig & 0x7Fu;
  sig = (sig + 0x40u) >> 7;
  sig &= round_bits == 0x40u ? ~1u : ~0u;
  e32 = sig == 0u ? 0 : e32;
  uint bits = overflow ? sign | 0x7F800000u : sign + (uint(e32) << 23) + sig;
  bits = f64s_iszero(a) ? sign : bits;
  bits = f64s_isinf(a) ? sign | 0x7F800000u : bits;
  bits = f64s_isnan(a) ? sign | 0x7FC00000u | (a.y & 0xFFFFFu) << 3 | a.x >> 29 : bits;
  return uintBitsToFloat(bits);
}
uvec2 f64s_from_u64(uvec2 v) {
  // The top bit folded into a sticky bit first: below 2^63 for the normalization.
  const bool top = (v.y & F64S_SIGN) != 0u;
  return f64s_norm_round_pack(0u, top ? 1085 : 1084, f64s_pick(top, f64s_wshr_jam(v, 1), v));
}
uvec2 f64s_from_s64(uvec2 v) {
  const bool negative = int(v.y) < 0;
  const uvec2 r = f64s_from_u64(f64s_pick(negative, f64s_wsub(uvec2(0u), v), v));
  return uvec2(r.x, r.y | (negative ? F64S_SIGN : 0u));
}
uvec2 f64s_from_u32(uint v) { return f64s_from_u64(uvec2(v, 0u)); }
uvec2 f64s_from_i32(int v) { return f64s_from_s64(uvec2(uint(v), v < 0 ? 0xFFFFFFFFu : 0u)); }
// Truncated toward zero; out of range saturates (kernels clamp before).
uvec2 f64s_to_u64(uvec2 a) {
  const int e = int(f64s_exp(a)) - 1023;
  const uvec2 m = uvec2(a.x, (a.y & 0xFFFFFu) | 0x100000u);
  const uvec2 r = f64s_pick(e >= 52, f64s_wshl(m, clamp(e - 52, 0, 63)), f64s_wshr(m, clamp(52 - e, 0, 63)));
  const bool zero = f64s_isnan(a) || (a.y & F64S_SIGN) != 0u || e < 0;
  return f64s_pick(zero, uvec2(0u), f64s_pick(e >= 64, uvec2(0xFFFFFFFFu), r));
}
uvec2 f64s_to_s64(uvec2 a) {
  const bool negative = (a.y & F64S_SIGN) != 0u;
  const uvec2 m = f64s_to_u64(f64s_abs(a));
  const uvec2 r = f64s_pick(negative, f64s_wsub(uvec2(0u), m), m);
  const uvec2 saturated = f64s_pick(negative, uvec2(0u, F64S_SIGN), uvec2(0xFFFFFFFFu, 0x7FFFFFFFu));
  return f64s_pick(f64s_isnan(a), uvec2(0u), f64s_pick(f64s_exp(a) >= 1086u, saturated, r));
}
uint f64s_to_u32(uvec2 a) {
  const uvec2 v = f64s_to_u64(a);
  return v.y != 0u ? 0xFFFFFFFFu : v.x;
}
int f64s_to_i32(uvec2 a) {
  const uvec2 v = f64s_to_s64(a);
  const bool fits = v.y == (int(v.x) < 0 ? 0xFFFFFFFFu : 0u);
  return fits ? int(v.x) : int(v.y) < 0 ? int(0x80000000u) : 0x7FFFFFFF;
}

// ---- rounding to integers ----
uvec2 f64s_trunc(uvec2 a) {
  const int e = int(f64s_exp(a)) - 1023;
  const uvec2 below = f64s_wsub(f64s_wshl(uvec2(1u, 0u), clamp(52 - e, 0, 63)), uvec2(1u, 0u));
  const uvec2 r = f64s_pick(e < 0, uvec2(0u, a.y & F64S_SIGN), a & ~below);
  return f64s_pick(e >= 52, f64s_pick(f64s_isnan(a), f64s_quiet(a), a), r);
}
uvec2 f64s_floor(uvec2 a) {
  const uvec2 t = f64s_trunc(a);
  const bool down = (a.y & F64S_SIGN) != 0u && !all(equal(t, a)) && !f64s_isnan(a);
  return f64s_pick(down, f64s_sub(t, uvec2(0u, 0x3FF00000u)), t);
}
uvec2 f64s_ceil(uvec2 a) {
  const uvec2 t = f64s_trunc(a);
  const bool up = (a.y & F64S_SIGN) == 0u && !all(equal(t, a)) && !f64s_isnan(a);
  return f64s_pick(up, f64s_add(t, uvec2(0u, 0x3FF00000u)), t);
}
uvec2 f64s_round_even(uvec2 a) {
  const uvec2 two52 = uvec2(0u, 0x43300000u);  // |a| + 2^52 rounds away the fraction, to even
  const uvec2 r = f64s_sub(f64s_add(f64s_abs(a), two52), two52);
  return f64s_pick(f64s_exp(a) >= 1075u, f64s_pick(f64s_isnan(a), f64s_quiet(a), a), uvec2(r.x, r.y | (a.y & F64S_SIGN)));
}
uvec2 f64s_round(uvec2 a) {  // half away from zero
  const uvec2 t = f64s_trunc(a);
  const bool up = f64s_exp(a) < 1075u && !f64s_less(f64s_abs(f64s_sub(a, t)), uvec2(0u, 0x3FE00000u));
  return f64s_pick(up, f64s_add(t, uvec2(0u, (a.y & F64S_SIGN) | 0x3FF00000u)), t);
}
uvec2 f64s_fract(uvec2 a) { return f64s_sub(a, f64s_floor(a)); }
uvec2 f64s_mod(uvec2 a, uvec2 b) { return f64s_sub(a, f64s_mul(b, f64s_floor(f64s_div(a, b)))); }
uvec2 f64s_ldexp(uvec2 a, int n) {
  int e;
  const uvec2 m = f64s_unpack(a, e);
  const uvec2 r = f64s_round_pack(a.y & F64S_SIGN, e + clamp(n, -4000, 4000) - 1, f64s_wshl(m, 10));
  return f64s_pick(f64s_exp(a) == 0x7FFu || f64s_iszero(a), f64s_pick(f64s_isnan(a), f64s_quiet(a), a), r);
}
uvec2 f64s_inverse_sqrt(uvec2 a) { return f64s_div(uvec2(0u, 0x3FF00000u), f64s_sqrt(a)); }

layout(constant_id = 201) const uint f64s_never = 0u;
void f64s_keep() {
  uvec2 a = uvec2(f64s_never), s = uvec2(0u);
  const uint u = f64s_never;
  const bool b = f64s_oeq(a, a) || f64s_ueq(a, a) || f64s_one(a, a) || f64s_une(a, a) || f64s_olt(a, a) ||
                 f64s_ult(a, a) || f64s_ole(a, a) || f64s_ule(a, a) || f64s_ogt(a, a) || f64s_ugt(a, a) ||
                 f64s_oge(a, a) || f64s_uge(a, a) || f64s_isnan(a) || f64s_isinf(a) || f64s_isfinite(a);
  s += f64s_add(a, a) + f64s_sub(a, a) + f64s_mul(a, a) + f64s_div(a, a) + f64s_sqrt(a) + f64s_fma(a, a, a) +
       f64s_neg(a) + f64s_abs(a) + f64s_sign(a) + f64s_select(b, a, a) + f64s_min(a, a) + f64s_max(a, a) +
       f64s_clamp(a, a, a) + f64s_from_f32(float(u)) + uvec2(floatBitsToUint(f64s_to_f32(a))) + f64s_from_u64(a) +
       f64s_from_s64(a) + f64s_from_u32(u) + f64s_from_i32(int(u)) + f64s_to_u64(a) + f64s_to_s64(a) +
       uvec2(f64s_to_u32(a) + uint(f64s_to_i32(a))) + f64s_trunc(a) + f64s_floor(a) + f64s_ceil(a) +
       f64s_round_even(a) + f64s_round(a) + f64s_fract(a) + f64s_mod(a, a) + f64s_ldexp(a, int(u)) +
       f64s_inverse_sqrt(a);
}
