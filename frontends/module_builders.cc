#include "frontends/module_builders.h"

#include <memory>

namespace vkxla {
namespace {

struct Namer {
  std::string prefix;
  SourceLocation location;
  int64_t next = 0;
  Instruction* Add(Computation* c, Opcode op, const Shape& shape, std::vector<Instruction*> operands, std::optional<Literal> literal) {
    auto inst = std::make_unique<Instruction>();
    inst->opcode = op;
    inst->shape = shape;
    inst->operands = std::move(operands);
    inst->literal = std::move(literal);
    inst->location = location;
    do inst->name = prefix + "." + std::to_string(next++);
    while (c->Find(inst->name));
    return c->AddInstruction(std::move(inst));
  }
};

}  // namespace

ComputationBuilders BuildersInModule(Module& m, Computation* c, const std::string& prefix, SourceLocation location) {
  auto namer = std::make_shared<Namer>(Namer{prefix, location});
  ComputationBuilders b;
  b.make_in = [namer](Computation* in) -> HloMaker {
    return [namer, in](Opcode op, const Shape& shape, std::vector<Instruction*> operands) {
      return namer->Add(in, op, shape, std::move(operands), std::nullopt);
    };
  };
  b.constant_in = [namer](Computation* in) -> ConstantMaker {
    return [namer, in](Literal value) {
      const Shape shape = value.shape();
      return namer->Add(in, Opcode::kConstant, shape, {}, std::move(value));
    };
  };
  b.make = b.make_in(c);
  b.constant = b.constant_in(c);
  b.new_computation = [&m, namer] {
    std::string name;
    do name = namer->prefix + ".computation." + std::to_string(namer->next++);
    while (m.Find(name));
    return m.AddComputation(std::make_unique<Computation>(name));
  };
  return b;
}

}  // namespace vkxla
