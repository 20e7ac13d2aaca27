#include "plan/conv_expansion.h"

#include <numeric>

#include "ops/attributes.h"
#include "ops/convolution.h"
#include "ops/dot.h"
#include "ops/gather_scatter_plan.h"
#include "ops/slice_and_padding.h"
#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

Scalar Zero(ElementType t) { return Scalar::Convert(Scalar::Int(ElementType::kS64, 0), t); }

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

class ConvolutionExpander {
 public:
  ConvolutionExpander(Computation& c, const Instruction& conv) : w_(c, conv, "conv"), conv_(conv) {}

  StatusOr<Instruction*> Expand(Instruction* lhs, Instruction* rhs) {
    VKXLA_ASSIGN_OR_RETURN(p_, ReadConvolution(conv_));
    const ConvolutionDimensions& d = p_.dims;
    const int64_t spatial = d.spatial_rank();
    const Shape& ls = lhs->shape;
    const Shape& rs = rhs->shape;
    const ElementType out_type = conv_.shape.element_type();
    const int64_t batch = ls.dim(d.input_batch), features = ls.dim(d.input_feature);
    const int64_t group_features = rs.dim(d.kernel_input_feature), out_features = rs.dim(d.kernel_output_feature);
    bool empty = conv_.shape.element_count() == 0 || group_features == 0;
    for (int64_t j = 0; j < spatial; ++j) empty = empty || rs.dim(d.kernel_spatial[j]) == 0;
    if (empty) {
      Instruction* zeros = w_.Filled(Zero(out_type), conv_.shape.dims());
      zeros->shape = conv_.shape;
      return zeros;
    }
    const int64_t groups = p_.batch_group_count > 1 ? p_.batch_group_count : p_.feature_group_count;
    const bool batch_grouped = p_.batch_group_count > 1, feature_grouped = p_.feature_group_count > 1;

    // The input as [lead..., spatial..., trail...].
    std::vector<int64_t> perm = {d.input_batch};
    perm.insert(perm.end(), d.input_spatial.begin(), d.input_spatial.end());
    perm.push_back(d.input_feature);
    Instruction* x = Transposed(lhs, perm);
    std::vector<int64_t> lead = {batch}, trail = {features};
    if (batch_grouped) lead = {groups, batch / groups};
    if (feature_grouped) trail = {groups, group_features};
    std::vector<int64_t> dims = lead;
    for (int64_t j = 0; j < spatial; ++j) dims.push_back(x->shape.dim(1 + j));
    dims.insert(dims.end(), trail.begin(), trail.end());
    x = Reshaped(x, dims);
    const int64_t first_spatial = static_cast<int64_t>(lead.size());
    x = Padded(x, first_spatial);

    // Its windows: [lead..., out spatial..., window spatial..., trail...],
    // or [lead..., out spatial..., trail...] for a 1x1 kernel.
    bool one_by_one = true;
    for (int64_t j = 0; j < spatial; ++j) one_by_one = one_by_one && rs.dim(d.kernel_spatial[j]) == 1;
    Instruction* windows = one_by_one ? StridedInput(x, first_spatial) : Windows(x, first_spatial, rs);
    const int64_t window_dims = one_by_one ? 0 : spatial;

    // The kernel as [window spatial..., in features, out features] (out
    // features split [groups, per group]).
    std::vector<int64_t> kperm = d.kernel_spatial;
    kperm.push_back(d.kernel_input_feature);
    kperm.push_back(d.kernel_output_feature);
    Instruction* k = Transposed(rhs, kperm);
    for (int64_t j = 0; j < spatial; ++j)
      if (p_.window.reversal[j] && k->shape.dim(j) > 1) k = w_.Reverse(k, j);
    std::vector<int64_t> kdims;
    if (!one_by_one) kdims.assign(k->shape.dims().begin(), k->shape.dims().begin() + spatial);
    kdims.push_back(group_features);
    if (groups > 1) {
      kdims.push_back(groups);
      kdims.push_back(out_features / groups);
    } else {
      kdims.push_back(out_features);
    }
    k = Reshaped(k, kdims);

    // The product.
    DotDimensions dd;
    const int64_t trail_at = first_spatial + spatial + window_dims;
    for (int64_t j = 0; j < window_dims; ++j) {
      dd.lhs_contracting.push_back(first_spatial + spatial + j);
      dd.rhs_contracting.push_back(j);
    }
    dd.lhs_contracting.push_back(feature_grouped ? trail_at + 1 : trail_at);
    dd.rhs_contracting.push_back(window_dims);
    if (groups > 1) {
      dd.lhs_batch.push_back(batch_grouped ? 0 : trail_at);
      dd.rhs_batch.push_back(window_dims + 1);
    }
    std::vector<int64_t> product_dims;
    if (groups > 1) product_dims.push_back(groups);
    product_dims.push_back(lead.back());
    for (int64_t j = 0; j < spatial; ++j) product_dims.push_back(p_.output_spatial[j]);
    product_dims.push_back(groups > 1 ? out_features / groups : out_features);
    Instruction* product = w_.Add(Opcode::kDot, Shape(out_type, product_dims), {windows, k});
    SetDotDimensions(*product, dd);
    for (const char* key : {"operand_precision", "algorithm"})
      if (const std::string* v = FindAttribute(conv_, key)) SetAttribute(*product, key, *v);

    // [batch, out spatial..., out features], then the output's order.
    Instruction* y = product;
    if (groups > 1) {
      std::vector<int64_t> gperm(spatial + 3);
      std::iota(gperm.begin(), gperm.end(), 1);
      gperm[spatial + 1] = 0;
      gperm[spatial + 2] = spatial + 2;
      y = Transposed(y, gperm);
      std::vector<int64_t> merged(y->shape.dims().begin(), y->shape.dims().begin() + spatial + 1);
      merged.push_back(out_features);
      y = Reshaped(y, merged);
    }
    std::vector<int64_t> operm(spatial + 2);
    operm[d.output_batch] = 0;
    for (int64_t j = 0; j < spatial; ++j) operm[d.output_spatial[j]] = 1 + j;
    operm[d.output_feature] = spatial + 1;
    y = Transposed(y, operm);
    y->shape = conv_.shape;  // the layout it was asked in
    return y;
  }

 private:
  Instruction* Transposed(Instruction* x, const std::vector<int64_t>& perm) {
    if (IsIdentity(perm)) return x;
    std::vector<int64_t> dims;
    for (int64_t p : perm) dims.push_back(x->shape.dim(p));
    Instruction* t = w_.Add(Opcode::kTranspose, Shape(x->shape.element_type(), dims), {x});
    t->dimensions = perm;
    return t;
  }

  Instruction* Reshaped(Instruction* x, const std::vector<int64_t>& dims) {
    if (x->shape.dims() == dims) return x;
    return w_.Add(Opcode::kReshape, Shape(x->shape.element_type(), dims), {x});
  }

  // Edge padding and lhs dilation on the spatial dims from `first`.
  Instruction* Padded(Instruction* x, int64_t first) {
    const Window& win = p_.window;
    std::vector<PaddingDimension> pads(x->shape.rank());
    std::vector<int64_t> dims = x->shape.dims();
    bool any = false;
    for (int64_t j = 0; j < p_.dims.spatial_rank(); ++j) {
      PaddingDimension& pd = pads[first + j];
      pd = {win.pad_low[j], win.pad_high[j], dims[first + j] == 0 ? 0 : win.base_dilation[j] - 1};
      any = any || pd.low != 0 || pd.high != 0 || pd.interior != 0;
      const int64_t n = dims[first + j];
      dims[first + j] = (n == 0 ? 0 : n + (n - 1) * pd.interior) + pd.low + pd.high;
    }
    if (!any) return x;
    Instruction* padded = w_.Add(Opcode::kPad, Shape(x->shape.element_type(), dims), {x, w_.Constant(Zero(x->shape.element_type()))});
    padded->other_attributes.emplace_back("padding", PaddingText(pads));
    return padded;
  }

  // A 1x1 kernel's input: each output position's element, a strided slice.
  Instruction* StridedInput(Instruction* x, int64_t first) {
    std::vector<SliceDimension> slice;
    std::vector<int64_t> dims = x->shape.dims();
    bool any = false;
    for (int64_t i = 0; i < x->shape.rank(); ++i) {
      const int64_t j = i - first;
      if (j < 0 || j >= p_.dims.spatial_rank()) {
        slice.push_back({0, dims[i], 1});
        continue;
      }
      const int64_t out = p_.output_spatial[j], stride = p_.window.stride[j];
      slice.push_back({0, (out - 1) * stride + 1, stride});
      any = any || out != dims[i];
      dims[i] = out;
    }
    if (!any) return x;
    Instruction* s = w_.Add(Opcode::kSlice, Shape(x->shape.element_type(), dims), {x});
    s->other_attributes.emplace_back("slice", SliceText(slice));
    return s;
  }

  // The windows of the padded input as a gather: start indices
  // out_position * stride per spatial dim (iotas, fused into the reads),
  // each slice the dilated window; then every rhs_dilate-th element.
  Instruction* Windows(Instruction* x, int64_t first, const Shape& kernel) {
    const int64_t spatial = p_.dims.spatial_rank();
    const Window& win = p_.window;
    int64_t largest_start = 0;
    for (int64_t j = 0; j < spatial; ++j) largest_start = std::max(largest_start, (p_.output_spatial[j] - 1) * win.stride[j]);
    const ElementType index_type = largest_start < (int64_t{1} << 31) ? ElementType::kS32 : ElementType::kS64;
    std::vector<int64_t> index_dims = p_.output_spatial;
    index_dims.push_back(1);
    std::vector<Instruction*> starts;
    for (int64_t j = 0; j < spatial; ++j) {
      Instruction* iota = w_.Add(Opcode::kIota, Shape(index_type, index_dims), {});
      iota->iota_dimension = j;
      if (win.stride[j] != 1)
        iota = w_.Add(Opcode::kMultiply, iota->shape, {iota, w_.Filled(Scalar::Int(index_type, win.stride[j]), index_dims)});
      starts.push_back(iota);
    }
    Instruction* indices = w_.Concatenate(starts, spatial);
    GatherDimensions g;
    const int64_t rank = x->shape.rank();
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < first; ++i) dims.push_back(x->shape.dim(i));
    for (int64_t j = 0; j < spatial; ++j) dims.push_back(p_.output_spatial[j]);
    std::vector<int64_t> extents;
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t j = i - first;
      const bool is_spatial = j >= 0 && j < spatial;
      const int64_t extent = is_spatial ? (kernel.dim(p_.dims.kernel_spatial[j]) - 1) * win.window_dilation[j] + 1 : x->shape.dim(i);
      g.slice_sizes.push_back(extent);
      if (is_spatial) {
        g.start_index_map.push_back(i);
        extents.push_back(extent);
      }
      g.offset_dims.push_back(i < first ? i : i + spatial);
    }
    for (int64_t e : extents) dims.push_back(e);
    for (int64_t i = first + spatial; i < rank; ++i) dims.push_back(x->shape.dim(i));
    g.index_vector_dim = spatial;
    g.indices_are_sorted = true;
    Instruction* gathered = w_.Add(Opcode::kGather, Shape(x->shape.element_type(), dims), {x, indices});
    SetGatherDimensions(*gathered, g);
    // Every rhs_dilate-th element of each window.
    std::vector<SliceDimension> slice;
    bool dilated = false;
    for (int64_t i = 0; i < gathered->shape.rank(); ++i) {
      const int64_t j = i - first - spatial;
      if (j >= 0 && j < spatial && win.window_dilation[j] > 1) {
        slice.push_back({0, dims[i], win.window_dilation[j]});
        dims[i] = kernel.dim(p_.dims.kernel_spatial[j]);
        dilated = true;
      } else {
        slice.push_back({0, dims[i], 1});
      }
    }
    if (!dilated) return gathered;
    Instruction* s = w_.Add(Opcode::kSlice, Shape(x->shape.element_type(), dims), {gathered});
    s->other_attributes.emplace_back("slice", SliceText(slice));
    return s;
  }

  ExpansionWriter w_;
  const Instruction& conv_;
  ConvolutionParams p_;
};

}  // namespace

StatusOr<std::shared_ptr<const Module>> ExpandConvolutions(const Module& module) {
  return RewriteModule(
      module, [](const Instruction& inst) { return inst.opcode == Opcode::kConvolution; },
      [](Computation& c, const Instruction& conv, const std::vector<Instruction*>& operands) {
        return ConvolutionExpander(c, conv).Expand(operands.at(0), operands.at(1));
      });
}

}  // namespace vkxla
