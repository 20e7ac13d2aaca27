#include "plan/module_rewrite.h"

#include <map>

namespace vkxla {

Instruction* AddDerived(Computation& c, const Instruction& origin, const std::string& suffix, int& counter, Opcode op,
                        Shape shape, std::vector<Instruction*> operands) {
  auto inst = std::make_unique<Instruction>();
  inst->name = origin.name + "." + suffix + std::to_string(counter++);
  inst->opcode = op;
  inst->shape = std::move(shape);
  inst->operands = std::move(operands);
  inst->location = origin.location;
  return c.AddInstruction(std::move(inst));
}

StatusOr<std::shared_ptr<const Module>> RewriteModule(const Module& module, const std::function<bool(const Instruction&)>& wants,
                                                      const Expansion& expand) {
  bool any = false;
  for (const auto& c : module.computations())
    for (const auto& inst : c->instructions()) any = any || wants(*inst);
  if (!any) return std::shared_ptr<const Module>();
  auto out = std::make_shared<Module>(module.name());
  std::map<const Computation*, Computation*> copies;
  for (const auto& c : module.computations()) {
    auto copy = std::make_unique<Computation>(c->name());
    std::map<const Instruction*, Instruction*> remap;
    for (const auto& inst : c->instructions()) {
      std::vector<Instruction*> operands;
      for (const Instruction* o : inst->operands) operands.push_back(remap.at(o));
      if (wants(*inst)) {
        ASSIGN_OR_RETURN(Instruction * expanded, expand(*copy, *inst, operands));
        remap[inst.get()] = expanded;
        continue;
      }
      auto i = std::make_unique<Instruction>(*inst);
      i->operands = std::move(operands);
      remap[inst.get()] = copy->AddInstruction(std::move(i));
    }
    if (c->root()) copy->set_root(remap.at(c->root()));
    copies[c.get()] = out->AddComputation(std::move(copy));
  }
  for (const auto& c : out->computations())
    for (const auto& inst : c->instructions())
      for (auto& [key, callee] : inst->called_computations) callee = copies.at(callee);
  out->set_entry(copies.at(module.entry()));
  if (module.entry_layout()) out->set_entry_layout(*module.entry_layout());
  return std::shared_ptr<const Module>(std::move(out));
}

}  // namespace vkxla
