#include "tools/constant_values.h"

#include <iostream>

#include "ir/hlo_parser.h"
#include "ops/evaluator.h"
#include "tools/input_values.h"

namespace vkxla {

Status SetConstantValues(Module& module, const std::vector<std::string>& specs) {
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidArgument("--constant " + spec + ": expected NAME=VALUE (a constant's name, then a value as --input takes)");
    std::string name = spec.substr(0, eq);
    if (name[0] == '%') name = name.substr(1);
    Instruction* constant = nullptr;
    for (const auto& c : module.computations()) {
      Instruction* i = c->Find(name);
      if (i && i->opcode == Opcode::kConstant) constant = i;
    }
    if (!constant) return InvalidArgument("--constant " + spec + ": the module has no constant %" + name);
    if (!constant->shape.IsArray())
      return InvalidArgument("--constant " + spec + ": %" + name + " is " + constant->shape.ToString() + ", not an array");
    VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> values, ReadInputs({spec.substr(eq + 1)}, {constant->shape}));
    if (values.size() != 1 || !FitsShape(values[0].shape(), constant->shape))
      return InvalidArgument("--constant " + spec + ": %" + name + " is " + constant->shape.ToString() + " but the value is " +
                             (values.size() == 1 ? values[0].shape().ToString() : std::to_string(values.size()) + " arrays"));
    // Element by element in logical order: the constant keeps its layout.
    Literal literal(constant->shape);
    for (int64_t i = 0; i < literal.element_count(); ++i) literal.Set(i, values[0].Get(i));
    constant->literal = std::move(literal);
    module.GiveElidedConstant(name);
  }
  // What is still zeros, once the given values are in.
  if (const std::string note = ElidedConstantsNote(module); !note.empty()) std::cerr << "vkxla: note: " << note << "\n";
  return OkStatus();
}

}  // namespace vkxla
