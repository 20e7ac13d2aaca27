#include "frontends/tridiagonal_solve.h"

#include <algorithm>

namespace vkxla {

StatusOr<TridiagonalSolution> BuildTridiagonalSolve(Instruction* dl, Instruction* d, Instruction* du, Instruction* b,
                                                    const ComputationBuilders& builders) {
  const Shape &vs = d->shape, &bs = b->shape;
  const ElementType t = vs.element_type();
  const bool fits = vs.IsArray() && bs.IsArray() && vs.rank() >= 1 && IsDecompositionType(t) && dl->shape.IsArray() && du->shape.IsArray() && dl->shape.dims() == vs.dims() &&
                    du->shape.dims() == vs.dims() && dl->shape.element_type() == t && du->shape.element_type() == t &&
                    bs.element_type() == t && bs.rank() == vs.rank() + 1 &&
                    std::equal(vs.dims().begin(), vs.dims().end(), bs.dims().begin());
  if (!fits)
    return Unimplemented("a tridiagonal solve takes diagonals [..., n] and a right-hand side [..., n, k] of one type (f32, f64, c64 or c128), not " +
                         dl->shape.ToString() + ", " + vs.ToString() + ", " + du->shape.ToString() + " and " + bs.ToString());
  const ElementType rt = RealType(t);
  const int64_t nb = vs.rank() - 1, n = vs.dims().back();
  const std::vector<int64_t>&vec_dims = vs.dims(), &b_dims = bs.dims();
  const std::vector<int64_t> batch(vec_dims.begin(), vec_dims.end() - 1), batch_map = Iota0(nb);
  std::vector<int64_t> row_dims = batch, row_map = batch_map;  // a row of b: [..., k]
  row_dims.push_back(bs.dims().back());
  row_map.push_back(nb + 1);
  const Shape i32 = Shape::Scalar(ElementType::kS32), info_shape(ElementType::kS32, batch);
  ArrayOps top(builders.make, builders.constant);
  if (n == 0) return TridiagonalSolution{b, top.Fill(ElementType::kS32, 0, batch)};
  Computation* add = AddComputation(builders, t);
  // LAPACK's subdiagonal sub[i] = A[i + 1, i] = dl[i + 1]; du[n - 1] is not read.
  Instruction* sub = top.Fill(t, 0, vec_dims);
  if (n > 1) {
    std::vector<int64_t> one = batch;
    one.push_back(1);
    sub = top.Concatenate(top.SliceLast(dl, 1, n), top.Fill(t, 0, one), nb);
  }
  Instruction* upper = top.Select(top.Compare(top.Iota(ElementType::kS32, vec_dims, nb), top.Fill(ElementType::kS32, static_cast<double>(n - 1), vec_dims),
                                              ComparisonDirection::kLt),
                                  du, top.Fill(t, 0, vec_dims));
  // What one loop trip reads and writes of row i: element i of a diagonal,
  // row i of b, and both written back.
  struct Rows {
    ArrayOps& o;
    Computation* add;
    int64_t nb;
    Instruction *vec_index, *row_index;
    Instruction* At(Instruction* v, Instruction* i) const {
      return o.Sum(o.Select(o.Compare(vec_index, o.Spread(i, vec_index->shape.dims(), {}), ComparisonDirection::kEq), v,
                            o.Fill(v->shape.element_type(), 0, v->shape.dims())),
                   nb, add);
    }
    Instruction* Row(Instruction* y, Instruction* i) const {
      return o.Sum(o.Select(o.Compare(row_index, o.Spread(i, row_index->shape.dims(), {}), ComparisonDirection::kEq), y,
                            o.Fill(y->shape.element_type(), 0, y->shape.dims())),
                   nb, add);
    }
    Instruction* SetAt(Instruction* v, Instruction* i, Instruction* value, const std::vector<int64_t>& map) const {
      return o.Select(o.Compare(vec_index, o.Spread(i, vec_index->shape.dims(), {}), ComparisonDirection::kEq),
                      o.Spread(value, v->shape.dims(), map), v);
    }
    Instruction* SetRow(Instruction* y, Instruction* i, Instruction* row, const std::vector<int64_t>& map) const {
      return o.Select(o.Compare(row_index, o.Spread(i, row_index->shape.dims(), {}), ComparisonDirection::kEq),
                      o.Spread(row, y->shape.dims(), map), y);
    }
  };
  // Elimination, rows 0 .. n - 2: (i, d, du, fill, sub, b, info).
  const Shape elimination = Shape::Tuple({i32, vs, vs, vs, vs, bs, info_shape});
  Computation* cond = CounterCondition(builders, elimination, ComparisonDirection::kLt, n - 1);
  LoopBody body(builders, elimination);
  {
    ArrayOps& o = body.ops;
    Instruction *i = body.elements[0], *dd = body.elements[1], *uu = body.elements[2], *fill = body.elements[3], *ss = body.elements[4],
                *bb = body.elements[5], *info = body.elements[6];
    const Rows r{o, add, nb, o.Iota(ElementType::kS32, vec_dims, nb), o.Iota(ElementType::kS32, b_dims, nb)};
    Instruction* i1 = o.Binary(Opcode::kAdd, i, o.Const(ElementType::kS32, 1));
    Instruction *di = r.At(dd, i), *di1 = r.At(dd, i1), *ui = r.At(uu, i), *ui1 = r.At(uu, i1), *si = r.At(ss, i);
    Instruction *bi = r.Row(bb, i), *bi1 = r.Row(bb, i1);
    // No swap where |d[i]| >= |sub[i]| (|re| + |im| where complex, as gtsv).
    auto magnitude = [&](Instruction* x) {
      if (!IsComplex(t)) return o.Make(Opcode::kAbs, x->shape, {x});
      return o.Binary(Opcode::kAdd, o.Make(Opcode::kAbs, Shape(rt, batch), {o.Real(x)}), o.Make(Opcode::kAbs, Shape(rt, batch), {o.Imag(x)}));
    };
    Instruction* keep = o.Compare(magnitude(di), magnitude(si), ComparisonDirection::kGe);
    Instruction *zero = o.Fill(t, 0, batch), *one = o.Fill(t, 1, batch);
    auto safe = [&](Instruction* x) { return o.Select(o.Compare(x, zero, ComparisonDirection::kNe), x, one); };
    auto times = [&](Instruction* f, Instruction* row) { return o.Binary(Opcode::kMultiply, o.Spread(f, row_dims, batch_map), row); };
    Instruction* f_keep = o.Binary(Opcode::kDivide, si, safe(di));
    Instruction* f_swap = o.Binary(Opcode::kDivide, di, safe(si));
    auto pick = [&](Instruction* a, Instruction* s) { return o.Select(keep, a, s); };
    auto pick_row = [&](Instruction* a, Instruction* s) { return o.Select(o.Spread(keep, row_dims, batch_map), a, s); };
    Instruction* new_di = pick(di, si);
    Instruction* new_di1 = pick(o.Binary(Opcode::kSubtract, di1, o.Binary(Opcode::kMultiply, f_keep, ui)),
                                o.Binary(Opcode::kSubtract, ui, o.Binary(Opcode::kMultiply, f_swap, di1)));
    Instruction* new_ui = pick(ui, di1);
    Instruction* new_ui1 = pick(ui1, o.Binary(Opcode::kMultiply, o.Make(Opcode::kNegate, f_swap->shape, {f_swap}), ui1));
    Instruction* new_fill = pick(zero, ui1);
    Instruction* new_bi = pick_row(bi, bi1);
    Instruction* new_bi1 = pick_row(o.Binary(Opcode::kSubtract, bi1, times(f_keep, bi)), o.Binary(Opcode::kSubtract, bi, times(f_swap, bi1)));
    // info: the first zero pivot's 1-based row.
    Instruction* zero_pivot = o.Binary(Opcode::kAnd, keep, o.Compare(di, zero, ComparisonDirection::kEq));
    Instruction* first = o.Binary(Opcode::kAnd, zero_pivot, o.Compare(info, o.Fill(ElementType::kS32, 0, batch), ComparisonDirection::kEq));
    body.Finish({i1, r.SetAt(r.SetAt(dd, i, new_di, batch_map), i1, new_di1, batch_map),
                 r.SetAt(r.SetAt(uu, i, new_ui, batch_map), i1, new_ui1, batch_map), r.SetAt(fill, i, new_fill, batch_map), ss,
                 r.SetRow(r.SetRow(bb, i, new_bi, row_map), i1, new_bi1, row_map),
                 o.Select(first, o.Spread(i1, batch, {}), info)});
  }
  Instruction* eliminated =
      CountedLoop(top, elimination,
                  {top.Const(ElementType::kS32, 0), d, upper, top.Fill(t, 0, vec_dims), sub, b, top.Fill(ElementType::kS32, 0, batch)}, cond,
                  body.computation);
  Instruction *dd = top.Element(eliminated, 1), *uu = top.Element(eliminated, 2), *fill = top.Element(eliminated, 3),
              *bb = top.Element(eliminated, 5), *info = top.Element(eliminated, 6);
  {
    const Rows r{top, add, nb, top.Iota(ElementType::kS32, vec_dims, nb), top.Iota(ElementType::kS32, b_dims, nb)};
    Instruction* last = top.Const(ElementType::kS32, static_cast<double>(n - 1));
    Instruction* zero_last = top.Binary(Opcode::kAnd, top.Compare(r.At(dd, last), top.Fill(t, 0, batch), ComparisonDirection::kEq),
                                        top.Compare(info, top.Fill(ElementType::kS32, 0, batch), ComparisonDirection::kEq));
    info = top.Select(zero_last, top.Fill(ElementType::kS32, static_cast<double>(n), batch), info);
  }
  // Back substitution, rows n - 1 .. 0: x[i] = (b[i] - du[i] x[i + 1] - fill[i] x[i + 2]) / d[i].
  const Shape back = Shape::Tuple({i32, bs, vs, vs, vs});
  Computation* back_cond = CounterCondition(builders, back, ComparisonDirection::kGe, 0);
  LoopBody back_body(builders, back);
  {
    ArrayOps& o = back_body.ops;
    Instruction *i = back_body.elements[0], *x = back_body.elements[1], *d2 = back_body.elements[2], *u2 = back_body.elements[3],
                *f2 = back_body.elements[4];
    const Rows r{o, add, nb, o.Iota(ElementType::kS32, vec_dims, nb), o.Iota(ElementType::kS32, b_dims, nb)};
    Instruction* i1 = o.Binary(Opcode::kAdd, i, o.Const(ElementType::kS32, 1));
    Instruction* i2 = o.Binary(Opcode::kAdd, i, o.Const(ElementType::kS32, 2));
    auto spread = [&](Instruction* s) { return o.Spread(s, row_dims, batch_map); };
    Instruction* rest = o.Binary(Opcode::kSubtract,
                                 o.Binary(Opcode::kSubtract, r.Row(x, i), o.Binary(Opcode::kMultiply, spread(r.At(u2, i)), r.Row(x, i1))),
                                 o.Binary(Opcode::kMultiply, spread(r.At(f2, i)), r.Row(x, i2)));
    Instruction* xi = o.Binary(Opcode::kDivide, rest, spread(r.At(d2, i)));
    back_body.Finish({o.Binary(Opcode::kSubtract, i, o.Const(ElementType::kS32, 1)), r.SetRow(x, i, xi, row_map), d2, u2, f2});
  }
  Instruction* solved = CountedLoop(top, back, {top.Const(ElementType::kS32, static_cast<double>(n - 1)), bb, dd, uu, fill}, back_cond,
                                    back_body.computation);
  return TridiagonalSolution{top.Element(solved, 1), info};
}

}  // namespace vkxla
