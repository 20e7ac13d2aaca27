#include "ops/convolution.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "ops/attributes.h"
#include "ops/dot.h"
#include "ops/dot_arithmetic.h"

namespace vkxla {
namespace {

Status ConvError(const Instruction& inst, const std::string& message) {
  return InvalidArgument("convolution " + inst.Describe() + ": " + message);
}

// One side of the labels as tokens: "b01f" one per character,
// "[b, 0, 1, f]" one per comma-separated item.
std::vector<std::string> LabelTokens(std::string side) {
  std::vector<std::string> out;
  std::erase_if(side, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  if (!side.empty() && side.front() == '[' && side.back() == ']') {
    std::string cur;
    for (char c : side.substr(1, side.size() - 2)) {
      if (c == ',') {
        out.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (!cur.empty() || !out.empty()) out.push_back(cur);
    return out;
  }
  for (char c : side) out.emplace_back(1, c);
  return out;
}

// Reads one side: the dims of the two letters and the spatial dims by number.
bool ReadSide(const std::vector<std::string>& tokens, char first, char second, int64_t& first_dim, int64_t& second_dim,
              std::vector<int64_t>& spatial) {
  const int64_t rank = static_cast<int64_t>(tokens.size());
  if (rank < 2) return false;
  first_dim = second_dim = -1;
  spatial.assign(rank - 2, -1);
  for (int64_t d = 0; d < rank; ++d) {
    const std::string& t = tokens[d];
    if (t == std::string(1, first) || t == std::string(1, second)) {
      int64_t& slot = t[0] == first ? first_dim : second_dim;
      if (slot >= 0) return false;
      slot = d;
      continue;
    }
    int64_t j = -1;
    const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), j);
    if (error != std::errc() || end != t.data() + t.size() || j < 0 || j >= rank - 2 || spatial[j] >= 0) return false;
    spatial[j] = d;
  }
  return first_dim >= 0 && second_dim >= 0;
}

std::string SideText(int64_t rank, int64_t first_dim, char first, int64_t second_dim, char second, const std::vector<int64_t>& spatial) {
  std::string s(rank, '?');
  s[first_dim] = first;
  s[second_dim] = second;
  for (size_t j = 0; j < spatial.size(); ++j) s[spatial[j]] = static_cast<char>('0' + j);
  return s;
}

// XLA's default numbers (no dim_labels written): bf01_oi01->bf01.
ConvolutionDimensions DefaultDimensions(int64_t rank) {
  ConvolutionDimensions d;
  d.input_batch = 0, d.input_feature = 1;
  d.kernel_output_feature = 0, d.kernel_input_feature = 1;
  d.output_batch = 0, d.output_feature = 1;
  for (int64_t j = 2; j < rank; ++j) {
    d.input_spatial.push_back(j);
    d.kernel_spatial.push_back(j);
    d.output_spatial.push_back(j);
  }
  return d;
}

// Strides, paddings and dilations beyond this are refused, so that every
// size derived from them (dilated input, padded input, dilated window)
// fits in int64.
constexpr __int128 kMaxWindowExtent = __int128{1} << 60;

}  // namespace

StatusOr<ConvolutionDimensions> ParseDimLabels(const std::string& text) {
  auto bad = [&]() {
    return InvalidArgument("dim_labels=" + text +
                           " is not of the form b01f_01io->b01f (input, kernel and output dims: b batch, f feature, i and o "
                           "kernel input and output features, 0.. spatial dims, each once, all three of one rank)");
  };
  const size_t arrow = text.find("->");
  if (arrow == std::string::npos) return bad();
  const std::string left = text.substr(0, arrow), output = text.substr(arrow + 2);
  std::string input, kernel;
  const size_t bracket_x = left.find("]x[");
  if (bracket_x != std::string::npos) {
    input = left.substr(0, bracket_x + 1);
    kernel = left.substr(bracket_x + 2);
  } else {
    const size_t underscore = left.find('_');
    if (underscore == std::string::npos) return bad();
    input = left.substr(0, underscore);
    kernel = left.substr(underscore + 1);
  }
  const std::vector<std::string> in = LabelTokens(input), ke = LabelTokens(kernel), out = LabelTokens(output);
  if (in.size() != ke.size() || in.size() != out.size()) return bad();
  ConvolutionDimensions d;
  if (!ReadSide(in, 'b', 'f', d.input_batch, d.input_feature, d.input_spatial) ||
      !ReadSide(ke, 'i', 'o', d.kernel_input_feature, d.kernel_output_feature, d.kernel_spatial) ||
      !ReadSide(out, 'b', 'f', d.output_batch, d.output_feature, d.output_spatial))
    return bad();
  return d;
}

std::string DimLabelsText(const ConvolutionDimensions& d) {
  const int64_t rank = d.spatial_rank() + 2;
  return SideText(rank, d.input_batch, 'b', d.input_feature, 'f', d.input_spatial) + "_" +
         SideText(rank, d.kernel_input_feature, 'i', d.kernel_output_feature, 'o', d.kernel_spatial) + "->" +
         SideText(rank, d.output_batch, 'b', d.output_feature, 'f', d.output_spatial);
}

StatusOr<ConvolutionParams> ReadConvolution(const Instruction& inst) {
  if (inst.operands.size() != 2)
    return ConvError(inst, "expects 2 operands (input and kernel), got " + std::to_string(inst.operands.size()));
  const Shape& lhs = inst.operands[0]->shape;
  const Shape& rhs = inst.operands[1]->shape;
  const std::string shapes = lhs.ToString() + " and " + rhs.ToString();
  if (!lhs.IsArray() || !rhs.IsArray()) return ConvError(inst, "operands must be arrays, got " + shapes);
  if (lhs.rank() != rhs.rank()) return ConvError(inst, "input and kernel must have one rank, got " + shapes);
  if (lhs.rank() < 2) return ConvError(inst, "input and kernel need a batch and a feature dim, got " + shapes);
  for (const Shape* s : {&lhs, &rhs})
    for (int64_t d = 0; d < s->rank(); ++d)
      if (s->is_dynamic_dim(d)) return Unimplemented("convolution " + inst.Describe() + ": dynamic operand " + s->ToString() + " is not supported");
  const int64_t rank = lhs.rank();
  ConvolutionParams p;
  if (const std::string* labels = FindAttribute(inst, "dim_labels")) {
    StatusOr<ConvolutionDimensions> d = ParseDimLabels(*labels);
    if (!d.ok()) return ConvError(inst, d.status().message());
    p.dims = *d;
    if (p.dims.spatial_rank() + 2 != rank)
      return ConvError(inst, "dim_labels=" + *labels + " is for rank " + std::to_string(p.dims.spatial_rank() + 2) +
                                 ", the operands are " + shapes);
  } else {
    p.dims = DefaultDimensions(rank);
  }
  const ConvolutionDimensions& d = p.dims;
  const int64_t spatial = d.spatial_rank();
  VKXLA_ASSIGN_OR_RETURN(p.window, WindowOf(inst, spatial, WindowUse::kConvolution));
  for (const char* key : {"feature_group_count", "batch_group_count"}) {
    int64_t v = 1;
    if (FindAttribute(inst, key)) {
      VKXLA_ASSIGN_OR_RETURN(v, IntAttribute(inst, key));
    }
    if (v < 1) return ConvError(inst, std::string(key) + "=" + std::to_string(v) + " must be at least 1");
    (std::string(key) == "feature_group_count" ? p.feature_group_count : p.batch_group_count) = v;
  }
  const int64_t groups = p.feature_group_count, batch_groups = p.batch_group_count;
  const std::string counts = " (feature_group_count=" + std::to_string(groups) + ", batch_group_count=" + std::to_string(batch_groups) + ")";
  if (groups > 1 && batch_groups > 1) return ConvError(inst, "feature_group_count and batch_group_count cannot both exceed 1" + counts);
  const int64_t batch = lhs.dim(d.input_batch), features = lhs.dim(d.input_feature);
  const int64_t kernel_in = rhs.dim(d.kernel_input_feature), kernel_out = rhs.dim(d.kernel_output_feature);
  if (batch % batch_groups != 0)
    return ConvError(inst, "the input's batch dim (" + std::to_string(batch) + ") of " + shapes + " is not a multiple of batch_group_count" + counts);
  if (features % groups != 0)
    return ConvError(inst, "the input's feature dim (" + std::to_string(features) + ") of " + shapes +
                               " is not a multiple of feature_group_count" + counts);
  if (kernel_in != features / groups)
    return ConvError(inst, "the kernel's input feature dim (" + std::to_string(kernel_in) + ") must be the input's features (" +
                               std::to_string(features) + ") over feature_group_count, for " + shapes + counts);
  if (kernel_out % groups != 0 || kernel_out % batch_groups != 0)
    return ConvError(inst, "the kernel's output feature dim (" + std::to_string(kernel_out) + ") of " + shapes +
                               " is not a multiple of the group count" + counts);
  const Window& w = p.window;
  for (int64_t j = 0; j < spatial; ++j) {
    const int64_t k = rhs.dim(d.kernel_spatial[j]);
    if (w.size[j] != k)
      return ConvError(inst, "window size " + std::to_string(w.size[j]) + " of spatial dim " + std::to_string(j) +
                                 " differs from the kernel's " + std::to_string(k) + " (" + shapes + ", window=" + w.ToString() + ")");
    const int64_t x = lhs.dim(d.input_spatial[j]);
    const __int128 dilated = x == 0 ? 0 : __int128{x - 1} * w.base_dilation[j] + 1;
    const __int128 padded = dilated + w.pad_low[j] + w.pad_high[j];
    const __int128 extent = k == 0 ? 0 : __int128{k - 1} * w.window_dilation[j] + 1;
    if (dilated > kMaxWindowExtent || extent > kMaxWindowExtent || padded > kMaxWindowExtent || padded < -kMaxWindowExtent ||
        w.stride[j] > kMaxWindowExtent)
      return ConvError(inst, "window=" + w.ToString() + " is too large for " + shapes);
    const bool empty = padded <= 0 || extent > padded;
    p.output_spatial.push_back(empty ? 0 : static_cast<int64_t>((padded - extent) / w.stride[j] + 1));
  }
  VKXLA_RETURN_IF_ERROR(CheckProductOperands(inst, lhs, rhs));
  return p;
}

StatusOr<Shape> InferConvolutionShape(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(ConvolutionParams p, ReadConvolution(inst));
  const Shape& lhs = inst.operands[0]->shape;
  const Shape& rhs = inst.operands[1]->shape;
  std::vector<int64_t> dims(lhs.rank());
  dims[p.dims.output_batch] = lhs.dim(p.dims.input_batch) / p.batch_group_count;
  dims[p.dims.output_feature] = rhs.dim(p.dims.kernel_output_feature);
  for (int64_t j = 0; j < p.dims.spatial_rank(); ++j) dims[p.dims.output_spatial[j]] = p.output_spatial[j];
  const ElementType t = inst.shape.IsArray() ? inst.shape.element_type() : lhs.element_type();
  return Shape(t, dims);
}

StatusOr<Literal> EvaluateConvolution(const Instruction& inst, const Literal& lhs, const Literal& rhs) {
  VKXLA_ASSIGN_OR_RETURN(ConvolutionParams p, ReadConvolution(inst));
  VKXLA_ASSIGN_OR_RETURN(Shape shape, InferConvolutionShape(inst));
  DotAlgorithm algorithm;
  if (const std::string* a = FindAttribute(inst, "algorithm")) {
    VKXLA_ASSIGN_OR_RETURN(algorithm, ParseDotAlgorithm(*a));
  }
  const ElementType t = shape.element_type();
  const DotArithmetic arithmetic(t, algorithm);
  const ConvolutionDimensions& d = p.dims;
  const Window& w = p.window;
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  // Operands converted once, by row-major index.
  std::vector<DotArithmetic::Term> a(static_cast<size_t>(ls.element_count())), b(static_cast<size_t>(rs.element_count()));
  for (int64_t i = 0; i < ls.element_count(); ++i) a[i] = arithmetic.Of(lhs.Get(i), algorithm.lhs_precision);
  for (int64_t i = 0; i < rs.element_count(); ++i) b[i] = arithmetic.Of(rhs.Get(i), algorithm.rhs_precision);
  const int64_t spatial = d.spatial_rank();
  const int64_t out_features = rs.dim(d.kernel_output_feature);
  const int64_t group_features = rs.dim(d.kernel_input_feature);
  const int64_t per_feature_group = out_features / p.feature_group_count;
  const int64_t per_batch_group = out_features / p.batch_group_count;
  const int64_t batch_per_group = ls.dim(d.input_batch) / p.batch_group_count;
  std::vector<int64_t> kernel_dims(spatial);
  int64_t window_count = 1;
  for (int64_t j = 0; j < spatial; ++j) window_count *= kernel_dims[j] = rs.dim(d.kernel_spatial[j]);
  const DotArithmetic::Term zero = arithmetic.Of(Scalar::FromBits(ls.element_type(), 0), algorithm.lhs_precision);
  Literal out(shape);
  std::vector<int64_t> li(ls.rank()), ri(rs.rank());
  for (int64_t linear = 0; linear < shape.element_count(); ++linear) {
    const std::vector<int64_t> o = MultiIndex(shape.dims(), linear);
    const int64_t feature = o[d.output_feature];
    const int64_t feature_group = per_feature_group == 0 ? 0 : feature / per_feature_group;
    const int64_t batch_group = per_batch_group == 0 ? 0 : feature / per_batch_group;
    li[d.input_batch] = batch_group * batch_per_group + o[d.output_batch];
    ri[d.kernel_output_feature] = feature;
    DotArithmetic::Term acc;
    for (int64_t position = 0; position < window_count; ++position) {
      const std::vector<int64_t> k = MultiIndex(kernel_dims, position);
      bool inside = true;
      for (int64_t j = 0; j < spatial; ++j) {
        // The element's place in the padded, dilated input.
        const int64_t at = o[d.output_spatial[j]] * w.stride[j] + k[j] * w.window_dilation[j] - w.pad_low[j];
        const int64_t x = at / w.base_dilation[j];
        inside = inside && at >= 0 && at % w.base_dilation[j] == 0 && x < ls.dim(d.input_spatial[j]);
        li[d.input_spatial[j]] = x;
        ri[d.kernel_spatial[j]] = w.reversal[j] ? kernel_dims[j] - 1 - k[j] : k[j];
      }
      // Outside the input (padding, a dilation's holes) the spec's padded
      // operand holds zeros, which are multiplied like any element: an
      // infinite or NaN weight there makes the sum NaN (stablehlo_spec.md's
      // pad-then-dot_general, as cuDNN and Eigen compute it).
      for (int64_t c = 0; c < group_features; ++c) {
        li[d.input_feature] = feature_group * group_features + c;
        ri[d.kernel_input_feature] = c;
        arithmetic.Accumulate(acc, inside ? a[LinearIndex(ls.dims(), li)] : zero, b[LinearIndex(rs.dims(), ri)]);
      }
    }
    out.Set(linear, arithmetic.Result(acc));
  }
  return out;
}

void SetConvolutionAttributes(Instruction& inst, const ConvolutionParams& p) {
  SetAttribute(inst, "window", p.window.ToString());
  SetAttribute(inst, "dim_labels", DimLabelsText(p.dims));
  if (p.feature_group_count != 1) SetAttribute(inst, "feature_group_count", std::to_string(p.feature_group_count));
  if (p.batch_group_count != 1) SetAttribute(inst, "batch_group_count", std::to_string(p.batch_group_count));
}

}  // namespace vkxla
