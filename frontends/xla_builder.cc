#include "frontends/xla_builder.h"

#include <algorithm>
#include <map>

#include "ops/attributes.h"
#include "ops/cholesky.h"
#include "ops/rng.h"
#include "ops/control_flow.h"
#include "ops/shape_inference.h"
#include "ops/verifier.h"

namespace vkxla {

XlaBuilder::XlaBuilder(std::string name) : name_(std::move(name)), computation_(std::make_unique<Computation>(name_)) {}
XlaBuilder::~XlaBuilder() = default;

XlaOp XlaBuilder::Fail(Status s) {
  if (error_.ok()) error_ = std::move(s);
  return XlaOp();
}

bool XlaBuilder::Check(std::initializer_list<XlaOp> ops) {
  if (!error_.ok()) return false;
  for (const XlaOp& op : ops) {
    if (!op.valid()) {
      Fail(InvalidArgument("builder " + name_ + ": an operand is invalid (built by a failed op)"));
      return false;
    }
    if (op.builder() != this) {
      Fail(InvalidArgument("builder " + name_ + ": operand %" + op.instruction()->name + " belongs to another builder"));
      return false;
    }
  }
  return true;
}

XlaOp XlaBuilder::Add(std::unique_ptr<Instruction> inst, bool infer) {
  if (inst->name.empty()) inst->name = std::string(OpcodeName(inst->opcode)) + "." + std::to_string(next_id_++);
  if (infer) {
    StatusOr<Shape> shape = InferShape(*inst);
    if (!shape.ok()) return Fail(shape.status());
    inst->shape = std::move(shape).value();
  }
  // A shape given in code is bounded as a reader bounds text: an error at
  // the op, before anything is sized from it.
  if (Status bounded = CheckShapeBounds(inst->shape); !bounded.ok())
    return Fail(Status(bounded.code(), "builder " + name_ + ": " + std::string(OpcodeName(inst->opcode)) + " " +
                                           inst->Describe() + ": " + bounded.message()));
  return XlaOp(computation_->AddInstruction(std::move(inst)), this);
}

XlaOp XlaBuilder::Parameter(int64_t number, const Shape& shape, const std::string& name) {
  if (!error_.ok()) return XlaOp();
  for (Instruction* p : computation_->parameters())
    if (p->parameter_number == number)
      return Fail(InvalidArgument("builder " + name_ + ": parameter " + std::to_string(number) + " is defined twice"));
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kParameter;
  inst->parameter_number = number;
  inst->shape = shape;
  inst->name = name;
  return Add(std::move(inst));
}

XlaOp XlaBuilder::ConstantLiteral(const Literal& literal) {
  if (!error_.ok()) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kConstant;
  inst->literal = literal;
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Iota(const Shape& shape, int64_t iota_dimension) {
  if (!error_.ok()) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kIota;
  inst->shape = shape;
  inst->iota_dimension = iota_dimension;
  return Add(std::move(inst));
}

XlaOp XlaBuilder::BroadcastInDim(XlaOp operand, const std::vector<int64_t>& out_dims,
                                 const std::vector<int64_t>& broadcast_dimensions) {
  if (!Check({operand})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kBroadcast;
  inst->operands = {operand.instruction()};
  inst->shape = Shape(operand.shape().element_type(), out_dims);
  inst->dimensions = broadcast_dimensions;
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Reshape(XlaOp operand, const std::vector<int64_t>& new_sizes) {
  if (!Check({operand})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kReshape;
  inst->operands = {operand.instruction()};
  inst->shape = Shape(operand.shape().element_type(), new_sizes);
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Transpose(XlaOp operand, const std::vector<int64_t>& permutation) {
  if (!Check({operand})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kTranspose;
  inst->operands = {operand.instruction()};
  inst->dimensions = permutation;
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Fft(XlaOp operand, FftType fft_type, const std::vector<int64_t>& fft_length) {
  if (!Check({operand})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kFft;
  inst->operands = {operand.instruction()};
  SetFftAttributes(*inst, fft_type, fft_length);
  return Add(std::move(inst));
}

XlaOp XlaBuilder::RngBitGenerator(RngAlgorithm algorithm, XlaOp initial_state, const Shape& shape) {
  if (!Check({initial_state})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kRngBitGenerator;
  inst->operands = {initial_state.instruction()};
  inst->shape = Shape::Tuple({initial_state.instruction()->shape, shape});
  SetRngAlgorithm(*inst, algorithm);
  return Add(std::move(inst));
}

namespace {
std::unique_ptr<Instruction> RngOp(XlaOp a, XlaOp b, const Shape& shape, RngDistribution d) {
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kRng;
  inst->operands = {a.instruction(), b.instruction()};
  inst->shape = shape;
  SetRngDistribution(*inst, d);
  return inst;
}
}  // namespace

XlaOp XlaBuilder::RngUniform(XlaOp a, XlaOp b, const Shape& shape) {
  if (!Check({a, b})) return XlaOp();
  return Add(RngOp(a, b, shape, RngDistribution::kUniform));
}

XlaOp XlaBuilder::RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape) {
  if (!Check({mu, sigma})) return XlaOp();
  return Add(RngOp(mu, sigma, shape, RngDistribution::kNormal));
}

XlaOp XlaBuilder::Cholesky(XlaOp a, bool lower) {
  if (!Check({a})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kCholesky;
  inst->operands = {a.instruction()};
  SetCholeskyLower(*inst, lower);
  return Add(std::move(inst));
}

XlaOp XlaBuilder::TriangularSolve(XlaOp a, XlaOp b, bool left_side, bool lower, bool unit_diagonal, TransposeA transpose_a) {
  if (!Check({a, b})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kTriangularSolve;
  inst->operands = {a.instruction(), b.instruction()};
  SetTriangularSolveOptions(*inst, TriangularSolveOptions{left_side, lower, unit_diagonal, transpose_a});
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Rev(XlaOp operand, const std::vector<int64_t>& dimensions) {
  if (!Check({operand})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kReverse;
  inst->operands = {operand.instruction()};
  inst->dimensions = dimensions;
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Slice(XlaOp operand, const std::vector<int64_t>& start_indices,
                        const std::vector<int64_t>& limit_indices, const std::vector<int64_t>& strides) {
  if (!Check({operand})) return XlaOp();
  if (start_indices.size() != limit_indices.size() || start_indices.size() != strides.size())
    return Fail(InvalidArgument("slice: start_indices, limit_indices and strides differ in length"));
  std::vector<SliceDimension> dims;
  for (size_t i = 0; i < start_indices.size(); ++i) dims.push_back({start_indices[i], limit_indices[i], strides[i]});
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kSlice;
  inst->operands = {operand.instruction()};
  inst->other_attributes.emplace_back("slice", SliceText(dims));
  return Add(std::move(inst));
}

XlaOp XlaBuilder::ConcatInDim(const std::vector<XlaOp>& operands, int64_t dimension) {
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kConcatenate;
  for (const XlaOp& o : operands) {
    if (!Check({o})) return XlaOp();
    inst->operands.push_back(o.instruction());
  }
  inst->dimensions = std::vector<int64_t>{dimension};
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Collapse(XlaOp operand, const std::vector<int64_t>& dimensions) {
  if (!Check({operand})) return XlaOp();
  const Shape& x = operand.shape();
  for (size_t i = 0; i < dimensions.size(); ++i)
    if (dimensions[i] < 0 || dimensions[i] >= x.rank() || (i > 0 && dimensions[i] != dimensions[i - 1] + 1))
      return Fail(InvalidArgument("collapse: dimensions " + IntListText(dimensions) +
                                  " must be consecutive ascending dimensions of " + x.ToString()));
  std::vector<int64_t> sizes;
  for (int64_t d = 0; d < x.rank(); ++d) {
    const bool collapsed = !dimensions.empty() && d >= dimensions.front() && d <= dimensions.back();
    if (collapsed && d > dimensions.front()) sizes.back() *= x.dim(d);
    else sizes.push_back(x.dim(d));
  }
  return Reshape(operand, sizes);
}

XlaOp XlaBuilder::DynamicSlice(XlaOp operand, const std::vector<XlaOp>& start_indices,
                               const std::vector<int64_t>& slice_sizes) {
  if (!Check({operand})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kDynamicSlice;
  inst->operands = {operand.instruction()};
  for (const XlaOp& s : start_indices) {
    if (!Check({s})) return XlaOp();
    inst->operands.push_back(s.instruction());
  }
  SetAttribute(*inst, "dynamic_slice_sizes", IntListText(slice_sizes));
  return Add(std::move(inst));
}

XlaOp XlaBuilder::DynamicUpdateSlice(XlaOp operand, XlaOp update, const std::vector<XlaOp>& start_indices) {
  if (!Check({operand, update})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kDynamicUpdateSlice;
  inst->operands = {operand.instruction(), update.instruction()};
  for (const XlaOp& s : start_indices) {
    if (!Check({s})) return XlaOp();
    inst->operands.push_back(s.instruction());
  }
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Dot(XlaOp lhs, XlaOp rhs, std::optional<ElementType> preferred_element_type) {
  if (!Check({lhs, rhs})) return XlaOp();
  DotDimensions dims;
  dims.lhs_contracting = {std::max<int64_t>(lhs.shape().rank() - 1, 0)};
  dims.rhs_contracting = {0};
  return DotGeneral(lhs, rhs, dims, preferred_element_type);
}

XlaOp XlaBuilder::DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensions& dimension_numbers,
                             std::optional<ElementType> preferred_element_type, const std::string& algorithm) {
  if (!Check({lhs, rhs})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kDot;
  inst->operands = {lhs.instruction(), rhs.instruction()};
  SetDotDimensions(*inst, dimension_numbers);
  if (!algorithm.empty()) SetAttribute(*inst, "algorithm", algorithm);
  // Shape inference keeps a written element type (preferred_element_type).
  if (preferred_element_type) inst->shape = Shape(*preferred_element_type, {});
  return Add(std::move(inst));
}

XlaOp XlaBuilder::ConvGeneralDilated(XlaOp lhs, XlaOp rhs, const Window& window, const ConvolutionDimensions& dimension_numbers,
                                     int64_t feature_group_count, int64_t batch_group_count,
                                     std::optional<ElementType> preferred_element_type) {
  if (!Check({lhs, rhs})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kConvolution;
  inst->operands = {lhs.instruction(), rhs.instruction()};
  ConvolutionParams p;
  p.dims = dimension_numbers;
  p.window = window;
  p.feature_group_count = feature_group_count;
  p.batch_group_count = batch_group_count;
  SetConvolutionAttributes(*inst, p);
  if (preferred_element_type) inst->shape = Shape(*preferred_element_type, {});
  return Add(std::move(inst));
}

XlaOp XlaBuilder::BatchNorm(Opcode op, const std::vector<XlaOp>& operands, float epsilon, int64_t feature_index) {
  for (const XlaOp& o : operands)
    if (!Check({o})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = op;
  for (const XlaOp& o : operands) inst->operands.push_back(o.instruction());
  SetAttribute(*inst, "epsilon", FormatFloat(epsilon, ElementType::kF32));
  SetAttribute(*inst, "feature_index", std::to_string(feature_index));
  return Add(std::move(inst));
}

XlaOp XlaBuilder::BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset, float epsilon, int64_t feature_index) {
  return BatchNorm(Opcode::kBatchNormTraining, {operand, scale, offset}, epsilon, feature_index);
}

XlaOp XlaBuilder::BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean, XlaOp variance, float epsilon,
                                     int64_t feature_index) {
  return BatchNorm(Opcode::kBatchNormInference, {operand, scale, offset, mean, variance}, epsilon, feature_index);
}

XlaOp XlaBuilder::BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp mean, XlaOp variance, XlaOp grad_output, float epsilon,
                                int64_t feature_index) {
  return BatchNorm(Opcode::kBatchNormGrad, {operand, scale, mean, variance, grad_output}, epsilon, feature_index);
}

XlaOp XlaBuilder::RaggedDot(XlaOp lhs, XlaOp rhs, XlaOp group_sizes, const DotDimensions& dimension_numbers,
                            int64_t lhs_ragged_dim, int64_t rhs_group_dim, std::optional<ElementType> preferred_element_type) {
  if (!Check({lhs, rhs, group_sizes})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kRaggedDot;
  inst->operands = {lhs.instruction(), rhs.instruction(), group_sizes.instruction()};
  SetDotDimensions(*inst, dimension_numbers);
  SetAttribute(*inst, "lhs_ragged_dims", IntListText({lhs_ragged_dim}));
  if (rhs_group_dim >= 0) SetAttribute(*inst, "rhs_group_dims", IntListText({rhs_group_dim}));
  if (preferred_element_type) inst->shape = Shape(*preferred_element_type, {});
  return Add(std::move(inst));
}

XlaOp XlaBuilder::ScaledDot(XlaOp lhs, XlaOp lhs_scale, XlaOp rhs, XlaOp rhs_scale, const DotDimensions& dimension_numbers,
                            std::optional<ElementType> preferred_element_type) {
  if (!Check({lhs, lhs_scale, rhs, rhs_scale})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kScaledDot;
  inst->operands = {lhs.instruction(), rhs.instruction(), lhs_scale.instruction(), rhs_scale.instruction()};
  SetDotDimensions(*inst, dimension_numbers);
  if (preferred_element_type) inst->shape = Shape(*preferred_element_type, {});
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Gather(XlaOp operand, XlaOp start_indices, const GatherDimensions& dimension_numbers) {
  if (!Check({operand, start_indices})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kGather;
  inst->operands = {operand.instruction(), start_indices.instruction()};
  SetGatherDimensions(*inst, dimension_numbers);
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Scatter(const std::vector<XlaOp>& operands, XlaOp scatter_indices, const std::vector<XlaOp>& updates,
                          const XlaComputation& update_computation, const ScatterDimensions& dimension_numbers) {
  if (!Check({scatter_indices})) return XlaOp();
  if (!update_computation.computation) return Fail(InvalidArgument("scatter: the update computation was not built"));
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kScatter;
  for (const XlaOp& o : operands) {
    if (!Check({o})) return XlaOp();
    inst->operands.push_back(o.instruction());
  }
  inst->operands.push_back(scatter_indices.instruction());
  for (const XlaOp& u : updates) {
    if (!Check({u})) return XlaOp();
    inst->operands.push_back(u.instruction());
  }
  called_.push_back(update_computation.computation);
  inst->called_computations.emplace_back("to_apply", const_cast<Computation*>(update_computation.computation.get()));
  SetScatterDimensions(*inst, dimension_numbers);
  return Add(std::move(inst));
}

XlaOp XlaBuilder::WithComputations(Opcode opcode, const std::vector<XlaOp>& operands,
                                   const std::vector<std::pair<std::string, const XlaComputation*>>& called,
                                   std::vector<std::pair<std::string, std::string>> attributes,
                                   std::optional<std::vector<int64_t>> dimensions) {
  auto inst = std::make_unique<Instruction>();
  inst->opcode = opcode;
  for (const XlaOp& o : operands) {
    if (!Check({o})) return XlaOp();
    inst->operands.push_back(o.instruction());
  }
  for (const auto& [key, c] : called) {
    if (!c->computation)
      return Fail(InvalidArgument(std::string(OpcodeName(opcode)) + ": the " + key + " computation was not built"));
    called_.push_back(c->computation);
    inst->called_computations.emplace_back(key, const_cast<Computation*>(c->computation.get()));
  }
  for (auto& [key, text] : attributes) SetAttribute(*inst, key, std::move(text));
  inst->dimensions = std::move(dimensions);
  return Add(std::move(inst));
}

namespace {

std::vector<XlaOp> Joined(std::vector<XlaOp> a, const std::vector<XlaOp>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

XlaOp XlaBuilder::Reduce(const std::vector<XlaOp>& operands, const std::vector<XlaOp>& init_values,
                         const XlaComputation& computation, const std::vector<int64_t>& dimensions_to_reduce) {
  return WithComputations(Opcode::kReduce, Joined(operands, init_values), {{"to_apply", &computation}}, {},
                          dimensions_to_reduce);
}

XlaOp XlaBuilder::ReduceWindowWithGeneralPadding(const std::vector<XlaOp>& operands, const std::vector<XlaOp>& init_values,
                                                 const XlaComputation& computation, const Window& window) {
  return WithComputations(Opcode::kReduceWindow, Joined(operands, init_values), {{"to_apply", &computation}},
                          {{"window", window.ToString()}});
}

XlaOp XlaBuilder::ReduceWindow(const std::vector<XlaOp>& operands, const std::vector<XlaOp>& init_values,
                               const XlaComputation& computation, const std::vector<int64_t>& window_dimensions,
                               const std::vector<int64_t>& window_strides, Padding padding) {
  if (operands.empty() || !Check({operands[0]})) return XlaOp();
  Window w = UnitWindow(window_dimensions);
  w.stride = window_strides;
  if (w.stride.size() != w.size.size()) return Fail(InvalidArgument("reduce-window: one stride per window dimension"));
  SetPadding(w, operands[0].instruction()->shape.dims(), padding);
  return ReduceWindowWithGeneralPadding(operands, init_values, computation, w);
}

XlaOp XlaBuilder::SelectAndScatter(XlaOp operand, const XlaComputation& select, const std::vector<int64_t>& window_dimensions,
                                   const std::vector<int64_t>& window_strides, Padding padding, XlaOp source,
                                   XlaOp init_value, const XlaComputation& scatter) {
  if (!Check({operand})) return XlaOp();
  Window w = UnitWindow(window_dimensions);
  w.stride = window_strides;
  if (w.stride.size() != w.size.size()) return Fail(InvalidArgument("select-and-scatter: one stride per window dimension"));
  SetPadding(w, operand.instruction()->shape.dims(), padding);
  return WithComputations(Opcode::kSelectAndScatter, {operand, source, init_value},
                          {{"select", &select}, {"scatter", &scatter}}, {{"window", w.ToString()}});
}

XlaOp XlaBuilder::Scan(const std::vector<XlaOp>& inputs, const std::vector<XlaOp>& inits, const XlaComputation& to_apply,
                       int64_t scan_dimension, bool is_reverse, std::optional<bool> is_associative) {
  std::vector<std::pair<std::string, std::string>> attributes = {{"scan_dimension", std::to_string(scan_dimension)},
                                                                 {"is_reverse", is_reverse ? "true" : "false"}};
  if (is_associative) attributes.emplace_back("is_associative", *is_associative ? "true" : "false");
  return WithComputations(Opcode::kScan, Joined(inputs, inits), {{"to_apply", &to_apply}}, std::move(attributes));
}

XlaOp XlaBuilder::Sort(const std::vector<XlaOp>& operands, const XlaComputation& comparator, int64_t dimension,
                       bool is_stable) {
  if (operands.empty() || !Check({operands[0]})) return XlaOp();
  if (dimension < 0) dimension += operands[0].instruction()->shape.rank();
  return WithComputations(Opcode::kSort, operands, {{"to_apply", &comparator}},
                          {{"is_stable", is_stable ? "true" : "false"}}, std::vector<int64_t>{dimension});
}

XlaOp XlaBuilder::TopK(XlaOp operand, int64_t k, bool largest) {
  return WithComputations(Opcode::kTopK, {operand}, {}, {{"k", std::to_string(k)}, {"largest", largest ? "true" : "false"}});
}

XlaOp XlaBuilder::Map(const std::vector<XlaOp>& operands, const XlaComputation& computation,
                      const std::vector<int64_t>& dimensions) {
  return WithComputations(Opcode::kMap, operands, {{"to_apply", &computation}}, {}, dimensions);
}

XlaOp XlaBuilder::GetDimensionSize(XlaOp operand, int64_t dimension) {
  if (!Check({operand})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kGetDimensionSize;
  inst->operands = {operand.instruction()};
  inst->dimensions = std::vector<int64_t>{dimension};
  return Add(std::move(inst));
}

XlaOp XlaBuilder::SetDimensionSize(XlaOp operand, XlaOp size, int64_t dimension) {
  if (!Check({operand, size})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kSetDimensionSize;
  inst->operands = {operand.instruction(), size.instruction()};
  inst->dimensions = std::vector<int64_t>{dimension};
  return Add(std::move(inst));
}

XlaOp XlaBuilder::DynamicReshape(XlaOp operand, const std::vector<XlaOp>& dim_sizes,
                                 const std::vector<int64_t>& new_size_bounds, const std::vector<bool>& dims_are_dynamic) {
  if (!Check({operand})) return XlaOp();
  if (dim_sizes.size() != new_size_bounds.size() || dims_are_dynamic.size() != new_size_bounds.size())
    return Fail(InvalidArgument("dynamic-reshape: dim_sizes, new_size_bounds and dims_are_dynamic differ in length"));
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kDynamicReshape;
  inst->operands = {operand.instruction()};
  for (const XlaOp& d : dim_sizes) {
    if (!Check({d})) return XlaOp();
    inst->operands.push_back(d.instruction());
  }
  inst->shape = Shape(operand.shape().element_type(), new_size_bounds);
  for (size_t d = 0; d < dims_are_dynamic.size(); ++d)
    if (dims_are_dynamic[d]) inst->shape.set_dynamic_dim(static_cast<int64_t>(d), true);
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Pad(XlaOp operand, XlaOp padding_value, const std::vector<PaddingDimension>& padding) {
  if (!Check({operand, padding_value})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kPad;
  inst->operands = {operand.instruction(), padding_value.instruction()};
  inst->other_attributes.emplace_back("padding", PaddingText(padding));
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Broadcast(XlaOp operand, const std::vector<int64_t>& broadcast_sizes) {
  if (!Check({operand})) return XlaOp();
  std::vector<int64_t> dims = broadcast_sizes;
  std::vector<int64_t> mapping;
  for (int64_t i = 0; i < operand.shape().rank(); ++i) {
    mapping.push_back(static_cast<int64_t>(broadcast_sizes.size()) + i);
    dims.push_back(operand.shape().dim(i));
  }
  return BroadcastInDim(operand, dims, mapping);
}

XlaOp XlaBuilder::Unary(Opcode op, XlaOp x) {
  if (!Check({x})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = op;
  inst->operands = {x.instruction()};
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Binary(Opcode op, XlaOp lhs, XlaOp rhs, const std::vector<int64_t>& broadcast_dimensions) {
  if (!Check({lhs, rhs})) return XlaOp();
  const Shape& a = lhs.shape();
  const Shape& b = rhs.shape();
  auto describe = [&] {
    return std::string(OpcodeName(op)) + ": cannot broadcast " + a.ToString() + " and " + b.ToString();
  };
  if (!a.IsArray() || !b.IsArray()) return Fail(InvalidArgument(describe() + ": operands must be arrays"));
  // Which operand is lower-rank, and how its dimensions map into the other.
  const bool lhs_low = a.rank() < b.rank();
  const Shape& low = lhs_low ? a : b;
  const Shape& high = lhs_low ? b : a;
  std::vector<int64_t> mapping = broadcast_dimensions;
  if (a.rank() == b.rank()) {
    if (!mapping.empty()) {
      for (size_t i = 0; i < mapping.size(); ++i)
        if (mapping[i] != static_cast<int64_t>(i))
          return Fail(InvalidArgument(describe() + ": broadcast_dimensions for equal ranks must be the identity"));
    }
    mapping.clear();
    for (int64_t i = 0; i < low.rank(); ++i) mapping.push_back(i);
  } else if (mapping.empty()) {
    if (low.rank() != 0)
      return Fail(InvalidArgument(describe() + ": operands of different rank need broadcast_dimensions"));
  } else if (static_cast<int64_t>(mapping.size()) != low.rank()) {
    return Fail(InvalidArgument(describe() + ": broadcast_dimensions has " + std::to_string(mapping.size()) +
                                " entries for the rank-" + std::to_string(low.rank()) + " operand"));
  }
  std::vector<int64_t> out = high.dims();
  for (size_t i = 0; i < mapping.size(); ++i) {
    const int64_t d = mapping[i];
    if (d < 0 || d >= high.rank() || (i > 0 && d <= mapping[i - 1]))
      return Fail(InvalidArgument(describe() + ": broadcast_dimensions must be increasing dimensions of the larger operand"));
    const int64_t ls = low.dim(i), hs = high.dim(d);
    if (ls == hs || ls == 1) continue;
    if (hs == 1) out[d] = ls;  // degenerate dimension of the larger operand
    else return Fail(InvalidArgument(describe() + ": dimension " + std::to_string(i) + " (size " + std::to_string(ls) +
                                     ") does not match dimension " + std::to_string(d) + " (size " + std::to_string(hs) + ")"));
  }
  std::vector<int64_t> identity;
  for (int64_t i = 0; i < high.rank(); ++i) identity.push_back(i);
  XlaOp low_op = lhs_low ? lhs : rhs, high_op = lhs_low ? rhs : lhs;
  if (low.dims() != out) low_op = BroadcastInDim(low_op, out, mapping);
  if (high.dims() != out) high_op = BroadcastInDim(high_op, out, identity);
  if (!error_.ok()) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = op;
  inst->operands = lhs_low ? std::vector<Instruction*>{low_op.instruction(), high_op.instruction()}
                           : std::vector<Instruction*>{high_op.instruction(), low_op.instruction()};
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Compare(XlaOp lhs, XlaOp rhs, ComparisonDirection direction,
                          const std::vector<int64_t>& broadcast_dimensions, ComparisonType type) {
  XlaOp r = Binary(Opcode::kCompare, lhs, rhs, broadcast_dimensions);
  if (!r.valid()) return r;
  // Binary() inferred with the default attributes; set them and re-check.
  r.instruction()->direction = direction;
  r.instruction()->comparison_type = type;
  StatusOr<Shape> s = InferShape(*r.instruction());
  if (!s.ok()) return Fail(s.status());
  return r;
}

XlaOp XlaBuilder::Select(XlaOp pred, XlaOp on_true, XlaOp on_false) {
  if (!Check({pred, on_true, on_false})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kSelect;
  inst->operands = {pred.instruction(), on_true.instruction(), on_false.instruction()};
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Clamp(XlaOp min, XlaOp operand, XlaOp max) {
  if (!Check({min, operand, max})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kClamp;
  inst->operands = {min.instruction(), operand.instruction(), max.instruction()};
  return Add(std::move(inst));
}

XlaOp XlaBuilder::ConvertElementType(XlaOp operand, ElementType to) {
  if (!Check({operand})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kConvert;
  inst->operands = {operand.instruction()};
  inst->shape = Shape::Scalar(to);
  return Add(std::move(inst));
}

XlaOp XlaBuilder::BitcastConvertType(XlaOp operand, ElementType to) {
  if (!Check({operand})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kBitcastConvert;
  inst->operands = {operand.instruction()};
  inst->shape = Shape::Scalar(to);
  return Add(std::move(inst));
}

XlaOp XlaBuilder::ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits) {
  if (!Check({operand})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kReducePrecision;
  inst->operands = {operand.instruction()};
  inst->exponent_bits = exponent_bits;
  inst->mantissa_bits = mantissa_bits;
  return Add(std::move(inst));
}

XlaOp XlaBuilder::While(const XlaComputation& condition, const XlaComputation& body, XlaOp init) {
  return WithComputations(Opcode::kWhile, {init}, {{"condition", &condition}, {"body", &body}}, {});
}

XlaOp XlaBuilder::Conditional(XlaOp predicate, XlaOp true_operand, const XlaComputation& true_computation,
                              XlaOp false_operand, const XlaComputation& false_computation) {
  return WithComputations(Opcode::kConditional, {predicate, true_operand, false_operand},
                          {{"true_computation", &true_computation}, {"false_computation", &false_computation}}, {});
}

XlaOp XlaBuilder::Conditional(XlaOp branch_index, const std::vector<const XlaComputation*>& branch_computations,
                              const std::vector<XlaOp>& branch_operands) {
  std::vector<std::pair<std::string, const XlaComputation*>> called;
  for (const XlaComputation* c : branch_computations) {
    if (!c) return Fail(InvalidArgument("conditional: a branch computation is null"));
    called.emplace_back("branch_computations", c);
  }
  return WithComputations(Opcode::kConditional, Joined({branch_index}, branch_operands), called, {});
}

XlaOp XlaBuilder::Call(const XlaComputation& computation, const std::vector<XlaOp>& operands) {
  return WithComputations(Opcode::kCall, operands, {{"to_apply", &computation}}, {});
}

XlaOp XlaBuilder::AfterAll(const std::vector<XlaOp>& tokens) { return WithComputations(Opcode::kAfterAll, tokens, {}, {}); }

XlaOp XlaBuilder::AddDependency(XlaOp operand, XlaOp token) {
  return WithComputations(Opcode::kAddDependency, {operand, token}, {}, {});
}

XlaOp XlaBuilder::OptimizationBarrier(XlaOp operand) {
  return WithComputations(Opcode::kOptimizationBarrier, {operand}, {}, {});
}

XlaOp XlaBuilder::Infeed(XlaOp token, const Shape& shape) {
  if (!Check({token})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kInfeed;
  inst->operands = {token.instruction()};
  inst->shape = Shape::Tuple({shape, Shape::Token()});  // the op reads what its result declares
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Outfeed(XlaOp operand, XlaOp token) {
  return WithComputations(Opcode::kOutfeed, {operand, token}, {}, {});
}

namespace {

std::unique_ptr<Instruction> HostTransfer(Opcode opcode, std::vector<Instruction*> operands, Shape shape, int64_t channel) {
  auto inst = std::make_unique<Instruction>();
  inst->opcode = opcode;
  inst->operands = std::move(operands);
  inst->shape = std::move(shape);
  inst->other_attributes.emplace_back("channel_id", std::to_string(channel));
  inst->other_attributes.emplace_back("is_host_transfer", "true");
  return inst;
}

}  // namespace

XlaOp XlaBuilder::SendToHost(XlaOp operand, XlaOp token, int64_t channel) {
  if (!Check({operand, token})) return XlaOp();
  const Shape sent = Shape::Tuple({operand.instruction()->shape, Shape::Scalar(ElementType::kU32), Shape::Token()});
  XlaOp send = Add(HostTransfer(Opcode::kSend, {operand.instruction(), token.instruction()}, sent, channel));
  if (!Check({send})) return XlaOp();
  return Add(HostTransfer(Opcode::kSendDone, {send.instruction()}, Shape::Token(), channel));
}

XlaOp XlaBuilder::RecvFromHost(XlaOp token, const Shape& shape, int64_t channel) {
  if (!Check({token})) return XlaOp();
  const Shape received = Shape::Tuple({shape, Shape::Scalar(ElementType::kU32), Shape::Token()});
  XlaOp recv = Add(HostTransfer(Opcode::kRecv, {token.instruction()}, received, channel));
  if (!Check({recv})) return XlaOp();
  return Add(HostTransfer(Opcode::kRecvDone, {recv.instruction()}, Shape::Tuple({shape, Shape::Token()}), channel));
}

XlaOp XlaBuilder::CustomCall(const std::string& target, const std::vector<XlaOp>& operands, const Shape& shape,
                             const std::string& backend_config, int api_version) {
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kCustomCall;
  for (const XlaOp& o : operands) {
    if (!Check({o})) return XlaOp();
    inst->operands.push_back(o.instruction());
  }
  inst->shape = shape;
  inst->other_attributes.emplace_back("custom_call_target", "\"" + target + "\"");
  if (!backend_config.empty()) inst->other_attributes.emplace_back("backend_config", "\"" + backend_config + "\"");
  if (api_version > 0) inst->other_attributes.emplace_back("api_version", std::string(ApiVersionName(api_version)));
  return Add(std::move(inst));
}

XlaOp XlaBuilder::Tuple(const std::vector<XlaOp>& elements) {
  if (!error_.ok()) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kTuple;
  for (const XlaOp& e : elements) {
    if (!Check({e})) return XlaOp();
    inst->operands.push_back(e.instruction());
  }
  return Add(std::move(inst));
}

XlaOp XlaBuilder::GetTupleElement(XlaOp tuple, int64_t index) {
  if (!Check({tuple})) return XlaOp();
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kGetTupleElement;
  inst->operands = {tuple.instruction()};
  inst->tuple_index = index;
  return Add(std::move(inst));
}

XlaOp XlaBuilder::WithResultAccuracy(XlaOp op, const ResultAccuracy& accuracy) {
  if (!Check({op})) return XlaOp();
  op.instruction()->result_accuracy = accuracy;
  StatusOr<Shape> s = InferShape(*op.instruction());
  if (!s.ok()) return Fail(s.status());
  return op;
}

StatusOr<std::unique_ptr<Module>> XlaBuilder::Build(XlaOp root) {
  if (!error_.ok()) return error_;
  if (!computation_) return FailedPrecondition("builder " + name_ + " was already built");
  if (!Check({root})) return error_;
  computation_->set_root(root.instruction());
  auto module = std::make_unique<Module>(name_);
  // Every computation reachable through the calls becomes the module's own
  // copy, under a unique name, callees before their callers (as HLO text
  // orders them); the calls point at the copies. Iterative: call chains of
  // any depth.
  std::map<const Computation*, Computation*> copies;
  std::vector<std::pair<const Computation*, bool>> stack;  // (computation, its callees done)
  for (auto it = called_.rbegin(); it != called_.rend(); ++it) stack.push_back({it->get(), false});
  while (!stack.empty()) {
    auto [c, callees_done] = stack.back();
    stack.pop_back();
    if (copies.count(c)) continue;
    if (!callees_done) {
      stack.push_back({c, true});
      for (const auto& inst : c->instructions())
        for (const auto& [key, callee] : inst->called_computations)
          if (!copies.count(callee)) stack.push_back({callee, false});
      continue;
    }
    std::string name = c->name();
    for (int k = 1; module->Find(name) || name == name_; ++k) name = c->name() + "." + std::to_string(k);
    copies[c] = module->AddComputation(c->Clone(name));
  }
  for (const auto& [original, copy] : copies)
    for (const auto& inst : copy->instructions())
      for (auto& [key, callee] : inst->called_computations)
        if (copies.count(callee)) callee = copies.at(callee);
  for (const auto& inst : computation_->instructions())
    for (auto& [key, c] : inst->called_computations)
      if (copies.count(c)) c = copies.at(c);
  module->set_entry(module->AddComputation(std::move(computation_)));
  VKXLA_RETURN_IF_ERROR(VerifyModule(*module));
  return module;
}

StatusOr<XlaComputation> XlaBuilder::BuildComputation(XlaOp root) {
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, Build(root));
  // The module keeps the computations the entry calls alive; the caller's
  // Build copies them all.
  std::shared_ptr<const Module> owner = std::move(module);
  return XlaComputation{std::shared_ptr<const Computation>(owner, owner->entry())};
}

}  // namespace vkxla
