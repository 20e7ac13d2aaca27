#include "ops/reduction_reference.h"

#include <algorithm>
#include <numeric>

#include "ir/module.h"
#include "ops/computation_signature.h"
#include "ops/reduction_shapes.h"
#include "ops/window.h"

namespace vkxla {
namespace {

// The literal of `shape`: one array, or the tuple of `values`.
Literal Collated(std::vector<Literal> values) {
  if (values.size() == 1) return std::move(values[0]);
  return Literal::Tuple(std::move(values));
}

StatusOr<ScalarFunction> Called(const Instruction& inst, const std::string& key, const ScalarFunctionOf& fn) {
  VKXLA_ASSIGN_OR_RETURN(const Computation* c, CalledComputation(inst, key, key));
  return fn(*c);
}

// Calls odometer(index) for every index of `dims` in row-major order.
template <typename F>
Status ForEachIndex(const std::vector<int64_t>& dims, F&& visit) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    VKXLA_RETURN_IF_ERROR(visit(index));
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return OkStatus();
}

// A key whose unsigned order is the total order of t's values.
uint64_t TotalOrderKey(const Scalar& v) {
  const ElementType t = v.type;
  if (IsFloat(t)) return static_cast<uint64_t>(FloatTotalOrderKey(v)) ^ (uint64_t{1} << 63);
  if (IsSignedInt(t)) return static_cast<uint64_t>(v.s) ^ (uint64_t{1} << 63);
  return v.u;
}

// acc = f(acc..., the operands' elements at `at`).
Status FoldAt(const ScalarFunction& f, const std::vector<const Literal*>& operands, int64_t n,
              const std::vector<int64_t>& at, std::vector<Scalar>& acc) {
  const int64_t linear = LinearIndex(operands[0]->shape().dims(), at);
  std::vector<Scalar> args = acc;
  for (int64_t i = 0; i < n; ++i) args.push_back(operands[i]->Get(linear));
  VKXLA_ASSIGN_OR_RETURN(acc, f(args));
  return OkStatus();
}

// N results over out_dims: each element starts at the init values
// (operands n..2n-1) and `fold(index, acc)` folds in what it covers.
template <typename Fold>
StatusOr<Literal> FoldResults(const std::vector<const Literal*>& operands, int64_t n, const std::vector<int64_t>& out_dims,
                              Fold&& fold) {
  std::vector<Literal> results;
  for (int64_t i = 0; i < n; ++i) results.emplace_back(Shape(operands[i]->shape().element_type(), out_dims));
  int64_t out_linear = 0;
  VKXLA_RETURN_IF_ERROR(ForEachIndex(out_dims, [&](const std::vector<int64_t>& o) -> Status {
    std::vector<Scalar> acc;
    for (int64_t i = 0; i < n; ++i) acc.push_back(operands[n + i]->Get(0));
    VKXLA_RETURN_IF_ERROR(fold(o, acc));
    for (int64_t i = 0; i < n; ++i) results[i].Set(out_linear, acc[i]);
    ++out_linear;
    return OkStatus();
  }));
  return Collated(std::move(results));
}

}  // namespace

bool TopKBefore(const Scalar& a, const Scalar& b, bool largest) {
  const uint64_t ka = TotalOrderKey(a), kb = TotalOrderKey(b);
  return largest ? ka > kb : ka < kb;
}

StatusOr<Literal> EvaluateReduce(const Instruction& inst, const std::vector<const Literal*>& operands, const ScalarFunctionOf& fn) {
  VKXLA_ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(inst));
  VKXLA_ASSIGN_OR_RETURN(ScalarFunction f, Called(inst, "to_apply", fn));
  const int64_t n = plan.arity;
  const std::vector<int64_t>& dims = operands[0]->shape().dims();
  std::vector<int64_t> out_dims, reduced_dims;
  for (int64_t d : plan.kept) out_dims.push_back(dims[d]);
  for (int64_t d : plan.reduced) reduced_dims.push_back(dims[d]);
  return FoldResults(operands, n, out_dims, [&](const std::vector<int64_t>& o, std::vector<Scalar>& acc) -> Status {
    std::vector<int64_t> at(dims.size());
    for (size_t k = 0; k < plan.kept.size(); ++k) at[plan.kept[k]] = o[k];
    return ForEachIndex(reduced_dims, [&](const std::vector<int64_t>& r) -> Status {
      for (size_t k = 0; k < plan.reduced.size(); ++k) at[plan.reduced[k]] = r[k];
      return FoldAt(f, operands, n, at, acc);
    });
  });
}

StatusOr<Literal> EvaluateReduceWindow(const Instruction& inst, const std::vector<const Literal*>& operands,
                                       const ScalarFunctionOf& fn) {
  const int64_t n = static_cast<int64_t>(operands.size() / 2);
  const std::vector<int64_t>& dims = operands[0]->shape().dims();
  VKXLA_ASSIGN_OR_RETURN(Window w, WindowOf(inst, static_cast<int64_t>(dims.size())));
  VKXLA_ASSIGN_OR_RETURN(ScalarFunction f, Called(inst, "to_apply", fn));
  return FoldResults(operands, n, WindowedDims(dims, w), [&](const std::vector<int64_t>& o, std::vector<Scalar>& acc) -> Status {
    std::vector<int64_t> at(dims.size());
    return ForEachIndex(w.size, [&](const std::vector<int64_t>& k) -> Status {
      for (size_t d = 0; d < dims.size(); ++d) {
        // Position in the padded, dilated operand; holes and padding hold nothing.
        const int64_t p = o[d] * w.stride[d] + k[d] * w.window_dilation[d] - w.pad_low[d];
        if (p < 0 || p % w.base_dilation[d] != 0 || p / w.base_dilation[d] >= dims[d]) return OkStatus();
        at[d] = p / w.base_dilation[d];
      }
      return FoldAt(f, operands, n, at, acc);
    });
  });
}

StatusOr<Literal> EvaluateSelectAndScatter(const Instruction& inst, const std::vector<const Literal*>& operands,
                                           const ScalarFunctionOf& fn) {
  const Literal& x = *operands[0];
  const Literal& source = *operands[1];
  const std::vector<int64_t>& dims = x.shape().dims();
  VKXLA_ASSIGN_OR_RETURN(Window w, WindowOf(inst, static_cast<int64_t>(dims.size())));
  VKXLA_ASSIGN_OR_RETURN(ScalarFunction select, Called(inst, "select", fn));
  VKXLA_ASSIGN_OR_RETURN(ScalarFunction scatter, Called(inst, "scatter", fn));
  Literal out(Shape(x.shape().element_type(), dims));
  for (int64_t i = 0; i < out.element_count(); ++i) out.Set(i, operands[2]->Get(0));
  int64_t source_linear = 0;
  VKXLA_RETURN_IF_ERROR(ForEachIndex(source.shape().dims(), [&](const std::vector<int64_t>& s) -> Status {
    int64_t selected = -1;
    std::vector<int64_t> at(dims.size());
    VKXLA_RETURN_IF_ERROR(ForEachIndex(w.size, [&](const std::vector<int64_t>& k) -> Status {
      for (size_t d = 0; d < dims.size(); ++d) {
        at[d] = s[d] * w.stride[d] + k[d] - w.pad_low[d];
        if (at[d] < 0 || at[d] >= dims[d]) return OkStatus();
      }
      const int64_t linear = LinearIndex(dims, at);
      if (selected >= 0) {
        VKXLA_ASSIGN_OR_RETURN(std::vector<Scalar> keep, select({x.Get(selected), x.Get(linear)}));
        if (keep[0].pred()) return OkStatus();
      }
      selected = linear;
      return OkStatus();
    }));
    if (selected >= 0) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<Scalar> v, scatter({out.Get(selected), source.Get(source_linear)}));
      out.Set(selected, v[0]);
    }
    ++source_linear;
    return OkStatus();
  }));
  return out;
}

StatusOr<Literal> EvaluateScan(const Instruction& inst, const std::vector<const Literal*>& operands, const LiteralFunction& step) {
  VKXLA_ASSIGN_OR_RETURN(ScanPlan plan, PlanScan(inst));
  const std::vector<int64_t>& dims = operands[0]->shape().dims();
  const int64_t length = dims[plan.dimension];
  std::vector<int64_t> slice_dims = dims;
  slice_dims.erase(slice_dims.begin() + plan.dimension);
  std::vector<Literal> carries;
  for (int64_t i = 0; i < plan.carries; ++i) carries.push_back(*operands[plan.inputs + i]);
  const std::vector<Shape> result_shapes =
      inst.shape.IsTuple() ? inst.shape.tuple_shapes() : std::vector<Shape>{inst.shape};
  std::vector<Literal> outputs;
  for (int64_t i = 0; i < plan.outputs; ++i)
    outputs.emplace_back(Shape(result_shapes[i].element_type(), result_shapes[i].dims()));
  for (int64_t s = 0; s < length; ++s) {
    const int64_t at = plan.reverse ? length - 1 - s : s;
    // Slice `at` of an array with the scan dim, or writing one back.
    auto slice_index = [&](const std::vector<int64_t>& in_slice) {
      std::vector<int64_t> full = in_slice;
      full.insert(full.begin() + plan.dimension, at);
      return LinearIndex(dims, full);
    };
    std::vector<Literal> args;
    for (int64_t i = 0; i < plan.inputs; ++i) {
      Literal slice(Shape(operands[i]->shape().element_type(), slice_dims));
      int64_t k = 0;
      VKXLA_RETURN_IF_ERROR(ForEachIndex(slice_dims, [&](const std::vector<int64_t>& idx) -> Status {
        slice.Set(k++, operands[i]->Get(slice_index(idx)));
        return OkStatus();
      }));
      args.push_back(std::move(slice));
    }
    for (const Literal& c : carries) args.push_back(c);
    VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> r, step(args));
    for (int64_t i = 0; i < plan.outputs; ++i) {
      int64_t k = 0;
      VKXLA_RETURN_IF_ERROR(ForEachIndex(slice_dims, [&](const std::vector<int64_t>& idx) -> Status {
        outputs[i].Set(slice_index(idx), r[i].Get(k++));
        return OkStatus();
      }));
    }
    for (int64_t i = 0; i < plan.carries; ++i) carries[i] = std::move(r[plan.outputs + i]);
  }
  for (Literal& c : carries) outputs.push_back(std::move(c));
  return Collated(std::move(outputs));
}

namespace {

// Reorders every line along `dim` of each operand by the permutation that
// `before(line, i, j)` sorts stably.
template <typename Before>
StatusOr<std::vector<Literal>> SortLines(const std::vector<const Literal*>& operands, int64_t dim, Before&& before) {
  const std::vector<int64_t>& dims = operands[0]->shape().dims();
  std::vector<Literal> results;
  for (const Literal* o : operands) results.emplace_back(Shape(o->shape().element_type(), dims));
  std::vector<int64_t> line_dims = dims;
  line_dims[dim] = 1;
  const int64_t length = dims[dim];
  Status status = OkStatus();
  VKXLA_RETURN_IF_ERROR(ForEachIndex(line_dims, [&](const std::vector<int64_t>& base) -> Status {
    std::vector<int64_t> position(length);
    for (int64_t k = 0; k < length; ++k) {
      std::vector<int64_t> at = base;
      at[dim] = k;
      position[k] = LinearIndex(dims, at);
    }
    std::vector<int64_t> order(length);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
      if (!status.ok()) return false;
      StatusOr<bool> b = before(position[i], position[j]);
      if (!b.ok()) {
        status = b.status();
        return false;
      }
      return *b;
    });
    VKXLA_RETURN_IF_ERROR(status);
    for (size_t o = 0; o < operands.size(); ++o)
      for (int64_t k = 0; k < length; ++k) results[o].Set(position[k], operands[o]->Get(position[order[k]]));
    return OkStatus();
  }));
  return results;
}

}  // namespace

StatusOr<Literal> EvaluateSort(const Instruction& inst, const std::vector<const Literal*>& operands, const ScalarFunctionOf& fn) {
  VKXLA_ASSIGN_OR_RETURN(int64_t dim, SortDimension(inst));
  VKXLA_ASSIGN_OR_RETURN(ScalarFunction less, Called(inst, "to_apply", fn));
  VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> results, SortLines(operands, dim, [&](int64_t i, int64_t j) -> StatusOr<bool> {
    std::vector<Scalar> args;
    for (const Literal* o : operands) {
      args.push_back(o->Get(i));
      args.push_back(o->Get(j));
    }
    VKXLA_ASSIGN_OR_RETURN(std::vector<Scalar> r, less(args));
    return r[0].pred();
  }));
  return Collated(std::move(results));
}

StatusOr<Literal> EvaluateTopK(const Instruction& inst, const std::vector<const Literal*>& operands) {
  VKXLA_ASSIGN_OR_RETURN(TopKPlan plan, PlanTopK(inst));
  const Literal& x = *operands[0];
  const std::vector<int64_t>& dims = x.shape().dims();
  const int64_t dim = static_cast<int64_t>(dims.size()) - 1;
  Literal iota(Shape(ElementType::kS32, dims));
  for (int64_t i = 0; i < iota.element_count(); ++i) iota.Set(i, Scalar::Int(ElementType::kS32, i % dims[dim]));
  VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> sorted, SortLines({&x, &iota}, dim, [&](int64_t i, int64_t j) -> StatusOr<bool> {
    return TopKBefore(x.Get(i), x.Get(j), plan.largest);
  }));
  std::vector<int64_t> out_dims = dims;
  out_dims[dim] = plan.k;
  std::vector<Literal> results;
  for (Literal& s : sorted) {
    Literal cut(Shape(s.shape().element_type(), out_dims));
    int64_t k = 0;
    VKXLA_RETURN_IF_ERROR(ForEachIndex(out_dims, [&](const std::vector<int64_t>& idx) -> Status {
      cut.Set(k++, s.GetAt(idx));
      return OkStatus();
    }));
    results.push_back(std::move(cut));
  }
  return Literal::Tuple(std::move(results));
}

StatusOr<Literal> EvaluateMap(const Instruction& inst, const std::vector<const Literal*>& operands, const ScalarFunctionOf& fn) {
  VKXLA_ASSIGN_OR_RETURN(ScalarFunction f, Called(inst, "to_apply", fn));
  Literal out(Shape(inst.shape.element_type(), inst.shape.dims()));
  for (int64_t i = 0; i < out.element_count(); ++i) {
    std::vector<Scalar> args;
    for (const Literal* o : operands) args.push_back(o->Get(i));
    VKXLA_ASSIGN_OR_RETURN(std::vector<Scalar> r, f(args));
    out.Set(i, r[0]);
  }
  return out;
}

}  // namespace vkxla
