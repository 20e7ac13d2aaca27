#include "plan/value_ref.h"

#include <deque>

#include "ops/control_flow.h"

namespace vkxla {

namespace {

// A place inside a (possibly nested) tuple-shaped value: element path[0]
// of inst, then element path[1] of that, ...
struct Position {
  const Instruction* inst = nullptr;
  std::deque<int64_t> path;
};

// Where a read of `p` leads: get-tuple-element steps into its operand,
// tuple instructions to the operand the path names, forwarding ops to
// their operand. Each step moves to an operand, so it ends.
Position Follow(Position p) {
  for (;;) {
    const Instruction& i = *p.inst;
    if (ForwardsOperand(i) && !i.operands.empty()) {
      p.inst = i.operands[0];
    } else if (i.opcode == Opcode::kTuple && !p.path.empty() && p.path.front() >= 0 &&
               p.path.front() < static_cast<int64_t>(i.operands.size())) {
      p.inst = i.operands[p.path.front()];
      p.path.pop_front();
    } else if (i.opcode == Opcode::kGetTupleElement && !i.operands.empty()) {
      p.path.push_front(i.tuple_index);
      p.inst = i.operands[0];
    } else {
      return p;
    }
  }
}

// Elements that are not tuples (arrays and tokens) in `s`, depth first.
int64_t FlatCount(const Shape& s) {
  int64_t n = 0;
  std::vector<const Shape*> stack{&s};
  while (!stack.empty()) {
    const Shape* x = stack.back();
    stack.pop_back();
    if (!x->IsTuple()) {
      ++n;
      continue;
    }
    for (const Shape& e : x->tuple_shapes()) stack.push_back(&e);
  }
  return n;
}

// The shape at `path` in `s` and its flat index (the number of non-tuple
// elements before it, depth first); null for a path that leaves `s`.
const Shape* AtPath(const Shape& s, const std::deque<int64_t>& path, int64_t& flat) {
  const Shape* at = &s;
  flat = 0;
  for (int64_t k : path) {
    if (!at->IsTuple() || k < 0 || k >= static_cast<int64_t>(at->tuple_shapes().size())) return nullptr;
    for (int64_t j = 0; j < k; ++j) flat += FlatCount(at->tuple_shapes()[j]);
    at = &at->tuple_shapes()[k];
  }
  return at;
}

}  // namespace

ValueRef ValueRef::Of(const Instruction* read) {
  const Position p = Follow(Position{read, {}});
  int64_t flat = 0;
  const Shape* at = AtPath(p.inst->shape, p.path, flat);
  // A tuple inside a tuple-shaped op stands for the op (ValueLeaves gives
  // its arrays).
  if (p.path.empty() || !at || at->IsTuple()) return ValueRef{p.inst, -1};
  return ValueRef{p.inst, flat};
}

const Shape& ValueRef::shape() const {
  if (index < 0 || !inst->shape.IsTuple()) return inst->shape;
  // The index-th non-tuple element, depth first.
  int64_t left = index;
  std::vector<const Shape*> stack{&inst->shape};
  while (!stack.empty()) {
    const Shape* x = stack.back();
    stack.pop_back();
    if (!x->IsTuple()) {
      if (left-- == 0) return *x;
      continue;
    }
    for (size_t k = x->tuple_shapes().size(); k-- > 0;) stack.push_back(&x->tuple_shapes()[k]);
  }
  return inst->shape;
}

std::string ValueRef::ToString() const {
  return "%" + inst->name + (index >= 0 ? "." + std::to_string(index) : "");
}

StatusOr<std::vector<ValueRef>> ValueLeaves(const Instruction* root) {
  std::vector<ValueRef> leaves;
  std::vector<Position> stack = {Position{root, {}}};
  while (!stack.empty()) {
    const Position p = Follow(std::move(stack.back()));
    stack.pop_back();
    if (p.path.empty() && p.inst->opcode == Opcode::kTuple) {
      for (size_t k = p.inst->operands.size(); k-- > 0;) stack.push_back(Position{p.inst->operands[k], {}});
      continue;
    }
    int64_t flat = 0;
    const Shape* at = AtPath(p.inst->shape, p.path, flat);
    if (!at)
      return InvalidArgument(std::string(OpcodeName(p.inst->opcode)) + " " + p.inst->Describe() +
                             ": a get-tuple-element past the end of " + p.inst->shape.ToString());
    if (at->IsToken()) continue;
    if (!at->IsTuple()) {
      leaves.push_back(ValueRef{p.inst, p.path.empty() ? -1 : flat});
      continue;
    }
    for (size_t k = at->tuple_shapes().size(); k-- > 0;) {
      Position e = p;
      e.path.push_back(static_cast<int64_t>(k));
      stack.push_back(std::move(e));
    }
  }
  return leaves;
}

}  // namespace vkxla
