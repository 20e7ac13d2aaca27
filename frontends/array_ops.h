// A small builder of HLO ops over whole (batched) arrays, for the
// decompositions the StableHLO reader writes as loops of masked array
// work (frontends/lu_decomposition.h, frontends/qr_decomposition.h).
#pragma once

#include <vector>

#include "frontends/chlo_mulhi.h"
#include "ir/instruction.h"
#include "ir/literal.h"

namespace vkxla {

// Builds array work (elementwise, spreads, masked sums) in one computation.
class ArrayOps {
 public:
  ArrayOps(HloMaker make, ConstantMaker constant) : make_(std::move(make)), constant_(std::move(constant)) {}

  Instruction* Make(Opcode op, const Shape& s, std::vector<Instruction*> operands) { return make_(op, s, std::move(operands)); }
  Instruction* Const(ElementType t, double v) {
    Literal l(Shape::Scalar(t));
    l.Set(0, IsFloat(t) ? Scalar::Float(t, v) : Scalar::Int(t, static_cast<int64_t>(v)));
    return constant_(std::move(l));
  }
  // `x` (of dims `from`, a prefix or a subsequence given by `map`) spread to `dims`.
  Instruction* Spread(Instruction* x, const std::vector<int64_t>& dims, std::vector<int64_t> map) {
    if (x->shape.dims() == dims) return x;
    Instruction* b = Make(Opcode::kBroadcast, Shape(x->shape.element_type(), dims), {x});
    b->dimensions = std::move(map);
    return b;
  }
  Instruction* Fill(ElementType t, double v, const std::vector<int64_t>& dims) { return Spread(Const(t, v), dims, {}); }
  Instruction* Iota(ElementType t, const std::vector<int64_t>& dims, int64_t dim) {
    Instruction* i = Make(Opcode::kIota, Shape(t, dims), {});
    i->iota_dimension = dim;
    return i;
  }
  Instruction* Compare(Instruction* a, Instruction* b, ComparisonDirection d) {
    Instruction* c = Make(Opcode::kCompare, Shape(ElementType::kPred, a->shape.dims()), {a, b});
    c->direction = d;
    return c;
  }
  Instruction* Binary(Opcode op, Instruction* a, Instruction* b) { return Make(op, a->shape, {a, b}); }
  Instruction* Select(Instruction* p, Instruction* a, Instruction* b) { return Make(Opcode::kSelect, a->shape, {p, a, b}); }
  // The sum of `x` over `dim` (a reduce with `add`).
  Instruction* Sum(Instruction* x, int64_t dim, Computation* add) {
    std::vector<int64_t> dims = x->shape.dims();
    dims.erase(dims.begin() + dim);
    Instruction* r = Make(Opcode::kReduce, Shape(x->shape.element_type(), dims), {x, Const(x->shape.element_type(), 0)});
    r->dimensions = std::vector<int64_t>{dim};
    r->called_computations.emplace_back("to_apply", add);
    return r;
  }
  Instruction* Element(Instruction* tuple, int64_t i) {
    Instruction* e = Make(Opcode::kGetTupleElement, tuple->shape.tuple_shapes()[i], {tuple});
    e->tuple_index = i;
    return e;
  }

 private:
  HloMaker make_;
  ConstantMaker constant_;
};

inline std::vector<int64_t> Iota0(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

inline Instruction* Parameter(ArrayOps& o, const Shape& s, int64_t number) {
  Instruction* p = o.Make(Opcode::kParameter, s, {});
  p->parameter_number = number;
  return p;
}


}  // namespace vkxla
