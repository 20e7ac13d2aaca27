#include "ir/instruction.h"

#include <array>

#include "ir/scalar.h"

namespace vkxla {
namespace {

constexpr std::array<std::pair<ComparisonDirection, std::string_view>, 6> kDirections = {{
    {ComparisonDirection::kEq, "EQ"}, {ComparisonDirection::kNe, "NE"}, {ComparisonDirection::kGe, "GE"},
    {ComparisonDirection::kGt, "GT"}, {ComparisonDirection::kLe, "LE"}, {ComparisonDirection::kLt, "LT"},
}};

constexpr std::array<std::pair<ComparisonType, std::string_view>, 4> kTypes = {{
    {ComparisonType::kFloat, "FLOAT"},
    {ComparisonType::kTotalOrder, "TOTALORDER"},
    {ComparisonType::kSigned, "SIGNED"},
    {ComparisonType::kUnsigned, "UNSIGNED"},
}};

}  // namespace

std::string_view ComparisonDirectionName(ComparisonDirection d) {
  for (const auto& [v, n] : kDirections)
    if (v == d) return n;
  return "?";
}

std::optional<ComparisonDirection> ParseComparisonDirection(std::string_view s) {
  for (const auto& [v, n] : kDirections)
    if (n == s) return v;
  return std::nullopt;
}

std::string_view ComparisonTypeName(ComparisonType t) {
  for (const auto& [v, n] : kTypes)
    if (v == t) return n;
  return "DEFAULT";
}

std::optional<ComparisonType> ParseComparisonType(std::string_view s) {
  for (const auto& [v, n] : kTypes)
    if (n == s) return v;
  return std::nullopt;
}

std::string ResultAccuracy::ToString() const {
  if (highest) return "{mode=highest}";
  return "{tolerance={atol=" + FormatFloat(atol, ElementType::kF64) + ",rtol=" + FormatFloat(rtol, ElementType::kF64) +
         ",ulps=" + std::to_string(ulps) + "}}";
}

std::string Instruction::Describe() const {
  std::string s = "%" + name;
  if (location.line) s += " (" + location.ToString() + ")";
  return s;
}

}  // namespace vkxla
