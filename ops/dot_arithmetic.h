// The reference's arithmetic for products (Dot, RaggedDot, ScaledDot):
// floats and complex in complex<double>, each operand rounded first as the
// dot's algorithm says; integers as the result type's bits with sums of
// products modulo 2^64 (the same as wrapping in the result type
// throughout); pred as or-of-ands. One rounding, to the result type, at
// the end.
#pragma once

#include <complex>
#include <cstdint>

#include "ir/scalar.h"
#include "ops/dot.h"

namespace vkxla {

class DotArithmetic {
 public:
  // One operand element, converted for the sum.
  struct Term {
    std::complex<double> f;
    uint64_t i = 0;
  };

  DotArithmetic(ElementType result, const DotAlgorithm& algorithm) : result_(result), algorithm_(algorithm) {}

  // `precision`: the algorithm's rounding for this operand (kInvalid: none).
  Term Of(const Scalar& s, ElementType precision) const;
  // a * b, for scaled operands (floats only).
  static Term Scaled(const Term& a, const Term& scale) { return {a.f * scale.f, 0}; }
  void Accumulate(Term& acc, const Term& a, const Term& b) const;
  Scalar Result(const Term& acc) const;
  const DotAlgorithm& algorithm() const { return algorithm_; }

 private:
  ElementType result_;
  DotAlgorithm algorithm_;
};

}  // namespace vkxla
