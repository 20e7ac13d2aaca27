// Complex math for one component type (FLOAT = float or double, CPLX_FLOAT
// the matching vec2 or dvec2), built on real_math.glsl of the same type.

CPLX_FLOAT cmul_FLOAT(CPLX_FLOAT a, CPLX_FLOAT b) { return CPLX_FLOAT(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// Smith's algorithm: no overflow for large components.
CPLX_FLOAT cdiv_FLOAT(CPLX_FLOAT a, CPLX_FLOAT b) {
  if (abs(b.x) >= abs(b.y)) {
    if (b.x == FLOAT(0) && b.y == FLOAT(0)) return CPLX_FLOAT(div_FLOAT(a.x, abs(b.x)), div_FLOAT(a.y, abs(b.x)));
    FLOAT r = div_FLOAT(b.y, b.x), d = b.x + b.y * r;
    return CPLX_FLOAT(div_FLOAT(a.x + a.y * r, d), div_FLOAT(a.y - a.x * r, d));
  }
  FLOAT r = div_FLOAT(b.x, b.y), d = b.y + b.x * r;
  return CPLX_FLOAT(div_FLOAT(a.x * r + a.y, d), div_FLOAT(a.y * r - a.x, d));
}

FLOAT cabs_FLOAT(CPLX_FLOAT z) {
  FLOAT a = abs(z.x), b = abs(z.y);
  if ((!isfinite_FLOAT(a) && !isnan_FLOAT(a)) || (!isfinite_FLOAT(b) && !isnan_FLOAT(b))) return inf_FLOAT();
  if (isnan_FLOAT(a) || isnan_FLOAT(b)) return nan_FLOAT();
  FLOAT m = max(a, b), n = min(a, b);
  if (m == FLOAT(0)) return FLOAT(0);
  FLOAT q = div_FLOAT(n, m);
  return m * sqrt_FLOAT(FLOAT(1) + q * q);
}

CPLX_FLOAT csign_FLOAT(CPLX_FLOAT z) {
  if (isnan_FLOAT(z.x) || isnan_FLOAT(z.y)) return CPLX_FLOAT(nan_FLOAT(), nan_FLOAT());
  FLOAT a = cabs_FLOAT(z);
  if (a == FLOAT(0)) return CPLX_FLOAT(FLOAT(0), FLOAT(0));
  return CPLX_FLOAT(div_FLOAT(z.x, a), div_FLOAT(z.y, a));
}

CPLX_FLOAT cexp_FLOAT(CPLX_FLOAT z) {
  FLOAT e = exp_FLOAT(z.x);
  if (z.y == FLOAT(0)) return CPLX_FLOAT(e, z.y);
  return CPLX_FLOAT(e * cos_FLOAT(z.y), e * sin_FLOAT(z.y));
}

CPLX_FLOAT cexpm1_FLOAT(CPLX_FLOAT z) {
  FLOAT s = sin_FLOAT(z.y * FLOAT(0.5));
  return CPLX_FLOAT(expm1_FLOAT(z.x) * cos_FLOAT(z.y) - FLOAT(2) * s * s, exp_FLOAT(z.x) * sin_FLOAT(z.y));
}

CPLX_FLOAT clog_FLOAT(CPLX_FLOAT z) { return CPLX_FLOAT(log_FLOAT(cabs_FLOAT(z)), atan2_FLOAT(z.y, z.x)); }

CPLX_FLOAT clog1p_FLOAT(CPLX_FLOAT z) {
  FLOAT a = z.x, b = z.y;
  // Far from 0, |1 + z| is far from 1 (no cancellation to avoid), and
  // a(2 + a) + b^2 would overflow long before the log does.
  if (max(abs(a), abs(b)) > FLOAT(4)) return clog_FLOAT(CPLX_FLOAT(FLOAT(1) + a, b));
  return CPLX_FLOAT(FLOAT(0.5) * log1p_FLOAT(a * (FLOAT(2) + a) + b * b), atan2_FLOAT(b, FLOAT(1) + a));
}

// Principal square root, Kahan's formulation.
CPLX_FLOAT csqrt_FLOAT(CPLX_FLOAT z) {
  if (z.x == FLOAT(0) && z.y == FLOAT(0)) return CPLX_FLOAT(FLOAT(0), z.y);
  // Halved before the sum where it could overflow (the halving is exact there).
  const FLOAT r = cabs_FLOAT(z);
  FLOAT t = sqrt_FLOAT(r > FLOAT(1) ? abs(z.x) * FLOAT(0.5) + r * FLOAT(0.5) : (abs(z.x) + r) * FLOAT(0.5));
  if (z.x >= FLOAT(0)) return CPLX_FLOAT(t, div_FLOAT(z.y, FLOAT(2) * t));
  return CPLX_FLOAT(div_FLOAT(abs(z.y), FLOAT(2) * t), copysign_FLOAT(t, z.y));
}

CPLX_FLOAT crsqrt_FLOAT(CPLX_FLOAT z) { return cdiv_FLOAT(CPLX_FLOAT(FLOAT(1), FLOAT(0)), csqrt_FLOAT(z)); }

CPLX_FLOAT csin_FLOAT(CPLX_FLOAT z) { return CPLX_FLOAT(sin_FLOAT(z.x) * cosh_FLOAT(z.y), cos_FLOAT(z.x) * sinh_FLOAT(z.y)); }
CPLX_FLOAT ccos_FLOAT(CPLX_FLOAT z) { return CPLX_FLOAT(cos_FLOAT(z.x) * cosh_FLOAT(z.y), -sin_FLOAT(z.x) * sinh_FLOAT(z.y)); }
CPLX_FLOAT ccosh_FLOAT(CPLX_FLOAT z) { return CPLX_FLOAT(cosh_FLOAT(z.x) * cos_FLOAT(z.y), sinh_FLOAT(z.x) * sin_FLOAT(z.y)); }

CPLX_FLOAT ctanh_FLOAT(CPLX_FLOAT z) {
  // (sinh a cosh a + i sin b cos b) / (sinh^2 a + cos^2 b), with the
  // large-|a| limit: no doubled argument, so a b near the top of the range
  // does not become infinite (and the result NaN).
  if (abs(z.x) > FLOAT(MANT_FLOAT == 24 ? 10 : 20)) return CPLX_FLOAT(copysign_FLOAT(FLOAT(1), z.x), FLOAT(0) * z.y);
  FLOAT sa = sinh_FLOAT(z.x), sb = sin_FLOAT(z.y), cb = cos_FLOAT(z.y);
  FLOAT d = sa * sa + cb * cb;
  return CPLX_FLOAT(div_FLOAT(sa * cosh_FLOAT(z.x), d), div_FLOAT(sb * cb, d));
}

CPLX_FLOAT ctan_FLOAT(CPLX_FLOAT z) {
  // tan z = -i tanh(i z)
  CPLX_FLOAT t = ctanh_FLOAT(CPLX_FLOAT(-z.y, z.x));
  return CPLX_FLOAT(t.y, -t.x);
}

CPLX_FLOAT clogistic_FLOAT(CPLX_FLOAT z) {
  return cdiv_FLOAT(CPLX_FLOAT(FLOAT(1), FLOAT(0)), CPLX_FLOAT(FLOAT(1), FLOAT(0)) + cexp_FLOAT(-z));
}

CPLX_FLOAT cpow_FLOAT(CPLX_FLOAT a, CPLX_FLOAT b) {
  if (b.x == FLOAT(0) && b.y == FLOAT(0)) return CPLX_FLOAT(FLOAT(1), FLOAT(0));
  if (a.x == FLOAT(0) && a.y == FLOAT(0)) return (b.x > FLOAT(0)) ? CPLX_FLOAT(FLOAT(0), FLOAT(0)) : CPLX_FLOAT(nan_FLOAT(), nan_FLOAT());
  return cexp_FLOAT(cmul_FLOAT(b, clog_FLOAT(a)));
}

// atan2(x, y) = -i log((y + i x) / sqrt(y^2 + x^2)), XLA's definition.
CPLX_FLOAT catan2_FLOAT(CPLX_FLOAT x, CPLX_FLOAT y) {
  CPLX_FLOAT num = y + CPLX_FLOAT(-x.y, x.x);
  CPLX_FLOAT den = csqrt_FLOAT(cmul_FLOAT(y, y) + cmul_FLOAT(x, x));
  CPLX_FLOAT l = clog_FLOAT(cdiv_FLOAT(num, den));
  return CPLX_FLOAT(l.y, -l.x);
}
