#include "frontends/shape_refinement.h"

#include <map>
#include <set>

#include "frontends/mlir_types.h"
#include "ir/module.h"
#include "ops/evaluator.h"
#include "ops/op_traits.h"
#include "ops/shape_inference.h"
#include "ops/verifier.h"

namespace vkxla {
namespace {

// Instructions and elements a folded expression may have: shape
// arithmetic is a few scalars and short vectors.
constexpr size_t kMaxFoldedInstructions = 512;
constexpr int64_t kMaxFoldedElements = 4096;

// Whether `refined` keeps what `written` says: type, rank and every
// dimension that is not open.
bool Keeps(const Shape& written, const Shape& refined) {
  if (written.IsTuple() != refined.IsTuple()) return false;
  if (written.IsTuple()) {
    if (written.tuple_shapes().size() != refined.tuple_shapes().size()) return false;
    for (size_t i = 0; i < written.tuple_shapes().size(); ++i)
      if (!Keeps(written.tuple_shapes()[i], refined.tuple_shapes()[i])) return false;
    return true;
  }
  if (written.element_type() != refined.element_type() || written.rank() != refined.rank()) return false;
  for (int64_t d = 0; d < written.rank(); ++d)
    if (written.dim(d) != kUnknownDim && written.dim(d) != refined.dim(d)) return false;
  return true;
}

bool Foldable(const Instruction& i) {
  if (i.opcode == Opcode::kConstant || IsElementwise(i.opcode)) return true;
  switch (i.opcode) {
    case Opcode::kReshape:
    case Opcode::kBroadcast:
    case Opcode::kConcatenate:
    case Opcode::kSlice:
    case Opcode::kTranspose:
    case Opcode::kIota:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kReduce:  // the product of a shape's dims
      return true;
    default:
      return false;
  }
}

// `declared` with its arrays taken from `arrays` from `next` on (tuple
// nesting bounded by kMaxTupleDepth).
Shape FromArrays(const Shape& declared, const std::vector<Shape>& arrays, size_t& next) {
  if (declared.IsTuple()) {
    std::vector<Shape> elements;
    for (const Shape& e : declared.tuple_shapes()) elements.push_back(FromArrays(e, arrays, next));
    return Shape::Tuple(std::move(elements));
  }
  return declared.IsArray() ? arrays[next++] : declared;
}

}  // namespace

StatusOr<std::vector<Shape>> ArgumentShapesFromArrays(const std::vector<Shape>& declared, const std::vector<Shape>& arrays) {
  size_t count = 0;
  for (const Shape& d : declared) count += ArrayLeafShapes(d).size();
  if (count != arrays.size())
    return InvalidArgument("the entry takes " + std::to_string(count) + " arrays; " + std::to_string(arrays.size()) + " were given");
  std::vector<Shape> out;
  size_t next = 0;
  for (const Shape& d : declared) out.push_back(FromArrays(d, arrays, next));
  return out;
}

StatusOr<Shape> RefinedShape(const Instruction& inst) {
  const Shape& written = inst.shape;
  for (const Instruction* o : inst.operands)
    if (HasUnknownDims(o->shape)) return Internal("an operand of an open shape is not refined");
  StatusOr<Shape> refined = Shape();
  if (inst.opcode == Opcode::kBroadcast && written.IsArray() && !inst.operands.empty() && inst.dimensions) {
    // broadcast_in_dim: an open result dim is the operand dim mapped to it.
    Shape s = written;
    std::vector<int64_t> dims = written.dims();
    const std::vector<int64_t>& map = *inst.dimensions;
    for (size_t i = 0; i < map.size() && i < static_cast<size_t>(inst.operands[0]->shape.rank()); ++i)
      if (map[i] >= 0 && map[i] < written.rank() && dims[map[i]] == kUnknownDim) dims[map[i]] = inst.operands[0]->shape.dim(i);
    refined = Shape(written.element_type(), dims);
  } else {
    refined = InferShape(inst);
  }
  if (!refined.ok() || HasUnknownDims(*refined) || !Keeps(written, *refined))
    return InvalidArgument("its result type " + ShapeWithUnknownDims(written) + " does not follow from its operands" +
                           (refined.ok() ? " (they give " + ShapeWithUnknownDims(*refined) + ")" : ": " + refined.status().message()));
  return *refined;
}

StatusOr<Shape> RefinedArgument(const Shape& declared, const Shape& given) {
  if (Status bounded = CheckShapeBounds(given); !bounded.ok()) return InvalidArgument("is given as " + bounded.message());
  if (!Keeps(declared, given) || HasUnknownDims(given))
    return InvalidArgument("is " + ShapeWithUnknownDims(declared) + ", but its value is " + given.ToString(false));
  return given;
}

StatusOr<std::optional<Literal>> FoldConstantExpression(const Instruction& v) {
  // The expression's instructions, operands first (an explicit stack: no
  // recursion on the input's depth).
  std::vector<const Instruction*> order;
  std::set<const Instruction*> seen;
  std::vector<std::pair<const Instruction*, bool>> stack = {{&v, false}};
  while (!stack.empty()) {
    auto [i, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      order.push_back(i);
      continue;
    }
    if (seen.count(i)) continue;
    if (!Foldable(*i) || !i->shape.IsArray() || i->shape.element_count() > kMaxFoldedElements ||
        seen.size() >= kMaxFoldedInstructions)
      return std::optional<Literal>();
    seen.insert(i);
    stack.push_back({i, true});
    for (const Instruction* o : i->operands) stack.push_back({o, false});
  }
  Module module("fold");
  Computation* expression = module.AddComputation(std::make_unique<Computation>("fold"));
  std::map<const Instruction*, Instruction*> copies;
  for (const Instruction* i : order) {
    auto copy = std::make_unique<Instruction>(*i);
    for (Instruction*& o : copy->operands) o = copies.at(o);
    copies[i] = expression->AddInstruction(std::move(copy));
  }
  expression->set_root(copies.at(&v));
  module.set_entry(expression);
  // The reader has not verified its values yet: only a well-formed
  // expression is evaluated (the evaluator trusts its input).
  if (!VerifyModule(module).ok()) return std::optional<Literal>();
  VKXLA_ASSIGN_OR_RETURN(Literal value, EvaluateComputation(*expression, {}));
  return std::optional<Literal>(std::move(value));
}

}  // namespace vkxla
