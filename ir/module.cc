#include "ir/module.h"

#include <algorithm>
#include <map>

namespace vkxla {

Instruction* Computation::AddInstruction(std::unique_ptr<Instruction> inst) {
  Instruction* raw = inst.get();
  by_name_[raw->name] = raw;
  instructions_.push_back(std::move(inst));
  return raw;
}

std::vector<Instruction*> Computation::parameters() const {
  std::vector<Instruction*> params;
  for (const auto& i : instructions_)
    if (i->opcode == Opcode::kParameter) params.push_back(i.get());
  std::sort(params.begin(), params.end(),
            [](const Instruction* a, const Instruction* b) { return a->parameter_number < b->parameter_number; });
  return params;
}

Instruction* Computation::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::unique_ptr<Computation> Computation::Clone(std::string name) const {
  auto copy = std::make_unique<Computation>(std::move(name));
  std::map<const Instruction*, Instruction*> remap;
  for (const auto& inst : instructions_) {
    auto c = std::make_unique<Instruction>(*inst);
    for (Instruction*& o : c->operands) o = remap.at(o);
    remap[inst.get()] = copy->AddInstruction(std::move(c));
  }
  if (root_) copy->set_root(remap.at(root_));
  return copy;
}

std::string ProgramShape::ToString() const {
  std::string s = "(";
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (i) s += ", ";
    s += parameters[i].ToString();
  }
  return s + ")->" + result.ToString();
}

Computation* Module::AddComputation(std::unique_ptr<Computation> c) {
  computations_.push_back(std::move(c));
  return computations_.back().get();
}

Computation* Module::Find(const std::string& name) const {
  for (const auto& c : computations_)
    if (c->name() == name) return c.get();
  return nullptr;
}

ProgramShape Module::EntryProgramShape() const {
  if (entry_layout_) return *entry_layout_;
  ProgramShape p;
  for (Instruction* param : entry_->parameters()) p.parameters.push_back(param->shape);
  p.result = entry_->root()->shape;
  return p;
}

}  // namespace vkxla
