#include "plan/vector_source.h"

#include <algorithm>
#include <set>

#include "ir/layout_index.h"
#include "ops/gather_scatter_plan.h"
#include "ops/slice_and_padding.h"

namespace vkxla {
namespace {

// Index maps deeper than this are read an element at a time.
constexpr int kMaxChain = 16;

// The operand dim that result dim `dim` of an index map reads along
// unchanged (element i of an aligned block is operand element i of one),
// or -1.
int64_t OperandDim(const Instruction& x, int64_t dim, int64_t block) {
  const Shape& xs = x.shape;
  switch (x.opcode) {
    case Opcode::kCopy: case Opcode::kDynamicSlice:
      // A dynamic slice's start along a dim it keeps whole clamps to 0.
      if (x.opcode == Opcode::kDynamicSlice && x.operands[0]->shape.dim(dim) != xs.dim(dim)) return -1;
      return dim;
    case Opcode::kTranspose: return (*x.dimensions)[dim];
    case Opcode::kBroadcast:
      for (size_t j = 0; j < x.dimensions->size(); ++j)
        if ((*x.dimensions)[j] == dim && x.operands[0]->shape.dim(j) == xs.dim(dim)) return static_cast<int64_t>(j);
      return -1;
    case Opcode::kReverse:
      for (int64_t d : *x.dimensions)
        if (d == dim) return -1;
      return dim;
    case Opcode::kSlice: {
      StatusOr<std::vector<SliceDimension>> s = SliceOf(x);
      if (!s.ok() || (*s)[dim].stride != 1 || (*s)[dim].start % block != 0) return -1;
      return dim;
    }
    case Opcode::kPad: {
      // A block is wholly inside or wholly padding when the low edge falls
      // on a block (the operand's extent being whole blocks too).
      StatusOr<std::vector<PaddingDimension>> p = PaddingOf(x);
      if (!p.ok() || (*p)[dim].interior != 0 || (*p)[dim].low % block != 0) return -1;
      return dim;
    }
    case Opcode::kReshape: {
      // Row-major positions match: the operand dim with as many elements
      // after it as the result dim has (both whole blocks, checked as the
      // walk goes on, keep a block inside one row of it).
      const Shape& in = x.operands[0]->shape;
      int64_t after = 1;
      for (int64_t d = dim + 1; d < xs.rank(); ++d) after *= xs.dim(d);
      int64_t in_after = 1;
      for (int64_t e = in.rank() - 1; e >= 0; --e) {
        if (in_after == after && in.dim(e) % block == 0) return e;
        in_after *= in.dim(e);
      }
      return -1;
    }
    case Opcode::kGather: {
      // A window dim of an operand dim no start index moves.
      StatusOr<GatherPlan> g = PlanGather(x);
      if (!g.ok()) return -1;
      const OperandIndexWiring& w = g->operand;
      for (size_t od = 0; od < w.window_from.size(); ++od)
        if (w.window_from[od] == dim && w.start_component[od] < 0 && w.batch_from[od] < 0) return static_cast<int64_t>(od);
      return -1;
    }
    default: return -1;
  }
}

// Whether the operands of the chain's index maps other than the one it
// follows (gather indices, dynamic-slice starts, the padding value) read
// none of the chain or its buffer's value: code generation gives those
// addresses, not values. A walk of at most kMaxSideWalk fused producers.
bool SideOperandsAvoidChain(const VectorSource& source, const MaterializedLayoutFn& materialized) {
  constexpr size_t kMaxSideWalk = 256;
  std::set<const Instruction*> addressed(source.chain.begin(), source.chain.end());
  addressed.insert(source.value);
  std::vector<const Instruction*> stack;
  for (const Instruction* n : source.chain)
    for (size_t i = 1; i < n->operands.size(); ++i) stack.push_back(n->operands[i]);
  std::set<const Instruction*> seen;
  while (!stack.empty()) {
    const Instruction* n = stack.back();
    stack.pop_back();
    if (addressed.count(n)) return false;
    if (!seen.insert(n).second) continue;
    if (seen.size() > kMaxSideWalk) return false;
    if (materialized(n)) continue;
    for (const Instruction* o : n->operands) stack.push_back(o);
  }
  return true;
}

}  // namespace

std::optional<VectorSource> FindVectorSource(const Instruction* x, int64_t dim, int64_t block,
                                             const MaterializedLayoutFn& materialized) {
  if (block < 1) return std::nullopt;
  const ElementType t = x->shape.element_type();
  VectorSource source;
  for (int depth = 0; depth < kMaxChain; ++depth) {
    if (!x->shape.IsArray() || !x->shape.is_static() || x->shape.element_type() != t || dim < 0 || dim >= x->shape.rank() ||
        x->shape.dim(dim) % block != 0)
      return std::nullopt;
    const bool inline_scalar = x->opcode == Opcode::kConstant && x->shape.element_count() == 1;
    if (std::optional<Layout> l = inline_scalar ? std::nullopt : materialized(x)) {
      StatusOr<int> bits = ElementStorageBits(t, *l);
      // The unit-stride dim: the minor-most one, unit dims aside (they
      // move no address: a weight stored [3,3,32,1] is contiguous along 32).
      size_t minor = 0;
      while (minor + 1 < l->minor_to_major.size() && l->minor_to_major[minor] != dim &&
             x->shape.dim(l->minor_to_major[minor]) == 1)
        ++minor;
      if (!l->tiles.empty() || l->minor_to_major.empty() || l->minor_to_major[minor] != dim || !bits.ok() || *bits != BitWidth(t))
        return std::nullopt;
      source.value = x;
      source.layout = *l;
      if (!SideOperandsAvoidChain(source, materialized)) return std::nullopt;
      return source;
    }
    const int64_t next = OperandDim(*x, dim, block);
    if (next < 0 || (x->opcode == Opcode::kPad && source.pad)) return std::nullopt;
    if (x->opcode == Opcode::kPad) source.pad = x;
    source.chain.push_back(x);
    x = x->operands[0];
    dim = next;
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>> ShiftOf(const VectorSource& source) {
  // A pad must lie on the value itself, so that padding is exactly the
  // shifted index falling outside it (a slice under a pad would make
  // padding of elements the value has).
  if (source.chain.empty() || source.value->shape.rank() != source.chain.front()->shape.rank() ||
      (source.pad && source.pad != source.chain.back()))
    return std::nullopt;
  std::vector<int64_t> shift(static_cast<size_t>(source.value->shape.rank()), 0);
  for (const Instruction* n : source.chain) {
    if (n->opcode == Opcode::kCopy) continue;
    if (n->opcode == Opcode::kSlice) {
      StatusOr<std::vector<SliceDimension>> s = SliceOf(*n);
      if (!s.ok()) return std::nullopt;
      for (size_t d = 0; d < shift.size(); ++d) {
        if ((*s)[d].stride != 1) return std::nullopt;
        shift[d] += (*s)[d].start;
      }
    } else if (n->opcode == Opcode::kPad) {
      StatusOr<std::vector<PaddingDimension>> p = PaddingOf(*n);
      if (!p.ok()) return std::nullopt;
      for (size_t d = 0; d < shift.size(); ++d) {
        if ((*p)[d].interior != 0) return std::nullopt;
        shift[d] -= (*p)[d].low;
      }
    } else {
      return std::nullopt;
    }
  }
  return shift;
}

bool ReadIgnoresDim(const Instruction* x, int64_t dim, const MaterializedLayoutFn& materialized) {
  for (int depth = 0; depth < kMaxChain; ++depth) {
    if (!x->shape.IsArray() || dim < 0 || dim >= x->shape.rank() || materialized(x)) return false;
    if (x->opcode == Opcode::kBroadcast) {
      const std::vector<int64_t>& kept = *x->dimensions;
      const auto it = std::find(kept.begin(), kept.end(), dim);
      if (it == kept.end()) return true;
      if (x->operands[0]->shape.dim(it - kept.begin()) == 1) return true;
    }
    const int64_t next = OperandDim(*x, dim, 1);
    if (next < 0) return false;
    x = x->operands[0];
    dim = next;
  }
  return false;
}

}  // namespace vkxla
