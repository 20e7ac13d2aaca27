// The public Builder over the engine's XlaBuilder: handles instead of
// XlaOps, op names instead of opcodes, arrays instead of literals.
#include "vkxla/builder.h"

#include "api/array_literal.h"
#include "frontends/xla_builder.h"
#include "ir/hlo_printer.h"
#include "ops/op_traits.h"

namespace vkxla {

struct Builder::State {
  explicit State(std::string name) : builder(std::move(name)) {}
  XlaBuilder builder;
  std::vector<XlaOp> ops;  // Op::index_ -> the op
  Status error;            // the facade's own first error (bad names, foreign handles)
  bool built = false;

  void Fail(Status s) {
    if (error.ok()) error = std::move(s);
  }
  XlaOp Get(Op op) {
    if (op.index_ < 0 || static_cast<size_t>(op.index_) >= ops.size()) {
      Fail(InvalidArgument("builder: an Op that this Builder did not make (a default Op, or another Builder's)"));
      return XlaOp();
    }
    return ops[op.index_];
  }
  Op Put(XlaOp x) {
    ops.push_back(x);
    return Op(static_cast<int>(ops.size() - 1));
  }
  std::optional<Opcode> OpcodeNamed(std::string_view name, bool (*kind)(Opcode), const char* what) {
    const std::optional<Opcode> op = ParseOpcode(name);
    if (!op || !kind(*op) || *op == Opcode::kCompare || *op == Opcode::kConvert || *op == Opcode::kBitcastConvert ||
        *op == Opcode::kReducePrecision) {
      Fail(InvalidArgument("builder: '" + std::string(name) + "' is not " + what));
      return std::nullopt;
    }
    return op;
  }
};

Builder::Builder(std::string name) : state_(std::make_unique<State>(std::move(name))) {}
Builder::~Builder() = default;
Builder::Builder(Builder&&) noexcept = default;
Builder& Builder::operator=(Builder&&) noexcept = default;

Op Builder::Parameter(int64_t index, ElementType type, std::vector<int64_t> dims, const std::string& name) {
  return state_->Put(state_->builder.Parameter(index, Shape(type, std::move(dims)),
                                               name.empty() ? "p" + std::to_string(index) : name));
}

Op Builder::Constant(const Array& value) { return state_->Put(state_->builder.ConstantLiteral(ToLiteral(value))); }

Op Builder::Iota(ElementType type, std::vector<int64_t> dims, int64_t dimension) {
  return state_->Put(state_->builder.Iota(Shape(type, std::move(dims)), dimension));
}

Op Builder::Unary(std::string_view op, Op x) {
  const std::optional<Opcode> code = state_->OpcodeNamed(op, IsElementwiseUnary, "a unary elementwise op (negate, exponential, tanh, ...)");
  const XlaOp a = state_->Get(x);
  return code ? state_->Put(state_->builder.Unary(*code, a)) : Op();
}

Op Builder::Binary(std::string_view op, Op x, Op y, const std::vector<int64_t>& broadcast_dimensions) {
  const std::optional<Opcode> code =
      state_->OpcodeNamed(op, IsElementwiseBinary, "a binary elementwise op (add, multiply, maximum, ...)");
  const XlaOp a = state_->Get(x), b = state_->Get(y);
  return code ? state_->Put(state_->builder.Binary(*code, a, b, broadcast_dimensions)) : Op();
}

Op Builder::Compare(Op x, Op y, std::string_view direction) {
  static const std::pair<const char*, ComparisonDirection> kDirections[] = {
      {"EQ", ComparisonDirection::kEq}, {"NE", ComparisonDirection::kNe}, {"LT", ComparisonDirection::kLt},
      {"LE", ComparisonDirection::kLe}, {"GT", ComparisonDirection::kGt}, {"GE", ComparisonDirection::kGe}};
  const XlaOp a = state_->Get(x), b = state_->Get(y);
  for (const auto& [name, dir] : kDirections)
    if (direction == name) return state_->Put(state_->builder.Compare(a, b, dir));
  state_->Fail(InvalidArgument("builder: comparison direction '" + std::string(direction) +
                               "' is not one of EQ, NE, LT, LE, GT, GE"));
  return Op();
}

Op Builder::Select(Op predicate, Op on_true, Op on_false) {
  return state_->Put(state_->builder.Select(state_->Get(predicate), state_->Get(on_true), state_->Get(on_false)));
}

Op Builder::Clamp(Op min, Op x, Op max) {
  return state_->Put(state_->builder.Clamp(state_->Get(min), state_->Get(x), state_->Get(max)));
}

Op Builder::Convert(Op x, ElementType to) { return state_->Put(state_->builder.ConvertElementType(state_->Get(x), to)); }

Op Builder::Broadcast(Op x, const std::vector<int64_t>& out_dims, const std::vector<int64_t>& broadcast_dimensions) {
  return state_->Put(state_->builder.BroadcastInDim(state_->Get(x), out_dims, broadcast_dimensions));
}

Op Builder::Reshape(Op x, const std::vector<int64_t>& dims) { return state_->Put(state_->builder.Reshape(state_->Get(x), dims)); }

Op Builder::Transpose(Op x, const std::vector<int64_t>& permutation) {
  return state_->Put(state_->builder.Transpose(state_->Get(x), permutation));
}

Op Builder::Slice(Op x, const std::vector<int64_t>& starts, const std::vector<int64_t>& limits,
                  const std::vector<int64_t>& strides) {
  return state_->Put(state_->builder.Slice(state_->Get(x), starts, limits, strides));
}

Op Builder::Concatenate(const std::vector<Op>& ops, int64_t dimension) {
  std::vector<XlaOp> xs;
  for (Op op : ops) xs.push_back(state_->Get(op));
  return state_->Put(state_->builder.ConcatInDim(xs, dimension));
}

Op Builder::Dot(Op lhs, Op rhs, const std::vector<int64_t>& lhs_contracting, const std::vector<int64_t>& rhs_contracting,
                const std::vector<int64_t>& lhs_batch, const std::vector<int64_t>& rhs_batch) {
  DotDimensions dims;
  dims.lhs_contracting = lhs_contracting;
  dims.rhs_contracting = rhs_contracting;
  dims.lhs_batch = lhs_batch;
  dims.rhs_batch = rhs_batch;
  return state_->Put(state_->builder.DotGeneral(state_->Get(lhs), state_->Get(rhs), dims));
}

Op Builder::Reduce(Op x, Op init, std::string_view op, const std::vector<int64_t>& dimensions) {
  const XlaOp operand = state_->Get(x), start = state_->Get(init);
  const std::optional<Opcode> code =
      state_->OpcodeNamed(op, IsAssociativeAndCommutative, "a reduction (add, multiply, maximum, minimum, and, or)");
  if (!code || !start.valid()) return Op();
  // The reducer: a scalar computation of the init value's type.
  const Shape scalar(start.shape().element_type(), {});
  XlaBuilder reducer("reduce_" + std::string(op));
  const XlaOp a = reducer.Parameter(0, scalar, "a"), b = reducer.Parameter(1, scalar, "b");
  StatusOr<XlaComputation> computation = reducer.BuildComputation(reducer.Binary(*code, a, b));
  if (!computation.ok()) {
    state_->Fail(computation.status());
    return Op();
  }
  return state_->Put(state_->builder.Reduce({operand}, {start}, *computation, dimensions));
}

Op Builder::Tuple(const std::vector<Op>& ops) {
  std::vector<XlaOp> xs;
  for (Op op : ops) xs.push_back(state_->Get(op));
  return state_->Put(state_->builder.Tuple(xs));
}

StatusOr<std::vector<int64_t>> Builder::Dims(Op op) const {
  if (op.index_ < 0 || static_cast<size_t>(op.index_) >= state_->ops.size() || !state_->ops[op.index_].valid())
    return InvalidArgument("builder: no such op (a default Op, another Builder's, or one that failed)");
  return state_->ops[op.index_].shape().dims();
}

Status Builder::status() const { return state_->error.ok() ? state_->builder.first_error() : state_->error; }

StatusOr<BuiltModule> Builder::Build(Op root) {
  if (state_->built) return FailedPrecondition("builder: Build was already called; the builder is spent");
  const XlaOp r = state_->Get(root);
  VKXLA_RETURN_IF_ERROR(status());
  state_->built = true;
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, state_->builder.Build(r));
  return BuiltModule(std::shared_ptr<const Module>(std::move(module)));
}

std::string BuiltModule::ToHloText() const { return module_ ? PrintHloModule(*module_) : ""; }

}  // namespace vkxla
