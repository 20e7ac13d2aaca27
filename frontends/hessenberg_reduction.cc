#include "frontends/hessenberg_reduction.h"

#include "frontends/householder_reflector.h"

namespace vkxla {

StatusOr<HessenbergFactors> BuildHessenbergReduction(Instruction* a, const ComputationBuilders& b) {
  const Shape& s = a->shape;
  const ElementType ct = s.element_type();
  VKXLA_RETURN_IF_ERROR(CheckSquareMatrices(s, "the Hessenberg reduction"));
  const MatrixFrame f(s);
  const ElementType rt = RealType(ct);
  const int64_t n = f.n, rd = f.rank - 2, cd = f.rank - 1;
  std::vector<int64_t> tau_dims = f.batch;
  tau_dims.push_back(std::max<int64_t>(n - 1, 0));
  ArrayOps top(b.make, b.constant);
  if (n < 2) return HessenbergFactors{a, top.Identity(ct, f.dims), top.Fill(ct, 0, f.dims), top.Fill(ct, 0, tau_dims)};
  Computation* add = AddComputation(b, ct);
  Computation* max_real = MaxComputation(b, rt);
  Computation* add_real = IsComplex(ct) ? AddComputation(b, rt) : add;
  const Shape i32 = Shape::Scalar(ElementType::kS32), taus_shape(ct, tau_dims);
  const Shape state = Shape::Tuple({i32, s, s, s, taus_shape});  // j, x, q, reflectors, taus
  Computation* cond = CounterCondition(b, state, ComparisonDirection::kLt, n - 1);
  LoopBody body(b, state);
  {
    ArrayOps& o = body.ops;
    Instruction *j = body.elements[0], *x = body.elements[1], *q = body.elements[2], *refl = body.elements[3], *taus = body.elements[4];
    Instruction *rows = o.Iota(ElementType::kS32, f.dims, rd), *cols = o.Iota(ElementType::kS32, f.dims, cd);
    Instruction* jm = o.Spread(j, f.dims, {});
    Instruction* j1 = o.Binary(Opcode::kAdd, j, o.Const(ElementType::kS32, 1));
    Instruction* j1m = o.Spread(j1, f.dims, {});
    Instruction* zero = o.Fill(ct, 0, f.dims);
    // Column j as a vector over the rows: alpha its entry j + 1, the tail below.
    Instruction* col = o.Sum(o.Select(o.Compare(cols, jm, ComparisonDirection::kEq), x, zero), cd, add);  // [..., n]
    const Reflector r = HouseholderReflector(o, f, col, j1, add, add_real, max_real);
    Instruction *tau = r.tau, *v = r.v;
    // x <- H^H x H, q <- q H, H = I - tau v v^H.
    Instruction* v_rows = o.Spread(v, f.dims, f.col_map);  // v[i] at (i, *)
    Instruction* v_cols = o.Spread(v, f.dims, f.row_map);  // v[k] at (*, k)
    auto from_left = [&](Instruction* y, Instruction* t) {  // (I - t v v^H) y
      Instruction* w = o.Sum(o.Binary(Opcode::kMultiply, o.Conj(v_rows), y), rd, add);  // v^H y, over the columns
      Instruction* tw = o.Binary(Opcode::kMultiply, w, o.Spread(t, f.row_dims, f.batch_map));
      return o.Binary(Opcode::kSubtract, y, o.Binary(Opcode::kMultiply, v_rows, o.Spread(tw, f.dims, f.row_map)));
    };
    auto from_right = [&](Instruction* y) {  // y (I - tau v v^H)
      Instruction* w = o.Sum(o.Binary(Opcode::kMultiply, y, v_cols), cd, add);  // y v, over the rows
      Instruction* tw = o.Binary(Opcode::kMultiply, w, o.Spread(tau, f.col_dims, f.batch_map));
      return o.Binary(Opcode::kSubtract, y, o.Binary(Opcode::kMultiply, o.Spread(tw, f.dims, f.col_map), o.Conj(v_cols)));
    };
    Instruction* x1 = from_right(from_left(x, o.Conj(tau)));
    // Column j below the subdiagonal is zero now: make it so, and keep v there.
    Instruction* under = o.Binary(Opcode::kAnd, o.Compare(cols, jm, ComparisonDirection::kEq), o.Compare(rows, j1m, ComparisonDirection::kGt));
    x1 = o.Select(under, zero, x1);
    Instruction* refl1 = o.Select(under, v_rows, refl);
    Instruction* tau_index = o.Iota(ElementType::kS32, tau_dims, rd);
    Instruction* taus1 = o.Select(o.Compare(tau_index, o.Spread(j, tau_dims, {}), ComparisonDirection::kEq), o.Spread(tau, tau_dims, f.batch_map), taus);
    body.Finish({j1, x1, from_right(q), refl1, taus1});
  }
  Instruction* loop = CountedLoop(top, state, {top.Const(ElementType::kS32, 0), a, top.Identity(ct, f.dims), top.Fill(ct, 0, f.dims), top.Fill(ct, 0, tau_dims)},
                                  cond, body.computation);
  return HessenbergFactors{top.Element(loop, 1), top.Element(loop, 2), top.Element(loop, 3), top.Element(loop, 4)};
}

}  // namespace vkxla
