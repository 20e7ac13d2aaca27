#include "tools/input_values.h"

#include <filesystem>

#include "ir/numbers.h"
#include "tools/inline_input.h"
#include "tools/npy.h"
#include "tools/npz.h"

namespace vkxla {
namespace {

StatusOr<Literal> Scalar0D(std::string_view text, ElementType t, const std::string& spec) {
  VKXLA_ASSIGN_OR_RETURN(Scalar v, ParseInlineValue(text, t, spec));
  Literal l{Shape(t, {})};
  l.Set(0, v);
  return l;
}

bool LooksLikeNumber(const std::string& s) {
  return ParseDouble(s).has_value() || s == "true" || s == "false";
}

}  // namespace

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
