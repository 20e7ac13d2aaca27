#include "frontends/xla_custom_calls.h"

#include <algorithm>

#include "frontends/mlir_types.h"
#include "frontends/custom_call_results.h"
#include "frontends/ducc_fft.h"
#include "frontends/linalg_custom_calls.h"
#include "frontends/stablehlo_syntax.h"
#include "ops/attributes.h"
#include "ops/op_traits.h"
#include "ops/rng_bit_generator.h"
#include "ops/slice_and_padding.h"
#include "ops/window.h"

namespace vkxla {
namespace {

constexpr const char* kTargets[] = {"stablehlo.dynamic_top_k", "stablehlo.dynamic_rng_bit_generator",
                                    "stablehlo.dynamic_reduce_window", "stablehlo.dynamic_approx_top_k", "ApproxTopK",
                                    "AllocateBuffer"};


// `written` (an array type) with its dims from `dims`, which must agree
// where it says them.
StatusOr<Shape> WithDims(const ExpandedCustomCall& c, const Shape& written, const std::vector<int64_t>& dims) {
  bool fits = written.IsArray() && static_cast<int64_t>(dims.size()) == written.rank();
  for (size_t d = 0; fits && d < dims.size(); ++d)
    fits = dims[d] >= 0 && dims[d] <= kMaxElements && (written.dim(d) == kUnknownDim || written.dim(d) == dims[d]);
  if (!fits) return CustomCallError(c, "its sizes do not fit its result type " + ShapeWithUnknownDims(written));
  return Shape(written.element_type(), dims);
}


// Operands 0..n-1 sorted along `dim` by the call's comparator (stable, so
// ties keep their order), each sliced to the first `size` along it.
StatusOr<std::vector<Instruction*>> SortedPrefix(const ExpandedCustomCall& c, size_t n, int64_t dim, const std::vector<Shape>& results,
                                                 const HloMaker& make) {
  if (!c.computation) return CustomCallError(c, "needs its comparator in called_computations");
  std::vector<Instruction*> xs(c.operands.begin(), c.operands.begin() + static_cast<std::ptrdiff_t>(n));
  std::vector<Shape> shapes;
  for (const Instruction* x : xs) {
    if (!x->shape.IsArray() || dim < 0 || dim >= x->shape.rank() || x->shape.dims() != xs[0]->shape.dims())
      return CustomCallError(c, "its operands must be arrays of one shape with dimension " + std::to_string(dim));
    shapes.push_back(x->shape);
  }
  Instruction* sort = make(Opcode::kSort, n == 1 ? shapes[0] : Shape::Tuple(shapes), xs);
  sort->dimensions = std::vector<int64_t>{dim};
  SetAttribute(*sort, "is_stable", "true");
  sort->called_computations.emplace_back("to_apply", c.computation);
  std::vector<Instruction*> out;
  for (size_t i = 0; i < n; ++i) {
    Instruction* sorted = sort;
    if (n > 1) {
      sorted = make(Opcode::kGetTupleElement, shapes[i], {sort});
      sorted->tuple_index = static_cast<int64_t>(i);
    }
    const Shape& want = results[i];
    std::vector<SliceDimension> slice;
    for (int64_t d = 0; d < want.rank(); ++d) {
      if (want.dim(d) > shapes[i].dim(d) || (d != dim && want.dim(d) != shapes[i].dim(d)))
        return CustomCallError(c, "result " + want.ToString() + " is no prefix of " + shapes[i].ToString() + " along dimension " + std::to_string(dim));
      slice.push_back({0, want.dim(d), 1});
    }
    Instruction* s = make(Opcode::kSlice, want, {sorted});
    s->other_attributes.emplace_back("slice", SliceText(slice));
    out.push_back(s);
  }
  return out;
}

bool IsThreefry(const std::string& target) {
  return target == "cu_threefry2x32" || target == "cu_threefry2x32_ffi" || target == "hip_threefry2x32" ||
         target == "hip_threefry2x32_ffi" || target == "oneapi_threefry2x32_ffi";
}

// jaxlib's GPU Threefry-2x32 kernel (20 rounds, Salmon et al.) over
// (key0, key1, x0, x1) of one u32 shape, as the adds, rotations and xors
// it is made of.
StatusOr<std::vector<Instruction*>> LowerThreefry(const ExpandedCustomCall& c, const HloMaker& make, const ConstantMaker& constant) {
  if (c.operands.size() != 4) return CustomCallError(c, "takes two key words and two counter words");
  const Shape& s = c.operands[0]->shape;
  for (const Instruction* o : c.operands)
    if (!o->shape.IsArray() || o->shape.element_type() != ElementType::kU32 || o->shape.dims() != s.dims())
      return CustomCallError(c, "takes u32 arrays of one shape, not " + o->shape.ToString());
  auto splat = [&](uint32_t v) {
    Instruction* b = make(Opcode::kBroadcast, s, {constant(Literal::ScalarOf(Scalar::UInt(ElementType::kU32, v)))});
    b->dimensions = std::vector<int64_t>{};
    return b;
  };
  auto op = [&](Opcode o, Instruction* a, Instruction* b) { return make(o, s, {a, b}); };
  auto rotl = [&](Instruction* x, uint32_t r) {
    return op(Opcode::kOr, op(Opcode::kShiftLeft, x, splat(r)), op(Opcode::kShiftRightLogical, x, splat(32 - r)));
  };
  Instruction* ks[3] = {c.operands[0], c.operands[1], nullptr};
  ks[2] = op(Opcode::kXor, op(Opcode::kXor, ks[0], ks[1]), splat(0x1BD11BDAu));
  Instruction* x0 = op(Opcode::kAdd, c.operands[2], ks[0]);
  Instruction* x1 = op(Opcode::kAdd, c.operands[3], ks[1]);
  const uint32_t rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  for (uint32_t group = 0; group < 5; ++group) {
    for (uint32_t r : rotations[group % 2]) {
      x0 = op(Opcode::kAdd, x0, x1);
      x1 = op(Opcode::kXor, rotl(x1, r), x0);
    }
    x0 = op(Opcode::kAdd, x0, ks[(group + 1) % 3]);
    x1 = op(Opcode::kAdd, op(Opcode::kAdd, x1, ks[(group + 2) % 3]), splat(group + 1));
  }
  if (c.result_types.size() == 2) return std::vector<Instruction*>{x0, x1};
  if (c.result_types.size() == 1 && c.result_types[0].IsTuple())  // the legacy kernel's one tuple
    return std::vector<Instruction*>{make(Opcode::kTuple, Shape::Tuple({s, s}), {x0, x1})};
  return CustomCallError(c, "gives two u32 arrays");
}

}  // namespace

bool IsExpandedCustomCall(const std::string& target) {
  for (const char* t : kTargets)
    if (target == t) return true;
  return IsLinalgCustomCall(target) || IsThreefry(target) || IsDuccFft(target);
}

StatusOr<std::vector<Instruction*>> LowerExpandedCustomCall(const ExpandedCustomCall& c, const HloMaker& make,
                                                            const ConstantMaker& constant) {
  auto attr = [&](const char* key) {
    auto it = c.attributes.find(key);
    return it == c.attributes.end() ? std::string() : it->second;
  };
  const size_t operands = c.operands.size(), results = c.result_types.size();
  if (IsLinalgCustomCall(c.target)) return LowerLinalgCustomCall(c, make, constant);
  if (IsThreefry(c.target)) return LowerThreefry(c, make, constant);
  if (IsDuccFft(c.target)) return LowerDuccFft(c, make, constant);
  if (c.target == "AllocateBuffer") {
    if (operands != 0 || results != 1 || !c.result_types[0].IsArray() || HasUnknownDims(c.result_types[0]))
      return CustomCallError(c, "takes nothing and gives one array of a static type");
    const Shape& t = c.result_types[0];
    Instruction* zero = constant(Literal(Shape::Scalar(t.element_type())));
    Instruction* b = make(Opcode::kBroadcast, t, {zero});
    b->dimensions = std::vector<int64_t>{};
    return std::vector<Instruction*>{b};
  }
  if (c.target == "stablehlo.dynamic_top_k") {
    if (operands != 2 || results != 2) return CustomCallError(c, "takes an operand and k and gives values and indices");
    VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> k, c.integers(1));
    const Shape& x = c.operands[0]->shape;
    if (k.size() != 1 || k[0] < 0 || !x.IsArray() || x.rank() == 0 || k[0] > x.dims().back())
      return CustomCallError(c, "k must be one integer from 0 to the last dimension of " + x.ToString());
    std::vector<int64_t> dims = x.dims();
    dims.back() = k[0];
    VKXLA_ASSIGN_OR_RETURN(Shape values, WithDims(c, c.result_types[0], dims));
    VKXLA_ASSIGN_OR_RETURN(Shape indices, WithDims(c, c.result_types[1], dims));
    Instruction* top = make(Opcode::kTopK, Shape::Tuple({values, indices}), {c.operands[0]});
    top->other_attributes.emplace_back("k", std::to_string(k[0]));
    top->other_attributes.emplace_back("largest", "true");
    std::vector<Instruction*> out;
    for (int64_t i = 0; i < 2; ++i) {
      Instruction* e = make(Opcode::kGetTupleElement, i == 0 ? values : indices, {top});
      e->tuple_index = i;
      out.push_back(e);
    }
    return out;
  }
  if (c.target == "stablehlo.dynamic_rng_bit_generator") {
    if (operands != 2 || results != 2) return CustomCallError(c, "takes a state and a shape and gives a state and bits");
    VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dims, c.integers(1));
    VKXLA_ASSIGN_OR_RETURN(Shape bits, WithDims(c, c.result_types[1], dims));
    const std::string a = attr("rng_algorithm");
    RngAlgorithm algorithm = RngAlgorithm::kDefault;
    if (a.find("THREE_FRY") != std::string::npos) algorithm = RngAlgorithm::kThreeFry;
    else if (a.find("PHILOX") != std::string::npos) algorithm = RngAlgorithm::kPhilox;
    Instruction* rng = make(Opcode::kRngBitGenerator, Shape::Tuple({c.operands[0]->shape, bits}), {c.operands[0]});
    SetRngAlgorithm(*rng, algorithm);
    std::vector<Instruction*> out;
    for (int64_t i = 0; i < 2; ++i) {
      Instruction* e = make(Opcode::kGetTupleElement, i == 0 ? c.operands[0]->shape : bits, {rng});
      e->tuple_index = i;
      out.push_back(e);
    }
    return out;
  }
  if (c.target == "stablehlo.dynamic_reduce_window") {
    // (inputs..., inits..., window_dimensions, window_strides,
    // base_dilations, window_dilations, padding): as many inputs as results.
    if (results == 0 || operands != 2 * results + 5) return CustomCallError(c, "takes inputs, their inits and five window operands");
    if (!c.computation) return CustomCallError(c, "needs its reducer in called_computations");
    const int64_t rank = c.operands[0]->shape.rank();
    std::vector<std::vector<int64_t>> w;
    for (size_t k = 0; k < 5; ++k) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> v, c.integers(2 * results + k));
      if (static_cast<int64_t>(v.size()) != (k == 4 ? 2 * rank : rank))
        return CustomCallError(c, "window operand " + std::to_string(k) + " has " + std::to_string(v.size()) + " values for rank " + std::to_string(rank));
      w.push_back(std::move(v));
    }
    Window window = UnitWindow(w[0]);
    window.stride = w[1];
    window.base_dilation = w[2];
    window.window_dilation = w[3];
    for (int64_t d = 0; d < rank; ++d) {
      window.pad_low[d] = w[4][2 * d];
      window.pad_high[d] = w[4][2 * d + 1];
    }
    std::vector<Instruction*> args(c.operands.begin(), c.operands.begin() + static_cast<std::ptrdiff_t>(2 * results));
    for (int64_t d = 0; d < rank; ++d)
      if (window.size[d] < 1 || window.stride[d] < 1 || window.base_dilation[d] < 1 || window.window_dilation[d] < 1)
        return CustomCallError(c, "window sizes, strides and dilations must be positive");
    std::vector<Shape> open;
    for (size_t i = 0; i < results; ++i) {
      VKXLA_ASSIGN_OR_RETURN(Shape r, WithDims(c, c.result_types[i], WindowedDims(c.operands[i]->shape.dims(), window)));
      open.push_back(r);
    }
    Instruction* rw = make(Opcode::kReduceWindow, results == 1 ? open[0] : Shape::Tuple(open), args);
    SetAttribute(*rw, "window", window.ToString());
    rw->called_computations.emplace_back("to_apply", c.computation);
    if (results == 1) return std::vector<Instruction*>{rw};
    std::vector<Instruction*> out;
    for (size_t i = 0; i < results; ++i) {
      Instruction* e = make(Opcode::kGetTupleElement, rw->shape.IsTuple() ? rw->shape.tuple_shapes()[i] : open[i], {rw});
      e->tuple_index = static_cast<int64_t>(i);
      out.push_back(e);
    }
    return out;
  }
  // ApproxTopK and its dynamic form: (inputs..., inits...[, shapes...]).
  const bool dynamic = c.target == "stablehlo.dynamic_approx_top_k";
  if (results == 0 || operands < 2 * results) return CustomCallError(c, "takes inputs and their inits");
  const std::string config = attr("mhlo.backend_config").empty() ? attr("backend_config") : attr("mhlo.backend_config");
  const std::optional<int64_t> dim = DictInteger(config, "reduction_dim");
  if (!dim) return CustomCallError(c, "needs reduction_dim in its backend_config");
  std::vector<Shape> shapes = c.result_types;
  if (dynamic) {
    const std::vector<int64_t> at = Integers(attr("indices_of_shape_operands"));
    if (at.size() != results) return CustomCallError(c, "needs one shape operand per result (indices_of_shape_operands)");
    for (size_t i = 0; i < results; ++i) {
      if (at[i] < static_cast<int64_t>(2 * results) || at[i] >= static_cast<int64_t>(operands))
        return CustomCallError(c, "shape operand " + std::to_string(at[i]) + " is not one of its trailing operands");
      VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dims, c.integers(static_cast<size_t>(at[i])));
      VKXLA_ASSIGN_OR_RETURN(shapes[i], WithDims(c, c.result_types[i], dims));
    }
  } else if (operands != 2 * results) {
    return CustomCallError(c, "takes as many inits as inputs");
  }
  for (const Shape& s : shapes)
    if (HasUnknownDims(s)) return CustomCallError(c, "its result type " + ShapeWithUnknownDims(s) + " is open");
  return SortedPrefix(c, results, *dim, shapes, make);
}

}  // namespace vkxla
