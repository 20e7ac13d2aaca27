#include "plan/dynamic_padder.h"

#include <algorithm>

#include "ops/dot.h"
#include "ops/reduction_shapes.h"
#include "ops/window.h"
#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

bool Reduced(const Instruction& reduce, int64_t d) {
  return std::find(reduce.dimensions->begin(), reduce.dimensions->end(), d) != reduce.dimensions->end();
}

// `r` (a static result) with dim `at` given `x`'s run-time size of dim d
// (or `size`), for each of `kept`; its shape becomes `dynamic`.
struct KeptDim {
  int64_t at;
  Instruction* x;
  int64_t d;
  Instruction* size = nullptr;  // the size itself, where it is computed
};
Instruction* KeepSizes(ExpansionWriter& w, Instruction* r, const std::vector<KeptDim>& kept, const Shape& dynamic) {
  for (const KeptDim& k : kept) {
    Instruction* size = k.size;
    if (!size) {
      size = w.Add(Opcode::kGetDimensionSize, Shape::Scalar(ElementType::kS32), {k.x});
      size->dimensions = std::vector<int64_t>{k.d};
    }
    Shape s = r->shape;
    s.set_dynamic_dim(k.at, true);
    r = w.Add(Opcode::kSetDimensionSize, s, {r, size});
    r->dimensions = std::vector<int64_t>{k.at};
  }
  r->shape = dynamic;
  return r;
}

// The positions of an array of `bounds` whose index along each dim of
// `dims` is below `sizes` (run-time sizes: s32 scalars); null for none.
Instruction* Below(ExpansionWriter& w, const std::vector<int64_t>& bounds, const std::vector<int64_t>& dims,
                   const std::vector<Instruction*>& sizes) {
  Instruction* inside = nullptr;
  for (size_t i = 0; i < dims.size(); ++i) {
    Instruction* size = w.Add(Opcode::kBroadcast, Shape(ElementType::kS32, bounds), {sizes[i]});
    size->dimensions = std::vector<int64_t>{};
    Instruction* at = w.Add(Opcode::kIota, Shape(ElementType::kS32, bounds), {});
    at->iota_dimension = dims[i];
    Instruction* below = w.Add(Opcode::kCompare, Shape(ElementType::kPred, bounds), {at, size});
    below->direction = ComparisonDirection::kLt;
    inside = inside ? w.Add(Opcode::kAnd, Shape(ElementType::kPred, bounds), {inside, below}) : below;
  }
  return inside;
}

Instruction* DimensionSize(ExpansionWriter& w, Instruction* x, int64_t d) {
  Instruction* size = w.Add(Opcode::kGetDimensionSize, Shape::Scalar(ElementType::kS32), {x});
  size->dimensions = std::vector<int64_t>{d};
  return size;
}

// `x` as a static array: `fill` where `inside` is false (null: everywhere
// its values), a copy where nothing is masked.
Instruction* Padded(ExpansionWriter& w, Instruction* x, Instruction* inside, Instruction* fill) {
  const Shape bound(x->shape.element_type(), x->shape.dims());
  if (!inside) return w.Add(Opcode::kCopy, bound, {x});
  Instruction* f = w.Add(Opcode::kBroadcast, bound, {fill});
  f->dimensions = std::vector<int64_t>{};
  return w.Add(Opcode::kSelect, bound, {inside, x, f});
}

Shape Static(const Shape& s) {
  if (s.IsArray()) return Shape(s.element_type(), s.dims());
  std::vector<Shape> elements;
  for (const Shape& e : s.tuple_shapes()) elements.push_back(Static(e));
  return Shape::Tuple(std::move(elements));
}

StatusOr<Instruction*> ExpandDot(Computation& c, const Instruction& dot, const std::vector<Instruction*>& operands) {
  ExpansionWriter w(c, dot, "dynamic");
  VKXLA_ASSIGN_OR_RETURN(DotPlan p, PlanDot(dot));
  Instruction* lhs = operands[0];
  Instruction* rhs = operands[1];
  // Each dynamic contraction's size (the lhs's where its dim is dynamic),
  // masking both sides.
  std::vector<int64_t> lhs_dims, rhs_dims;
  std::vector<Instruction*> sizes;
  for (size_t i = 0; i < p.dims.lhs_contracting.size(); ++i) {
    const int64_t l = p.dims.lhs_contracting[i], r = p.dims.rhs_contracting[i];
    if (!lhs->shape.is_dynamic_dim(l) && !rhs->shape.is_dynamic_dim(r)) continue;
    sizes.push_back(lhs->shape.is_dynamic_dim(l) ? DimensionSize(w, lhs, l) : DimensionSize(w, rhs, r));
    lhs_dims.push_back(l);
    rhs_dims.push_back(r);
  }
  const Scalar zero_l = Scalar::Convert(Scalar::Int(ElementType::kS32, 0), lhs->shape.element_type());
  const Scalar zero_r = Scalar::Convert(Scalar::Int(ElementType::kS32, 0), rhs->shape.element_type());
  Instruction* a = Padded(w, lhs, Below(w, lhs->shape.dims(), lhs_dims, sizes), w.Constant(zero_l));
  Instruction* b = Padded(w, rhs, Below(w, rhs->shape.dims(), rhs_dims, sizes), w.Constant(zero_r));
  Instruction* r = w.Add(Opcode::kDot, Static(dot.shape), {a, b});
  r->other_attributes = dot.other_attributes;
  r->dimensions = dot.dimensions;
  if (dot.shape.is_static()) return r;
  // The result's dims: batch, lhs free, rhs free.
  std::vector<KeptDim> kept;
  int64_t at = 0;
  for (size_t i = 0; i < p.dims.lhs_batch.size(); ++i, ++at) {
    if (lhs->shape.is_dynamic_dim(p.dims.lhs_batch[i])) kept.push_back({at, lhs, p.dims.lhs_batch[i]});
    else if (rhs->shape.is_dynamic_dim(p.dims.rhs_batch[i])) kept.push_back({at, rhs, p.dims.rhs_batch[i]});
  }
  for (int64_t d : p.lhs_free) {
    if (lhs->shape.is_dynamic_dim(d)) kept.push_back({at, lhs, d});
    ++at;
  }
  for (int64_t d : p.rhs_free) {
    if (rhs->shape.is_dynamic_dim(d)) kept.push_back({at, rhs, d});
    ++at;
  }
  return KeepSizes(w, r, kept, dot.shape);
}

// s32 scalar arithmetic for run-time sizes.
class SizeArithmetic {
 public:
  explicit SizeArithmetic(ExpansionWriter& w) : w_(w) {}
  Instruction* Int(int64_t v) { return w_.Constant(Scalar::Int(ElementType::kS32, v)); }
  Instruction* Op(Opcode op, Instruction* a, Instruction* b) { return w_.Add(op, Shape::Scalar(ElementType::kS32), {a, b}); }
  Instruction* Less(Instruction* a, Instruction* b) {
    Instruction* c = w_.Add(Opcode::kCompare, Shape::Scalar(ElementType::kPred), {a, b});
    c->direction = ComparisonDirection::kLt;
    return c;
  }
  Instruction* Select(Instruction* c, Instruction* a, Instruction* b) {
    return w_.Add(Opcode::kSelect, Shape::Scalar(ElementType::kS32), {c, a, b});
  }

 private:
  ExpansionWriter& w_;
};

// The count of windows that fit a run-time size `s` along dim d: 0 for an
// empty dim, else ((s - 1) * base dilation + 1 + padding - extent) /
// stride + 1, or 0 where the padded dim is shorter than the window's
// extent (ops/window.h: WindowedDims).
Instruction* WindowCount(ExpansionWriter& w, const Window& window, int64_t d, Instruction* s) {
  SizeArithmetic a(w);
  Instruction* dilated = a.Op(Opcode::kAdd, a.Op(Opcode::kMultiply, a.Op(Opcode::kSubtract, s, a.Int(1)), a.Int(window.base_dilation[d])),
                              a.Int(1));
  dilated = a.Select(a.Less(s, a.Int(1)), a.Int(0), dilated);
  Instruction* padded_size = a.Op(Opcode::kAdd, dilated, a.Int(window.pad_low[d] + window.pad_high[d]));
  const int64_t extent = (window.size[d] - 1) * window.window_dilation[d] + 1;
  Instruction* count = a.Op(Opcode::kAdd, a.Op(Opcode::kDivide, a.Op(Opcode::kSubtract, padded_size, a.Int(extent)), a.Int(window.stride[d])),
                            a.Int(1));
  return a.Select(a.Less(padded_size, a.Int(extent)), a.Int(0), count);
}

// A reduce or reduce-window: its operands padded with the init values past
// the run-time sizes of the dynamic dims it folds (every dynamic dim of a
// reduce-window: the windows past a size then see what padding shows
// them), the op at the bounds, then the sizes of the dims it keeps set on
// its results (a reduce-window's: the windows that fit).
StatusOr<Instruction*> ExpandReduction(Computation& c, const Instruction& op, const std::vector<Instruction*>& operands) {
  ExpansionWriter w(c, op, "dynamic");
  const size_t n = operands.size() / 2;
  Instruction* x = operands[0];
  const bool windows = op.opcode == Opcode::kReduceWindow;
  std::vector<int64_t> dims;
  std::vector<Instruction*> sizes;
  for (int64_t d = 0; d < x->shape.rank(); ++d)
    if (x->shape.is_dynamic_dim(d) && (windows || Reduced(op, d))) {
      dims.push_back(d);
      sizes.push_back(DimensionSize(w, x, d));
    }
  Instruction* inside = Below(w, x->shape.dims(), dims, sizes);
  std::vector<Instruction*> padded;
  for (size_t i = 0; i < n; ++i) padded.push_back(Padded(w, operands[i], inside, operands[n + i]));
  for (size_t i = 0; i < n; ++i) padded.push_back(operands[n + i]);
  Instruction* r = w.Add(op.opcode, Static(op.shape), padded);
  r->other_attributes = op.other_attributes;
  r->dimensions = op.dimensions;
  r->called_computations = op.called_computations;
  std::vector<KeptDim> kept;
  if (windows) {
    VKXLA_ASSIGN_OR_RETURN(const Window window, WindowOf(op, x->shape.rank()));
    for (size_t i = 0; i < dims.size(); ++i) kept.push_back({dims[i], nullptr, dims[i], WindowCount(w, window, dims[i], sizes[i])});
  } else {
    int64_t at = 0;
    for (int64_t d = 0; d < x->shape.rank(); ++d) {
      if (Reduced(op, d)) continue;
      if (x->shape.is_dynamic_dim(d)) kept.push_back({at, x, d});
      ++at;
    }
  }
  if (kept.empty()) return r;
  if (op.shape.IsArray()) return KeepSizes(w, r, kept, op.shape);
  std::vector<Instruction*> results;
  for (size_t i = 0; i < n; ++i) {
    Instruction* e = w.Add(Opcode::kGetTupleElement, r->shape.tuple_shapes()[i], {r});
    e->tuple_index = static_cast<int64_t>(i);
    results.push_back(KeepSizes(w, e, kept, op.shape.tuple_shapes()[i]));
  }
  return w.Add(Opcode::kTuple, op.shape, results);
}

}  // namespace

StatusOr<std::shared_ptr<const Module>> PadDynamicOperands(const Module& module) {
  return RewriteModule(
      module, [](const Instruction& i) { return IsDynamicReduce(i) || IsDynamicDot(i); },
      [](Computation& c, const Instruction& inst, const std::vector<Instruction*>& operands) {
        return inst.opcode == Opcode::kDot ? ExpandDot(c, inst, operands) : ExpandReduction(c, inst, operands);
      });
}

}  // namespace vkxla
