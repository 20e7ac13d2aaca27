#include "codegen/glsl_index_arithmetic.h"

#include <cctype>

#include "ir/numbers.h"

namespace vkxla {
namespace {

// "12u" -> 12; -1 for anything that is not a folded constant.
int64_t AsConstant(const std::string& v) {
  if (v.size() < 2 || v.back() != 'u') return -1;
  for (size_t i = 0; i + 1 < v.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(v[i]))) return -1;
  return ParseInt64(std::string_view(v).substr(0, v.size() - 1)).value_or(-1);
}

int Log2IfPowerOfTwo(int64_t c) {
  if (c <= 0 || (c & (c - 1)) != 0) return -1;
  int k = 0;
  while ((int64_t{1} << k) != c) ++k;
  return k;
}

}  // namespace

std::string GlslIndexArithmetic::Constant(int64_t c) const { return std::to_string(c) + "u"; }

std::string GlslIndexArithmetic::Add(const Value& a, const Value& b) const {
  const int64_t x = AsConstant(a), y = AsConstant(b);
  if (x == 0) return b;
  if (y == 0) return a;
  if (x >= 0 && y >= 0) return Constant(x + y);
  return "(" + a + " + " + b + ")";
}

std::string GlslIndexArithmetic::MulConstant(const Value& a, int64_t c) const {
  const int64_t x = AsConstant(a);
  if (c == 0 || x == 0) return "0u";
  if (c == 1) return a;
  if (x >= 0) return Constant(x * c);
  if (int k = Log2IfPowerOfTwo(c); k > 0) return "(" + a + " << " + std::to_string(k) + "u)";
  return "(" + a + " * " + Constant(c) + ")";
}

std::string GlslIndexArithmetic::DivConstant(const Value& a, int64_t c) const {
  const int64_t x = AsConstant(a);
  if (c == 1) return a;
  if (x >= 0) return Constant(x / c);
  if (int k = Log2IfPowerOfTwo(c); k > 0) return "(" + a + " >> " + std::to_string(k) + "u)";
  return "(" + a + " / " + Constant(c) + ")";
}

std::string GlslIndexArithmetic::ModConstant(const Value& a, int64_t c) const {
  const int64_t x = AsConstant(a);
  if (c == 1) return "0u";
  if (x >= 0) return Constant(x % c);
  if (Log2IfPowerOfTwo(c) > 0) return "(" + a + " & " + Constant(c - 1) + ")";
  return "(" + a + " % " + Constant(c) + ")";
}

std::string GlslIndexArithmetic::AndLess(const Bool& b, const Value& a, int64_t c) const {
  const int64_t x = AsConstant(a);
  if (x >= 0) return x < c ? b : "false";
  const std::string cmp = "(" + a + " < " + Constant(c) + ")";
  return b == "true" ? cmp : "(" + b + " && " + cmp + ")";
}

}  // namespace vkxla
