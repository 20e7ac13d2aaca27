#include "ops/elementwise_reference.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <limits>

#include "ir/float_formats.h"
#include "ops/op_traits.h"

namespace vkxla {
namespace {

using C = std::complex<double>;

// ---- integers: computed on 64 bits, wrapped to the type by Scalar::Int/UInt.

int64_t MinSigned(int bits) { return bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1)); }

Scalar IntResult(ElementType t, uint64_t v) {
  return IsSignedInt(t) ? Scalar::Int(t, static_cast<int64_t>(v)) : Scalar::UInt(t, v);
}

uint64_t Raw(const Scalar& x) { return IsSignedInt(x.type) ? static_cast<uint64_t>(x.s) : x.u; }

Scalar IntDivide(const Scalar& a, const Scalar& b, bool remainder) {
  const ElementType t = a.type;
  if (IsSignedInt(t)) {
    // XLA: x/0 = -1, x%0 = x, INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0.
    if (b.s == 0) return Scalar::Int(t, remainder ? a.s : -1);
    if (b.s == -1 && a.s == MinSigned(BitWidth(t))) return Scalar::Int(t, remainder ? 0 : a.s);
    return Scalar::Int(t, remainder ? a.s % b.s : a.s / b.s);
  }
  if (b.u == 0) return Scalar::UInt(t, remainder ? a.u : ~uint64_t{0});
  return Scalar::UInt(t, remainder ? a.u % b.u : a.u / b.u);
}

Scalar IntPower(const Scalar& a, const Scalar& b) {
  const ElementType t = a.type;
  if (IsSignedInt(t) && b.s < 0) {
    if (a.s == 1) return Scalar::Int(t, 1);
    if (a.s == -1) return Scalar::Int(t, (b.s & 1) ? -1 : 1);
    return Scalar::Int(t, 0);
  }
  uint64_t base = Raw(a), exp = Raw(b), result = 1;
  while (exp) {
    if (exp & 1) result *= base;
    base *= base;
    exp >>= 1;
  }
  return IntResult(t, result);
}

Scalar Shift(Opcode op, const Scalar& a, const Scalar& b) {
  const ElementType t = a.type;
  const int bits = BitWidth(t);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t amount = Raw(b) & mask;  // the shift amount is read as unsigned
  const uint64_t x = Raw(a) & mask;
  if (op == Opcode::kShiftLeft) return IntResult(t, amount >= static_cast<uint64_t>(bits) ? 0 : x << amount);
  if (op == Opcode::kShiftRightLogical) return IntResult(t, amount >= static_cast<uint64_t>(bits) ? 0 : x >> amount);
  // Arithmetic: sign-fill; amounts >= width leave only sign bits.
  const int64_t sx = ((x >> (bits - 1)) & 1) ? static_cast<int64_t>(x | ~mask) : static_cast<int64_t>(x);
  const uint64_t sh = amount >= static_cast<uint64_t>(bits) ? bits - 1 : amount;
  return IntResult(t, static_cast<uint64_t>(sx >> sh));
}

int CountLeadingZeros(uint64_t x, int bits) {
  int n = 0;
  for (int i = bits - 1; i >= 0 && !((x >> i) & 1); --i) ++n;
  return n;
}

// ---- floats

double RoundAfz(double x) { return std::round(x); }

// Max/min propagate NaN; -0 < +0.
double FMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double FMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

double Logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }

C ComplexSign(C z) {
  double a = std::abs(z);
  if (std::isnan(z.real()) || std::isnan(z.imag())) return {std::nan(""), std::nan("")};
  return a == 0 ? C(0, 0) : z / a;
}

Scalar FloatUnary(Opcode op, const Scalar& x, ElementType t, const Instruction& inst) {
  const double v = x.re;
  double r = 0;
  switch (op) {
    case Opcode::kAbs: r = std::fabs(v); break;
    case Opcode::kNegate: r = -v; break;
    case Opcode::kSign: r = std::isnan(v) ? v : (v > 0 ? 1.0 : v < 0 ? -1.0 : v); break;
    case Opcode::kCeil: r = std::ceil(v); break;
    case Opcode::kFloor: r = std::floor(v); break;
    case Opcode::kRoundNearestAfz: r = RoundAfz(v); break;
    case Opcode::kRoundNearestEven: r = std::nearbyint(v); break;
    case Opcode::kCos: r = std::cos(v); break;
    case Opcode::kSin: r = std::sin(v); break;
    case Opcode::kTan: r = std::tan(v); break;
    case Opcode::kTanh: r = std::tanh(v); break;
    case Opcode::kCosh: r = std::cosh(v); break;
    case Opcode::kExp: r = std::exp(v); break;
    case Opcode::kExpm1: r = std::expm1(v); break;
    case Opcode::kLog: r = std::log(v); break;
    case Opcode::kLog1p: r = std::log1p(v); break;
    case Opcode::kLogistic: r = Logistic(v); break;
    case Opcode::kSqrt: r = std::sqrt(v); break;
    case Opcode::kRsqrt: r = 1.0 / std::sqrt(v); break;
    case Opcode::kCbrt: r = std::cbrt(v); break;
    case Opcode::kErf: r = std::erf(v); break;
    case Opcode::kReal: r = v; break;
    case Opcode::kImag: r = 0; break;
    case Opcode::kReducePrecision:
      r = ReducePrecisionValue(v, x.type, static_cast<int>(inst.exponent_bits), static_cast<int>(inst.mantissa_bits));
      break;
    default: break;
  }
  return Scalar::Float(t, r);
}

Scalar ComplexUnary(Opcode op, const Scalar& x, ElementType t) {
  const C z = x.c();
  const ElementType part = ComplexComponentType(x.type);
  switch (op) {
    case Opcode::kAbs: return Scalar::Float(t, std::abs(z));
    case Opcode::kReal: return Scalar::Float(t, z.real());
    case Opcode::kImag: return Scalar::Float(t, z.imag());
    default: break;
  }
  C r;
  switch (op) {
    case Opcode::kNegate: r = -z; break;
    case Opcode::kSign: r = ComplexSign(z); break;
    case Opcode::kCos: r = std::cos(z); break;
    case Opcode::kSin: r = std::sin(z); break;
    case Opcode::kTan: r = std::tan(z); break;
    case Opcode::kTanh: r = std::tanh(z); break;
    case Opcode::kCosh: r = std::cosh(z); break;
    case Opcode::kExp: r = std::exp(z); break;
    case Opcode::kExpm1: {
      // exp(z) - 1 without cancellation near 0: expm1(a)cos(b) - 2sin^2(b/2) + i e^a sin(b).
      double a = z.real(), b = z.imag(), s = std::sin(b / 2);
      r = C(std::expm1(a) * std::cos(b) - 2 * s * s, std::exp(a) * std::sin(b));
      break;
    }
    case Opcode::kLog: r = std::log(z); break;
    case Opcode::kLog1p: {
      // log(1+z): real part log1p-accurate near 0; far from 0 (where
      // a(2+a) + b^2 overflows first) log(1+z) has no cancellation.
      double a = z.real(), b = z.imag();
      r = std::max(std::fabs(a), std::fabs(b)) > 4 ? std::log(C(1 + a, b))
                                                    : C(0.5 * std::log1p(a * (2 + a) + b * b), std::atan2(b, 1 + a));
      break;
    }
    case Opcode::kLogistic: r = 1.0 / (1.0 + std::exp(-z)); break;
    case Opcode::kSqrt: r = std::sqrt(z); break;
    case Opcode::kRsqrt: r = 1.0 / std::sqrt(z); break;
    default: break;
  }
  (void)part;
  return Scalar::Complex(t, r);
}

Scalar IntUnary(Opcode op, const Scalar& x, ElementType t) {
  const int bits = BitWidth(x.type);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  switch (op) {
    case Opcode::kAbs: return Scalar::Int(t, x.s < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x.s)) : x.s);
    case Opcode::kNegate: return IntResult(t, 0 - Raw(x));
    case Opcode::kSign:
      if (IsSignedInt(t)) return Scalar::Int(t, x.s > 0 ? 1 : x.s < 0 ? -1 : 0);
      return Scalar::UInt(t, x.u ? 1 : 0);
    case Opcode::kNot:
      if (t == ElementType::kPred) return Scalar::Pred(!x.pred());
      return IntResult(t, ~Raw(x));
    case Opcode::kPopulationCount: return IntResult(t, std::popcount(Raw(x) & mask));
    case Opcode::kClz: return IntResult(t, CountLeadingZeros(Raw(x) & mask, bits));
    default: return IntResult(t, 0);
  }
}

Scalar Bitwise(Opcode op, const Scalar& a, const Scalar& b) {
  if (a.type == ElementType::kPred) {
    bool x = a.pred(), y = b.pred();
    return Scalar::Pred(op == Opcode::kAnd ? (x && y) : op == Opcode::kOr ? (x || y) : (x != y));
  }
  uint64_t x = Raw(a), y = Raw(b);
  return IntResult(a.type, op == Opcode::kAnd ? (x & y) : op == Opcode::kOr ? (x | y) : (x ^ y));
}

Scalar IntBinary(Opcode op, const Scalar& a, const Scalar& b) {
  const ElementType t = a.type;
  const bool is_signed = IsSignedInt(t);
  switch (op) {
    case Opcode::kAdd: return IntResult(t, Raw(a) + Raw(b));
    case Opcode::kSubtract: return IntResult(t, Raw(a) - Raw(b));
    case Opcode::kMultiply: return IntResult(t, Raw(a) * Raw(b));
    case Opcode::kDivide: return IntDivide(a, b, false);
    case Opcode::kRemainder: return IntDivide(a, b, true);
    case Opcode::kPower: return IntPower(a, b);
    case Opcode::kMaximum: return is_signed ? (a.s >= b.s ? a : b) : (a.u >= b.u ? a : b);
    case Opcode::kMinimum: return is_signed ? (a.s <= b.s ? a : b) : (a.u <= b.u ? a : b);
    case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor: return Bitwise(op, a, b);
    case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic: case Opcode::kShiftRightLogical:
      return Shift(op, a, b);
    default: return IntResult(t, 0);
  }
}

Scalar PredBinary(Opcode op, const Scalar& a, const Scalar& b) {
  switch (op) {
    case Opcode::kAdd: case Opcode::kOr: case Opcode::kMaximum: return Scalar::Pred(a.pred() || b.pred());
    case Opcode::kMultiply: case Opcode::kAnd: case Opcode::kMinimum: return Scalar::Pred(a.pred() && b.pred());
    case Opcode::kXor: return Scalar::Pred(a.pred() != b.pred());
    default: return Scalar::Pred(false);
  }
}

Scalar FloatBinary(Opcode op, const Scalar& a, const Scalar& b, ElementType t) {
  const double x = a.re, y = b.re;
  switch (op) {
    case Opcode::kAdd: return Scalar::Float(t, x + y);
    case Opcode::kSubtract: return Scalar::Float(t, x - y);
    case Opcode::kMultiply: return Scalar::Float(t, x * y);
    case Opcode::kDivide: return Scalar::Float(t, x / y);
    case Opcode::kRemainder: return Scalar::Float(t, std::fmod(x, y));
    case Opcode::kPower: return Scalar::Float(t, std::pow(x, y));
    case Opcode::kAtan2: return Scalar::Float(t, std::atan2(x, y));
    case Opcode::kMaximum: return Scalar::Float(t, FMax(x, y));
    case Opcode::kMinimum: return Scalar::Float(t, FMin(x, y));
    case Opcode::kComplex: return Scalar::Complex(t, C(x, y));
    default: return Scalar::Float(t, 0);
  }
}

Scalar ComplexBinary(Opcode op, const Scalar& a, const Scalar& b, ElementType t) {
  const C x = a.c(), y = b.c();
  switch (op) {
    case Opcode::kAdd: return Scalar::Complex(t, x + y);
    case Opcode::kSubtract: return Scalar::Complex(t, x - y);
    case Opcode::kMultiply: return Scalar::Complex(t, x * y);
    case Opcode::kDivide: return Scalar::Complex(t, x / y);
    case Opcode::kPower: return Scalar::Complex(t, std::pow(x, y));
    case Opcode::kAtan2: {
      // atan2(x, y) = -i log((y + i x) / sqrt(y^2 + x^2)), as XLA defines it.
      C i(0, 1);
      return Scalar::Complex(t, -i * std::log((y + i * x) / std::sqrt(y * y + x * x)));
    }
    default: return Scalar::Complex(t, 0);
  }
}

}  // namespace

bool CompareScalars(ComparisonDirection dir, ComparisonType type, const Scalar& a, const Scalar& b) {
  const ElementType t = a.type;
  int order;  // -1, 0, 1; 2 for unordered
  if (IsComplex(t)) {
    bool eq = a.re == b.re && a.im == b.im;
    return dir == ComparisonDirection::kEq ? eq : !eq;
  }
  if (IsFloat(t) && type == ComparisonType::kTotalOrder) {
    int64_t x = FloatTotalOrderKey(a), y = FloatTotalOrderKey(b);
    order = x < y ? -1 : x > y ? 1 : 0;
  } else if (IsFloat(t)) {
    if (std::isnan(a.re) || std::isnan(b.re)) order = 2;
    else order = a.re < b.re ? -1 : a.re > b.re ? 1 : 0;
  } else if (IsSignedInt(t)) {
    order = a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  } else if (t == ElementType::kPred) {
    order = a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  } else {
    order = a.u < b.u ? -1 : a.u > b.u ? 1 : 0;
  }
  switch (dir) {
    case ComparisonDirection::kEq: return order == 0;
    case ComparisonDirection::kNe: return order != 0;
    case ComparisonDirection::kLt: return order == -1;
    case ComparisonDirection::kLe: return order == -1 || order == 0;
    case ComparisonDirection::kGt: return order == 1;
    case ComparisonDirection::kGe: return order == 1 || order == 0;
  }
  return false;
}

Scalar EvaluateElementwise(const Instruction& inst, const Scalar* in, ElementType t) {
  const Opcode op = inst.opcode;
  switch (op) {
    case Opcode::kConvert: return Scalar::Convert(in[0], t);
    case Opcode::kIsFinite: return Scalar::Pred(std::isfinite(in[0].re));
    case Opcode::kCompare: return Scalar::Pred(CompareScalars(inst.direction, inst.comparison_type, in[0], in[1]));
    case Opcode::kSelect: return in[0].pred() ? in[1] : in[2];
    case Opcode::kClamp: {
      // clamp = min(max(operand, lo), hi) with the op's own max/min.
      Instruction mx;
      mx.opcode = Opcode::kMaximum;
      Scalar lo_max[2] = {in[1], in[0]};
      Scalar m = EvaluateElementwise(mx, lo_max, t);
      mx.opcode = Opcode::kMinimum;
      Scalar hi_min[2] = {m, in[2]};
      return EvaluateElementwise(mx, hi_min, t);
    }
    default: break;
  }
  const ElementType it = in[0].type;
  if (!IsElementwiseBinary(op)) {
    if (IsComplex(it)) return ComplexUnary(op, in[0], t);
    if (IsFloat(it)) return FloatUnary(op, in[0], t, inst);
    return IntUnary(op, in[0], t);
  }
  if (IsComplex(it)) return ComplexBinary(op, in[0], in[1], t);
  if (IsFloat(it)) return FloatBinary(op, in[0], in[1], t);
  if (it == ElementType::kPred) return PredBinary(op, in[0], in[1]);
  return IntBinary(op, in[0], in[1]);
}

}  // namespace vkxla
