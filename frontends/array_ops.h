// A small builder of HLO ops over whole (batched) arrays, for the
// decompositions the StableHLO reader writes as loops of masked array
// work (frontends/lu_decomposition.h, frontends/qr_decomposition.h).
#pragma once

#include <functional>
#include <vector>

#include "frontends/chlo_mulhi.h"
#include "ops/attributes.h"
#include "ops/slice_and_padding.h"
#include "ir/instruction.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace vkxla {

// How the builder adds instructions: to the computation being read, or to
// a new computation of the module (a loop's condition and body, a
// reducer).
struct ComputationBuilders {
  HloMaker make;                                        // in the computation being read
  ConstantMaker constant;                               // likewise
  std::function<Computation*()> new_computation;        // an empty one in the module
  std::function<HloMaker(Computation*)> make_in;        // instructions in another
  std::function<ConstantMaker(Computation*)> constant_in;
};

// Builds array work (elementwise, spreads, masked sums) in one computation.
class ArrayOps {
 public:
  ArrayOps(HloMaker make, ConstantMaker constant) : make_(std::move(make)), constant_(std::move(constant)) {}

  Instruction* Make(Opcode op, const Shape& s, std::vector<Instruction*> operands) { return make_(op, s, std::move(operands)); }
  Instruction* Const(ElementType t, double v) {
    Literal l(Shape::Scalar(t));
    l.Set(0, t == ElementType::kPred ? Scalar::Pred(v != 0)
             : IsComplex(t)          ? Scalar::Complex(t, {v, 0})
             : IsFloat(t)            ? Scalar::Float(t, v)
                                     : Scalar::Int(t, static_cast<int64_t>(v)));
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
  // Complex parts, the conjugate, |x|^2 and a real x made complex; the
  // identity or the obvious where x is real.
  Instruction* Real(Instruction* x) {
    if (!IsComplex(x->shape.element_type())) return x;
    return Make(Opcode::kReal, Shape(ComplexComponentType(x->shape.element_type()), x->shape.dims()), {x});
  }
  Instruction* Imag(Instruction* x) {
    return Make(Opcode::kImag, Shape(ComplexComponentType(x->shape.element_type()), x->shape.dims()), {x});
  }
  Instruction* Conj(Instruction* x) {
    if (!IsComplex(x->shape.element_type())) return x;
    Instruction* im = Imag(x);
    return Make(Opcode::kComplex, x->shape, {Real(x), Make(Opcode::kNegate, im->shape, {im})});
  }
  Instruction* AbsSquared(Instruction* x) { return Real(Binary(Opcode::kMultiply, x, Conj(x))); }
  Instruction* As(Instruction* x, ElementType t) {
    if (x->shape.element_type() == t) return x;
    return Make(Opcode::kConvert, Shape(t, x->shape.dims()), {x});
  }
  // The sum of `x` over `dim` (a reduce with `add`).
  Instruction* Sum(Instruction* x, int64_t dim, Computation* add) {
    std::vector<int64_t> dims = x->shape.dims();
    dims.erase(dims.begin() + dim);
    Instruction* r = Make(Opcode::kReduce, Shape(x->shape.element_type(), dims), {x, Const(x->shape.element_type(), 0)});
    r->dimensions = std::vector<int64_t>{dim};
    r->called_computations.emplace_back("to_apply", add);
    return r;
  }
  // x[..., r0:r1, c0:c1].
  Instruction* SliceMatrix(Instruction* x, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    std::vector<int64_t> dims = x->shape.dims();
    const size_t rank = dims.size();
    if (r0 == 0 && c0 == 0 && r1 == dims[rank - 2] && c1 == dims[rank - 1]) return x;
    std::vector<SliceDimension> slice;
    for (size_t d = 0; d + 2 < rank; ++d) slice.push_back({0, dims[d], 1});
    slice.push_back({r0, r1, 1});
    slice.push_back({c0, c1, 1});
    dims[rank - 2] = r1 - r0;
    dims[rank - 1] = c1 - c0;
    Instruction* s = Make(Opcode::kSlice, Shape(x->shape.element_type(), dims), {x});
    s->other_attributes.emplace_back("slice", SliceText(slice));
    return s;
  }
  // x[..., start:limit] along its last dim.
  Instruction* SliceLast(Instruction* x, int64_t start, int64_t limit) {
    std::vector<int64_t> dims = x->shape.dims();
    std::vector<SliceDimension> slice;
    for (size_t d = 0; d + 1 < dims.size(); ++d) slice.push_back({0, dims[d], 1});
    slice.push_back({start, limit, 1});
    dims.back() = limit - start;
    Instruction* s = Make(Opcode::kSlice, Shape(x->shape.element_type(), dims), {x});
    s->other_attributes.emplace_back("slice", SliceText(slice));
    return s;
  }
  // The identity matrix (ones where row == column) of dims [..., r, c].
  Instruction* Identity(ElementType t, const std::vector<int64_t>& dims) {
    const int64_t rank = static_cast<int64_t>(dims.size());
    Instruction* eq = Compare(Iota(ElementType::kS32, dims, rank - 2), Iota(ElementType::kS32, dims, rank - 1), ComparisonDirection::kEq);
    return Select(eq, Fill(t, 1, dims), Fill(t, 0, dims));
  }
  // x with its last two dims swapped, conjugated where complex.
  Instruction* AdjointMatrix(Instruction* x) { return Conj(TransposeMatrix(x)); }
  // x with its last two dims swapped.
  Instruction* TransposeMatrix(Instruction* x) {
    std::vector<int64_t> dims = x->shape.dims(), perm(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) perm[d] = static_cast<int64_t>(d);
    std::swap(perm[dims.size() - 2], perm[dims.size() - 1]);
    std::swap(dims[dims.size() - 2], dims[dims.size() - 1]);
    Instruction* t = Make(Opcode::kTranspose, Shape(x->shape.element_type(), dims), {x});
    t->dimensions = std::move(perm);
    return t;
  }
  // The batched matrix product a [..., m, k] times b [..., k, n].
  Instruction* MatMul(Instruction* a, Instruction* b) {
    std::vector<int64_t> dims = a->shape.dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    dims.back() = b->shape.dims().back();
    Instruction* d = Make(Opcode::kDot, Shape(a->shape.element_type(), dims), {a, b});
    std::vector<int64_t> batch(static_cast<size_t>(rank - 2));
    for (int64_t i = 0; i < rank - 2; ++i) batch[i] = i;
    SetAttribute(*d, "lhs_batch_dims", IntListText(batch));
    SetAttribute(*d, "rhs_batch_dims", IntListText(batch));
    SetAttribute(*d, "lhs_contracting_dims", IntListText({rank - 1}));
    SetAttribute(*d, "rhs_contracting_dims", IntListText({rank - 2}));
    return d;
  }
  // a and b joined along `dim`.
  Instruction* Concatenate(Instruction* a, Instruction* b, int64_t dim) {
    std::vector<int64_t> dims = a->shape.dims();
    dims[dim] += b->shape.dim(dim);
    Instruction* c = Make(Opcode::kConcatenate, Shape(a->shape.element_type(), dims), {a, b});
    c->dimensions = std::vector<int64_t>{dim};
    return c;
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

// The type of a complex type's parts; a real type itself.
inline ElementType RealType(ElementType t) { return IsComplex(t) ? ComplexComponentType(t) : t; }

// The complex type of t's precision (f32 -> c64, f64 -> c128); a complex type itself.
inline ElementType ComplexOf(ElementType t) {
  if (IsComplex(t)) return t;
  return t == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128;
}

// The machine epsilon of t's real type (f32 or f64).
inline double Epsilon(ElementType t) {
  return RealType(t) == ElementType::kF32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
}

// batch dims followed by [rows, cols].
inline std::vector<int64_t> MatrixDims(std::vector<int64_t> batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

// f32, f64, c64 and c128: what the decompositions compute in.
inline bool IsDecompositionType(ElementType t) { return (IsFloat(t) && BitWidth(t) >= 32) || IsComplex(t); }

// A batch of square f32, f64, c64 or c128 matrices, or an error naming
// `what` ("the Schur decomposition") and the shape.
inline Status CheckSquareMatrices(const Shape& s, const std::string& what) {
  if (!s.IsArray() || s.rank() < 2 || !IsDecompositionType(s.element_type()) || s.dim(s.rank() - 1) != s.dim(s.rank() - 2))
    return Unimplemented(what + " of " + s.ToString() + ": square f32, f64, c64 and c128 matrices are supported");
  return OkStatus();
}

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


// The dims of a batch of matrices and the maps that spread their parts.
struct MatrixFrame {
  std::vector<int64_t> dims, batch, col_dims, row_dims;  // [..., m, n], [...], [..., m], [..., n]
  std::vector<int64_t> batch_map, col_map, row_map;
  int64_t rank = 0, m = 0, n = 0;
  explicit MatrixFrame(const Shape& s) : dims(s.dims()), rank(s.rank()), m(s.dim(s.rank() - 2)), n(s.dim(s.rank() - 1)) {
    batch.assign(dims.begin(), dims.end() - 2);
    col_dims = batch;
    col_dims.push_back(m);
    row_dims = batch;
    row_dims.push_back(n);
    batch_map = Iota0(static_cast<int64_t>(batch.size()));
    col_map = batch_map;
    col_map.push_back(rank - 2);
    row_map = batch_map;
    row_map.push_back(rank - 1);
  }
};

// (a, b) -> a + b over scalars of t, a computation of the module: the
// masked sums that pick a row, a column or an element.
inline Computation* AddComputation(const ComputationBuilders& b, ElementType t) {
  Computation* add = b.new_computation();
  ArrayOps o(b.make_in(add), b.constant_in(add));
  add->set_root(o.Make(Opcode::kAdd, Shape::Scalar(t), {Parameter(o, Shape::Scalar(t), 0), Parameter(o, Shape::Scalar(t), 1)}));
  return add;
}

// (a, b) -> max(a, b) over scalars of t, a computation of the module.
inline Computation* MaxComputation(const ComputationBuilders& b, ElementType t) {
  Computation* max = b.new_computation();
  ArrayOps o(b.make_in(max), b.constant_in(max));
  max->set_root(o.Make(Opcode::kMaximum, Shape::Scalar(t), {Parameter(o, Shape::Scalar(t), 0), Parameter(o, Shape::Scalar(t), 1)}));
  return max;
}

// A loop's condition: its `state`'s element 0 (an s32 counter) compared
// `dir` to `bound`.
inline Computation* CounterCondition(const ComputationBuilders& b, const Shape& state, ComparisonDirection dir, int64_t bound) {
  Computation* cond = b.new_computation();
  ArrayOps o(b.make_in(cond), b.constant_in(cond));
  cond->set_root(o.Compare(o.Element(Parameter(o, state, 0), 0), o.Const(ElementType::kS32, static_cast<double>(bound)), dir));
  return cond;
}

// A loop's body over `state`: a new computation, the ops that build in it,
// and the elements of its parameter; Finish sets the next state.
struct LoopBody {
  LoopBody(const ComputationBuilders& b, const Shape& state)
      : computation(b.new_computation()), ops(b.make_in(computation), b.constant_in(computation)), state_shape(state) {
    Instruction* p = Parameter(ops, state, 0);
    for (int64_t i = 0; i < static_cast<int64_t>(state.tuple_shapes().size()); ++i) elements.push_back(ops.Element(p, i));
  }
  void Finish(std::vector<Instruction*> next) { computation->set_root(ops.Make(Opcode::kTuple, state_shape, std::move(next))); }

  Computation* computation;
  ArrayOps ops;
  Shape state_shape;
  std::vector<Instruction*> elements;
};

// The builders of another computation (a loop's body) of the same module.
inline ComputationBuilders BuildersIn(const ComputationBuilders& b, Computation* c) {
  return ComputationBuilders{b.make_in(c), b.constant_in(c), b.new_computation, b.make_in, b.constant_in};
}

// Elements of a batch of square matrices picked by index: masks of the
// row and column iotas, masked sums with `add` (and `add_real` over the
// real type).
struct MatrixPicker {
  ArrayOps& o;
  const MatrixFrame& f;
  Computation *add, *add_real;
  Instruction *rows, *cols;
  MatrixPicker(ArrayOps& ops, const MatrixFrame& frame, Computation* a, Computation* ar)
      : o(ops), f(frame), add(a), add_real(ar), rows(ops.Iota(ElementType::kS32, frame.dims, frame.rank - 2)),
        cols(ops.Iota(ElementType::kS32, frame.dims, frame.rank - 1)) {}
  Instruction* Is(Instruction* index, Instruction* at) const {  // index == at, at over the batch dims
    return o.Compare(index, o.Spread(at, f.dims, f.batch_map), ComparisonDirection::kEq);
  }
  // x[..., i, j] for i, j s32 over the batch dims.
  Instruction* At(Instruction* x, Instruction* i, Instruction* j) const {
    Instruction* mask = o.Binary(Opcode::kAnd, Is(rows, i), Is(cols, j));
    Instruction* picked = o.Select(mask, x, o.Fill(x->shape.element_type(), 0, f.dims));
    return o.Sum(o.Sum(picked, f.rank - 1, add), f.rank - 2, add);
  }
  // x[..., k, k + offset] over k ([..., n]; 0 past the edge).
  Instruction* Diagonal(Instruction* x, int64_t offset) const {
    Instruction* on = o.Compare(o.Binary(Opcode::kAdd, rows, o.Fill(ElementType::kS32, static_cast<double>(offset), f.dims)), cols,
                                ComparisonDirection::kEq);
    return o.Sum(o.Select(on, x, o.Fill(x->shape.element_type(), 0, f.dims)), f.rank - 1, add);
  }
  Instruction* Magnitude(Instruction* x) const {
    return o.Make(Opcode::kAbs, Shape(RealType(x->shape.element_type()), x->shape.dims()), {x});
  }
};

// A while loop over `state` from `init`, in the computation being read.
inline Instruction* CountedLoop(ArrayOps& o, const Shape& state, std::vector<Instruction*> init, Computation* cond, Computation* body) {
  Instruction* loop = o.Make(Opcode::kWhile, state, {o.Make(Opcode::kTuple, state, std::move(init))});
  loop->called_computations = {{"condition", cond}, {"body", body}};
  return loop;
}

}  // namespace vkxla
