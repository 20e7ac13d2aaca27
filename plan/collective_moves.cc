#include "plan/collective_moves.h"

#include <algorithm>

#include "ir/layout_index.h"
#include "ops/collectives.h"

namespace vkxla {

namespace {

std::vector<Shape> WithLayouts(std::vector<Shape> shapes) {
  for (Shape& s : shapes)
    if (!s.has_layout()) s.set_layout(Layout::Descending(s.rank()));
  return shapes;
}

// Bytes an element takes, or 0 where the layout tiles the array or packs
// elements below a byte.
int64_t PlainElementBytes(const Shape& s) {
  if (!s.IsArray() || !s.layout_or_default().tiles.empty()) return 0;
  StatusOr<int> bits = ElementStorageBits(s.element_type(), s.layout_or_default());
  return bits.ok() && *bits >= 8 && *bits % 8 == 0 ? *bits / 8 : 0;
}

int64_t MinorMost(const Shape& s) { return s.rank() == 0 ? -1 : s.layout_or_default().minor_to_major[0]; }

// Element strides of an untiled layout, by logical dimension.
std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> stride(static_cast<size_t>(s.rank()), 1);
  int64_t step = 1;
  for (int64_t d : s.layout_or_default().minor_to_major) {
    stride[static_cast<size_t>(d)] = step;
    step *= s.dim(d);
  }
  return stride;
}

}  // namespace

bool MovesBytesBetweenBuffers(const Instruction& op, const std::vector<Shape>& operand_leaves,
                              const std::vector<Shape>& result_leaves) {
  if (!MovesElementsOnly(op) || operand_leaves.empty() || result_leaves.empty()) return false;
  const std::vector<Shape> in = WithLayouts(operand_leaves), out = WithLayouts(result_leaves);
  const int64_t rank = out[0].rank(), minor = MinorMost(out[0]);
  for (const std::vector<Shape>* list : {&in, &out})
    for (const Shape& s : *list)
      if (PlainElementBytes(s) == 0 || s.rank() != rank || MinorMost(s) != minor) return false;
  // Runs a result leaf takes at most: one a row along the minor-most
  // dimension, times the blocks a row joins where it gathers along it.
  if (rank == 0) return true;
  const int64_t inner_in = std::max<int64_t>(1, in[0].dim(minor));
  for (const Shape& r : out) {
    const int64_t inner = std::max<int64_t>(1, r.dim(minor));
    const int64_t rows = r.element_count() / inner, blocks = std::max<int64_t>(1, inner / inner_in);
    if (rows > kMaxByteMoves || rows * blocks > kMaxByteMoves) return false;
  }
  return true;
}

bool ScatteredBlocksAreRuns(const Instruction& op, const std::vector<Shape>& operand_leaves,
                            const std::vector<Shape>& result_leaves) {
  if (!ScattersFold(op) || operand_leaves.size() != result_leaves.size() || operand_leaves.empty()) return false;
  const int64_t d = (*op.dimensions)[0];
  const std::vector<Shape> in = WithLayouts(operand_leaves), out = WithLayouts(result_leaves);
  for (size_t k = 0; k < in.size(); ++k) {
    const Shape &s = in[k], &r = out[k];
    if (PlainElementBytes(s) == 0 || PlainElementBytes(r) != PlainElementBytes(s) || s.rank() != r.rank() || d >= s.rank() ||
        s.layout_or_default().minor_to_major != r.layout_or_default().minor_to_major ||
        s.layout_or_default().minor_to_major.back() != d)
      return false;
  }
  return true;
}

StatusOr<std::vector<LeafBytes>> CollectiveByteMoves(const Instruction& op, int64_t group_size, int64_t position,
                                                     const std::vector<Shape>& operand_leaves,
                                                     const std::vector<Shape>& result_leaves) {
  if (!MovesBytesBetweenBuffers(op, operand_leaves, result_leaves))
    return Internal(op.Describe() + " does not move bytes between buffers");
  const std::vector<Shape> in = WithLayouts(operand_leaves), out = WithLayouts(result_leaves);
  VKXLA_ASSIGN_OR_RETURN(std::vector<LeafMove> rules, ResultMoves(op, group_size, position, in));
  if (rules.size() != out.size()) return Internal(op.Describe() + ": one rule per result leaf");
  std::vector<LeafBytes> leaves(out.size());
  for (size_t k = 0; k < out.size(); ++k) {
    const LeafMove& rule = rules[k];
    if (rule.kind == LeafMove::Kind::kZeros) {
      leaves[k].zeros = true;
      continue;
    }
    if (rule.leaf >= in.size()) return Internal(op.Describe() + ": a rule names a missing operand");
    const Shape &r = out[k], &s = in[rule.leaf];
    const int64_t bytes = PlainElementBytes(r);
    if (bytes != PlainElementBytes(s)) return Internal(op.Describe() + ": operand and result elements differ in size");
    if (r.element_count() == 0) continue;
    const int64_t rank = r.rank();
    const int64_t inner = rank == 0 ? -1 : MinorMost(r);
    const int64_t n = rank == 0 ? 1 : r.dim(inner);
    const bool blocks = rule.kind == LeafMove::Kind::kBlocks;
    const int64_t block = blocks ? r.dim(rule.along) / group_size : 0;
    if (blocks && (block <= 0 || r.dim(rule.along) % group_size != 0))
      return Internal(op.Describe() + ": result " + r.ToString() + " does not split into the group's blocks");
    const std::vector<int64_t> rs = Strides(r), ss = Strides(s);
    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    // The outer dimensions in physical order, major first, as an odometer.
    std::vector<int64_t> outer;
    if (rank > 0) {
      const std::vector<int64_t>& m2m = r.layout_or_default().minor_to_major;
      for (size_t i = m2m.size(); i-- > 1;) outer.push_back(m2m[i]);
    }
    std::vector<ByteMove>& moves = leaves[k].moves;
    for (bool more = true; more;) {
      for (int64_t a = 0; a < n;) {
        if (rank > 0) index[static_cast<size_t>(inner)] = a;
        int64_t b = n, member = rule.member;
        std::vector<int64_t> source = index;
        if (blocks) {
          const size_t along = static_cast<size_t>(rule.along);
          member = index[along] / block;
          source[along] -= member * block;
          source[static_cast<size_t>(rule.shift_dim)] += rule.shift;
          if (rule.along == inner) b = std::min(n, (a / block + 1) * block);
        }
        uint64_t from = 0, to = 0;
        for (int64_t d = 0; d < rank; ++d) {
          const size_t i = static_cast<size_t>(d);
          if (source[i] < 0 || source[i] >= s.dim(d)) return Internal(op.Describe() + ": a move reads outside its operand");
          from += static_cast<uint64_t>(source[i] * ss[i]);
          to += static_cast<uint64_t>(index[i] * rs[i]);
        }
        const ByteMove m{member, rule.leaf, from * bytes, to * bytes, static_cast<uint64_t>((b - a) * bytes)};
        ByteMove* last = moves.empty() ? nullptr : &moves.back();
        if (last && last->member == m.member && last->leaf == m.leaf && last->from + last->bytes == m.from &&
            last->to + last->bytes == m.to) {
          last->bytes += m.bytes;
        } else {
          moves.push_back(m);
        }
        a = b;
      }
      more = false;
      for (size_t i = outer.size(); i-- > 0;) {
        const size_t d = static_cast<size_t>(outer[i]);
        if (++index[d] < r.dim(outer[i])) {
          more = true;
          break;
        }
        index[d] = 0;
      }
    }
  }
  return leaves;
}

}  // namespace vkxla
