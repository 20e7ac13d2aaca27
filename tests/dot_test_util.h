// What the tests of the dot family (Dot, RaggedDot, ScaledDot) share:
// operands whose sums are exact in every type, HLO shape text, and a
// comparison of float results within a bound on a sum's rounding.
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"

namespace vkxla {

// Values exactly representable, with sums that stay exact: -3..3 (0..6
// unsigned; complex parts -2..2).
Literal SmallIntegers(const Shape& shape, std::mt19937_64& rng);
std::string Type(ElementType t);
std::string ShapeText(ElementType t, const std::vector<int64_t>& dims, const std::string& layout = "");
std::string List(const std::vector<int64_t>& v);  // "{1,2}"
// The verified module, or null after a test failure quoting the text.
std::unique_ptr<Module> Parse(const std::string& text);
// Random floats: the device accumulates in f32 (f64 for f64) in its own
// order, so compare within a bound on a sum's rounding: (k + 2) * eps *
// sum |a b|, `abs_want` the same product of the operands' magnitudes.
void ExpectDotClose(const Literal& got, const Literal& want, const Literal& abs_want, int64_t k, ElementType acc);

}  // namespace vkxla
