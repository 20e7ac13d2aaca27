#include "ir/numbers.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace vkxla {

std::optional<int64_t> ParseInt64(std::string_view s) {
  size_t pos = 0;
  int64_t v = 0;
  if (!ReadInt64At(s, pos, v) || pos != s.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseUint64(std::string_view s, int base) {
  if (s.empty() || s.front() == '-' || s.front() == '+') return std::nullopt;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body.front() == '-' || body.front() == '+')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (body.empty() || body.front() == '-' || body.front() == '+') return std::nullopt;
  double v = 0;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    auto [end, ec] = std::from_chars(body.data() + 2, body.data() + body.size(), v, std::chars_format::hex);
    if (end != body.data() + body.size() || (ec != std::errc() && ec != std::errc::result_out_of_range)) return std::nullopt;
    if (ec == std::errc::result_out_of_range) v = std::numeric_limits<double>::infinity();
  } else {
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v, std::chars_format::general);
    if (end != body.data() + body.size()) return std::nullopt;
    if (ec == std::errc::result_out_of_range) {
      // Overflow reads as inf, underflow as 0 (strtod's results); from_chars
      // leaves v untouched, so tell them apart by the exponent's sign.
      const size_t e = body.find_first_of("eE");
      const bool tiny = e != std::string_view::npos && e + 1 < body.size() && body[e + 1] == '-';
      v = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    } else if (ec != std::errc()) {
      return std::nullopt;
    }
  }
  return negative ? -v : v;
}

bool ReadInt64At(std::string_view s, size_t& pos, int64_t& out) {
  size_t p = pos;
  const bool plus = p < s.size() && s[p] == '+';  // from_chars takes '-' but not '+'
  if (plus) ++p;
  auto digit = [&](size_t i) { return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); };
  if (!digit(p) && !(!plus && p < s.size() && s[p] == '-' && digit(p + 1))) return false;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data() + p, s.data() + s.size(), v);
  if (ec != std::errc()) return false;
  out = v;
  pos = static_cast<size_t>(end - s.data());
  return true;
}

std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

}  // namespace vkxla
