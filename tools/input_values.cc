#include "tools/input_values.h"

#include <filesystem>

#include "ir/element_type.h"
#include "ir/numbers.h"
#include "tools/npy.h"
#include "tools/npz.h"

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

// One element of type t written as text: true/false for pred, a whole
// number in the type's range for integers, a decimal/hex/inf/nan for floats.
StatusOr<Scalar> ParseValue(std::string_view text, ElementType t, const std::string& spec) {
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
    const int bits = BitWidth(t);
    if (IsSignedInt(t)) {
      const std::optional<int64_t> v = ParseInt64(text);
      const int64_t lo = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
      const int64_t hi = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
      if (!v || *v < lo || *v > hi)
        return bad("is not an " + std::string(ElementTypeName(t)) + " (" + std::to_string(lo) + " to " + std::to_string(hi) + ")");
      return Scalar::Int(t, *v);
    }
    const std::optional<uint64_t> v = ParseUint64(text);
    const uint64_t hi = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
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

StatusOr<Literal> Scalar0D(std::string_view text, ElementType t, const std::string& spec) {
  VKXLA_ASSIGN_OR_RETURN(Scalar v, ParseValue(text, t, spec));
  Literal l{Shape(t, {})};
  l.Set(0, v);
  return l;
}

bool LooksLikeNumber(const std::string& s) {
  return ParseDouble(s).has_value() || s == "true" || s == "false";
}

}  // namespace

StatusOr<Literal> ParseInlineInput(const std::string& spec) {
  const size_t eq = spec.find('=');
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
  const std::vector<std::string_view> values = Split(std::string_view(spec).substr(eq + 1), ',');
  const int64_t count = shape.element_count();
  if (static_cast<int64_t>(values.size()) != count && values.size() != 1)
    return InvalidArgument("--input " + spec + ": " + shape.ToString() + " holds " + std::to_string(count) + " values, " +
                           std::to_string(values.size()) + " were given");
  Literal l(shape);
  if (values.size() == 1 && count != 1) {
    VKXLA_ASSIGN_OR_RETURN(Scalar v, ParseValue(values[0], *type, spec));
    for (int64_t i = 0; i < count; ++i) l.Set(i, v);
    return l;
  }
  for (int64_t i = 0; i < count; ++i) {
    VKXLA_ASSIGN_OR_RETURN(Scalar v, ParseValue(values[i], *type, spec));
    l.Set(i, v);
  }
  return l;
}

StatusOr<std::vector<Literal>> ReadInputs(const std::vector<std::string>& specs, const std::vector<Shape>& parameters) {
  std::vector<Literal> out;
  auto next_type = [&]() {
    return out.size() < parameters.size() ? parameters[out.size()].element_type() : ElementType::kInvalid;
  };
  for (const std::string& spec : specs) {
    if (spec.empty()) return InvalidArgument("--input is empty");
    const bool file = spec[0] == '@';
    const std::string path = file ? spec.substr(1) : spec;
    if (!file && spec.find('=') != std::string::npos) {
      VKXLA_ASSIGN_OR_RETURN(Literal l, ParseInlineInput(spec));
      out.push_back(std::move(l));
    } else if (!file && LooksLikeNumber(spec)) {
      if (out.size() >= parameters.size())
        return InvalidArgument("--input " + spec + ": the entry takes only " + std::to_string(parameters.size()) + " parameters");
      const Shape& p = parameters[out.size()];
      if (!p.IsArray() || p.rank() != 0)
        return InvalidArgument("--input " + spec + ": a bare value is a scalar, but parameter " + std::to_string(out.size()) +
                               " is " + p.ToString() + " (write DIMSxTYPE=VALUES, e.g. 4xf32=0)");
      VKXLA_ASSIGN_OR_RETURN(Literal l, Scalar0D(spec, p.element_type(), spec));
      out.push_back(std::move(l));
    } else if (std::filesystem::path(path).extension() == ".npz") {
      VKXLA_ASSIGN_OR_RETURN(std::vector<NpzMember> members, ReadNpz(path));
      for (const NpzMember& m : members) {
        VKXLA_ASSIGN_OR_RETURN(Literal l, ParseNpy(m.bytes, path + ":" + m.name, next_type()));
        out.push_back(std::move(l));
      }
    } else {
      VKXLA_ASSIGN_OR_RETURN(Literal l, ReadNpy(path, next_type()));
      out.push_back(std::move(l));
    }
  }
  return out;
}

}  // namespace vkxla
