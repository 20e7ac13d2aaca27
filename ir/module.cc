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
  // In the old order, each instruction preceded by those of its operands
  // not yet placed (an iterative depth-first walk): the originals keep
  // their order, a new one goes just before its first user.
  std::map<const Instruction*, size_t> position;
  for (size_t i = 0; i < instructions_.size(); ++i) position[instructions_[i].get()] = i;
  std::vector<char> state(instructions_.size(), 0);  // 0 new, 1 opened, 2 placed
  std::vector<std::unique_ptr<Instruction>> ordered;
  for (size_t start = 0; start < instructions_.size(); ++start) {
    std::vector<size_t> stack = {start};
    while (!stack.empty()) {
      const size_t i = stack.back();
      if (state[i] == 2) {
        stack.pop_back();
        continue;
      }
      if (state[i] == 0) {
        state[i] = 1;
        const auto& operands = instructions_[i]->operands;
        for (size_t k = operands.size(); k-- > 0;) {
          auto found = position.find(operands[k]);
          if (found != position.end() && state[found->second] == 0) stack.push_back(found->second);
        }
        continue;
      }
      // Opened, its operands placed (or on a cycle no pass makes): placed.
      state[i] = 2;
      stack.pop_back();
      ordered.push_back(std::move(instructions_[i]));
    }
  }
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
