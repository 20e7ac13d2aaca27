#include "tools/input_values.h"

#include <filesystem>

#include "frontends/module_file.h"
#include "frontends/shape_refinement.h"
#include "ir/numbers.h"
#include "ops/evaluator.h"
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

StatusOr<std::unique_ptr<Module>> LoadModuleForInputs(const std::string& path, const std::string& function,
                                                      const std::vector<std::string>& specs) {
  VKXLA_ASSIGN_OR_RETURN(std::vector<Shape> declared, PolymorphicEntryArguments(path, function));
  if (declared.empty()) return LoadModuleFile(path, function);
  std::vector<Shape> arrays;  // what the inputs stand for, as EntryInputSlots counts them
  for (const Shape& d : declared)
    for (const Shape& leaf : ArrayLeafShapes(d)) arrays.push_back(leaf);
  VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> inputs, ReadInputs(specs, arrays));
  if (inputs.size() != arrays.size())
    return InvalidArgument(path + ": the entry is shape-polymorphic (its argument shapes come from the inputs) and takes " +
                           std::to_string(arrays.size()) + " arrays; " + std::to_string(inputs.size()) +
                           " input values were given");
  std::vector<Shape> given;
  for (const Literal& l : inputs) given.push_back(l.shape());
  VKXLA_ASSIGN_OR_RETURN(std::vector<Shape> shapes, ArgumentShapesFromArrays(declared, given));
  return LoadModuleFile(path, function, true, &shapes);
}

namespace {

// The slots under one parameter's value of `shape`, depth first (nesting
// bounded by kMaxTupleDepth); `at` is the tuple index so far.
void AddSlots(const Shape& shape, const std::string& parameter, std::vector<int64_t>& at, std::vector<InputSlot>& out) {
  if (shape.IsArray()) {
    std::string name = parameter;
    for (size_t k = 0; k < at.size(); ++k) name += (k == 0 ? " element {" : ",") + std::to_string(at[k]) + (k + 1 == at.size() ? "}" : "");
    out.push_back({shape, name});
  }
  if (!shape.IsTuple()) return;
  for (size_t k = 0; k < shape.tuple_shapes().size(); ++k) {
    at.push_back(static_cast<int64_t>(k));
    AddSlots(shape.tuple_shapes()[k], parameter, at, out);
    at.pop_back();
  }
}

}  // namespace

std::vector<InputSlot> EntryInputSlots(const Computation& entry) {
  std::vector<InputSlot> out;
  const std::vector<Instruction*> params = entry.parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    std::vector<int64_t> at;
    AddSlots(params[i]->shape, "parameter " + std::to_string(i) + " (%" + params[i]->name + ")", at, out);
  }
  return out;
}

StatusOr<std::vector<Literal>> EntryArguments(std::vector<Literal> inputs, const Computation& entry, const std::string& path) {
  const std::vector<InputSlot> slots = EntryInputSlots(entry);
  const std::vector<Instruction*> params = entry.parameters();
  if (inputs.size() != slots.size()) {
    std::string what = std::to_string(params.size()) + " parameters";
    bool arrays = true;
    for (const Instruction* p : params) arrays = arrays && p->shape.IsArray();
    if (!arrays) what += " holding " + std::to_string(slots.size()) + " arrays (tuples give one input per array, tokens none)";
    return InvalidArgument(path + ": the entry takes " + what + ", " + std::to_string(inputs.size()) + " input values were given");
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!FitsShape(inputs[i].shape(), slots[i].shape))
      return InvalidArgument(slots[i].name + " is " + slots[i].shape.ToString() + " but input " + std::to_string(i) + " is " +
                             inputs[i].shape().ToString());
  std::vector<Literal> arguments;
  size_t next = 0;
  for (const Instruction* p : params) {
    VKXLA_ASSIGN_OR_RETURN(Literal a, LiteralFromArrayLeaves(p->shape, inputs, next));
    arguments.push_back(std::move(a));
  }
  return arguments;
}

}  // namespace vkxla
