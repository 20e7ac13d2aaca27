#include "frontends/custom_call_results.h"

#include <cctype>

#include "frontends/stablehlo_syntax.h"
#include "frontends/mlir_types.h"

namespace vkxla {

Status CustomCallError(const ExpandedCustomCall& c, const std::string& m) { return InvalidArgument("custom_call @" + c.target + ": " + m); }

std::optional<int64_t> DictInteger(const std::string& dict, const std::string& key) {
  const size_t at = dict.find(key + " =");
  if (at == std::string::npos) return std::nullopt;
  const std::vector<int64_t> v = Integers(dict.substr(at + key.size() + 2, 40));
  if (v.empty()) return std::nullopt;
  return v[0];
}

std::optional<bool> DictBool(const std::string& dict, const std::string& key) {
  for (size_t at = dict.find(key + " ="); at != std::string::npos; at = dict.find(key + " =", at + 1)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(dict[at - 1])) || dict[at - 1] == '_')) continue;  // a longer key
    const std::string value = dict.substr(at + key.size() + 2, 6);
    if (value.rfind(" true", 0) == 0) return true;
    if (value.rfind(" false", 0) == 0) return false;
    return std::nullopt;
  }
  return std::nullopt;
}

StatusOr<std::vector<Instruction*>> WrittenResults(const ExpandedCustomCall& c, std::vector<Instruction*> parts, const HloMaker& make,
                                                   const ConstantMaker& constant) {
  const bool tuple = c.result_types.size() == 1 && c.result_types[0].IsTuple();
  const std::vector<Shape> types = tuple ? c.result_types[0].tuple_shapes() : c.result_types;
  if (types.size() < parts.size()) return CustomCallError(c, "gives " + std::to_string(parts.size()) + " results at least");
  for (size_t i = 0; i < types.size(); ++i) {
    if (i < parts.size() && parts[i]) {
      if (!types[i].Compatible(parts[i]->shape))
        return CustomCallError(c, "result " + std::to_string(i) + " is written " + types[i].ToString() + " but is " + parts[i]->shape.ToString());
      continue;
    }
    if (!types[i].IsArray() || HasUnknownDims(types[i])) return CustomCallError(c, "result " + std::to_string(i) + " must be a static array");
    Instruction* z = make(Opcode::kBroadcast, types[i], {constant(Literal(Shape::Scalar(types[i].element_type())))});
    z->dimensions = std::vector<int64_t>{};
    if (i < parts.size()) parts[i] = z;
    else parts.push_back(z);
  }
  if (!tuple) return parts;
  std::vector<Shape> shapes;
  for (const Instruction* p : parts) shapes.push_back(p->shape);
  return std::vector<Instruction*>{make(Opcode::kTuple, Shape::Tuple(shapes), parts)};
}

}  // namespace vkxla
