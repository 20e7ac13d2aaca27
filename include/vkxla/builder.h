// Building an XLA computation op by op, as XlaBuilder does, without HLO
// text: shapes are inferred with XLA's rules (implicit broadcasting of
// scalars and of equal-rank operands included), and the first error sticks
// until Build() returns it. Part of the installed public API.
//
//   vkxla::Builder b("dense");
//   vkxla::Op x = b.Parameter(0, vkxla::ElementType::kF32, {2, 3});
//   vkxla::Op w = b.Parameter(1, vkxla::ElementType::kF32, {3, 4});
//   vkxla::Op y = b.Unary("tanh", b.Dot(x, w, {1}, {0}));
//   VKXLA_ASSIGN_OR_RETURN(vkxla::BuiltModule c, b.Build(y));
//   VKXLA_ASSIGN_OR_RETURN(vkxla::CompiledModule m, runtime.Compile(c));
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vkxla/array.h"
#include "vkxla/element_type.h"
#include "vkxla/status.h"

namespace vkxla {

class Module;

// A value in a Builder: a handle that only its own Builder reads.
class Op {
 public:
  Op() = default;
  bool valid() const { return index_ >= 0; }

 private:
  friend class Builder;
  explicit Op(int index) : index_(index) {}
  int index_ = -1;
};

// A verified module made by Builder::Build: what Runtime::Compile takes.
class BuiltModule {
 public:
  // The computation as HLO text (what `vkxla run` reads).
  std::string ToHloText() const;

 private:
  friend class Builder;
  friend class Runtime;
  explicit BuiltModule(std::shared_ptr<const Module> module) : module_(std::move(module)) {}
  std::shared_ptr<const Module> module_;
};

class Builder {
 public:
  explicit Builder(std::string name);
  ~Builder();
  Builder(Builder&&) noexcept;
  Builder& operator=(Builder&&) noexcept;

  Op Parameter(int64_t index, ElementType type, std::vector<int64_t> dims, const std::string& name = "");
  Op Constant(const Array& value);
  Op Iota(ElementType type, std::vector<int64_t> dims, int64_t dimension);

  // Elementwise ops by XLA's name: Unary("negate" | "exponential" | "tanh" |
  // "abs" | "sqrt" | "logistic" | ...), Binary("add" | "multiply" |
  // "maximum" | "power" | "and" | ...). `broadcast_dimensions` maps a
  // lower-rank operand's dimensions into the other's, as in XlaBuilder.
  Op Unary(std::string_view op, Op x);
  Op Binary(std::string_view op, Op x, Op y, const std::vector<int64_t>& broadcast_dimensions = {});
  // direction: "EQ", "NE", "LT", "LE", "GT", "GE".
  Op Compare(Op x, Op y, std::string_view direction);
  Op Select(Op predicate, Op on_true, Op on_false);
  Op Clamp(Op min, Op x, Op max);
  Op Convert(Op x, ElementType to);

  Op Broadcast(Op x, const std::vector<int64_t>& out_dims, const std::vector<int64_t>& broadcast_dimensions);
  Op Reshape(Op x, const std::vector<int64_t>& dims);
  Op Transpose(Op x, const std::vector<int64_t>& permutation);
  Op Slice(Op x, const std::vector<int64_t>& starts, const std::vector<int64_t>& limits,
           const std::vector<int64_t>& strides);
  Op Concatenate(const std::vector<Op>& ops, int64_t dimension);

  // dot_general with contracting (and optional batch) dimensions.
  Op Dot(Op lhs, Op rhs, const std::vector<int64_t>& lhs_contracting, const std::vector<int64_t>& rhs_contracting,
         const std::vector<int64_t>& lhs_batch = {}, const std::vector<int64_t>& rhs_batch = {});
  // Reduces `dimensions` away with a binary op by name ("add", "multiply",
  // "maximum", "minimum", "and", "or") from `init`.
  Op Reduce(Op x, Op init, std::string_view op, const std::vector<int64_t>& dimensions);
  Op Tuple(const std::vector<Op>& ops);

  // The element type and dimensions of an op built so far.
  StatusOr<std::vector<int64_t>> Dims(Op op) const;
  // OK, or the first error of any call so far (it names the op and shapes).
  Status status() const;
  // The computation whose result is `root`; the builder is spent after it.
  StatusOr<BuiltModule> Build(Op root);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace vkxla
