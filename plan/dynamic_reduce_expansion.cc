#include "plan/dynamic_reduce_expansion.h"

#include <algorithm>

#include "ops/reduction_shapes.h"
#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

bool Reduced(const Instruction& reduce, int64_t d) {
  return std::find(reduce.dimensions->begin(), reduce.dimensions->end(), d) != reduce.dimensions->end();
}

// `r` (a static reduce result) given the run-time sizes of the dynamic dims
// `x` keeps.
Instruction* KeepSizes(ExpansionWriter& w, const Instruction& reduce, Instruction* x, Instruction* r, Shape dynamic) {
  int64_t at = 0;
  for (int64_t d = 0; d < x->shape.rank(); ++d) {
    if (Reduced(reduce, d)) continue;
    if (x->shape.is_dynamic_dim(d)) {
      Instruction* size = w.Add(Opcode::kGetDimensionSize, Shape::Scalar(ElementType::kS32), {x});
      size->dimensions = std::vector<int64_t>{d};
      Shape s = r->shape;
      s.set_dynamic_dim(at, true);
      r = w.Add(Opcode::kSetDimensionSize, s, {r, size});
      r->dimensions = std::vector<int64_t>{at};
    }
    ++at;
  }
  r->shape = dynamic;
  return r;
}

StatusOr<Instruction*> Expand(Computation& c, const Instruction& reduce, const std::vector<Instruction*>& operands) {
  ExpansionWriter w(c, reduce, "dynamic");
  const size_t n = operands.size() / 2;
  Instruction* x = operands[0];
  const std::vector<int64_t> bounds = x->shape.dims();
  // The positions below every reduced dynamic dim's run-time size.
  Instruction* inside = nullptr;
  for (int64_t d : *reduce.dimensions) {
    if (!x->shape.is_dynamic_dim(d)) continue;
    Instruction* size = w.Add(Opcode::kGetDimensionSize, Shape::Scalar(ElementType::kS32), {x});
    size->dimensions = std::vector<int64_t>{d};
    Instruction* sizes = w.Add(Opcode::kBroadcast, Shape(ElementType::kS32, bounds), {size});
    sizes->dimensions = std::vector<int64_t>{};
    Instruction* at = w.Add(Opcode::kIota, Shape(ElementType::kS32, bounds), {});
    at->iota_dimension = d;
    Instruction* below = w.Add(Opcode::kCompare, Shape(ElementType::kPred, bounds), {at, sizes});
    below->direction = ComparisonDirection::kLt;
    inside = inside ? w.Add(Opcode::kAnd, Shape(ElementType::kPred, bounds), {inside, below}) : below;
  }
  // Static operands: the elements inside, the init value past the sizes
  // (the dims the reduce keeps are read at their bounds as they are).
  std::vector<Instruction*> padded;
  for (size_t i = 0; i < n; ++i) {
    const ElementType t = operands[i]->shape.element_type();
    if (!inside) {
      // Only kept dims are dynamic: the same values, read as static.
      padded.push_back(w.Add(Opcode::kCopy, Shape(t, bounds), {operands[i]}));
      continue;
    }
    Instruction* init = w.Add(Opcode::kBroadcast, Shape(t, bounds), {operands[n + i]});
    init->dimensions = std::vector<int64_t>{};
    padded.push_back(w.Add(Opcode::kSelect, Shape(t, bounds), {inside, operands[i], init}));
  }
  for (size_t i = 0; i < n; ++i) padded.push_back(operands[n + i]);
  // The reduce at the bounds, then the kept dims' sizes set on its results.
  Shape bound_shape = reduce.shape;
  auto make_static = [](Shape s) { return Shape(s.element_type(), s.dims()); };
  if (bound_shape.IsArray()) {
    bound_shape = make_static(bound_shape);
  } else {
    std::vector<Shape> elements;
    for (const Shape& e : bound_shape.tuple_shapes()) elements.push_back(make_static(e));
    bound_shape = Shape::Tuple(std::move(elements));
  }
  Instruction* r = w.Add(Opcode::kReduce, bound_shape, padded);
  r->dimensions = reduce.dimensions;
  r->called_computations = reduce.called_computations;
  if (reduce.shape.IsArray()) return reduce.shape.is_static() ? r : KeepSizes(w, reduce, x, r, reduce.shape);
  bool kept_dynamic = false;
  for (const Shape& e : reduce.shape.tuple_shapes()) kept_dynamic = kept_dynamic || !e.is_static();
  if (!kept_dynamic) return r;
  std::vector<Instruction*> results;
  for (size_t i = 0; i < n; ++i) {
    Instruction* e = w.Add(Opcode::kGetTupleElement, bound_shape.tuple_shapes()[i], {r});
    e->tuple_index = static_cast<int64_t>(i);
    results.push_back(KeepSizes(w, reduce, x, e, reduce.shape.tuple_shapes()[i]));
  }
  return w.Add(Opcode::kTuple, reduce.shape, results);
}

}  // namespace

StatusOr<std::shared_ptr<const Module>> ExpandDynamicReduces(const Module& module) {
  return RewriteModule(module, IsDynamicReduce, Expand);
}

}  // namespace vkxla
