#include "tests/dot_test_util.h"

#include <gtest/gtest.h>

#include <cmath>

#include "frontends/hlo_text.h"

namespace vkxla {

Literal SmallIntegers(const Shape& shape, std::mt19937_64& rng) {
  Literal l(Shape(shape.element_type(), shape.dims()));
  const ElementType t = shape.element_type();
  for (int64_t i = 0; i < l.element_count(); ++i) {
    const int64_t v = static_cast<int64_t>(rng() % 7) - 3;
    if (IsComplex(t)) l.Set(i, Scalar::Complex(t, {double(v), double(static_cast<int64_t>(rng() % 5) - 2)}));
    // f8e8m0fnu holds powers of two only: 2^v (its 0 would be 2^-127, an
    // f32 subnormal that a device may flush).
    else if (FloatEncodingOf(t) == FloatEncoding::kExponentOnly) l.Set(i, Scalar::Float(t, std::ldexp(1.0, static_cast<int>(v))));
    else if (IsFloat(t)) l.Set(i, Scalar::Float(t, double(v)));
    else if (t == ElementType::kPred) l.Set(i, Scalar::Pred(v > 0));
    else l.Set(i, Scalar::Convert(Scalar::Int(ElementType::kS64, IsUnsignedInt(t) ? v + 3 : v), t));
  }
  return l;
}

std::string Type(ElementType t) { return std::string(ElementTypeName(t)); }

std::string ShapeText(ElementType t, const std::vector<int64_t>& dims, const std::string& layout) {
  std::string s = Type(t) + "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]" + layout;
}

std::string List(const std::vector<int64_t>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "}";
}

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseAndVerifyHlo(text);
  EXPECT_TRUE(m.ok()) << m.status().ToString() << "\n" << text;
  return m.ok() ? std::move(*m) : nullptr;
}

void ExpectDotClose(const Literal& got, const Literal& want, const Literal& abs_want, int64_t k, ElementType acc) {
  const double eps = acc == ElementType::kF64 ? 0x1p-52 : 0x1p-23;
  int failures = 0;
  for (int64_t i = 0; i < want.element_count() && failures < 5; ++i) {
    const double g = got.Get(i).re, w = want.Get(i).re, scale = abs_want.Get(i).re;
    const double bound = (static_cast<double>(k) + 2) * eps * scale + 1e-30;
    if (!(std::fabs(g - w) <= bound)) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": device " << g << ", reference " << w << ", bound " << bound;
    }
  }
}

}  // namespace vkxla
