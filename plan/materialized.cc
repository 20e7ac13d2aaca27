#include "plan/materialized.h"

#include <set>
#include <vector>

#include "ops/op_traits.h"

namespace vkxla {

Layout LeafLayout(const Instruction* n, const Instruction* root, const Layout& root_layout,
                  const MaterializedLayoutFn& materialized) {
  // perm[d]: the dim of `n` that dim d of the current instruction is.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < n->shape.rank(); ++d) perm.push_back(d);
  while (n != root && !materialized(n) && !n->operands.empty() && n->operands[0]->shape.IsArray() &&
         n->operands[0]->shape.rank() == n->shape.rank()) {
    if (n->opcode == Opcode::kTranspose) {
      // Operand dim dimensions[i] is result dim i.
      std::vector<int64_t> inner(perm.size());
      for (size_t i = 0; i < perm.size(); ++i) inner[(*n->dimensions)[i]] = perm[i];
      perm = std::move(inner);
    } else if (!IsElementwise(n->opcode) && n->opcode != Opcode::kCopy) {
      break;
    }
    n = n->operands[0];
  }
  Layout layout = n == root ? root_layout : materialized(n).value_or(n->shape.layout_or_default());
  // Tiles stay as they are: a tiled leaf is never read as whole vectors,
  // only its dim order matters to the readers.
  for (int64_t& d : layout.minor_to_major) d = perm[d];
  return layout;
}

bool VisitInline(const Instruction* v, const MaterializedLayoutFn& materialized,
                 const std::function<bool(const Instruction*)>& visit) {
  std::set<const Instruction*> seen;
  std::vector<const Instruction*> stack = {v};
  while (!stack.empty()) {
    const Instruction* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second || (n != v && materialized(n))) continue;
    if (!visit(n)) return false;
    for (const Instruction* o : n->operands) stack.push_back(o);
  }
  return true;
}

}  // namespace vkxla
