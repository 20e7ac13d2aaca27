#include "tools/inline_input.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ir/element_type.h"
#include "ir/numbers.h"

namespace vkxla {
namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

StatusOr<Scalar> ParseInlineValue(std::string_view text, ElementType t, const std::string& spec) {
  text = Trim(text);
  auto bad = [&](const std::string& why) {
    return InvalidArgument("--input " + spec + ": '" + std::string(text) + "' " + why);
  };
  if (t == ElementType::kPred) {
    if (text == "true" || text == "1") return Scalar::Pred(true);
    if (text == "false" || text == "0") return Scalar::Pred(false);
    return bad("is not a pred (true, false, 1, 0)");
  }
  if (IsInteger(t)) {
    if (IsSignedInt(t)) {
      const std::optional<int64_t> v = ParseInt64(text);
      const int64_t lo = IntegerMin(t), hi = static_cast<int64_t>(IntegerMax(t));
      if (!v || *v < lo || *v > hi)
        return bad("is not an " + std::string(ElementTypeName(t)) + " (" + std::to_string(lo) + " to " + std::to_string(hi) + ")");
      return Scalar::Int(t, *v);
    }
    const std::optional<uint64_t> v = ParseUint64(text);
    const uint64_t hi = IntegerMax(t);
    if (!v || *v > hi) return bad("is not a " + std::string(ElementTypeName(t)) + " (0 to " + std::to_string(hi) + ")");
    return Scalar::UInt(t, *v);
  }
  if (IsFloat(t)) {
    const std::optional<double> v = ParseDouble(text);
    if (!v) return bad("is not a number");
    return Scalar::Float(t, *v);
  }
  return InvalidArgument("--input " + spec + ": inline " + std::string(ElementTypeName(t)) +
                         " values are not supported; give a .npy file");
}

StatusOr<Literal> ParseInlineInput(const std::string& spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos) return InvalidArgument("--input " + spec + ": an inline value is DIMSxTYPE=VALUES (4xf32=1,2,3,4)");
  const std::vector<std::string_view> head = Split(std::string_view(spec).substr(0, eq), 'x');
  const std::optional<ElementType> type = ParseElementType(head.back());
  if (!type || !IsArrayType(*type))
    return InvalidArgument("--input " + spec + ": '" + std::string(head.back()) + "' is not an element type (f32, s8, pred, ...)");
  std::vector<int64_t> dims;
  for (size_t i = 0; i + 1 < head.size(); ++i) {
    const std::optional<int64_t> d = ParseInt64(head[i]);
    if (!d || *d < 0) return InvalidArgument("--input " + spec + ": '" + std::string(head[i]) + "' is not a dimension size");
    if (static_cast<int64_t>(dims.size()) == kMaxRank) return InvalidArgument("--input " + spec + ": too many dimensions");
    dims.push_back(*d);
  }
  const Shape shape(*type, dims);
  VKXLA_RETURN_IF_ERROR(CheckLiteralBytes(shape).WithContext("--input " + spec));
  const int64_t bytes = shape.element_count() * ByteWidth(*type);
  if (bytes > kMaxInlineBytes)
    return InvalidArgument("--input " + spec + ": " + shape.ToString() + " takes " + std::to_string(bytes >> 20) +
                           " MiB, more than an inline value may (" + std::to_string(kMaxInlineBytes >> 20) +
                           " MiB); give a .npy file");
  const std::vector<std::string_view> values = Split(std::string_view(spec).substr(eq + 1), ',');
  const int64_t count = shape.element_count();
  if (count == 0 && values.size() == 1 && Trim(values[0]).empty()) return Literal(shape);  // "0x3xf32="
  if (static_cast<int64_t>(values.size()) != count && values.size() != 1)
    return InvalidArgument("--input " + spec + ": " + shape.ToString() + " holds " + std::to_string(count) + " values, " +
                           std::to_string(values.size()) + " were given");
  // Sizes and a fill value are checked before anything is allocated.
  if (values.size() == 1 && count != 1) {
    // One value fills the array: the first element's bytes, doubled until full.
    VKXLA_ASSIGN_OR_RETURN(Scalar v, ParseInlineValue(values[0], *type, spec));
    Literal l(shape);
    if (count == 0) return l;
    l.Set(0, v);
    std::vector<uint8_t>& bytes = l.bytes();
    for (size_t filled = static_cast<size_t>(ByteWidth(*type)); filled < bytes.size(); filled *= 2)
      std::memcpy(bytes.data() + filled, bytes.data(), std::min(filled, bytes.size() - filled));
    return l;
  }
  Literal l(shape);  // count values, each no longer than the spec: small
  for (int64_t i = 0; i < count; ++i) {
    VKXLA_ASSIGN_OR_RETURN(Scalar v, ParseInlineValue(values[i], *type, spec));
    l.Set(i, v);
  }
  return l;
}

}  // namespace vkxla
