#include "plan/in_place_update.h"

#include <algorithm>
#include <map>
#include <set>

#include "ops/control_flow.h"
#include "ops/op_traits.h"

namespace vkxla {

namespace {

// Ops that only name or pass on values (they read no bytes themselves).
bool OnlyForwards(const Instruction& i) {
  return i.opcode == Opcode::kGetTupleElement || i.opcode == Opcode::kTuple || ForwardsOperand(i);
}

bool ReadsLeaf(const Instruction* operand, const ValueRef& leaf) {
  StatusOr<std::vector<ValueRef>> leaves = ValueLeaves(operand);
  return !leaves.ok() || std::find(leaves->begin(), leaves->end(), leaf) != leaves->end();
}

bool DynamicUpdateOfLeaf(const Computation& body, const Instruction* dus, const ValueRef& state_leaf) {
  if (dus->opcode != Opcode::kDynamicUpdateSlice || ValueRef::Of(dus->operands[0]) != state_leaf) return false;
  for (const auto& inst : body.instructions()) {
    const Instruction* i = inst.get();
    if (OnlyForwards(*i)) continue;
    for (size_t o = 0; o < i->operands.size(); ++o)
      if (!(i == dus && o == 0) && ReadsLeaf(i->operands[o], state_leaf)) return false;
  }
  return true;
}

// The elementwise chain ending at `root`: its elementwise ancestors of
// root's dims, through which the leaf may flow.
std::set<const Instruction*> ElementwiseChain(const Instruction* root) {
  std::set<const Instruction*> chain;
  std::vector<const Instruction*> work{root};
  while (!work.empty()) {
    const Instruction* i = work.back();
    work.pop_back();
    if (!IsElementwise(i->opcode) || i->shape.IsTuple() || i->shape.dims() != root->shape.dims() || !chain.insert(i).second)
      continue;
    for (const Instruction* o : i->operands) work.push_back(o);
  }
  return chain;
}

bool ElementwiseUpdateOfLeaf(const Computation& body, const Instruction* root, const ValueRef& state_leaf) {
  if (!IsElementwise(root->opcode) || root->shape.dims() != state_leaf.shape().dims()) return false;
  const std::set<const Instruction*> chain = ElementwiseChain(root);
  std::map<const Instruction*, std::vector<const Instruction*>> users;
  for (const auto& inst : body.instructions())
    for (const Instruction* o : inst->operands) users[o].push_back(inst.get());
  for (const auto& inst : body.instructions()) {
    const Instruction* i = inst.get();
    if (OnlyForwards(*i)) continue;
    for (const Instruction* o : i->operands) {
      if (!ReadsLeaf(o, state_leaf)) continue;
      // Read only by the chain, element for element (not as a scalar
      // operand of a clamp or select, which every invocation reads).
      if (!chain.count(i) || o->shape.dims() != root->shape.dims()) return false;
    }
  }
  // The chain's values flow only into root: no kernel outside it computes
  // one of them again (re-reading the leaf) after root overwrote it.
  for (const Instruction* c : chain) {
    if (c == root) continue;
    for (const Instruction* u : users[c])
      if (!chain.count(u)) return false;
  }
  return true;
}

}  // namespace

bool UpdatesInPlace(const Computation& body, const ValueRef& v, const ValueRef& state_leaf) {
  const Instruction* root = v.inst;
  if (v.index >= 0 || root->shape.IsTuple() || !root->shape.is_static() || BitWidth(root->shape.element_type()) < 32 ||
      !state_leaf.shape().is_static() || state_leaf.shape().element_type() != root->shape.element_type())
    return false;
  return DynamicUpdateOfLeaf(body, root, state_leaf) || ElementwiseUpdateOfLeaf(body, root, state_leaf);
}

}  // namespace vkxla
