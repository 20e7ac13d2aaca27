// A C++ API that mirrors XlaBuilder: build a computation op by op, with the
// broadcasting rules of shared/spec/broadcasting.ja.txt, then Build() a
// verified Module. The first error sticks and Build() returns it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "ops/batch_norm.h"
#include "ops/convolution.h"
#include "ops/dot.h"
#include "ops/fft.h"
#include "ops/rng_bit_generator.h"
#include "ops/triangular_solve.h"
#include "ops/gather_scatter_plan.h"
#include "ops/slice_and_padding.h"
#include "ops/window.h"
#include "vkxla/status.h"

namespace vkxla {

class XlaBuilder;

class XlaOp {
 public:
  XlaOp() = default;
  bool valid() const { return inst_ != nullptr; }
  const Shape& shape() const { return inst_->shape; }
  Instruction* instruction() const { return inst_; }
  XlaBuilder* builder() const { return builder_; }

 private:
  friend class XlaBuilder;
  XlaOp(Instruction* i, XlaBuilder* b) : inst_(i), builder_(b) {}
  Instruction* inst_ = nullptr;
  XlaBuilder* builder_ = nullptr;
};

// A computation built for an op to call (scatter's update computation);
// the module that uses it gets its own copy.
struct XlaComputation {
  std::shared_ptr<const Computation> computation;
};

class XlaBuilder {
 public:
  explicit XlaBuilder(std::string name);
  ~XlaBuilder();

  XlaOp Parameter(int64_t number, const Shape& shape, const std::string& name);
  XlaOp ConstantLiteral(const Literal& literal);
  XlaOp Iota(const Shape& shape, int64_t iota_dimension);

  // Prepends dimensions of the given sizes.
  XlaOp Broadcast(XlaOp operand, const std::vector<int64_t>& broadcast_sizes);
  // Operand dimension i becomes result dimension broadcast_dimensions[i].
  XlaOp BroadcastInDim(XlaOp operand, const std::vector<int64_t>& out_dims,
                       const std::vector<int64_t>& broadcast_dimensions);

  XlaOp Unary(Opcode op, XlaOp x);
  // Elementwise binary op with XLA's broadcasting (scalars, size-1
  // dimensions, and broadcast_dimensions for a lower-rank operand).
  XlaOp Binary(Opcode op, XlaOp lhs, XlaOp rhs, const std::vector<int64_t>& broadcast_dimensions = {});
  XlaOp Compare(XlaOp lhs, XlaOp rhs, ComparisonDirection direction,
                const std::vector<int64_t>& broadcast_dimensions = {},
                ComparisonType type = ComparisonType::kDefault);
  XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false);
  XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max);
  XlaOp ConvertElementType(XlaOp operand, ElementType to);
  XlaOp BitcastConvertType(XlaOp operand, ElementType to);
  XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits);
  // Data movement (operation_semantics: Reshape, Transpose, Rev, Slice,
  // ConcatInDim, Pad).
  XlaOp Reshape(XlaOp operand, const std::vector<int64_t>& new_sizes);
  XlaOp Transpose(XlaOp operand, const std::vector<int64_t>& permutation);
  XlaOp Rev(XlaOp operand, const std::vector<int64_t>& dimensions);
  XlaOp Slice(XlaOp operand, const std::vector<int64_t>& start_indices, const std::vector<int64_t>& limit_indices,
              const std::vector<int64_t>& strides);
  XlaOp ConcatInDim(const std::vector<XlaOp>& operands, int64_t dimension);
  XlaOp Pad(XlaOp operand, XlaOp padding_value, const std::vector<PaddingDimension>& padding);
  // Merges consecutive ascending dimensions into one (a reshape).
  XlaOp Collapse(XlaOp operand, const std::vector<int64_t>& dimensions);
  // Indexing with run-time start indices (DynamicSlice, DynamicUpdateSlice,
  // Gather, Scatter).
  XlaOp DynamicSlice(XlaOp operand, const std::vector<XlaOp>& start_indices, const std::vector<int64_t>& slice_sizes);
  XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update, const std::vector<XlaOp>& start_indices);
  XlaOp Gather(XlaOp operand, XlaOp start_indices, const GatherDimensions& dimension_numbers);
  XlaOp Scatter(const std::vector<XlaOp>& operands, XlaOp scatter_indices, const std::vector<XlaOp>& updates,
                const XlaComputation& update_computation, const ScatterDimensions& dimension_numbers);
  // Bounded dynamic shapes (GetDimensionSize, SetDimensionSize,
  // DynamicReshape): sizes are s32 scalars computed at run time.
  XlaOp GetDimensionSize(XlaOp operand, int64_t dimension);
  XlaOp SetDimensionSize(XlaOp operand, XlaOp size, int64_t dimension);
  XlaOp DynamicReshape(XlaOp operand, const std::vector<XlaOp>& dim_sizes, const std::vector<int64_t>& new_size_bounds,
                       const std::vector<bool>& dims_are_dynamic);
  // Matrix products (operation_semantics: Dot, DotGeneral). The result
  // has the lhs's element type unless `preferred_element_type` names one;
  // `algorithm` is XLA's name for how operands round ("dot_bf16_bf16_f32").
  XlaOp Dot(XlaOp lhs, XlaOp rhs, std::optional<ElementType> preferred_element_type = std::nullopt);
  XlaOp DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensions& dimension_numbers,
                   std::optional<ElementType> preferred_element_type = std::nullopt, const std::string& algorithm = "");
  // RaggedDot (ops/ragged_dot.h): `lhs_ragged_dim` cut into groups by
  // `group_sizes`; `rhs_group_dim` -1 where the ragged dim is a batch or
  // contracting dim.
  XlaOp RaggedDot(XlaOp lhs, XlaOp rhs, XlaOp group_sizes, const DotDimensions& dimension_numbers, int64_t lhs_ragged_dim,
                  int64_t rhs_group_dim, std::optional<ElementType> preferred_element_type = std::nullopt);
  // ScaledDot (ops/scaled_dot.h), in the page's argument order.
  XlaOp ScaledDot(XlaOp lhs, XlaOp lhs_scale, XlaOp rhs, XlaOp rhs_scale, const DotDimensions& dimension_numbers,
                  std::optional<ElementType> preferred_element_type = std::nullopt);
  // ConvGeneralDilated (ops/convolution.h): the window's size is the
  // kernel's spatial dims; `window` gives strides, padding, dilations and
  // reversal (UnitWindow for none). Conv, ConvWithGeneralPadding and the
  // other forms of the page are this with defaults.
  XlaOp ConvGeneralDilated(XlaOp lhs, XlaOp rhs, const Window& window, const ConvolutionDimensions& dimension_numbers,
                           int64_t feature_group_count = 1, int64_t batch_group_count = 1,
                           std::optional<ElementType> preferred_element_type = std::nullopt);
  // BatchNormTraining (a tuple: normalised, mean, variance),
  // BatchNormInference and BatchNormGrad (a tuple: grad operand, grad
  // scale, grad offset); ops/batch_norm.h.
  XlaOp BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset, float epsilon, int64_t feature_index);
  XlaOp BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean, XlaOp variance, float epsilon,
                           int64_t feature_index);
  XlaOp BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp mean, XlaOp variance, XlaOp grad_output, float epsilon,
                      int64_t feature_index);
  // Fft (ops/fft.h) over the innermost fft_length.size() dims.
  XlaOp Fft(XlaOp operand, FftType fft_type, const std::vector<int64_t>& fft_length);
  // (new state, bits of `shape`); unlike XLA's builder the bits keep the
  // element type asked for (a float or signed type takes the same bits).
  XlaOp RngBitGenerator(RngAlgorithm algorithm, XlaOp initial_state, const Shape& shape);
  // RngUniform and RngNormal (ops/rng.h): numbers of `shape` from scalars.
  XlaOp RngUniform(XlaOp a, XlaOp b, const Shape& shape);
  XlaOp RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape);
  // Cholesky (ops/cholesky.h) and TriangularSolve (ops/triangular_solve.h).
  XlaOp Cholesky(XlaOp a, bool lower);
  XlaOp TriangularSolve(XlaOp a, XlaOp b, bool left_side, bool lower, bool unit_diagonal, TransposeA transpose_a);
  // Ops that call a computation (reduce's, a comparator, map's); tuple
  // results for N > 1 operands.
  XlaOp Reduce(const std::vector<XlaOp>& operands, const std::vector<XlaOp>& init_values, const XlaComputation& computation,
               const std::vector<int64_t>& dimensions_to_reduce);
  XlaOp ReduceWindow(const std::vector<XlaOp>& operands, const std::vector<XlaOp>& init_values,
                     const XlaComputation& computation, const std::vector<int64_t>& window_dimensions,
                     const std::vector<int64_t>& window_strides, Padding padding);
  // Any window: explicit (low, high) padding per dim and both dilations.
  XlaOp ReduceWindowWithGeneralPadding(const std::vector<XlaOp>& operands, const std::vector<XlaOp>& init_values,
                                       const XlaComputation& computation, const Window& window);
  XlaOp SelectAndScatter(XlaOp operand, const XlaComputation& select, const std::vector<int64_t>& window_dimensions,
                         const std::vector<int64_t>& window_strides, Padding padding, XlaOp source, XlaOp init_value,
                         const XlaComputation& scatter);
  XlaOp Scan(const std::vector<XlaOp>& inputs, const std::vector<XlaOp>& inits, const XlaComputation& to_apply,
             int64_t scan_dimension, bool is_reverse = false, std::optional<bool> is_associative = std::nullopt);
  // dimension -1: the last.
  XlaOp Sort(const std::vector<XlaOp>& operands, const XlaComputation& comparator, int64_t dimension = -1,
             bool is_stable = false);
  XlaOp TopK(XlaOp operand, int64_t k, bool largest = true);
  XlaOp Map(const std::vector<XlaOp>& operands, const XlaComputation& computation, const std::vector<int64_t>& dimensions);
  // Control flow (operation_semantics: While, Conditional, Call).
  XlaOp While(const XlaComputation& condition, const XlaComputation& body, XlaOp init);
  XlaOp Conditional(XlaOp predicate, XlaOp true_operand, const XlaComputation& true_computation, XlaOp false_operand,
                    const XlaComputation& false_computation);
  XlaOp Conditional(XlaOp branch_index, const std::vector<const XlaComputation*>& branch_computations,
                    const std::vector<XlaOp>& branch_operands);
  XlaOp Call(const XlaComputation& computation, const std::vector<XlaOp>& operands);
  // Tokens and ordering: AfterAll({}) makes a fresh token.
  XlaOp AfterAll(const std::vector<XlaOp>& tokens);
  XlaOp AddDependency(XlaOp operand, XlaOp token);
  XlaOp OptimizationBarrier(XlaOp operand);
  // (value of `shape`, token), from the device's infeed queue.
  XlaOp Infeed(XlaOp token, const Shape& shape);
  XlaOp Outfeed(XlaOp operand, XlaOp token);
  // XLA's SendToHost and RecvFromHost on host channel `channel` (a
  // send/send-done or recv/recv-done pair): a token; (value of `shape`, token).
  XlaOp SendToHost(XlaOp operand, XlaOp token, int64_t channel);
  XlaOp RecvFromHost(XlaOp token, const Shape& shape, int64_t channel);
  // A custom call of `target` (a registered host function, or a no-op
  // annotation) whose result has `shape`.
  XlaOp CustomCall(const std::string& target, const std::vector<XlaOp>& operands, const Shape& shape,
                   const std::string& backend_config = "", int api_version = 0);
  XlaOp Tuple(const std::vector<XlaOp>& elements);
  XlaOp GetTupleElement(XlaOp tuple, int64_t index);
  // Attaches result_accuracy to a transcendental op just built.
  XlaOp WithResultAccuracy(XlaOp op, const ResultAccuracy& accuracy);

  const Status& first_error() const { return error_; }
  // The module whose entry computes `root`. The builder is spent after it.
  StatusOr<std::unique_ptr<Module>> Build(XlaOp root);
  // A verified computation for other builders' ops to call.
  StatusOr<XlaComputation> BuildComputation(XlaOp root);

 private:
  XlaOp Add(std::unique_ptr<Instruction> inst, bool infer = true);
  XlaOp Fail(Status s);
  // An op of `opcode` over `operands` that calls `called` (key, computation).
  XlaOp WithComputations(Opcode opcode, const std::vector<XlaOp>& operands,
                         const std::vector<std::pair<std::string, const XlaComputation*>>& called,
                         std::vector<std::pair<std::string, std::string>> attributes,
                         std::optional<std::vector<int64_t>> dimensions = std::nullopt);
  XlaOp BatchNorm(Opcode op, const std::vector<XlaOp>& operands, float epsilon, int64_t feature_index);
  bool Check(std::initializer_list<XlaOp> ops);

  std::string name_;
  std::unique_ptr<Computation> computation_;
  // Computations the ops call; Build copies them into the module.
  std::vector<std::shared_ptr<const Computation>> called_;
  Status error_;
  int64_t next_id_ = 0;
};

// Free functions in XlaBuilder's style: Add(x, y), Exp(x), ...
#define VKXLA_BUILDER_UNARY(Name, Op) \
  inline XlaOp Name(XlaOp x) { return x.builder()->Unary(Opcode::Op, x); }
VKXLA_BUILDER_UNARY(Abs, kAbs) VKXLA_BUILDER_UNARY(Cbrt, kCbrt) VKXLA_BUILDER_UNARY(Ceil, kCeil)
VKXLA_BUILDER_UNARY(Clz, kClz) VKXLA_BUILDER_UNARY(Cos, kCos) VKXLA_BUILDER_UNARY(Cosh, kCosh)
VKXLA_BUILDER_UNARY(Erf, kErf) VKXLA_BUILDER_UNARY(Exp, kExp) VKXLA_BUILDER_UNARY(Expm1, kExpm1)
VKXLA_BUILDER_UNARY(Floor, kFloor) VKXLA_BUILDER_UNARY(Imag, kImag) VKXLA_BUILDER_UNARY(IsFinite, kIsFinite)
VKXLA_BUILDER_UNARY(Log, kLog) VKXLA_BUILDER_UNARY(Log1p, kLog1p) VKXLA_BUILDER_UNARY(Logistic, kLogistic)
VKXLA_BUILDER_UNARY(Neg, kNegate) VKXLA_BUILDER_UNARY(Not, kNot) VKXLA_BUILDER_UNARY(PopulationCount, kPopulationCount)
VKXLA_BUILDER_UNARY(Real, kReal) VKXLA_BUILDER_UNARY(Round, kRoundNearestAfz)
VKXLA_BUILDER_UNARY(RoundNearestAfz, kRoundNearestAfz) VKXLA_BUILDER_UNARY(RoundNearestEven, kRoundNearestEven)
VKXLA_BUILDER_UNARY(Rsqrt, kRsqrt) VKXLA_BUILDER_UNARY(Sign, kSign) VKXLA_BUILDER_UNARY(Sin, kSin)
VKXLA_BUILDER_UNARY(Sqrt, kSqrt) VKXLA_BUILDER_UNARY(Tan, kTan) VKXLA_BUILDER_UNARY(Tanh, kTanh)
#undef VKXLA_BUILDER_UNARY

#define VKXLA_BUILDER_BINARY(Name, Op)                                                  \
  inline XlaOp Name(XlaOp x, XlaOp y, const std::vector<int64_t>& broadcast_dimensions = {}) { \
    return x.builder()->Binary(Opcode::Op, x, y, broadcast_dimensions);                   \
  }
VKXLA_BUILDER_BINARY(Add, kAdd) VKXLA_BUILDER_BINARY(And, kAnd) VKXLA_BUILDER_BINARY(Atan2, kAtan2)
VKXLA_BUILDER_BINARY(Complex, kComplex) VKXLA_BUILDER_BINARY(Div, kDivide) VKXLA_BUILDER_BINARY(Max, kMaximum)
VKXLA_BUILDER_BINARY(Min, kMinimum) VKXLA_BUILDER_BINARY(Mul, kMultiply) VKXLA_BUILDER_BINARY(Or, kOr)
VKXLA_BUILDER_BINARY(Pow, kPower) VKXLA_BUILDER_BINARY(Rem, kRemainder) VKXLA_BUILDER_BINARY(ShiftLeft, kShiftLeft)
VKXLA_BUILDER_BINARY(ShiftRightArithmetic, kShiftRightArithmetic)
VKXLA_BUILDER_BINARY(ShiftRightLogical, kShiftRightLogical) VKXLA_BUILDER_BINARY(Sub, kSubtract)
VKXLA_BUILDER_BINARY(Xor, kXor)
#undef VKXLA_BUILDER_BINARY

#define VKXLA_BUILDER_COMPARE(Name, Dir)                                                 \
  inline XlaOp Name(XlaOp x, XlaOp y, const std::vector<int64_t>& broadcast_dimensions = {}) { \
    return x.builder()->Compare(x, y, ComparisonDirection::Dir, broadcast_dimensions);     \
  }
VKXLA_BUILDER_COMPARE(Eq, kEq) VKXLA_BUILDER_COMPARE(Ne, kNe) VKXLA_BUILDER_COMPARE(Ge, kGe)
VKXLA_BUILDER_COMPARE(Gt, kGt) VKXLA_BUILDER_COMPARE(Le, kLe) VKXLA_BUILDER_COMPARE(Lt, kLt)
#undef VKXLA_BUILDER_COMPARE

inline XlaOp Dot(XlaOp lhs, XlaOp rhs, std::optional<ElementType> preferred = std::nullopt) {
  return lhs.builder()->Dot(lhs, rhs, preferred);
}
inline XlaOp DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensions& dims,
                        std::optional<ElementType> preferred = std::nullopt) {
  return lhs.builder()->DotGeneral(lhs, rhs, dims, preferred);
}
inline XlaOp Select(XlaOp p, XlaOp t, XlaOp f) { return p.builder()->Select(p, t, f); }
inline XlaOp Clamp(XlaOp lo, XlaOp x, XlaOp hi) { return x.builder()->Clamp(lo, x, hi); }
inline XlaOp ConvertElementType(XlaOp x, ElementType t) { return x.builder()->ConvertElementType(x, t); }
inline XlaOp BitcastConvertType(XlaOp x, ElementType t) { return x.builder()->BitcastConvertType(x, t); }

}  // namespace vkxla
