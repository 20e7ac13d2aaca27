// Ops that fuse as index maps: each result element is an operand element
// at a computed index (reshape, transpose, slice, pad, bitcast, ...).
#include "codegen/element_emitter.h"

#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "ir/layout_index.h"
#include "ops/attributes.h"
#include "ops/gather_scatter_plan.h"
#include "ops/slice_and_padding.h"

namespace vkxla {

// XLA's bitcast: the element at logical `idx` of the result sits at some
// physical position; the operand's element at that same physical position
// (through the operand's own layout) is the value.
StatusOr<std::string> ElementEmitter::Reinterpret(const Instruction* n, const std::vector<std::string>& idx) {
  const Instruction* x = n->operands[0];
  Shape out = n->shape, in = x->shape;
  out.set_layout(LayoutOf(n));
  in.set_layout(LayoutOf(x));
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out));
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap in_map, TiledIndexMap::Create(in));
  GlslIndexArithmetic a;
  const std::string q = Temp("uint", out_map.ToPhysical(idx, a));
  std::string valid;
  std::vector<std::string> in_idx = in_map.FromPhysical<GlslIndexArithmetic>(q, a, valid);
  if (valid != "true") {
    // That position is padding of the operand: its value is unspecified, so
    // read element 0 rather than anything out of bounds.
    const std::string ok = Temp("bool", valid);
    for (std::string& i : in_idx) i = "(" + ok + " ? " + i + " : 0u)";
  }
  for (std::string& i : in_idx) i = Temp("uint", i);
  return Value(x, in_idx);
}

// Data movement fuses as an index map: the element at `idx` of the result
// is an operand element at another index (or the padding value).
StatusOr<std::string> ElementEmitter::MoveElements(const Instruction* n, const std::vector<std::string>& idx) {
  const Instruction* x = n->operands[0];
  GlslIndexArithmetic a;
  std::vector<std::string> in(idx);
  switch (n->opcode) {
    case Opcode::kReshape: {
      // Row-major positions match. The dims split into consecutive groups
      // of equal element counts on both sides; a group of one dim each
      // (unit dims aside) maps its index straight, and only the others
      // go through a linear index (a weight reshaped [3,3,32,1] ->
      // [3,3,1,32] reads w[i0,i1,i3,0], no divisions).
      const Shape &out = n->shape, &from = x->shape;
      in.assign(from.rank(), "0u");
      auto map_group = [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
        std::vector<int64_t> outs, ins;
        for (int64_t d = i0; d < i1; ++d)
          if (out.dim(d) != 1) outs.push_back(d);
        for (int64_t d = j0; d < j1; ++d)
          if (from.dim(d) != 1) ins.push_back(d);
        if (outs.size() == 1 && ins.size() == 1) {
          in[ins[0]] = idx[outs[0]];
          return;
        }
        std::string linear = a.Constant(0);
        for (int64_t d : outs) linear = a.Add(a.MulConstant(linear, out.dim(d)), idx[d]);
        linear = Temp("uint", linear);
        int64_t stride = 1;
        for (size_t k = ins.size(); k-- > 0;) {
          const std::string q = a.DivConstant(linear, stride);
          in[ins[k]] = k == 0 ? q : a.ModConstant(q, from.dim(ins[k]));
          stride *= from.dim(ins[k]);
        }
      };
      if (out.element_count() == 0) break;
      int64_t i = 0, j = 0;
      while (i < out.rank() && j < from.rank()) {
        int64_t i1 = i + 1, j1 = j + 1, po = out.dim(i), pi = from.dim(j);
        while (po != pi && (i1 < out.rank() || j1 < from.rank())) {
          if ((po < pi && i1 < out.rank()) || j1 == from.rank()) {
            po *= out.dim(i1++);
          } else {
            pi *= from.dim(j1++);
          }
        }
        if (po != pi) return Internal(n->Describe() + ": reshape of " + from.ToString() + " to " + out.ToString() + " changes the element count");
        // Trailing unit dims of either side join the last group.
        if (i1 == out.rank() || j1 == from.rank()) i1 = out.rank(), j1 = from.rank();
        map_group(i, i1, j, j1);
        i = i1, j = j1;
      }
      break;
    }
    case Opcode::kTranspose:
      // The operand's index is the result's, permuted: no new temporaries,
      // so block mode still recognizes it.
      for (size_t d = 0; d < idx.size(); ++d) in[(*n->dimensions)[d]] = idx[d];
      return Value(x, in);
    case Opcode::kReverse:
      for (int64_t d : *n->dimensions) in[d] = "(" + U(x->shape.dim(d) - 1) + " - " + idx[d] + ")";
      break;
    case Opcode::kSlice: {
      VKXLA_ASSIGN_OR_RETURN(std::vector<SliceDimension> slice, SliceOf(*n));
      for (size_t d = 0; d < idx.size(); ++d) in[d] = a.Add(a.Constant(slice[d].start), a.MulConstant(idx[d], slice[d].stride));
      break;
    }
    case Opcode::kConcatenate: {
      // Every operand is read at a clamped index; the position picks one.
      const int64_t dim = (*n->dimensions)[0];
      int64_t offset = 0;
      std::vector<std::pair<int64_t, std::string>> parts;
      for (const Instruction* o : n->operands) {
        std::vector<std::string> at(idx);
        const int64_t size = o->shape.dim(dim);
        if (size == 0) continue;
        at[dim] = Temp("uint", ConcatenatePartIndex(idx[dim], offset, size));
        VKXLA_ASSIGN_OR_RETURN(std::string v, Value(o, at));
        offset += size;
        parts.emplace_back(offset, v);
      }
      VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(n->shape.element_type(), target_, n->Describe()));
      return Temp(g.compute, PickConcatenatePart(idx[dim], parts));
    }
    case Opcode::kPad: {
      VKXLA_ASSIGN_OR_RETURN(std::vector<PaddingDimension> padding, PaddingOf(*n));
      std::string inside = "true";
      for (size_t d = 0; d < idx.size(); ++d) {
        const PaddingDimension& p = padding[d];
        const int64_t step = p.interior + 1;
        // t = idx - low as a signed value; inside when 0 <= t, t % step == 0, t / step < dim.
        const std::string t = Temp("int", "int(" + idx[d] + ") - " + std::to_string(p.low));
        std::string ok = "(" + t + " >= 0 && " + t + " < " + std::to_string((x->shape.dim(d) - 1) * step + 1) + ")";
        if (step > 1) ok = "(" + ok + " && (" + t + " % " + std::to_string(step) + ") == 0)";
        const std::string ok_d = Temp("bool", ok);
        inside = inside == "true" ? ok_d : inside + " && " + ok_d;
        const std::string src = step > 1 ? "uint(" + t + ") / " + U(step) : "uint(" + t + ")";
        in[d] = Temp("uint", ok_d + " ? " + src + " : 0u");
      }
      VKXLA_ASSIGN_OR_RETURN(std::string v, Value(x, in));
      // An address (see AddressFunction): none where the padding is.
      if (address_chain_.count(n)) return Temp("uint", "(" + inside + " ? " + v + " : 0xFFFFFFFFu)");
      VKXLA_ASSIGN_OR_RETURN(std::string pad, Value(n->operands[1], {}));
      VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(n->shape.element_type(), target_, n->Describe()));
      return Temp(g.compute, "(" + inside + " ? " + v + " : " + pad + ")");
    }
    default:
      return Internal("not a data-movement op");
  }
  for (std::string& i : in) i = Temp("uint", i);
  return Value(x, in);
}

std::string ElementEmitter::ConcatenatePartIndex(const std::string& at, int64_t start, int64_t size) {
  const std::string shifted = start == 0 ? at : "(" + at + " >= " + U(start) + " ? " + at + " - " + U(start) + " : 0u)";
  return "min(" + shifted + ", " + U(size - 1) + ")";
}

std::string ElementEmitter::PickConcatenatePart(const std::string& at, const std::vector<std::pair<int64_t, std::string>>& parts) {
  std::string result = parts.back().second;
  for (size_t k = parts.size() - 1; k-- > 0;) result = "(" + at + " < " + U(parts[k].first) + " ? " + parts[k].second + " : " + result + ")";
  return result;
}

StatusOr<std::string> ElementEmitter::IndexAsInt(const Instruction* n, const std::vector<std::string>& idx) {
  VKXLA_ASSIGN_OR_RETURN(std::string v, Value(n, idx));
  std::string e;
  switch (n->shape.element_type()) {
    case ElementType::kU32: e = "int(min(" + v + ", 0x7FFFFFFFu))"; break;
    case ElementType::kS64: e = "int(clamp(" + v + ", int64_t(-2147483647) - 1l, int64_t(2147483647)))"; break;
    case ElementType::kU64: e = "int(min(" + v + ", uint64_t(0x7FFFFFFFu)))"; break;
    default: e = "int(" + v + ")"; break;
  }
  return Temp("int", e);
}

StatusOr<std::string> ElementEmitter::ClampedIndex(const Instruction* n, const std::vector<std::string>& idx, int64_t limit) {
  VKXLA_ASSIGN_OR_RETURN(std::string v, IndexAsInt(n, idx));
  return Temp("uint", "uint(clamp(" + v + ", 0, " + std::to_string(std::max<int64_t>(limit, 0)) + "))");
}

// dynamic-slice and gather read the operand at a clamped start plus the
// result index; dynamic-update-slice picks the update inside its window.
StatusOr<std::string> ElementEmitter::IndexElements(const Instruction* n, const std::vector<std::string>& idx) {
  const Instruction* x = n->operands[0];
  const Shape& xs = x->shape;
  GlslIndexArithmetic a;
  std::vector<std::string> in(xs.rank(), "0u");
  switch (n->opcode) {
    case Opcode::kDynamicSlice:
      for (int64_t d = 0; d < xs.rank(); ++d) {
        VKXLA_ASSIGN_OR_RETURN(std::string start, ClampedIndex(n->operands[1 + d], {}, xs.dim(d) - n->shape.dim(d)));
        in[d] = Temp("uint", start + " + " + idx[d]);
      }
      return Value(x, in);
    case Opcode::kDynamicUpdateSlice: {
      const Instruction* update = n->operands[1];
      if (update->shape.element_count() == 0) return Value(x, idx);
      std::string inside = "true";
      std::vector<std::string> at(xs.rank());
      for (int64_t d = 0; d < xs.rank(); ++d) {
        VKXLA_ASSIGN_OR_RETURN(std::string s, ClampedIndex(n->operands[2 + d], {}, xs.dim(d) - update->shape.dim(d)));
        const std::string ok = Temp("bool", idx[d] + " >= " + s + " && " + idx[d] + " < " + s + " + " + U(update->shape.dim(d)));
        inside = inside == "true" ? ok : inside + " && " + ok;
        at[d] = Temp("uint", ok + " ? " + idx[d] + " - " + s + " : 0u");
      }
      VKXLA_ASSIGN_OR_RETURN(std::string updated, Value(update, at));
      VKXLA_ASSIGN_OR_RETURN(std::string kept, Value(x, idx));
      VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(n->shape.element_type(), target_, n->Describe()));
      return Temp(g.compute, "(" + inside + " ? " + updated + " : " + kept + ")");
    }
    case Opcode::kGather: {
      VKXLA_ASSIGN_OR_RETURN(GatherPlan plan, PlanGather(*n));
      const OperandIndexWiring& w = plan.operand;
      for (int64_t d = 0; d < xs.rank(); ++d) {
        std::string term = "0u";
        if (w.start_component[d] >= 0) {
          std::vector<std::string> at;
          for (int64_t from : plan.indices.from_outer) at.push_back(from < 0 ? U(w.start_component[d]) : idx[from]);
          VKXLA_ASSIGN_OR_RETURN(term, ClampedIndex(n->operands[1], at, xs.dim(d) - w.window_size[d]));
        } else if (w.batch_from[d] >= 0) {
          term = idx[w.batch_from[d]];
        }
        if (w.window_from[d] >= 0) term = a.Add(term, idx[w.window_from[d]]);
        in[d] = Temp("uint", term);
      }
      return Value(x, in);
    }
    default:
      return Internal("not an indexing op");
  }
}

}  // namespace vkxla

namespace vkxla {

// A sort's (topk's) results: element i of a line is the operand's element
// at permutation[i] (the permutation its network wrote).
StatusOr<std::vector<std::string>> ElementEmitter::SortResults(const Instruction* n, const std::vector<std::string>& idx) {
  auto perm = program_.permutation_buffer.find(n);
  const SortConfig* c = nullptr;
  for (const FusionGroup& g : program_.groups)
    if (g.kind == KernelKind::kSort && g.hero == n) c = &std::get<SortConfig>(g.config);
  if (perm == program_.permutation_buffer.end() || !c) return Internal(n->Describe() + ": no permutation buffer was planned");
  GlslIndexArithmetic a;
  std::string line = a.Constant(0);
  const Shape& x = n->operands[0]->shape;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != c->dim) line = a.Add(a.MulConstant(line, x.dim(d)), idx[d]);
  const std::string word = Temp("uint", a.Add(a.MulConstant(line, c->padded), idx[c->dim]));
  const BufferDecl& b = program_.buffers[perm->second];
  VKXLA_ASSIGN_OR_RETURN(std::string j, LoadBuffer(perm->second, b.shape, b.shape.layout_or_default(), {word}));
  std::vector<std::string> at = idx;
  at[c->dim] = j;
  std::vector<std::string> values;
  if (n->opcode == Opcode::kTopK) {
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(n->operands[0], at));
    values = {v, Temp("int", "int(" + j + ")")};
    return values;
  }
  for (const Instruction* o : n->operands) {
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(o, at));
    values.push_back(v);
  }
  return values;
}

}  // namespace vkxla
