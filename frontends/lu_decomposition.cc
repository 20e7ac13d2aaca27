#include "frontends/lu_decomposition.h"

#include <algorithm>

#include "frontends/array_ops.h"
#include "ir/module.h"

namespace vkxla {

StatusOr<LuFactors> BuildLuDecomposition(Instruction* a, const ComputationBuilders& b) {
  const Shape& s = a->shape;
  const ElementType t = s.element_type();
  if (!s.IsArray() || s.rank() < 2 || !IsDecompositionType(t))
    return Unimplemented("LU decomposition of " + s.ToString() + ": f32, f64, c64 and c128 matrices are supported");
  const ElementType rt = RealType(t);  // magnitudes
  const MatrixFrame f(s);
  const int64_t rank = f.rank, m = f.m, k = std::min(f.m, f.n);
  const std::vector<int64_t>&dims = f.dims, &batch = f.batch, &col_dims = f.col_dims, &row_dims = f.row_dims;
  std::vector<int64_t> k_dims = batch;  // [..., k]
  k_dims.push_back(k);
  const Shape i32 = Shape::Scalar(ElementType::kS32);
  const Shape state = Shape::Tuple({i32, s, Shape(ElementType::kS32, k_dims), Shape(ElementType::kS32, batch)});
  const std::vector<int64_t>& batch_map = f.batch_map;

  Computation* add = AddComputation(b, t);
  // (magnitude, row) pairs: the larger magnitude, the lower row among equals.
  Computation* argmax = b.new_computation();
  {
    ArrayOps o(b.make_in(argmax), b.constant_in(argmax));
    const Shape st = Shape::Scalar(rt);
    Instruction* av = Parameter(o, st, 0);
    Instruction* ai = Parameter(o, i32, 1);
    Instruction* bv = Parameter(o, st, 2);
    Instruction* bi = Parameter(o, i32, 3);
    Instruction* first = o.Binary(Opcode::kOr, o.Compare(av, bv, ComparisonDirection::kGt),
                                  o.Binary(Opcode::kAnd, o.Compare(av, bv, ComparisonDirection::kEq),
                                           o.Compare(ai, bi, ComparisonDirection::kLt)));
    argmax->set_root(o.Make(Opcode::kTuple, Shape::Tuple({st, i32}), {o.Select(first, av, bv), o.Select(first, ai, bi)}));
  }
  Computation* cond = CounterCondition(b, state, ComparisonDirection::kLt, k);
  LoopBody body(b, state);
  {
    ArrayOps& o = body.ops;
    Instruction *j = body.elements[0], *x = body.elements[1], *ipiv = body.elements[2], *info = body.elements[3];
    const int64_t rd = rank - 2, cd = rank - 1;  // the row and column dims of a matrix
    Instruction* rows = o.Iota(ElementType::kS32, dims, rd);
    Instruction* cols = o.Iota(ElementType::kS32, dims, cd);
    Instruction* jm = o.Spread(j, dims, {});
    Instruction* zero = o.Fill(t, 0, dims);
    // Column j and its candidates: magnitudes at or below the diagonal
    // (|re| + |im| where complex, as izamax measures).
    Instruction* col = o.Sum(o.Select(o.Compare(cols, jm, ComparisonDirection::kEq), x, zero), cd, add);
    Instruction* col_rows = o.Iota(ElementType::kS32, col_dims, rank - 2);
    Instruction* jc = o.Spread(j, col_dims, {});
    Instruction* magnitude = IsComplex(t) ? o.Binary(Opcode::kAdd, o.Make(Opcode::kAbs, Shape(rt, col_dims), {o.Real(col)}),
                                                     o.Make(Opcode::kAbs, Shape(rt, col_dims), {o.Imag(col)}))
                                          : o.Make(Opcode::kAbs, col->shape, {col});
    Instruction* cand = o.Select(o.Compare(col_rows, jc, ComparisonDirection::kGe), magnitude, o.Fill(rt, -1, col_dims));
    Instruction* best = o.Make(Opcode::kReduce, Shape::Tuple({Shape(rt, batch), Shape(ElementType::kS32, batch)}),
                               {cand, col_rows, o.Const(rt, -2), o.Const(ElementType::kS32, static_cast<double>(m))});
    best->dimensions = std::vector<int64_t>{rank - 2};
    best->called_computations.emplace_back("to_apply", argmax);
    Instruction* pivot_row = o.Element(best, 1);  // [...]
    // Rows j and p swapped.
    Instruction* pm = o.Spread(pivot_row, dims, batch_map);
    Instruction* is_j = o.Compare(rows, jm, ComparisonDirection::kEq);
    Instruction* is_p = o.Compare(rows, pm, ComparisonDirection::kEq);
    Instruction* row_j = o.Sum(o.Select(is_j, x, zero), rd, add);
    Instruction* row_p = o.Sum(o.Select(is_p, x, zero), rd, add);
    const std::vector<int64_t>& row_map = f.row_map;
    Instruction* swapped = o.Select(is_j, o.Spread(row_p, dims, row_map), o.Select(is_p, o.Spread(row_j, dims, row_map), x));
    // The pivot, and the column below it scaled by its reciprocal where it is not zero.
    Instruction* row_cols = o.Iota(ElementType::kS32, row_dims, rank - 2);
    Instruction* pivot = o.Sum(o.Select(o.Compare(row_cols, o.Spread(j, row_dims, {}), ComparisonDirection::kEq), row_p,
                                        o.Fill(t, 0, row_dims)),
                               rank - 2, add);  // [...]
    Instruction* nonzero = o.Compare(pivot, o.Fill(t, 0, batch), ComparisonDirection::kNe);
    Instruction* col_now = o.Sum(o.Select(o.Compare(cols, jm, ComparisonDirection::kEq), swapped, zero), cd, add);  // [..., m]
    Instruction* recip = o.Binary(Opcode::kDivide, o.Fill(t, 1, batch), pivot);
    Instruction* scaled = o.Select(o.Spread(nonzero, col_dims, batch_map),
                                   o.Binary(Opcode::kMultiply, col_now, o.Spread(recip, col_dims, batch_map)), col_now);
    Instruction* below = o.Compare(col_rows, jc, ComparisonDirection::kGt);
    Instruction* l = o.Select(below, scaled, o.Fill(t, 0, col_dims));
    // The trailing matrix less l times the new row j; column j below the diagonal holds l.
    const std::vector<int64_t>& col_map = f.col_map;
    Instruction* lm = o.Spread(l, dims, col_map);
    Instruction* update = o.Binary(Opcode::kMultiply, lm, o.Spread(row_p, dims, row_map));
    Instruction* trailing = o.Binary(Opcode::kAnd, o.Compare(rows, jm, ComparisonDirection::kGt),
                                     o.Compare(cols, jm, ComparisonDirection::kGt));
    Instruction* updated = o.Select(trailing, o.Binary(Opcode::kSubtract, swapped, update), swapped);
    Instruction* in_l = o.Binary(Opcode::kAnd, o.Compare(rows, jm, ComparisonDirection::kGt), o.Compare(cols, jm, ComparisonDirection::kEq));
    Instruction* next = o.Select(in_l, lm, updated);
    // ipiv[j] = p + 1; info the first zero pivot's step.
    Instruction* k_iota = o.Iota(ElementType::kS32, k_dims, rank - 2);
    Instruction* one = o.Const(ElementType::kS32, 1);
    Instruction* p1 = o.Binary(Opcode::kAdd, pivot_row, o.Spread(one, batch, {}));
    Instruction* next_ipiv = o.Select(o.Compare(k_iota, o.Spread(j, k_dims, {}), ComparisonDirection::kEq),
                                      o.Spread(p1, k_dims, batch_map), ipiv);
    Instruction* j1 = o.Binary(Opcode::kAdd, j, one);
    Instruction* first_zero = o.Binary(Opcode::kAnd, o.Compare(info, o.Fill(ElementType::kS32, 0, batch), ComparisonDirection::kEq),
                                       o.Make(Opcode::kNot, nonzero->shape, {nonzero}));
    Instruction* next_info = o.Select(first_zero, o.Spread(j1, batch, {}), info);
    body.Finish({j1, next, next_ipiv, next_info});
  }
  ArrayOps o(b.make, b.constant);
  Instruction* loop = CountedLoop(
      o, state, {o.Const(ElementType::kS32, 0), a, o.Fill(ElementType::kS32, 0, k_dims), o.Fill(ElementType::kS32, 0, batch)}, cond, body.computation);
  return LuFactors{o.Element(loop, 1), o.Element(loop, 2), o.Element(loop, 3)};
}

StatusOr<Instruction*> BuildPivotsToPermutation(Instruction* pivots, int64_t size, const ComputationBuilders& b) {
  const Shape& s = pivots->shape;
  if (!s.IsArray() || s.rank() < 1 || s.element_type() != ElementType::kS32 || size < 0 || size > (int64_t{1} << 31) - 1)
    return InvalidArgument("pivots to a permutation take s32[..., k] pivots and a size, not " + s.ToString());
  const int64_t rank = s.rank(), k = s.dim(rank - 1);
  std::vector<int64_t> batch(s.dims().begin(), s.dims().end() - 1), dims = batch;
  dims.push_back(size);
  const std::vector<int64_t> batch_map = Iota0(static_cast<int64_t>(batch.size()));
  const Shape i32 = Shape::Scalar(ElementType::kS32), perm_shape(ElementType::kS32, dims);
  const Shape state = Shape::Tuple({i32, perm_shape, s});
  Computation* add = AddComputation(b, ElementType::kS32);
  Computation* cond = CounterCondition(b, state, ComparisonDirection::kLt, k);
  LoopBody body(b, state);
  {
    ArrayOps& o = body.ops;
    Instruction *j = body.elements[0], *perm = body.elements[1], *piv = body.elements[2];
    Instruction* k_iota = o.Iota(ElementType::kS32, s.dims(), rank - 1);
    Instruction* pj = o.Sum(o.Select(o.Compare(k_iota, o.Spread(j, s.dims(), {}), ComparisonDirection::kEq), piv,
                                     o.Fill(ElementType::kS32, 0, s.dims())),
                            rank - 1, add);  // [...]
    Instruction* in_range = o.Binary(Opcode::kAnd, o.Compare(pj, o.Fill(ElementType::kS32, 0, batch), ComparisonDirection::kGe),
                                     o.Compare(pj, o.Fill(ElementType::kS32, static_cast<double>(size), batch), ComparisonDirection::kLt));
    Instruction* idx = o.Iota(ElementType::kS32, dims, rank - 1);
    Instruction* at_j = o.Compare(idx, o.Spread(j, dims, {}), ComparisonDirection::kEq);
    Instruction* at_p = o.Compare(idx, o.Spread(pj, dims, batch_map), ComparisonDirection::kEq);
    Instruction* zeros = o.Fill(ElementType::kS32, 0, dims);
    Instruction* value_j = o.Spread(o.Sum(o.Select(at_j, perm, zeros), rank - 1, add), dims, batch_map);
    Instruction* value_p = o.Spread(o.Sum(o.Select(at_p, perm, zeros), rank - 1, add), dims, batch_map);
    Instruction* swapped = o.Select(at_j, value_p, o.Select(at_p, value_j, perm));
    Instruction* next = o.Select(o.Spread(in_range, dims, batch_map), swapped, perm);
    body.Finish({o.Binary(Opcode::kAdd, j, o.Const(ElementType::kS32, 1)), next, piv});
  }
  ArrayOps o(b.make, b.constant);
  Instruction* loop = CountedLoop(o, state, {o.Const(ElementType::kS32, 0), o.Iota(ElementType::kS32, dims, rank - 1), pivots}, cond, body.computation);
  return o.Element(loop, 1);
}

}  // namespace vkxla
