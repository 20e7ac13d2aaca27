#include "frontends/jacobi_rotation.h"

#include "ops/attributes.h"

namespace vkxla {

JacobiSweep::JacobiSweep(int64_t n) {
  for (int64_t p = 0; p < n; ++p)
    for (int64_t q = p + 1; q < n; ++q) {
      ps.push_back(p);
      qs.push_back(q);
    }
}

std::pair<Instruction*, Instruction*> PickPair(ArrayOps& o, Instruction* step, const JacobiSweep& sweep) {
  const int64_t pairs = sweep.pairs();
  Instruction* r = o.Binary(Opcode::kRemainder, step, o.Const(ElementType::kS32, static_cast<double>(pairs)));
  auto pick = [&](const std::vector<int64_t>& table) {
    Literal l(Shape(ElementType::kS32, {pairs}));
    for (int64_t i = 0; i < pairs; ++i) l.Set(i, Scalar::Int(ElementType::kS32, table[i]));
    Instruction* c = o.Make(Opcode::kConstant, l.shape(), {});
    c->literal = std::move(l);
    Instruction* one = o.Make(Opcode::kDynamicSlice, Shape(ElementType::kS32, {1}), {c, r});
    one->other_attributes.emplace_back("dynamic_slice_sizes", "{1}");
    return o.Make(Opcode::kReshape, Shape::Scalar(ElementType::kS32), {one});
  };
  return {pick(sweep.ps), pick(sweep.qs)};
}

PlaneRotation SymmetricSchurRotation(ArrayOps& o, Instruction* app, Instruction* aqq, Instruction* apq) {
  const ElementType t = app->shape.element_type();
  const std::vector<int64_t>& batch = app->shape.dims();
  Instruction *zero = o.Fill(t, 0, batch), *one = o.Fill(t, 1, batch);
  Instruction* rotates = o.Compare(apq, zero, ComparisonDirection::kNe);
  Instruction* safe_apq = o.Select(rotates, apq, one);
  // theta = (aqq - app) / 2 apq; t = sign(theta) / (|theta| + sqrt(1 + theta^2)).
  Instruction* theta = o.Binary(Opcode::kDivide, o.Binary(Opcode::kSubtract, aqq, app), o.Binary(Opcode::kMultiply, o.Fill(t, 2, batch), safe_apq));
  Instruction* root = o.Make(Opcode::kSqrt, theta->shape, {o.Binary(Opcode::kAdd, one, o.Binary(Opcode::kMultiply, theta, theta))});
  Instruction* sign = o.Select(o.Compare(theta, zero, ComparisonDirection::kGe), one, o.Fill(t, -1, batch));
  Instruction* tan = o.Binary(Opcode::kDivide, sign, o.Binary(Opcode::kAdd, o.Make(Opcode::kAbs, theta->shape, {theta}), root));
  Instruction* cos = o.Binary(Opcode::kDivide, one, o.Make(Opcode::kSqrt, tan->shape, {o.Binary(Opcode::kAdd, one, o.Binary(Opcode::kMultiply, tan, tan))}));
  Instruction* sin = o.Binary(Opcode::kMultiply, tan, cos);
  return PlaneRotation{o.Select(rotates, cos, one), o.Select(rotates, sin, zero), rotates};
}

Phase PhaseOf(ArrayOps& o, Instruction* apq) {
  const ElementType t = apq->shape.element_type(), rt = RealType(t);
  const std::vector<int64_t>& batch = apq->shape.dims();
  Instruction* magnitude = o.Make(Opcode::kAbs, Shape(rt, batch), {apq});
  Instruction* nonzero = o.Compare(magnitude, o.Fill(rt, 0, batch), ComparisonDirection::kNe);
  Instruction* factor = o.Binary(Opcode::kDivide, o.Conj(apq), o.As(o.Select(nonzero, magnitude, o.Fill(rt, 1, batch)), t));
  return Phase{o.Select(nonzero, factor, o.Fill(t, 1, batch)), magnitude};
}

Instruction* MatrixLines::Scale(ArrayOps& o, Instruction* y, Instruction* qm, Instruction* factor,
                                const std::vector<int64_t>& batch_map) const {
  const std::vector<int64_t>& dims = y->shape.dims();
  Instruction* f = o.Select(o.Compare(index, qm, ComparisonDirection::kEq), o.Spread(factor, dims, batch_map),
                            o.Fill(y->shape.element_type(), 1, dims));
  return o.Binary(Opcode::kMultiply, y, f);
}

Instruction* MatrixLines::Take(ArrayOps& o, Instruction* y, Instruction* i) const {
  return o.Sum(o.Select(o.Compare(index, i, ComparisonDirection::kEq), y, o.Fill(y->shape.element_type(), 0, y->shape.dims())), dim, add);
}

Instruction* MatrixLines::Rotate(ArrayOps& o, Instruction* y, Instruction* pm, Instruction* qm, Instruction* yp, Instruction* yq,
                                 const PlaneRotation& r, const std::vector<int64_t>& batch_map) const {
  const std::vector<int64_t>& line = yp->shape.dims();
  const ElementType t = y->shape.element_type();
  Instruction *c = o.As(o.Spread(r.cos, line, batch_map), t), *s = o.As(o.Spread(r.sin, line, batch_map), t);
  Instruction* np = o.Binary(Opcode::kSubtract, o.Binary(Opcode::kMultiply, c, yp), o.Binary(Opcode::kMultiply, s, yq));
  Instruction* nq = o.Binary(Opcode::kAdd, o.Binary(Opcode::kMultiply, s, yp), o.Binary(Opcode::kMultiply, c, yq));
  const std::vector<int64_t>& dims = y->shape.dims();
  return o.Select(o.Compare(index, pm, ComparisonDirection::kEq), o.Spread(np, dims, map),
                  o.Select(o.Compare(index, qm, ComparisonDirection::kEq), o.Spread(nq, dims, map), y));
}

std::pair<Instruction*, Instruction*> SortColumnsByValues(ArrayOps& o, Instruction* values, Instruction* matrix, bool descending,
                                                          const ComputationBuilders& b) {
  const Shape& s = matrix->shape;
  const ElementType t = values->shape.element_type();
  const int64_t rank = s.rank();
  std::vector<int64_t> map = Iota0(rank - 2);
  map.push_back(rank - 1);
  Instruction* keys = o.Spread(values, s.dims(), map);
  Computation* order = b.new_computation();
  {
    ArrayOps c(b.make_in(order), b.constant_in(order));
    const Shape st = Shape::Scalar(t);
    Instruction* l = Parameter(c, st, 0);
    Instruction* r = Parameter(c, st, 1);
    Parameter(c, Shape::Scalar(s.element_type()), 2);
    Parameter(c, Shape::Scalar(s.element_type()), 3);
    order->set_root(c.Compare(l, r, descending ? ComparisonDirection::kGt : ComparisonDirection::kLt));
  }
  Instruction* sorted = o.Make(Opcode::kSort, Shape::Tuple({keys->shape, s}), {keys, matrix});
  sorted->dimensions = std::vector<int64_t>{rank - 1};
  SetAttribute(*sorted, "is_stable", "true");
  sorted->called_computations.emplace_back("to_apply", order);
  // Row 0 of the sorted keys holds the values in order.
  Instruction* sorted_keys = o.Element(sorted, 0);
  Instruction* rows = o.Iota(ElementType::kS32, s.dims(), rank - 2);
  Instruction* first = o.Select(o.Compare(rows, o.Fill(ElementType::kS32, 0, s.dims()), ComparisonDirection::kEq), sorted_keys, o.Fill(t, 0, s.dims()));
  return {o.Sum(first, rank - 2, AddComputation(b, t)), o.Element(sorted, 1)};
}

}  // namespace vkxla
