// 64-bit integers as two 32-bit words (uvec2: x the low word, y the high),
// for devices without shaderInt64. Kernels are written with int64_t and
// uint64_t as everywhere else; codegen/spirv_int64_lowering.cc turns each
// 64-bit instruction of their SPIR-V into a call of one of these functions
// (found by name), and the optimizer inlines them. Every result is exact:
// the same bits as the native instruction.
//
// glslang emits only functions a kernel calls, so i64w_keep() calls them
// all behind a specialization constant that the lowering freezes to 0,
// after which the optimizer drops what the kernel did not need.

uvec2 i64w_add(uvec2 a, uvec2 b) {
  uint carry;
  uint lo = uaddCarry(a.x, b.x, carry);
  return uvec2(lo, a.y + b.y + carry);
}
uvec2 i64w_sub(uvec2 a, uvec2 b) {
  uint borrow;
  uint lo = usubBorrow(a.x, b.x, borrow);
  return uvec2(lo, a.y - b.y - borrow);
}
uvec2 i64w_neg(uvec2 a) { return i64w_sub(uvec2(0u), a); }
uvec2 i64w_mul(uvec2 a, uvec2 b) {
  uint hi, lo;
  umulExtended(a.x, b.x, hi, lo);
  return uvec2(lo, hi + a.x * b.y + a.y * b.x);
}

bool i64w_eq(uvec2 a, uvec2 b) { return a.x == b.x && a.y == b.y; }
bool i64w_ne(uvec2 a, uvec2 b) { return a.x != b.x || a.y != b.y; }
bool i64w_ult(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
bool i64w_ule(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x <= b.x); }
bool i64w_ugt(uvec2 a, uvec2 b) { return i64w_ult(b, a); }
bool i64w_uge(uvec2 a, uvec2 b) { return i64w_ule(b, a); }
bool i64w_slt(uvec2 a, uvec2 b) { return int(a.y) < int(b.y) || (a.y == b.y && a.x < b.x); }
bool i64w_sle(uvec2 a, uvec2 b) { return int(a.y) < int(b.y) || (a.y == b.y && a.x <= b.x); }
bool i64w_sgt(uvec2 a, uvec2 b) { return i64w_slt(b, a); }
bool i64w_sge(uvec2 a, uvec2 b) { return i64w_sle(b, a); }

uvec2 i64w_select(bool c, uvec2 a, uvec2 b) { return c ? a : b; }
uvec2 i64w_umin(uvec2 a, uvec2 b) { return i64w_ult(b, a) ? b : a; }
uvec2 i64w_umax(uvec2 a, uvec2 b) { return i64w_ult(a, b) ? b : a; }
uvec2 i64w_smin(uvec2 a, uvec2 b) { return i64w_slt(b, a) ? b : a; }
uvec2 i64w_smax(uvec2 a, uvec2 b) { return i64w_slt(a, b) ? b : a; }
uvec2 i64w_uclamp(uvec2 x, uvec2 lo, uvec2 hi) { return i64w_umin(i64w_umax(x, lo), hi); }
uvec2 i64w_sclamp(uvec2 x, uvec2 lo, uvec2 hi) { return i64w_smin(i64w_smax(x, lo), hi); }
uvec2 i64w_abs(uvec2 a) { return int(a.y) < 0 ? i64w_neg(a) : a; }
uvec2 i64w_sign(uvec2 a) { return int(a.y) < 0 ? uvec2(0xFFFFFFFFu) : uvec2((a.x | a.y) != 0u ? 1u : 0u, 0u); }

// Shifts take the count modulo 64 (SPIR-V leaves larger counts undefined;
// the kernels decide those cases themselves).
uvec2 i64w_shl(uvec2 a, uint s) {
  s &= 63u;
  if (s == 0u) return a;
  if (s >= 32u) return uvec2(0u, a.x << (s - 32u));
  return uvec2(a.x << s, (a.y << s) | (a.x >> (32u - s)));
}
uvec2 i64w_shr(uvec2 a, uint s) {
  s &= 63u;
  if (s == 0u) return a;
  if (s >= 32u) return uvec2(a.y >> (s - 32u), 0u);
  return uvec2((a.x >> s) | (a.y << (32u - s)), a.y >> s);
}
uvec2 i64w_sar(uvec2 a, uint s) {
  s &= 63u;
  if (s == 0u) return a;
  const int hi = int(a.y);
  if (s >= 32u) return uvec2(uint(hi >> (s - 32u)), uint(hi >> 31));
  return uvec2((a.x >> s) | (a.y << (32u - s)), uint(hi >> s));
}

// Unsigned quotient and remainder by restoring division, one quotient bit
// a step, unrolled (no loop for a driver's loop limit to count); words that
// both fit in 32 bits divide natively. A zero divisor gives all ones and a:
// the kernels never use it (XLA's results for it are chosen before).
uvec2 i64w_udivrem(uvec2 a, uvec2 b, out uvec2 r) {
  if (a.y == 0u && b.y == 0u && b.x != 0u) {
    r = uvec2(a.x % b.x, 0u);
    return uvec2(a.x / b.x, 0u);
  }
  uvec2 q = uvec2(0u);
  r = uvec2(0u);
  [[unroll]] for (int i = 63; i >= 0; --i) {
    // r < b before the shift; a bit shifted out of r makes it exceed b.
    const bool past = (r.y >> 31u) != 0u;
    const uint next = (i >= 32 ? a.y >> uint(i - 32) : a.x >> uint(i)) & 1u;
    r = uvec2((r.x << 1u) | next, (r.y << 1u) | (r.x >> 31u));
    if (past || !i64w_ult(r, b)) {
      r = i64w_sub(r, b);
      if (i >= 32) q.y |= 1u << uint(i - 32); else q.x |= 1u << uint(i);
    }
  }
  return q;
}
uvec2 i64w_udiv(uvec2 a, uvec2 b) { uvec2 r; return i64w_udivrem(a, b, r); }
uvec2 i64w_umod(uvec2 a, uvec2 b) { uvec2 r; i64w_udivrem(a, b, r); return r; }
// Truncating quotient; remainder with the dividend's sign (OpSRem) or the
// divisor's (OpSMod).
uvec2 i64w_sdiv(uvec2 a, uvec2 b) {
  uvec2 q = i64w_udiv(i64w_abs(a), i64w_abs(b));
  return int(a.y ^ b.y) < 0 ? i64w_neg(q) : q;
}
uvec2 i64w_srem(uvec2 a, uvec2 b) {
  uvec2 r = i64w_umod(i64w_abs(a), i64w_abs(b));
  return int(a.y) < 0 ? i64w_neg(r) : r;
}
uvec2 i64w_smod(uvec2 a, uvec2 b) {
  uvec2 r = i64w_srem(a, b);
  return (r.x | r.y) != 0u && int(r.y ^ b.y) < 0 ? i64w_add(r, b) : r;
}

uvec2 i64w_from_i32(int v) { return uvec2(uint(v), uint(v >> 31)); }
uvec2 i64w_from_u32(uint v) { return uvec2(v, 0u); }

// To f32, rounded once: the value shifted into 32 bits with what falls off
// kept as a sticky low bit, which the conversion of those 32 bits rounds
// as it would the whole value.
float i64w_u_to_f32(uvec2 a) {
  if (a.y == 0u) return float(a.x);
  const int n = findMSB(a.y) + 1;  // the bits past the low word
  if (n == 32) return ldexp(float(a.y | (a.x != 0u ? 1u : 0u)), 32);
  const uint fallen = a.x & ((1u << uint(n)) - 1u);
  const uint m = (a.y << uint(32 - n)) | (a.x >> uint(n));
  return ldexp(float(m | (fallen != 0u ? 1u : 0u)), n);
}
float i64w_s_to_f32(uvec2 a) { return int(a.y) < 0 ? -i64w_u_to_f32(i64w_neg(a)) : i64w_u_to_f32(a); }
// From f32 already within range (the kernels clamp first), truncated: the
// high word is exact, and so is what remains below 2^32.
uvec2 i64w_f32_to_u(float f) {
  const float t = trunc(f);
  if (t < 4294967296.0) return uvec2(uint(t), 0u);
  const float hi = floor(t * (1.0 / 4294967296.0));
  return uvec2(uint(t - hi * 4294967296.0), uint(hi));
}
uvec2 i64w_f32_to_s(float f) { return f < 0.0 ? i64w_neg(i64w_f32_to_u(-f)) : i64w_f32_to_u(f); }

#if HAVE_F64 || EMULATED_F64
// The high word times 2^32 is exact, so the sum rounds once.
double i64w_u_to_f64(uvec2 a) { return double(a.y) * 4294967296.0LF + double(a.x); }
double i64w_s_to_f64(uvec2 a) { return int(a.y) < 0 ? -i64w_u_to_f64(i64w_neg(a)) : i64w_u_to_f64(a); }
uvec2 i64w_f64_to_u(double f) {
  const double t = trunc(f);
  if (t < 4294967296.0LF) return uvec2(uint(t), 0u);
  const double hi = floor(t * (1.0LF / 4294967296.0LF));
  return uvec2(uint(t - hi * 4294967296.0LF), uint(hi));
}
uvec2 i64w_f64_to_s(double f) { return f < 0.0LF ? i64w_neg(i64w_f64_to_u(-f)) : i64w_f64_to_u(f); }
#endif

layout(constant_id = 200) const uint i64w_never = 0u;
void i64w_keep() {
  uvec2 a = uvec2(i64w_never), s = uvec2(0u);
  uint u = i64w_never;
  bool b = i64w_eq(a, a) || i64w_ne(a, a) || i64w_ult(a, a) || i64w_ule(a, a) || i64w_ugt(a, a) || i64w_uge(a, a) ||
           i64w_slt(a, a) || i64w_sle(a, a) || i64w_sgt(a, a) || i64w_sge(a, a);
  s += i64w_add(a, a) + i64w_sub(a, a) + i64w_neg(a) + i64w_mul(a, a) + i64w_select(b, a, a) + i64w_umin(a, a) +
       i64w_umax(a, a) + i64w_smin(a, a) + i64w_smax(a, a) + i64w_uclamp(a, a, a) + i64w_sclamp(a, a, a) + i64w_abs(a) +
       i64w_sign(a) + i64w_shl(a, u) + i64w_shr(a, u) + i64w_sar(a, u) + i64w_udiv(a, a) + i64w_umod(a, a) +
       i64w_sdiv(a, a) + i64w_srem(a, a) + i64w_smod(a, a) + i64w_from_i32(int(u)) + i64w_from_u32(u) +
       i64w_f32_to_u(float(u)) + i64w_f32_to_s(float(u)) + uvec2(i64w_u_to_f32(a) + i64w_s_to_f32(a));
#if HAVE_F64 || EMULATED_F64
  s += i64w_f64_to_u(double(u)) + i64w_f64_to_s(double(u)) + uvec2(i64w_u_to_f64(a) + i64w_s_to_f64(a));
#endif
}
