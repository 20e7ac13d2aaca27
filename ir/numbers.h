// Checked conversions from text to numbers and checked arithmetic on sizes.
// Every string-to-number conversion in the tree goes through these: the
// standard ones throw (std::stoll), wrap or saturate silently (atoi,
// strtoll), and a size computed from untrusted input may overflow.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vkxla {

// The whole of `s` as a decimal integer ([+-]?[0-9]+), or nullopt when it
// is not one or is out of range.
std::optional<int64_t> ParseInt64(std::string_view s);
// [0-9]+ (base 10) or hex digits (base 16), whole string, in range.
std::optional<uint64_t> ParseUint64(std::string_view s, int base = 10);
// A decimal or hex float, inf or nan, whole string; nullopt otherwise (a
// value beyond double's range reads as ±inf, as strtod gives it).
std::optional<double> ParseDouble(std::string_view s);
// The longest prefix of s[pos..] that is a decimal integer ([+-]?digits),
// advancing pos past it; false (pos unchanged) when there is none or it is
// out of range.
bool ReadInt64At(std::string_view s, size_t& pos, int64_t& out);

// a * b and a + b, or nullopt on overflow (both non-negative).
std::optional<int64_t> CheckedMul(int64_t a, int64_t b);
std::optional<int64_t> CheckedAdd(int64_t a, int64_t b);

}  // namespace vkxla
