#include "frontends/chlo_decompositions.h"

#include <cmath>
#include <limits>
#include <set>

#include "frontends/stablehlo_syntax.h"
#include "ir/numbers.h"

namespace vkxla {

namespace {

// HLO over arrays of one shape: the few ops a decomposition is written in.
class Emitter {
 public:
  Emitter(const Shape& shape, const HloMaker& make, const ConstantMaker& constant)
      : dims_(shape.dims()), type_(shape.element_type()), make_(make), constant_(constant) {}

  ElementType type() const { return type_; }
  Shape Of(ElementType t) const { return Shape(t, dims_); }

  Instruction* Splat(double v, std::optional<ElementType> t = std::nullopt) {
    const ElementType e = t.value_or(type_);
    Scalar s = IsFloat(e) ? Scalar::Float(e, v)
               : IsSignedInt(e) ? Scalar::Int(e, static_cast<int64_t>(v))
                                : Scalar::UInt(e, static_cast<uint64_t>(v));
    return Broadcast(constant_(Literal::ScalarOf(s)));
  }
  Instruction* SplatBits(uint64_t bits, ElementType t) { return Broadcast(constant_(Literal::ScalarOf(Scalar::UInt(t, bits)))); }
  Instruction* Broadcast(Instruction* scalar) {
    Instruction* b = make_(Opcode::kBroadcast, Of(scalar->shape.element_type()), {scalar});
    b->dimensions = std::vector<int64_t>{};
    return b;
  }
  Instruction* Op(Opcode op, Instruction* x) { return make_(op, x->shape, {x}); }
  Instruction* Op(Opcode op, Instruction* x, Instruction* y) { return make_(op, x->shape, {x, y}); }
  Instruction* Add(Instruction* x, Instruction* y) { return Op(Opcode::kAdd, x, y); }
  Instruction* Sub(Instruction* x, Instruction* y) { return Op(Opcode::kSubtract, x, y); }
  Instruction* Mul(Instruction* x, Instruction* y) { return Op(Opcode::kMultiply, x, y); }
  Instruction* Div(Instruction* x, Instruction* y) { return Op(Opcode::kDivide, x, y); }
  Instruction* Compare(Instruction* x, Instruction* y, ComparisonDirection d) {
    Instruction* c = make_(Opcode::kCompare, Of(ElementType::kPred), {x, y});
    c->direction = d;
    return c;
  }
  Instruction* Select(Instruction* p, Instruction* a, Instruction* b) { return make_(Opcode::kSelect, a->shape, {p, a, b}); }
  Instruction* Convert(Instruction* x, ElementType t) {
    return x->shape.element_type() == t ? x : make_(Opcode::kConvert, Of(t), {x});
  }
  Instruction* Bitcast(Instruction* x, ElementType t) { return make_(Opcode::kBitcastConvert, Of(t), {x}); }
  // p(w) by Horner's rule, coefficients from the highest power down.
  Instruction* Polynomial(Instruction* w, const std::vector<double>& c) {
    Instruction* p = Splat(c[0], w->shape.element_type());
    for (size_t i = 1; i < c.size(); ++i) p = Add(Splat(c[i], w->shape.element_type()), Mul(p, w));
    return p;
  }

 private:
  std::vector<int64_t> dims_;
  ElementType type_;
  const HloMaker& make_;
  const ConstantMaker& constant_;
};

// The type real formulas compute in: f32 for the narrow floats.
ElementType ComputeType(ElementType t) { return t == ElementType::kF64 ? ElementType::kF64 : ElementType::kF32; }

double Largest(ElementType t) {
  return t == ElementType::kF64 ? std::numeric_limits<double>::max() : std::numeric_limits<float>::max();
}

constexpr double kPi = 3.14159265358979323846;
constexpr double kLog2 = 0.69314718055994530942;

// lgamma and digamma by Lanczos' approximation (g = 7, nine terms) for
// x >= 1/2 and the reflection formula below it, as XLA computes them.
Instruction* LanczosFormula(const std::string& op, Emitter& e, Instruction* x) {
  const ElementType t = x->shape.element_type();
  static const double kP[] = {0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                              771.32342877765313,   -176.61502916214059,   12.507343278686905,
                              -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  const double g = 7;
  Instruction* one = e.Splat(1, t);
  Instruction* half = e.Splat(0.5, t);
  Instruction* reflect = e.Compare(x, half, ComparisonDirection::kLt);
  // Below 1/2 the approximation runs at 1 - x.
  Instruction* y = e.Select(reflect, e.Sub(one, x), x);
  Instruction* z = e.Sub(y, one);
  Instruction* sum = e.Splat(kP[0], t);   // p0 + Σ p_i / (z + i)
  Instruction* slope = e.Splat(0, t);     // Σ -p_i / (z + i)²
  for (int i = 1; i < 9; ++i) {
    Instruction* d = e.Add(z, e.Splat(i, t));
    Instruction* term = e.Div(e.Splat(kP[i], t), d);
    sum = e.Add(sum, term);
    slope = e.Sub(slope, e.Div(term, d));
  }
  // t = z + g + 1/2, its log as log(g + 1/2) + log1p(z / (g + 1/2)) so
  // large z keeps its precision.
  Instruction* tz = e.Add(z, e.Splat(g + 0.5, t));
  Instruction* log_t = e.Add(e.Splat(std::log(g + 0.5), t), e.Op(Opcode::kLog1p, e.Div(z, e.Splat(g + 0.5, t))));
  // sin(pi x) from x's distance to the nearest integer (exact reduction).
  Instruction* ax = e.Op(Opcode::kAbs, x);
  Instruction* frac = e.Sub(ax, e.Op(Opcode::kFloor, ax));
  Instruction* reduced = e.Op(Opcode::kMinimum, frac, e.Sub(one, frac));
  // The non-positive integers are poles.
  Instruction* pole = e.Op(Opcode::kAnd, e.Compare(x, e.Splat(0, t), ComparisonDirection::kLe),
                           e.Compare(frac, e.Splat(0, t), ComparisonDirection::kEq));
  if (op == "lgamma") {
    Instruction* direct = e.Add(e.Sub(e.Mul(e.Add(z, half), log_t), tz),
                                e.Add(e.Splat(0.5 * std::log(2 * kPi), t), e.Op(Opcode::kLog, sum)));
    // lgamma(x) = log(pi) - log|sin(pi x)| - lgamma(1 - x).
    Instruction* sin_pi_x = e.Op(Opcode::kSin, e.Mul(e.Splat(kPi, t), reduced));
    Instruction* reflected = e.Sub(e.Sub(e.Splat(std::log(kPi), t), e.Op(Opcode::kLog, sin_pi_x)), direct);
    Instruction* r = e.Select(reflect, reflected, direct);
    r = e.Select(pole, e.Splat(std::numeric_limits<double>::infinity(), t), r);
    // lgamma(±inf) = inf.
    return e.Select(e.Compare(ax, e.Splat(std::numeric_limits<double>::infinity(), t), ComparisonDirection::kEq),
                    e.Splat(std::numeric_limits<double>::infinity(), t), r);
  }
  // digamma(y) = log t + slope / sum - g / t; reflected:
  // digamma(x) = digamma(1 - x) - pi / tan(pi x).
  Instruction* direct = e.Sub(e.Add(log_t, e.Div(slope, sum)), e.Div(e.Splat(g, t), tz));
  Instruction* tan_pi_x = e.Op(Opcode::kTan, e.Mul(e.Splat(kPi, t), e.Sub(x, e.Op(Opcode::kFloor, x))));
  Instruction* reflected = e.Sub(direct, e.Div(e.Splat(kPi, t), tan_pi_x));
  Instruction* r = e.Select(reflect, reflected, direct);
  return e.Select(pole, e.Splat(std::numeric_limits<double>::quiet_NaN(), t), r);
}

// Σ c_k T_k(u) by Clenshaw's recurrence.
Instruction* Chebyshev(Emitter& e, Instruction* u, const double* c, int n) {
  const ElementType t = u->shape.element_type();
  Instruction* two_u = e.Add(u, u);
  Instruction *b1 = e.Splat(0, t), *b2 = e.Splat(0, t);
  for (int k = n - 1; k >= 1; --k) {
    Instruction* b = e.Sub(e.Add(e.Splat(c[k], t), e.Mul(two_u, b1)), b2);
    b2 = b1;
    b1 = b;
  }
  return e.Sub(e.Add(e.Splat(c[0], t), e.Mul(u, b1)), b2);
}

// exp(-x²) without x²'s rounding: x = hi + lo with hi's square exact (half
// the mantissa cleared), x² = hi² + lo·(x + hi), the two parts exponentiated
// apart. Otherwise the relative error of exp(-x²) grows with x².
Instruction* ExpMinusSquare(Emitter& e, Instruction* x) {
  const ElementType t = x->shape.element_type();
  const ElementType u = t == ElementType::kF64 ? ElementType::kU64 : ElementType::kU32;
  const uint64_t mask = t == ElementType::kF64 ? ~uint64_t{0} << 27 : uint64_t{0xfffff000u};
  Instruction* hi = e.Bitcast(e.Op(Opcode::kAnd, e.Bitcast(x, u), e.SplatBits(mask, u)), t);
  Instruction* lo = e.Sub(x, hi);
  Instruction* big = e.Op(Opcode::kExp, e.Op(Opcode::kNegate, e.Mul(hi, hi)));
  Instruction* small = e.Op(Opcode::kExp, e.Op(Opcode::kNegate, e.Mul(lo, e.Add(x, hi))));
  return e.Mul(big, small);
}

// erfc: 1 - erf(x) below 1/2 (no cancellation there); exp(-x²)·h(x) on
// [1/2, 2) with h = exp(x²)·erfc(x) as a Chebyshev series
// (tools/fits/erfc_chebyshev.py); beyond, exp(-x²)/sqrt(pi) over Laplace's
// continued fraction x + (1/2)/(x + 1/(x + (3/2)/(x + ...))), cut at a depth
// that reaches the type's precision from x = 2 on.
Instruction* Erfc(Emitter& e, Instruction* x) {
  const ElementType t = x->shape.element_type();
  static const double kH[] = {0.4006822530639845,     -0.17395587897748593,   0.03383702540740581,
                              -0.006032263577025777,  0.0010002741182156237,  -0.0001558965252432612,
                              2.3014442396706095e-05, -3.237542192439935e-06, 4.3607024854432075e-07,
                              -5.64568482380734e-08,  7.048623129612963e-09,  -8.50961072440537e-10,
                              9.957597246756933e-11,  -1.1316475534428605e-11, 1.251033998617146e-12,
                              -1.3461454173580023e-13, 1.3961054534661343e-14, -1.304512053934559e-15};
  Instruction* one = e.Splat(1, t);
  Instruction* near_zero = e.Sub(one, e.Op(Opcode::kErf, x));
  Instruction* decay = ExpMinusSquare(e, x);
  Instruction* u = e.Div(e.Sub(x, e.Splat(1.25, t)), e.Splat(0.75, t));
  Instruction* h = Chebyshev(e, u, kH, sizeof(kH) / sizeof(kH[0]));
  Instruction* middle = e.Mul(decay, h);
  Instruction* k = x;
  for (int depth = t == ElementType::kF64 ? 60 : 24; depth >= 1; --depth) k = e.Add(x, e.Div(e.Splat(0.5 * depth, t), k));
  Instruction* far = e.Div(decay, e.Mul(e.Splat(std::sqrt(kPi), t), k));
  // Past where erfc underflows (and at +inf, where x - hi is NaN): 0.
  const double underflow = t == ElementType::kF64 ? 27.3 : 10.1;
  far = e.Select(e.Compare(x, e.Splat(underflow, t), ComparisonDirection::kGt), e.Splat(0, t), far);
  return e.Select(e.Compare(x, e.Splat(0.5, t), ComparisonDirection::kLt), near_zero,
                  e.Select(e.Compare(x, e.Splat(2, t), ComparisonDirection::kLt), middle, far));
}

// Hurwitz's zeta(s, q) by Euler-Maclaurin summation: ten terms summed,
// the integral of the rest, and twelve Bernoulli corrections
// (B_2j / (2j)!), whose remainder is below f64's precision from q + 10 on.
// NaN for s < 1 and q <= 0, inf at s = 1, as XLA gives them.
Instruction* Zeta(Emitter& e, Instruction* s, Instruction* q) {
  const ElementType t = s->shape.element_type();
  static const double kBernoulli[] = {0.08333333333333333,    -0.001388888888888889,  3.306878306878307e-05,
                                      -8.267195767195768e-07, 2.08767569878681e-08,   -5.284190138687493e-10,
                                      1.3382536530684679e-11, -3.3896802963225827e-13, 8.586062056277845e-15,
                                      -2.174868698558062e-16, 5.5090028283602295e-18, -1.3954464685812522e-19};
  constexpr int kTerms = 10;
  Instruction* one = e.Splat(1, t);
  Instruction* minus_s = e.Op(Opcode::kNegate, s);
  Instruction* sum = e.Splat(0, t);
  for (int k = 0; k < kTerms; ++k) sum = e.Add(sum, e.Op(Opcode::kPower, e.Add(q, e.Splat(k, t)), minus_s));
  Instruction* a = e.Add(q, e.Splat(kTerms, t));  // q + N
  Instruction* a_s = e.Op(Opcode::kPower, a, minus_s);  // (q + N)^-s
  sum = e.Add(sum, e.Div(e.Mul(a, a_s), e.Sub(s, one)));
  sum = e.Add(sum, e.Mul(e.Splat(0.5, t), a_s));
  // Σ_j B_2j/(2j)! · s(s+1)···(s+2j-2) · (q+N)^(-s-2j+1)
  Instruction* rising = s;                       // s (s+1) ... (s+2j-2)
  Instruction* power = e.Div(a_s, a);            // (q+N)^(-s-1)
  Instruction* inverse_square = e.Div(one, e.Mul(a, a));
  for (int j = 0; j < 12; ++j) {
    sum = e.Add(sum, e.Mul(e.Splat(kBernoulli[j], t), e.Mul(rising, power)));
    rising = e.Mul(rising, e.Mul(e.Add(s, e.Splat(2 * j + 1, t)), e.Add(s, e.Splat(2 * j + 2, t))));
    power = e.Mul(power, inverse_square);
  }
  Instruction* zero = e.Splat(0, t);
  sum = e.Select(e.Compare(q, zero, ComparisonDirection::kLe), e.Splat(std::numeric_limits<double>::quiet_NaN(), t), sum);
  sum = e.Select(e.Compare(s, one, ComparisonDirection::kEq), e.Splat(std::numeric_limits<double>::infinity(), t), sum);
  return e.Select(e.Compare(s, one, ComparisonDirection::kLt), e.Splat(std::numeric_limits<double>::quiet_NaN(), t), sum);
}

// polygamma(n, x): digamma for n = 0, (-1)^(n+1) n! zeta(n + 1, x) for a
// positive integer n, NaN otherwise.
Instruction* Polygamma(Emitter& e, Instruction* n, Instruction* x) {
  const ElementType t = x->shape.element_type();
  Instruction* one = e.Splat(1, t);
  Instruction* n1 = e.Add(n, one);
  Instruction* factorial = e.Op(Opcode::kExp, LanczosFormula("lgamma", e, n1));
  // (-1)^(n+1): +1 for odd n, -1 for even.
  Instruction* odd = e.Compare(e.Op(Opcode::kRemainder, n, e.Splat(2, t)), one, ComparisonDirection::kEq);
  Instruction* sign = e.Select(odd, one, e.Splat(-1, t));
  Instruction* r = e.Mul(sign, e.Mul(factorial, Zeta(e, n1, x)));
  r = e.Select(e.Compare(n, e.Splat(0, t), ComparisonDirection::kEq), LanczosFormula("digamma", e, x), r);
  Instruction* bad = e.Op(Opcode::kOr, e.Compare(n, e.Op(Opcode::kFloor, n), ComparisonDirection::kNe),
                          e.Compare(n, e.Splat(0, t), ComparisonDirection::kLt));
  return e.Select(bad, e.Splat(std::numeric_limits<double>::quiet_NaN(), t), r);
}

// bessel_i1e(x) = exp(-|x|) I1(x), odd: on [0, 8] x times a Chebyshev
// series of exp(-x) I1(x) / x, beyond it a series in 8/x of
// exp(-x) I1(x) sqrt(x) over sqrt(x) (tools/fits/bessel_i1e_chebyshev.py,
// from an 80-digit reference).
Instruction* BesselI1e(Emitter& e, Instruction* x) {
  const ElementType t = x->shape.element_type();
  static const double kNear[] = {
      0.1262935932218168, -0.17641651835783403, 0.10264365868984705, -0.05294598120809496, 0.024726449030626492,
      -0.010564084894626194, 0.004156422944312857, -0.0015135724506312662, 0.0005122859561685806,
      -0.00016176081582588292, 4.781565107550798e-05, -1.3273163656129145e-05, 3.4702513081070565e-06,
      -8.56872026456142e-07, 2.0032947531389844e-07, -4.445059128647492e-08, 9.38153735946523e-09,
      -1.887249712987741e-09, 3.6255907998050674e-10, -6.663499381905542e-11, 1.173628786747353e-11,
      -1.9840703154490784e-12, 3.2253829237068504e-13, -5.058916248875296e-14, 7.628157365028679e-15,
      -1.0824674490095276e-15};
  static const double kFar[] = {
      0.38928811750914005, -0.00976109749136143, -0.00011058893876265846, -3.88256480882837e-06,
      -2.512236238251993e-07, -2.631468843753796e-08, -3.835380427459853e-09, -5.589743459766261e-10,
      -1.8974946758519108e-11, 3.252602585416634e-11, 1.4125822039856573e-11, 2.0355476563575317e-12,
      -7.198368059032252e-13, -4.0839553960836383e-13, -2.1061060881399918e-14, 4.266031972122164e-14,
      1.0355720910422878e-14, -3.73775084957136e-15, -1.7997756063259374e-15};
  Instruction* a = e.Op(Opcode::kAbs, x);
  Instruction* near = e.Mul(a, Chebyshev(e, e.Sub(e.Div(a, e.Splat(4, t)), e.Splat(1, t)), kNear, sizeof(kNear) / sizeof(double)));
  // The far series at u = 16/|x| - 1 (|x| <= 8 gives u >= 1: clamped, unused).
  Instruction* u = e.Op(Opcode::kMinimum, e.Sub(e.Div(e.Splat(16, t), a), e.Splat(1, t)), e.Splat(1, t));
  Instruction* far = e.Div(Chebyshev(e, u, kFar, sizeof(kFar) / sizeof(double)), e.Op(Opcode::kSqrt, a));
  Instruction* r = e.Select(e.Compare(a, e.Splat(8, t), ComparisonDirection::kLe), near, far);
  return e.Select(e.Compare(x, e.Splat(0, t), ComparisonDirection::kLt), e.Op(Opcode::kNegate, r), r);
}

// The real-float formulas, x already in the compute type.
Instruction* RealFormula(const std::string& op, Emitter& e, Instruction* x) {
  const ElementType t = x->shape.element_type();
  Instruction* one = e.Splat(1, t);
  auto sqrt_one_minus_square = [&]() { return e.Op(Opcode::kSqrt, e.Mul(e.Sub(one, x), e.Add(one, x))); };
  if (op == "asin") return e.Mul(e.Splat(2, t), e.Op(Opcode::kAtan2, x, e.Add(one, sqrt_one_minus_square())));
  if (op == "acos") {
    Instruction* r = e.Mul(e.Splat(2, t), e.Op(Opcode::kAtan2, sqrt_one_minus_square(), e.Add(one, x)));
    return e.Select(e.Compare(x, e.Splat(-1, t), ComparisonDirection::kNe), r, e.Splat(kPi, t));
  }
  if (op == "atan") return e.Op(Opcode::kAtan2, x, one);
  if (op == "atanh") {
    Instruction* d = e.Sub(e.Op(Opcode::kLog1p, x), e.Op(Opcode::kLog1p, e.Op(Opcode::kNegate, x)));
    return e.Mul(e.Splat(0.5, t), d);
  }
  if (op == "sinh") {
    // Near 0 through expm1 (no cancellation); then (e^x - e^-x)/2; where
    // e^|x| overflows but sinh does not, e^(|x|/2) · e^(|x|/2)/2 (halving
    // is exact, so no argument rounding grows with |x|).
    Instruction* half = e.Splat(0.5, t);
    Instruction* minus_x = e.Op(Opcode::kNegate, x);
    Instruction* small = e.Mul(half, e.Sub(e.Op(Opcode::kExpm1, x), e.Op(Opcode::kExpm1, minus_x)));
    Instruction* middle = e.Mul(half, e.Sub(e.Op(Opcode::kExp, x), e.Op(Opcode::kExp, minus_x)));
    Instruction* a = e.Op(Opcode::kAbs, x);
    Instruction* root = e.Op(Opcode::kExp, e.Mul(half, a));
    Instruction* large = e.Mul(root, e.Mul(half, root));
    large = e.Select(e.Compare(x, e.Splat(0, t), ComparisonDirection::kLt), e.Op(Opcode::kNegate, large), large);
    const double overflow = std::log(Largest(t)) - 1;
    return e.Select(e.Compare(a, one, ComparisonDirection::kLt), small,
                    e.Select(e.Compare(a, e.Splat(overflow, t), ComparisonDirection::kLt), middle, large));
  }
  const double big = std::sqrt(Largest(t));
  if (op == "asinh") {
    // asinh(|x|) = log1p(|x| + x²/(1 + sqrt(1 + x²))), log 2 + log|x| where
    // x² would overflow; the sign put back.
    Instruction* a = e.Op(Opcode::kAbs, x);
    Instruction* a2 = e.Mul(a, a);
    Instruction* near = e.Op(Opcode::kLog1p, e.Add(a, e.Div(a2, e.Add(one, e.Op(Opcode::kSqrt, e.Add(one, a2))))));
    Instruction* far = e.Add(e.Splat(kLog2, t), e.Op(Opcode::kLog, a));
    Instruction* r = e.Select(e.Compare(a, e.Splat(big, t), ComparisonDirection::kGe), far, near);
    return e.Select(e.Compare(x, e.Splat(0, t), ComparisonDirection::kLt), e.Op(Opcode::kNegate, r), r);
  }
  if (op == "acosh") {
    // log1p((x - 1) + sqrt((x + 1)(x - 1))): accurate near 1, NaN below it.
    Instruction* xm1 = e.Sub(x, one);
    Instruction* near = e.Op(Opcode::kLog1p, e.Add(xm1, e.Op(Opcode::kSqrt, e.Mul(e.Add(x, one), xm1))));
    Instruction* far = e.Add(e.Splat(kLog2, t), e.Op(Opcode::kLog, x));
    return e.Select(e.Compare(x, e.Splat(big, t), ComparisonDirection::kGe), far, near);
  }
  if (op == "lgamma" || op == "digamma") return LanczosFormula(op, e, x);
  if (op == "erfc") return Erfc(e, x);
  if (op == "bessel_i1e") return BesselI1e(e, x);
  // erf_inv: Giles' single-precision approximation (w = -log(1 - x²) below
  // 5, and sqrt(w) beyond); for f64, two Newton steps on erf(y) = x from it.
  Instruction* w = e.Op(Opcode::kNegate, e.Op(Opcode::kLog1p, e.Op(Opcode::kNegate, e.Mul(x, x))));
  Instruction* central = e.Polynomial(e.Sub(w, e.Splat(2.5, t)),
                                      {2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                                       -0.00125372503, -0.00417768164, 0.246640727, 1.50140941});
  Instruction* tail = e.Polynomial(e.Sub(e.Op(Opcode::kSqrt, w), e.Splat(3, t)),
                                   {-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                                    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682});
  Instruction* y = e.Mul(e.Select(e.Compare(w, e.Splat(5, t), ComparisonDirection::kLt), central, tail), x);
  if (t == ElementType::kF64) {
    const double two_over_sqrt_pi = 1.12837916709551257390;
    for (int step = 0; step < 2; ++step) {
      Instruction* slope = e.Mul(e.Splat(two_over_sqrt_pi, t), e.Op(Opcode::kExp, e.Op(Opcode::kNegate, e.Mul(y, y))));
      Instruction* next = e.Sub(y, e.Div(e.Sub(e.Op(Opcode::kErf, y), x), slope));
      // Where the slope underflows (|x| next to 1) the first guess stands.
      y = e.Select(e.Compare(slope, e.Splat(0, t), ComparisonDirection::kGt), next, y);
    }
  }
  // erf_inv(±1) = ±inf.
  Instruction* inf = e.Mul(x, e.Splat(std::numeric_limits<double>::infinity(), t));
  return e.Select(e.Compare(e.Op(Opcode::kAbs, x), one, ComparisonDirection::kEq), inf, y);
}

const std::set<std::string>& RealFunctions() {
  static const std::set<std::string> k = {"asin", "acos", "atan", "asinh", "acosh", "atanh", "sinh", "erf_inv", "erfc", "lgamma", "digamma", "bessel_i1e"};
  return k;
}

// next_after(x, y): the float after x towards y, by stepping x's bits.
Instruction* NextAfter(Emitter& e, Instruction* x, Instruction* y) {
  const ElementType t = x->shape.element_type();
  const int bits = BitWidth(t);
  const ElementType u = bits == 16 ? ElementType::kU16 : bits == 32 ? ElementType::kU32 : ElementType::kU64;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  Instruction *xb = e.Bitcast(x, u), *yb = e.Bitcast(y, u);
  Instruction* magnitude_mask = e.SplatBits(sign - 1, u);
  Instruction* sign_mask = e.SplatBits(sign, u);
  Instruction *x_abs = e.Op(Opcode::kAnd, xb, magnitude_mask), *y_abs = e.Op(Opcode::kAnd, yb, magnitude_mask);
  Instruction *x_sign = e.Op(Opcode::kAnd, xb, sign_mask), *y_sign = e.Op(Opcode::kAnd, yb, sign_mask);
  Instruction* one = e.SplatBits(1, u);
  Instruction* toward_zero = e.Op(Opcode::kOr, e.Compare(x_sign, y_sign, ComparisonDirection::kNe),
                                  e.Compare(x_abs, y_abs, ComparisonDirection::kGt));
  Instruction* stepped = e.Select(toward_zero, e.Sub(xb, one), e.Add(xb, one));
  // From ±0, the smallest subnormal with y's sign.
  Instruction* from_zero = e.Op(Opcode::kOr, y_sign, one);
  Instruction* r = e.Bitcast(e.Select(e.Compare(x_abs, e.SplatBits(0, u), ComparisonDirection::kEq), from_zero, stepped), t);
  // (NaN x equal to NaN y bit for bit takes the NaN path below.)
  // x == y on the bits (the same bits, or two zeros): a device that
  // flushes f32 subnormals (NVIDIA's) compares the smallest one equal to 0.
  Instruction* zero_bits = e.SplatBits(0, u);
  Instruction* both_zero = e.Op(Opcode::kAnd, e.Compare(x_abs, zero_bits, ComparisonDirection::kEq),
                                e.Compare(y_abs, zero_bits, ComparisonDirection::kEq));
  Instruction* equal = e.Op(Opcode::kOr, e.Compare(xb, yb, ComparisonDirection::kEq), both_zero);
  r = e.Select(equal, y, r);
  Instruction* nan = e.Add(x, y);  // NaN where either is
  Instruction* either_nan = e.Op(Opcode::kOr, e.Compare(x, x, ComparisonDirection::kNe), e.Compare(y, y, ComparisonDirection::kNe));
  return e.Select(either_nan, nan, r);
}

std::optional<double> AttributeNumber(const std::map<std::string, std::string>& attributes, const char* key) {
  auto it = attributes.find(key);
  if (it == attributes.end()) return std::nullopt;
  std::string text = it->second.substr(0, it->second.find(':'));
  while (!text.empty() && (std::isspace(static_cast<unsigned char>(text.back())) || text.back() == ')')) text.pop_back();
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(text.begin());
  if (text == "true") return 1;
  if (text == "false") return 0;
  return ParseDouble(text);
}

// `x` broadcast to `result` the way the broadcast_* binaries do: by
// broadcast_dimensions when given (for the lower-rank operand), else
// aligned at the trailing dimensions, size-1 dimensions stretched.
StatusOr<Instruction*> BroadcastTo(Instruction* x, const Shape& result, const std::optional<std::vector<int64_t>>& given,
                                   const HloMaker& make) {
  if (x->shape.dims() == result.dims()) return x;
  std::vector<int64_t> dims;
  if (given && static_cast<int64_t>(given->size()) == x->shape.rank()) {
    dims = *given;
  } else {
    const int64_t offset = result.rank() - x->shape.rank();
    if (offset < 0) return InvalidArgument("operand " + x->shape.ToString() + " has more dimensions than the result " + result.ToString());
    for (int64_t d = 0; d < x->shape.rank(); ++d) dims.push_back(offset + d);
  }
  Instruction* b = make(Opcode::kBroadcast, Shape(x->shape.element_type(), result.dims()), {x});
  b->dimensions = dims;
  return b;
}

}  // namespace

bool IsChloDecomposition(const std::string& op) {
  static const std::set<std::string> k = {"conj", "square", "is_inf", "is_pos_inf", "is_neg_inf", "next_after", "constant_like",
                                          "zeta", "polygamma",
                                          "tan", "cosh", "erf", "top_k"};
  return RealFunctions().count(op) || k.count(op) || op.rfind("broadcast_", 0) == 0;
}

StatusOr<Instruction*> LowerChlo(const std::string& op, const std::vector<Instruction*>& operands, const Shape& result,
                                 const std::map<std::string, std::string>& attributes, const HloMaker& make,
                                 const ConstantMaker& constant) {
  auto error = [&](const std::string& why) { return InvalidArgument("chlo." + op + ": " + why); };
  if (operands.empty()) return error("needs an operand");
  Instruction* x = operands[0];
  if (!x->shape.IsArray()) return error("operand " + x->shape.ToString() + " is not an array");
  const ElementType t = x->shape.element_type();
  Emitter e(x->shape, make, constant);
  auto expect = [&](size_t n) -> Status {
    if (operands.size() != n) return error("takes " + std::to_string(n) + " operands, got " + std::to_string(operands.size()));
    return OkStatus();
  };
  if (op.rfind("broadcast_", 0) == 0) {
    // numpy-style binaries: both operands stretched to the result's shape.
    const std::string base = op.substr(10);
    const size_t arity = base == "select" ? 3 : 2;
    VKXLA_RETURN_IF_ERROR(expect(arity));
    std::optional<std::vector<int64_t>> given;
    if (auto it = attributes.find("broadcast_dimensions"); it != attributes.end()) given = Integers(it->second);
    std::vector<Instruction*> stretched;
    for (Instruction* o : operands) {
      if (!o->shape.IsArray()) return error("operand " + o->shape.ToString() + " is not an array");
      VKXLA_ASSIGN_OR_RETURN(Instruction * b, BroadcastTo(o, result, given, make));
      stretched.push_back(b);
    }
    if (base == "next_after" || base == "zeta" || base == "polygamma") return LowerChlo(base, stretched, result, {}, make, constant);
    if (base == "select") return make(Opcode::kSelect, Shape(result.element_type(), result.dims()), stretched);
    if (base == "compare") {
      auto d = attributes.find("comparison_direction");
      std::optional<ComparisonDirection> dir = d == attributes.end() ? std::nullopt : ParseComparisonDirection(LastWord(d->second));
      if (!dir) return error("needs a comparison_direction");
      Instruction* c = make(Opcode::kCompare, Shape(ElementType::kPred, result.dims()), stretched);
      c->direction = *dir;
      if (auto ct = attributes.find("compare_type"); ct != attributes.end())
        if (auto type = ParseComparisonType(LastWord(ct->second))) c->comparison_type = *type;
      return c;
    }
    std::optional<Opcode> binary = DirectOpcode(base);
    if (!binary) return Unimplemented("chlo." + op + " is not implemented yet");
    return make(*binary, result, stretched);
  }
  if (op == "constant_like") {
    VKXLA_RETURN_IF_ERROR(expect(1));
    std::optional<double> v = AttributeNumber(attributes, "value");
    if (!v || !result.IsArray()) return error("needs a numeric value");
    return Emitter(result, make, constant).Splat(*v);
  }
  if (op == "tan" || op == "cosh" || op == "erf") {
    VKXLA_RETURN_IF_ERROR(expect(1));
    return e.Op(op == "tan" ? Opcode::kTan : op == "cosh" ? Opcode::kCosh : Opcode::kErf, x);
  }
  if (op == "top_k") {
    VKXLA_RETURN_IF_ERROR(expect(1));
    std::optional<double> k = AttributeNumber(attributes, "k");
    if (!k || *k < 0) return error("needs k");
    Instruction* top = make(Opcode::kTopK, result, {x});
    top->other_attributes.emplace_back("k", std::to_string(static_cast<int64_t>(*k)));
    top->other_attributes.emplace_back("largest", "true");
    return top;
  }
  if (op == "conj") {
    VKXLA_RETURN_IF_ERROR(expect(1));
    if (!IsComplex(t)) return x;
    const Shape part(ComplexComponentType(t), x->shape.dims());
    Instruction* re = make(Opcode::kReal, part, {x});
    Instruction* im = make(Opcode::kNegate, part, {make(Opcode::kImag, part, {x})});
    return make(Opcode::kComplex, x->shape, {re, im});
  }
  if (op == "square") {
    VKXLA_RETURN_IF_ERROR(expect(1));
    return e.Mul(x, x);
  }
  if (op == "is_inf" || op == "is_pos_inf" || op == "is_neg_inf") {
    VKXLA_RETURN_IF_ERROR(expect(1));
    if (!IsFloat(t)) return error("operand " + x->shape.ToString() + " must be a real float");
    const double inf = std::numeric_limits<double>::infinity();
    if (op == "is_inf") return e.Compare(e.Op(Opcode::kAbs, x), e.Splat(inf), ComparisonDirection::kEq);
    return e.Compare(x, e.Splat(op == "is_pos_inf" ? inf : -inf), ComparisonDirection::kEq);
  }
  if (op == "zeta" || op == "polygamma") {
    VKXLA_RETURN_IF_ERROR(expect(2));
    if (!IsFloat(t) || operands[1]->shape.element_type() != t || operands[1]->shape.dims() != x->shape.dims())
      return error("takes two real floats of one shape, got " + x->shape.ToString() + " and " + operands[1]->shape.ToString());
    const ElementType ct = ComputeType(t);
    Instruction *a = e.Convert(x, ct), *b = e.Convert(operands[1], ct);
    return e.Convert(op == "zeta" ? Zeta(e, a, b) : Polygamma(e, a, b), t);
  }
  if (op == "next_after") {
    VKXLA_RETURN_IF_ERROR(expect(2));
    if (!IsFloat(t) || operands[1]->shape.element_type() != t || operands[1]->shape.dims() != x->shape.dims())
      return error("takes two real floats of one shape, got " + x->shape.ToString() + " and " + operands[1]->shape.ToString());
    return NextAfter(e, x, operands[1]);
  }
  if (RealFunctions().count(op)) {
    VKXLA_RETURN_IF_ERROR(expect(1));
    if (!IsFloat(t))
      return Unimplemented("chlo." + op + " of " + x->shape.ToString() + ": only real floats are supported yet");
    const ElementType ct = ComputeType(t);
    Instruction* r = RealFormula(op, e, e.Convert(x, ct));
    return e.Convert(r, t);
  }
  return Unimplemented("chlo." + op + " is not implemented yet");
}

}  // namespace vkxla
