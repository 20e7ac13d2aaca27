// One element's value on the host, wide enough for every element type:
// signed ints in `s`, unsigned in `u`, floats and complex in `re`/`im`,
// PRED as s = 0/1. The reference evaluator computes on these.
#pragma once

#include <complex>
#include <cstdint>
#include <string>

#include "ir/element_type.h"

namespace vkxla {

struct Scalar {
  ElementType type = ElementType::kInvalid;
  int64_t s = 0;
  uint64_t u = 0;
  double re = 0, im = 0;

  static Scalar Pred(bool v) { Scalar x; x.type = ElementType::kPred; x.s = v; return x; }
  static Scalar Int(ElementType t, int64_t v);    // wraps to t's width (two's complement for unsigned t)
  static Scalar UInt(ElementType t, uint64_t v);  // wraps to t's width
  static Scalar Float(ElementType t, double v);   // rounds to t
  static Scalar Complex(ElementType t, std::complex<double> v);
  // Converts any number to type t with ConvertElementType's rules.
  static Scalar Convert(const Scalar& from, ElementType t);

  bool pred() const { return s != 0; }
  std::complex<double> c() const { return {re, im}; }
  // Raw bits as stored in memory (little-endian, low bits used).
  uint64_t Bits() const;
  static Scalar FromBits(ElementType t, uint64_t bits);
  // XLA literal text of the value: "1.5", "-inf", "nan", "true", "(1, 2)".
  std::string ToString() const;
};

// A key whose signed order is the total order of a real float's values:
// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN. The one NaN of the fnuz
// types is the sign bit alone and comes first; f8e8m0fnu has no sign.
int64_t FloatTotalOrderKey(const Scalar& x);

// Shortest decimal text that reads back to the same value of float type t.
std::string FormatFloat(double v, ElementType t);

}  // namespace vkxla
