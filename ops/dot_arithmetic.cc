#include "ops/dot_arithmetic.h"

#include "ir/float_formats.h"

namespace vkxla {

DotArithmetic::Term DotArithmetic::Of(const Scalar& s, ElementType precision) const {
  Term t;
  if (result_ == ElementType::kPred) {
    t.i = s.type == ElementType::kPred ? (s.pred() ? 1 : 0) : Scalar::Convert(s, ElementType::kPred).pred();
  } else if (IsInteger(result_)) {
    t.i = Scalar::Convert(s, result_).Bits();  // the result type's bits, wrapped
  } else if (IsComplex(s.type)) {
    t.f = s.c();
  } else if (IsFloat(s.type)) {
    double v = s.re;
    if (algorithm_.tf32) v = ReducePrecisionValue(v, ElementType::kF64, 8, 10);
    else if (precision != ElementType::kInvalid) v = RoundToFloatType(v, precision);
    t.f = v;
  } else {
    t.f = Scalar::Convert(s, ElementType::kF64).re;
  }
  return t;
}

void DotArithmetic::Accumulate(Term& acc, const Term& a, const Term& b) const {
  if (result_ == ElementType::kPred) acc.i |= a.i & b.i;
  else if (IsInteger(result_)) acc.i += a.i * b.i;
  else acc.f += a.f * b.f;
}

Scalar DotArithmetic::Result(const Term& acc) const {
  if (result_ == ElementType::kPred) return Scalar::Pred(acc.i != 0);
  if (IsInteger(result_)) {
    const int bits = BitWidth(result_);
    return Scalar::FromBits(result_, bits >= 64 ? acc.i : acc.i & ((uint64_t{1} << bits) - 1));
  }
  if (IsComplex(result_)) return Scalar::Complex(result_, acc.f);
  return Scalar::Float(result_, acc.f.real());
}

}  // namespace vkxla
