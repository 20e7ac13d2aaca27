#include "ops/reduction_shapes.h"

#include <algorithm>

#include "ir/module.h"
#include "ops/attributes.h"
#include "ops/op_traits.h"
#include "ops/computation_signature.h"
#include "ops/window.h"

namespace vkxla {
namespace {

Status Error(const Instruction& inst, const std::string& message) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": " + message);
}

std::vector<const Instruction*> Slice(const Instruction& inst, size_t from, size_t count) {
  return std::vector<const Instruction*>(inst.operands.begin() + from, inst.operands.begin() + from + count);
}

// One array or a tuple of several.
Shape Collate(const std::vector<Shape>& shapes) { return shapes.size() == 1 ? shapes[0] : Shape::Tuple(shapes); }

// N arrays of equal dims then N scalar init values of their types.
StatusOr<int64_t> CheckOperandsAndInits(const Instruction& inst) {
  const size_t count = inst.operands.size();
  if (count < 2 || count % 2 != 0)
    return Error(inst, "takes N operands and N init values; got " + std::to_string(count) + " operands");
  const int64_t n = static_cast<int64_t>(count / 2);
  const Shape& first = inst.operands[0]->shape;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& x = inst.operands[i]->shape;
    const Shape& init = inst.operands[n + i]->shape;
    if (!x.IsArray()) return Error(inst, "operand " + std::to_string(i) + " " + x.ToString() + " is not an array");
    if (x.dims() != first.dims())
      return Error(inst, "operands " + first.ToString() + " and " + x.ToString() + " differ in dimensions");
    if (!init.IsArray() || init.rank() != 0 || init.element_type() != x.element_type())
      return Error(inst, "init value " + std::to_string(i) + " is " + init.ToString() + "; expected a " +
                             std::string(ElementTypeName(x.element_type())) + "[] scalar like operand " + x.ToString());
  }
  VKXLA_ASSIGN_OR_RETURN(const Computation* c, CalledComputation(inst, "to_apply", "the reduction computation"));
  auto operands = Slice(inst, 0, n);
  VKXLA_RETURN_IF_ERROR(CheckSignature(inst, *c, "reduction computation", ScalarsOf(operands, 2), ScalarsOf(operands, 1)));
  return n;
}

StatusOr<Shape> InferReduce(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(inst));
  std::vector<Shape> results;
  for (int64_t i = 0; i < plan.arity; ++i) {
    std::vector<int64_t> dims;
    for (int64_t d : plan.kept) dims.push_back(inst.operands[i]->shape.dim(d));
    results.push_back(Shape(inst.operands[i]->shape.element_type(), dims));
  }
  return Collate(results);
}

StatusOr<Shape> InferReduceWindow(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(int64_t n, CheckOperandsAndInits(inst));
  const Shape& x = inst.operands[0]->shape;
  VKXLA_ASSIGN_OR_RETURN(Window w, WindowOf(inst, x.rank()));
  const std::vector<int64_t> dims = WindowedDims(x.dims(), w);
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) results.push_back(Shape(inst.operands[i]->shape.element_type(), dims));
  return Collate(results);
}

StatusOr<Shape> InferSelectAndScatter(const Instruction& inst) {
  if (inst.operands.size() != 3)
    return Error(inst, "takes the operand, the source and the init value; got " + std::to_string(inst.operands.size()) + " operands");
  const Shape& x = inst.operands[0]->shape;
  const Shape& source = inst.operands[1]->shape;
  const Shape& init = inst.operands[2]->shape;
  if (!x.IsArray() || !source.IsArray()) return Error(inst, "operand and source must be arrays");
  VKXLA_ASSIGN_OR_RETURN(Window w, WindowOf(inst, x.rank()));
  for (int64_t d = 0; d < x.rank(); ++d)
    if (w.base_dilation[d] != 1 || w.window_dilation[d] != 1) return Error(inst, "window=" + w.ToString() + " must not dilate");
  const std::vector<int64_t> windows = WindowedDims(x.dims(), w);
  if (source.element_type() != x.element_type() || source.dims() != windows)
    return Error(inst, "source " + source.ToString() + " must be " + Shape(x.element_type(), windows).ToString(false) +
                           ", one element per window position over operand " + x.ToString());
  if (!init.IsArray() || init.rank() != 0 || init.element_type() != x.element_type())
    return Error(inst, "init value " + init.ToString() + " must be a scalar of the operand's type " + x.ToString());
  const Shape t = Shape::Scalar(x.element_type());
  VKXLA_ASSIGN_OR_RETURN(const Computation* select, CalledComputation(inst, "select", "the select computation"));
  VKXLA_RETURN_IF_ERROR(CheckSignature(inst, *select, "select computation", {t, t}, {Shape::Scalar(ElementType::kPred)}));
  VKXLA_ASSIGN_OR_RETURN(const Computation* scatter, CalledComputation(inst, "scatter", "the scatter computation"));
  VKXLA_RETURN_IF_ERROR(CheckSignature(inst, *scatter, "scatter computation", {t, t}, {t}));
  return Shape(x.element_type(), x.dims());
}

StatusOr<Shape> InferScan(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(ScanPlan plan, PlanScan(inst));
  VKXLA_ASSIGN_OR_RETURN(const Computation* c, CalledComputation(inst, "to_apply", "the scan computation"));
  const Shape& root = c->root()->shape;
  const std::vector<Shape> returned = root.IsTuple() ? root.tuple_shapes() : std::vector<Shape>{root};
  const Shape& x = inst.operands[0]->shape;
  std::vector<Shape> results;
  for (int64_t i = 0; i < plan.outputs; ++i) {
    std::vector<int64_t> dims = returned[i].dims();
    dims.insert(dims.begin() + plan.dimension, x.dim(plan.dimension));
    results.push_back(Shape(returned[i].element_type(), dims));
  }
  for (int64_t i = 0; i < plan.carries; ++i) {
    const Shape& s = inst.operands[plan.inputs + i]->shape;
    results.push_back(Shape(s.element_type(), s.dims()));
  }
  return Collate(results);
}

StatusOr<Shape> InferSort(const Instruction& inst) {
  if (inst.operands.empty()) return Error(inst, "needs at least one operand");
  const Shape& first = inst.operands[0]->shape;
  std::vector<Shape> results;
  for (const Instruction* o : inst.operands) {
    if (!o->shape.IsArray() || o->shape.dims() != first.dims())
      return Error(inst, "operands " + first.ToString() + " and " + o->shape.ToString() + " must be arrays of equal dimensions");
    results.push_back(Shape(o->shape.element_type(), o->shape.dims()));
  }
  VKXLA_RETURN_IF_ERROR(SortDimension(inst).status());
  VKXLA_ASSIGN_OR_RETURN(const Computation* c, CalledComputation(inst, "to_apply", "the comparator"));
  std::vector<Shape> params;
  for (const Instruction* o : inst.operands)
    for (int k = 0; k < 2; ++k) params.push_back(Shape::Scalar(o->shape.element_type()));
  VKXLA_RETURN_IF_ERROR(CheckSignature(inst, *c, "comparator", params, {Shape::Scalar(ElementType::kPred)}));
  return Collate(results);
}

StatusOr<Shape> InferTopK(const Instruction& inst) {
  if (inst.operands.size() != 1) return Error(inst, "takes one operand");
  const Shape& x = inst.operands[0]->shape;
  if (!x.IsArray() || x.rank() < 1 || x.element_type() == ElementType::kPred || IsComplex(x.element_type()))
    return Error(inst, "operand " + x.ToString() + " must be an integer or floating-point array of rank 1 or more");
  VKXLA_ASSIGN_OR_RETURN(TopKPlan plan, PlanTopK(inst));
  std::vector<int64_t> dims = x.dims();
  dims.back() = plan.k;
  return Shape::Tuple({Shape(x.element_type(), dims), Shape(ElementType::kS32, dims)});
}

StatusOr<Shape> InferMap(const Instruction& inst) {
  if (inst.operands.empty()) return Error(inst, "needs at least one operand");
  const Shape& first = inst.operands[0]->shape;
  for (const Instruction* o : inst.operands)
    if (!o->shape.IsArray() || o->shape.dims() != first.dims())
      return Error(inst, "operands " + first.ToString() + " and " + o->shape.ToString() + " must be arrays of equal dimensions");
  VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntListAttribute(inst, "dimensions", false));
  if (inst.dimensions) dims = *inst.dimensions;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] != static_cast<int64_t>(d) || dims.size() != static_cast<size_t>(first.rank()))
      return Error(inst, "dimensions=" + IntListText(dims) + " must list every dimension of " + first.ToString() + " in order");
  VKXLA_ASSIGN_OR_RETURN(const Computation* c, CalledComputation(inst, "to_apply", "the mapped computation"));
  const Shape& root = c->root()->shape;
  if (!root.IsArray() || root.rank() != 0)
    return Error(inst, "mapped computation %" + c->name() + " returns " + root.ToString(false) + "; expected a scalar");
  VKXLA_RETURN_IF_ERROR(CheckSignature(inst, *c, "mapped computation", ScalarsOf(Slice(inst, 0, inst.operands.size()), 1),
                                 {Shape::Scalar(root.element_type())}));
  return Shape(root.element_type(), first.dims());
}

}  // namespace

bool IsOneCommutativeOp(const Computation& c) {
  const Instruction* r = c.root();
  const auto params = c.parameters();
  if (params.size() != 2 || r->operands.size() != 2 || !IsAssociativeAndCommutative(r->opcode)) return false;
  return (r->operands[0] == params[0] && r->operands[1] == params[1]) ||
         (r->operands[0] == params[1] && r->operands[1] == params[0]);
}

StatusOr<ReducePlan> PlanReduce(const Instruction& inst) {
  ReducePlan plan;
  VKXLA_ASSIGN_OR_RETURN(plan.arity, CheckOperandsAndInits(inst));
  const Shape& x = inst.operands[0]->shape;
  if (!inst.dimensions) return Error(inst, "needs dimensions={...}, the dimensions to reduce");
  plan.reduced = *inst.dimensions;
  std::sort(plan.reduced.begin(), plan.reduced.end());
  for (size_t i = 0; i < plan.reduced.size(); ++i)
    if (plan.reduced[i] < 0 || plan.reduced[i] >= x.rank() || (i > 0 && plan.reduced[i] == plan.reduced[i - 1]))
      return Error(inst, "dimensions=" + IntListText(*inst.dimensions) + " must be distinct dimensions of " + x.ToString());
  for (int64_t d = 0; d < x.rank(); ++d)
    if (!std::binary_search(plan.reduced.begin(), plan.reduced.end(), d)) plan.kept.push_back(d);
  return plan;
}

StatusOr<ScanPlan> PlanScan(const Instruction& inst) {
  ScanPlan plan;
  if (inst.operands.empty()) return Error(inst, "needs at least one input");
  // Inputs come first and carry the scan dimension; carries have one dim less.
  const int64_t rank = inst.operands[0]->shape.IsArray() ? inst.operands[0]->shape.rank() : -1;
  if (rank < 1) return Error(inst, "input " + inst.operands[0]->shape.ToString() + " must be an array of rank 1 or more");
  while (plan.inputs < static_cast<int64_t>(inst.operands.size()) && inst.operands[plan.inputs]->shape.IsArray() &&
         inst.operands[plan.inputs]->shape.rank() == rank)
    ++plan.inputs;
  plan.carries = static_cast<int64_t>(inst.operands.size()) - plan.inputs;
  VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dim, IntListAttribute(inst, "dimensions", false));
  if (inst.dimensions) dim = *inst.dimensions;
  if (FindAttribute(inst, "scan_dimension")) {
    VKXLA_ASSIGN_OR_RETURN(int64_t v, IntAttribute(inst, "scan_dimension"));
    dim = {v};
  }
  if (dim.size() != 1 || dim[0] < 0 || dim[0] >= rank)
    return Error(inst, "needs scan_dimension=d naming a dimension of " + inst.operands[0]->shape.ToString());
  plan.dimension = dim[0];
  VKXLA_ASSIGN_OR_RETURN(plan.reverse, BoolAttribute(inst, "is_reverse"));
  if (FindAttribute(inst, "is_associative")) {
    VKXLA_ASSIGN_OR_RETURN(bool a, BoolAttribute(inst, "is_associative"));
    plan.associative = a;
  }
  const Shape& x = inst.operands[0]->shape;
  std::vector<int64_t> slice = x.dims();
  slice.erase(slice.begin() + plan.dimension);
  std::vector<Shape> params;
  for (int64_t i = 0; i < plan.inputs; ++i) {
    const Shape& s = inst.operands[i]->shape;
    if (s.dim(plan.dimension) != x.dim(plan.dimension))
      return Error(inst, "inputs " + x.ToString() + " and " + s.ToString() + " differ along scan dimension " +
                             std::to_string(plan.dimension));
    std::vector<int64_t> d = s.dims();
    d.erase(d.begin() + plan.dimension);
    params.push_back(Shape(s.element_type(), d));
  }
  for (int64_t i = 0; i < plan.carries; ++i) {
    const Shape& s = inst.operands[plan.inputs + i]->shape;
    if (!s.IsArray()) return Error(inst, "carry " + s.ToString() + " must be an array");
    params.push_back(Shape(s.element_type(), s.dims()));
  }
  VKXLA_ASSIGN_OR_RETURN(const Computation* c, CalledComputation(inst, "to_apply", "the scan computation"));
  const Shape& root = c->root()->shape;
  const int64_t returned = root.IsTuple() ? static_cast<int64_t>(root.tuple_shapes().size()) : 1;
  plan.outputs = returned - plan.carries;
  if (plan.outputs < 0)
    return Error(inst, "scan computation %" + c->name() + " returns " + root.ToString(false) + ", fewer values than the " +
                           std::to_string(plan.carries) + " carries");
  std::vector<Shape> results;
  for (int64_t i = 0; i < plan.outputs; ++i) {
    const Shape& r = root.IsTuple() ? root.tuple_shapes()[i] : root;
    results.push_back(r.IsArray() ? Shape(r.element_type(), slice) : r);
  }
  for (int64_t i = 0; i < plan.carries; ++i) results.push_back(params[plan.inputs + i]);
  VKXLA_RETURN_IF_ERROR(CheckSignature(inst, *c, "scan computation", params, results));
  // The one-operator form: f(x, c) = (c', c') with c' = c op x.
  plan.prefix_form = plan.inputs == plan.carries && plan.outputs == plan.carries && root.IsTuple() == (returned > 1);
  const Instruction* r = c->root();
  for (int64_t i = 0; plan.prefix_form && i < plan.carries; ++i) {
    plan.prefix_form = params[i].Compatible(params[plan.inputs + i]);
    if (returned > 1) plan.prefix_form = plan.prefix_form && r->opcode == Opcode::kTuple && r->operands[i] == r->operands[plan.outputs + i];
  }
  if (returned == 1) plan.prefix_form = false;  // one value cannot be both an output and a carry
  return plan;
}

StatusOr<int64_t> SortDimension(const Instruction& inst) {
  const Shape& x = inst.operands[0]->shape;
  int64_t d = x.rank() - 1;
  if (inst.dimensions && !inst.dimensions->empty()) d = (*inst.dimensions)[0];
  if (!inst.dimensions || inst.dimensions->size() > 1 || d < 0 || d >= x.rank())
    return Error(inst, "needs dimensions={d} naming one dimension of " + x.ToString());
  return d;
}

StatusOr<TopKPlan> PlanTopK(const Instruction& inst) {
  TopKPlan plan;
  VKXLA_ASSIGN_OR_RETURN(plan.k, IntAttribute(inst, "k"));
  if (FindAttribute(inst, "largest")) {
    VKXLA_ASSIGN_OR_RETURN(plan.largest, BoolAttribute(inst, "largest"));
  }
  const Shape& x = inst.operands[0]->shape;
  if (plan.k < 0 || (x.IsArray() && x.rank() >= 1 && plan.k > x.dims().back()))
    return Error(inst, "k=" + std::to_string(plan.k) + " must be in [0, " +
                           std::to_string(x.IsArray() && x.rank() ? x.dims().back() : 0) + "], the last dimension of " + x.ToString());
  return plan;
}

std::optional<StatusOr<Shape>> InferReductionShape(const Instruction& inst) {
  switch (inst.opcode) {
    case Opcode::kReduce: return InferReduce(inst);
    case Opcode::kReduceWindow: return InferReduceWindow(inst);
    case Opcode::kSelectAndScatter: return InferSelectAndScatter(inst);
    case Opcode::kScan: return InferScan(inst);
    case Opcode::kSort: return InferSort(inst);
    case Opcode::kTopK: return InferTopK(inst);
    case Opcode::kMap: return InferMap(inst);
    default: return std::nullopt;
  }
}

bool IsDynamicReduce(const Instruction& inst) {
  if ((inst.opcode != Opcode::kReduce || !inst.dimensions) && inst.opcode != Opcode::kReduceWindow) return false;
  if (inst.operands.size() < 2 || inst.operands.size() % 2 != 0) return false;
  const size_t n = inst.operands.size() / 2;
  bool dynamic = false;
  for (size_t i = 0; i < inst.operands.size(); ++i) {
    const Shape& s = inst.operands[i]->shape;
    if (!s.IsArray()) return false;
    if (!s.is_static()) {
      if (i >= n) return false;  // init values are scalars
      dynamic = true;
    }
  }
  return dynamic;
}

}  // namespace vkxla
