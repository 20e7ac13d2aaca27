#include "frontends/jacobi_rotation.h"

#include "ops/attributes.h"

namespace vkxla {
namespace {

// (a, b) -> a op b over pred scalars.
Computation* PredComputation(const ComputationBuilders& b, Opcode op) {
  Computation* c = b.new_computation();
  ArrayOps o(b.make_in(c), b.constant_in(c));
  const Shape pred = Shape::Scalar(ElementType::kPred);
  c->set_root(o.Binary(op, Parameter(o, pred, 0), Parameter(o, pred, 1)));
  return c;
}

}  // namespace

JacobiRounds::JacobiRounds(int64_t count) : n(count), players(count + count % 2), rounds(std::max<int64_t>(players - 1, 0)) {
  std::vector<int64_t> order(static_cast<size_t>(players));
  for (int64_t i = 0; i < players; ++i) order[i] = i;
  partner.assign(static_cast<size_t>(rounds * n), n);
  for (int64_t r = 0; r < rounds; ++r) {
    for (int64_t k = 0; k < players / 2; ++k) {
      const int64_t a = order[k], c = order[players - 1 - k];
      if (a < n) partner[r * n + a] = c < n ? c : n;
      if (c < n) partner[r * n + c] = a < n ? a : n;
    }
    // The circle method: the first stays, the rest turn by one.
    const int64_t last = order[players - 1];
    for (int64_t i = players - 1; i > 1; --i) order[i] = order[i - 1];
    if (players > 1) order[1] = last;
  }
}

Pairing RoundPairing(ArrayOps& o, Instruction* step, const JacobiRounds& r, const MatrixFrame& f, ElementType t, Computation* add) {
  const int64_t n = r.n, rank = f.rank;
  Literal table(Shape(ElementType::kS32, {r.rounds, n}));
  for (int64_t i = 0; i < r.rounds * n; ++i) table.Set(i, Scalar::Int(ElementType::kS32, r.partner[i]));
  Instruction* c = o.Make(Opcode::kConstant, table.shape(), {});
  c->literal = std::move(table);
  Instruction* round = o.Binary(Opcode::kRemainder, step, o.Const(ElementType::kS32, static_cast<double>(r.rounds)));
  Instruction* row = o.Make(Opcode::kDynamicSlice, Shape(ElementType::kS32, {1, n}), {c, round, o.Const(ElementType::kS32, 0)});
  row->other_attributes.emplace_back("dynamic_slice_sizes", "{1," + std::to_string(n) + "}");
  Instruction* partner = o.Make(Opcode::kReshape, Shape(ElementType::kS32, {n}), {row});
  Pairing p;
  p.f = &f;
  p.add = add;
  p.t = t;
  const std::vector<int64_t>& vec = f.row_dims;  // [..., n]
  Instruction* pv = o.Spread(partner, vec, {rank - 2});
  Instruction* index = o.Iota(ElementType::kS32, vec, rank - 2);
  p.first = o.Compare(index, pv, ComparisonDirection::kLt);
  p.paired = o.Compare(pv, o.Fill(ElementType::kS32, static_cast<double>(n), vec), ComparisonDirection::kLt);
  Instruction* rows = o.Iota(ElementType::kS32, f.dims, rank - 2);
  Instruction* cols = o.Iota(ElementType::kS32, f.dims, rank - 1);
  p.at_partner = o.Compare(cols, o.Spread(partner, f.dims, {rank - 2}), ComparisonDirection::kEq);
  Instruction *one = o.Fill(t, 1, f.dims), *zero = o.Fill(t, 0, f.dims);
  p.gather_rows = o.Select(p.at_partner, one, zero);
  p.gather_cols = o.Select(o.Compare(rows, o.Spread(partner, f.dims, {rank - 1}), ComparisonDirection::kEq), one, zero);
  return p;
}

Instruction* Pairing::Partner(ArrayOps& o, Instruction* v) const {
  // A product with P: exact, one term, and no reducer of v's type needed.
  const ElementType vt = v->shape.element_type();
  Instruction* spread = o.Spread(o.As(v, t), f->dims, f->row_map);  // v[j] at column j
  Instruction* picked = o.Sum(o.Select(at_partner, spread, o.Fill(t, 0, f->dims)), f->rank - 1, add);
  return IsComplex(vt) || !IsComplex(t) ? picked : o.Real(picked);
}

Instruction* Pairing::RotateColumns(ArrayOps& o, Instruction* y, Instruction* c, Instruction* s) const {
  const std::vector<int64_t>& dims = y->shape.dims();
  std::vector<int64_t> map = f->batch_map;
  map.push_back(static_cast<int64_t>(dims.size()) - 1);
  return o.Binary(Opcode::kAdd, o.Binary(Opcode::kMultiply, y, o.Spread(c, dims, map)),
                  o.Binary(Opcode::kMultiply, o.MatMul(y, gather_cols), o.Spread(s, dims, map)));
}

Instruction* Pairing::RotateRows(ArrayOps& o, Instruction* y, Instruction* c, Instruction* s) const {
  const std::vector<int64_t>& dims = y->shape.dims();
  return o.Binary(Opcode::kAdd, o.Binary(Opcode::kMultiply, y, o.Spread(c, dims, f->col_map)),
                  o.Binary(Opcode::kMultiply, o.MatMul(gather_rows, y), o.Spread(s, dims, f->col_map)));
}

PlaneRotation SymmetricSchurRotation(ArrayOps& o, Instruction* app, Instruction* aqq, Instruction* apq) {
  const ElementType t = app->shape.element_type();
  const std::vector<int64_t>& dims = app->shape.dims();
  Instruction *zero = o.Fill(t, 0, dims), *one = o.Fill(t, 1, dims);
  Instruction* rotates = o.Compare(apq, zero, ComparisonDirection::kNe);
  Instruction* safe_apq = o.Select(rotates, apq, one);
  // theta = (aqq - app) / 2 apq; t = sign(theta) / (|theta| + sqrt(1 + theta^2)).
  Instruction* theta = o.Binary(Opcode::kDivide, o.Binary(Opcode::kSubtract, aqq, app), o.Binary(Opcode::kMultiply, o.Fill(t, 2, dims), safe_apq));
  Instruction* root = o.Make(Opcode::kSqrt, theta->shape, {o.Binary(Opcode::kAdd, one, o.Binary(Opcode::kMultiply, theta, theta))});
  Instruction* sign = o.Select(o.Compare(theta, zero, ComparisonDirection::kGe), one, o.Fill(t, -1, dims));
  Instruction* tan = o.Binary(Opcode::kDivide, sign, o.Binary(Opcode::kAdd, o.Make(Opcode::kAbs, theta->shape, {theta}), root));
  Instruction* cos = o.Binary(Opcode::kDivide, one, o.Make(Opcode::kSqrt, tan->shape, {o.Binary(Opcode::kAdd, one, o.Binary(Opcode::kMultiply, tan, tan))}));
  Instruction* sin = o.Binary(Opcode::kMultiply, tan, cos);
  return PlaneRotation{o.Select(rotates, cos, one), o.Select(rotates, sin, zero), rotates};
}

Phase PhaseOf(ArrayOps& o, Instruction* apq) {
  const ElementType t = apq->shape.element_type(), rt = RealType(t);
  const std::vector<int64_t>& dims = apq->shape.dims();
  Instruction* magnitude = o.Make(Opcode::kAbs, Shape(rt, dims), {apq});
  Instruction* nonzero = o.Compare(magnitude, o.Fill(rt, 0, dims), ComparisonDirection::kNe);
  Instruction* factor = o.Binary(Opcode::kDivide, o.Conj(apq), o.As(o.Select(nonzero, magnitude, o.Fill(rt, 1, dims)), t));
  return Phase{o.Select(nonzero, factor, o.Fill(t, 1, dims)), magnitude};
}

std::pair<Instruction*, Instruction*> RotationCoefficients(ArrayOps& o, const Pairing& p, const PlaneRotation& r) {
  const std::vector<int64_t>& dims = r.cos->shape.dims();
  const ElementType rt = r.cos->shape.element_type();
  Instruction* c = o.Select(p.paired, r.cos, o.Fill(rt, 1, dims));
  Instruction* s = o.Select(p.paired, o.Select(p.first, o.Make(Opcode::kNegate, r.sin->shape, {r.sin}), r.sin), o.Fill(rt, 0, dims));
  return {o.As(c, p.t), o.As(s, p.t)};
}

Instruction* AnySignificant(ArrayOps& o, const Pairing& p, Instruction* app, Instruction* aqq, Instruction* apq_magnitude,
                            const ComputationBuilders& b) {
  const ElementType rt = app->shape.element_type();
  const std::vector<int64_t>& dims = app->shape.dims();
  const double eps = Epsilon(rt);
  auto magnitude = [&](Instruction* x) { return o.Make(Opcode::kAbs, x->shape, {x}); };
  Instruction* scale = o.Binary(Opcode::kMultiply, o.Fill(rt, eps * eps, dims), o.Binary(Opcode::kMultiply, magnitude(app), magnitude(aqq)));
  Instruction* big = o.Compare(o.Binary(Opcode::kMultiply, apq_magnitude, apq_magnitude), scale, ComparisonDirection::kGt);
  Instruction* significant = o.Binary(Opcode::kAnd, p.paired, big);
  Instruction* any = o.Make(Opcode::kReduce, Shape::Scalar(ElementType::kPred), {significant, o.Const(ElementType::kPred, 0)});
  any->dimensions = Iota0(static_cast<int64_t>(dims.size()));
  any->called_computations.emplace_back("to_apply", PredComputation(b, Opcode::kOr));
  return any;
}

std::pair<Instruction*, Instruction*> SweepProgress(ArrayOps& o, Instruction* step, const JacobiRounds& r, Instruction* quiet,
                                                    Instruction* significant) {
  Instruction* round = o.Binary(Opcode::kRemainder, step, o.Const(ElementType::kS32, static_cast<double>(r.rounds)));
  Instruction* starts = o.Compare(round, o.Const(ElementType::kS32, 0), ComparisonDirection::kEq);
  Instruction* ends = o.Compare(round, o.Const(ElementType::kS32, static_cast<double>(r.rounds - 1)), ComparisonDirection::kEq);
  Instruction* calm = o.Make(Opcode::kNot, significant->shape, {significant});
  Instruction* quiet_now = o.Binary(Opcode::kAnd, calm, o.Binary(Opcode::kOr, starts, quiet));
  return {quiet_now, o.Binary(Opcode::kAnd, ends, quiet_now)};
}

Computation* JacobiCondition(const ComputationBuilders& b, const Shape& state, int64_t done_index, int64_t max_trips) {
  Computation* cond = b.new_computation();
  ArrayOps o(b.make_in(cond), b.constant_in(cond));
  Instruction* p = Parameter(o, state, 0);
  Instruction* more = o.Compare(o.Element(p, 0), o.Const(ElementType::kS32, static_cast<double>(max_trips)), ComparisonDirection::kLt);
  Instruction* done = o.Element(p, done_index);
  cond->set_root(o.Binary(Opcode::kAnd, more, o.Make(Opcode::kNot, done->shape, {done})));
  return cond;
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
