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

void Computation::ReplaceUses(const Instruction* old, Instruction* with) {
  for (const auto& inst : instructions_)
    for (Instruction*& o : inst->operands)
      if (o == old) o = with;
  if (root_ == old) root_ = with;
}

std::vector<std::unique_ptr<Instruction>> Computation::Extract(const std::set<const Instruction*>& taken) {
  std::vector<std::unique_ptr<Instruction>> out, kept;
  for (auto& inst : instructions_) {
    if (taken.count(inst.get())) {
      by_name_.erase(inst->name);
      out.push_back(std::move(inst));
    } else {
      kept.push_back(std::move(inst));
    }
  }
  instructions_ = std::move(kept);
  return out;
}

void Computation::RestoreDefinitionOrder() {
  // Kahn's walk, always taking the earliest ready instruction.
  std::map<const Instruction*, size_t> position;
  for (size_t i = 0; i < instructions_.size(); ++i) position[instructions_[i].get()] = i;
  std::vector<size_t> waiting(instructions_.size(), 0);
  std::vector<std::vector<size_t>> users(instructions_.size());
  for (size_t i = 0; i < instructions_.size(); ++i)
    for (const Instruction* o : instructions_[i]->operands) {
      auto found = position.find(o);
      if (found == position.end()) continue;
      ++waiting[i];
      users[found->second].push_back(i);
    }
  std::set<size_t> ready;
  for (size_t i = 0; i < instructions_.size(); ++i)
    if (waiting[i] == 0) ready.insert(i);
  std::vector<std::unique_ptr<Instruction>> ordered;
  while (!ready.empty()) {
    const size_t i = *ready.begin();
    ready.erase(ready.begin());
    for (size_t u : users[i])
      if (--waiting[u] == 0) ready.insert(u);
    ordered.push_back(std::move(instructions_[i]));
  }
  // A cycle (no pass makes one) leaves its instructions where they were.
  for (auto& inst : instructions_)
    if (inst) ordered.push_back(std::move(inst));
  instructions_ = std::move(ordered);
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

void Module::RemoveComputations(const std::vector<const Computation*>& unused) {
  std::erase_if(computations_, [&](const std::unique_ptr<Computation>& c) {
    return std::find(unused.begin(), unused.end(), c.get()) != unused.end();
  });
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
