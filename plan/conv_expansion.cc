#include "plan/conv_expansion.h"

#include <numeric>

#include "ops/attributes.h"
#include "ops/convolution.h"
#include "ops/dot.h"
#include "ops/gather_scatter_plan.h"
#include "ops/slice_and_padding.h"
#include "plan/matmul_config.h"
#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

Scalar Zero(ElementType t) { return Scalar::Convert(Scalar::Int(ElementType::kS64, 0), t); }

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

ConvolutionLowering ChooseConvolutionLowering(const ConvolutionParams& p, const Shape& lhs, const Shape& rhs, const Shape& result) {
  const ConvolutionDimensions& d = p.dims;
  int64_t positions = 1;
  bool empty = result.element_count() == 0 || rhs.dim(d.kernel_input_feature) == 0;
  for (int64_t j = 0; j < d.spatial_rank(); ++j) {
    empty = empty || rhs.dim(d.kernel_spatial[j]) == 0;
    positions *= std::max<int64_t>(1, rhs.dim(d.kernel_spatial[j]));
  }
  if (empty) return ConvolutionLowering::kNone;
  if (rhs.dim(d.kernel_input_feature) == 1 && p.batch_group_count == 1 && positions <= kMaxDirectWindow)
    return ConvolutionLowering::kDirect;
  bool winograd = d.spatial_rank() == 2 && p.feature_group_count == 1 && p.batch_group_count == 1 &&
                  lhs.element_type() == ElementType::kF32 && rhs.element_type() == ElementType::kF32 &&
                  result.element_type() == ElementType::kF32 && rhs.dim(d.kernel_input_feature) >= kMinWinogradFeatures &&
                  rhs.dim(d.kernel_output_feature) >= kMinWinogradFeatures;
  int64_t tiles = lhs.dim(d.input_batch);
  for (int64_t j = 0; winograd && j < 2; ++j) {
    winograd = rhs.dim(d.kernel_spatial[j]) == 3 && p.window.stride[j] == 1 && p.window.window_dilation[j] == 1 &&
               p.window.base_dilation[j] == 1 && p.output_spatial[j] >= 4;
    tiles *= (p.output_spatial[j] + 1) / 2;
  }
  // Its transformed tiles (16 per 4 outputs) and kernels stay well inside
  // a phone's storage-buffer range, where the implicit GEMM writes nothing.
  const int64_t in = rhs.dim(d.kernel_input_feature), out = rhs.dim(d.kernel_output_feature);
  winograd = winograd && tiles <= kMaxWinogradBytes / (16 * 4 * std::max(in, out)) && in <= kMaxWinogradBytes / (16 * 4 * out);
  if (winograd) return ConvolutionLowering::kWinograd;
  return positions == 1 ? ConvolutionLowering::kOneByOne : ConvolutionLowering::kImplicitGemm;
}

namespace {

// The type a direct convolution adds its products in: the result's, f32
// for narrower floats.
ElementType DirectAccumulator(ElementType t) {
  return IsFloat(t) && BitWidth(t) < 32 ? ElementType::kF32 : t;
}

class ConvolutionExpander {
 public:
  ConvolutionExpander(Computation& c, const Instruction& conv, bool pad_features)
      : w_(c, conv, "conv"), conv_(conv), pad_features_(pad_features) {}

  StatusOr<Instruction*> Expand(Instruction* lhs, Instruction* rhs) {
    VKXLA_ASSIGN_OR_RETURN(p_, ReadConvolution(conv_));
    const ConvolutionDimensions& d = p_.dims;
    const int64_t spatial = d.spatial_rank();
    const Shape& ls = lhs->shape;
    const Shape& rs = rhs->shape;
    const ElementType out_type = conv_.shape.element_type();
    const int64_t batch = ls.dim(d.input_batch), features = ls.dim(d.input_feature);
    const int64_t group_features = rs.dim(d.kernel_input_feature), out_features = rs.dim(d.kernel_output_feature);
    const ConvolutionLowering lowering = ChooseConvolutionLowering(p_, ls, rs, conv_.shape);
    if (lowering == ConvolutionLowering::kNone) {
      Instruction* zeros = w_.Filled(Zero(out_type), conv_.shape.dims());
      zeros->shape = conv_.shape;
      return zeros;
    }
    if (lowering == ConvolutionLowering::kDirect) return Direct(lhs, rhs);
    const std::string* precision = FindAttribute(conv_, "operand_precision");
    if (lowering == ConvolutionLowering::kWinograd && !FindAttribute(conv_, "algorithm") &&
        (!precision || precision->find("high") == std::string::npos))
      return Winograd(lhs, rhs);
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
    const bool one_by_one = lowering == ConvolutionLowering::kOneByOne;
    // Fewer input features than a vector holds (an RGB stem): both
    // operands padded with zero features to a whole vector, so that once
    // the padded input is written (fusion rule 6b) the product reads each
    // window position's features as one vector instead of element by
    // element through the window's index math (llvmpipe, 3x3 stride 2
    // 224x224x3 -> 32: 2.5 -> 1.4 ms with the pad; in bf16, 8 lanes for 3 features,
    // 300x300x3 -> 32: 3.7 -> 2.4 ms). Only where that at most triples
    // the products; the added products are exact zeros.
    const int64_t lanes = VectorLanes(ls.element_type());
    const int64_t extra_features = pad_features_ && !one_by_one && groups == 1 && !IsComplex(ls.element_type()) &&
                                           BitWidth(ls.element_type()) >= 16 && group_features < lanes &&
                                           3 * group_features >= lanes
                                       ? lanes - group_features
                                       : 0;
    x = Padded(x, first_spatial, extra_features);

    // Its windows: [lead..., out spatial..., window spatial..., trail...],
    // or [lead..., out spatial..., trail...] for a 1x1 kernel.
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
    if (extra_features > 0) {
      std::vector<PaddingDimension> pads(k->shape.rank());
      pads[window_dims].high = extra_features;
      kdims[window_dims] += extra_features;
      k = w_.Add(Opcode::kPad, Shape(k->shape.element_type(), kdims), {k, w_.Constant(Zero(k->shape.element_type()))});
      k->other_attributes.emplace_back("padding", PaddingText(pads));
    }

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
    return InOutputOrder(y);
  }

 private:
  // [batch, out spatial..., out features] in the order the output's labels
  // name, with the layout it was asked in.
  Instruction* InOutputOrder(Instruction* y) {
    const ConvolutionDimensions& d = p_.dims;
    const int64_t spatial = d.spatial_rank();
    std::vector<int64_t> operm(spatial + 2);
    operm[d.output_batch] = 0;
    for (int64_t j = 0; j < spatial; ++j) operm[d.output_spatial[j]] = 1 + j;
    operm[d.output_feature] = spatial + 1;
    y = Transposed(y, operm);
    y->shape = conv_.shape;
    return y;
  }

  // One input feature per group: the sum over window positions of the
  // input's strided slice times the position's kernel vector.
  StatusOr<Instruction*> Direct(Instruction* lhs, Instruction* rhs) {
    const ConvolutionDimensions& d = p_.dims;
    const Window& win = p_.window;
    const int64_t spatial = d.spatial_rank();
    const ElementType out_type = conv_.shape.element_type(), acc = DirectAccumulator(out_type);
    const int64_t groups = lhs->shape.dim(d.input_feature), out_features = rhs->shape.dim(d.kernel_output_feature);
    const int64_t per_group = out_features / groups;
    std::vector<int64_t> perm = {d.input_batch};
    perm.insert(perm.end(), d.input_spatial.begin(), d.input_spatial.end());
    perm.push_back(d.input_feature);
    // The operands stay in their own types up to each product, whose
    // operands convert there, in the output's shape, where a kernel reads
    // them as whole vectors of the operands: converted whole first, a
    // narrow input (bf16) was one kernel's f32 copy and the kernel's
    // positions nine more (llvmpipe, bf16 depthwise 3x3 150x150x32 with a
    // bias and relu6: 11 kernels and 6-10 ms, against the f32 form's one
    // kernel of 0.75 ms). Conversion commutes with padding, slicing and
    // broadcasting.
    Instruction* x = Padded(Transposed(lhs, perm), 1);
    std::vector<int64_t> kperm = d.kernel_spatial;
    kperm.push_back(d.kernel_output_feature);
    kperm.push_back(d.kernel_input_feature);
    Instruction* k = Transposed(rhs, kperm);
    std::vector<int64_t> kernel_dims(k->shape.dims().begin(), k->shape.dims().begin() + spatial);
    int64_t positions = 1;
    for (int64_t e : kernel_dims) positions *= e;
    std::vector<int64_t> out_dims = {x->shape.dim(0)};
    out_dims.insert(out_dims.end(), p_.output_spatial.begin(), p_.output_spatial.end());
    out_dims.push_back(out_features);
    const bool pred = acc == ElementType::kPred;
    Instruction* sum = nullptr;
    for (int64_t position = 0; position < positions; ++position) {
      const std::vector<int64_t> at = MultiIndex(kernel_dims, position);
      // The input under this window position at every output position.
      std::vector<SliceDimension> slice = {{0, x->shape.dim(0), 1}};
      std::vector<int64_t> dims = {x->shape.dim(0)};
      for (int64_t j = 0; j < spatial; ++j) {
        const int64_t start = at[j] * win.window_dilation[j], out = p_.output_spatial[j];
        slice.push_back({start, start + (out - 1) * win.stride[j] + 1, win.stride[j]});
        dims.push_back(out);
      }
      slice.push_back({0, groups, 1});
      dims.push_back(groups);
      Instruction* xs = w_.Add(Opcode::kSlice, Shape(x->shape.element_type(), dims), {x});
      xs->other_attributes.emplace_back("slice", SliceText(slice));
      if (per_group > 1) {  // each group's feature feeds per_group outputs
        std::vector<int64_t> spread = dims;
        spread.push_back(per_group);
        Instruction* b = w_.Add(Opcode::kBroadcast, Shape(xs->shape.element_type(), spread), {xs});
        std::vector<int64_t> kept(dims.size());
        for (size_t i = 0; i < kept.size(); ++i) kept[i] = static_cast<int64_t>(i);
        b->dimensions = kept;
        xs = Reshaped(b, out_dims);
      }
      xs = Converted(xs, acc);
      // The kernel at this position (reversed where asked), along the outputs.
      Instruction* kv = k;
      for (int64_t j = 0; j < spatial; ++j) {
        const int64_t i = win.reversal[j] ? kernel_dims[j] - 1 - at[j] : at[j];
        kv = w_.Slice(kv, j, i, i + 1);
      }
      kv = Reshaped(kv, {out_features});
      Instruction* kb = w_.Add(Opcode::kBroadcast, Shape(kv->shape.element_type(), out_dims), {kv});
      kb->dimensions = std::vector<int64_t>{spatial + 1};
      kb = Converted(kb, acc);
      Instruction* product = w_.Add(pred ? Opcode::kAnd : Opcode::kMultiply, Shape(acc, out_dims), {xs, kb});
      sum = sum ? w_.Add(pred ? Opcode::kOr : Opcode::kAdd, Shape(acc, out_dims), {sum, product}) : product;
    }
    return InOutputOrder(Converted(sum, out_type));
  }

  // Winograd's F(2x2, 3x3) (see conv_expansion.h), NHWC inside.
  StatusOr<Instruction*> Winograd(Instruction* lhs, Instruction* rhs) {
    const ConvolutionDimensions& d = p_.dims;
    const ElementType f32 = ElementType::kF32;
    std::vector<int64_t> perm = {d.input_batch, d.input_spatial[0], d.input_spatial[1], d.input_feature};
    Instruction* x = Transposed(lhs, perm);
    const int64_t n = x->shape.dim(0), c = x->shape.dim(3), co = rhs->shape.dim(d.kernel_output_feature);
    const int64_t oh = p_.output_spatial[0], ow = p_.output_spatial[1];
    const int64_t th = (oh + 1) / 2, tw = (ow + 1) / 2, tiles = n * th * tw;
    // Padded so that whole 4x4 tiles (2x2 outputs each) cover the output.
    std::vector<PaddingDimension> pads(4);
    std::vector<int64_t> padded = x->shape.dims();
    for (int64_t j = 0; j < 2; ++j) {
      pads[1 + j] = {p_.window.pad_low[j], p_.window.pad_high[j] + (j == 0 ? 2 * th - oh : 2 * tw - ow), 0};
      padded[1 + j] += pads[1 + j].low + pads[1 + j].high;
    }
    Instruction* xp = w_.Add(Opcode::kPad, Shape(f32, padded), {x, w_.Constant(Zero(f32))});
    xp->other_attributes.emplace_back("padding", PaddingText(pads));
    // The tiles [N, TH, TW, 4, 4, C] as [16, tiles * C].
    Instruction* tiles_in = WindowGather(xp, 1, {th, tw}, {2, 2}, {4, 4});
    tiles_in = Reshaped(Transposed(tiles_in, {3, 4, 0, 1, 2, 5}), {16, tiles * c});
    // The kernel [3, 3, C, Co] (reversed where asked) as [9, C * Co].
    Instruction* k = Transposed(rhs, {d.kernel_spatial[0], d.kernel_spatial[1], d.kernel_input_feature, d.kernel_output_feature});
    for (int64_t j = 0; j < 2; ++j)
      if (p_.window.reversal[j]) k = w_.Reverse(k, j);
    k = Reshaped(k, {9, c * co});
    // B^T d B, G g G^T and A^T m A as products with constant matrices.
    static const double bt[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
    static const double g[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    static const double at[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
    Literal input_transform(Shape(f32, {16, 16})), kernel_transform(Shape(f32, {16, 9})), output_transform(Shape(f32, {4, 16}));
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) input_transform.Set((a * 4 + b) * 16 + i * 4 + j, Scalar::Float(f32, bt[a][i] * bt[b][j]));
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) kernel_transform.Set((a * 4 + b) * 9 + i * 3 + j, Scalar::Float(f32, g[a][i] * g[b][j]));
        for (int r = 0; r < 2; ++r)
          for (int s = 0; s < 2; ++s) output_transform.Set((r * 2 + s) * 16 + a * 4 + b, Scalar::Float(f32, at[r][a] * at[s][b]));
      }
    Instruction* v = Product(ConstantArray(std::move(input_transform)), tiles_in, {16, tiles * c});
    Instruction* u = Product(ConstantArray(std::move(kernel_transform)), k, {16, c * co});
    // 16 products of [tiles, C] x [C, Co].
    DotDimensions batched;
    batched.lhs_batch = {0};
    batched.rhs_batch = {0};
    batched.lhs_contracting = {2};
    batched.rhs_contracting = {1};
    Instruction* m = w_.Add(Opcode::kDot, Shape(f32, {16, tiles, co}), {Reshaped(v, {16, tiles, c}), Reshaped(u, {16, c, co})});
    SetDotDimensions(*m, batched);
    Instruction* y = Product(ConstantArray(std::move(output_transform)), Reshaped(m, {16, tiles * co}), {4, tiles * co});
    // [2, 2, N, TH, TW, Co] -> [N, TH, 2, TW, 2, Co] -> [N, 2 TH, 2 TW, Co], cut to the output.
    y = Transposed(Reshaped(y, {2, 2, n, th, tw, co}), {2, 3, 0, 4, 1, 5});
    y = Reshaped(y, {n, 2 * th, 2 * tw, co});
    if (2 * th != oh || 2 * tw != ow) {
      Instruction* cut = w_.Add(Opcode::kSlice, Shape(f32, {n, oh, ow, co}), {y});
      cut->other_attributes.emplace_back("slice", SliceText({{0, n, 1}, {0, oh, 1}, {0, ow, 1}, {0, co, 1}}));
      y = cut;
    }
    return InOutputOrder(y);
  }

  Instruction* ConstantArray(Literal value) {
    Instruction* k = w_.Add(Opcode::kConstant, value.shape(), {});
    k->literal = std::move(value);
    return k;
  }

  // a [M, K] x b [K, N].
  Instruction* Product(Instruction* a, Instruction* b, const std::vector<int64_t>& dims) {
    DotDimensions dd;
    dd.lhs_contracting = {1};
    dd.rhs_contracting = {0};
    Instruction* product = w_.Add(Opcode::kDot, Shape(ElementType::kF32, dims), {a, b});
    SetDotDimensions(*product, dd);
    return product;
  }

  Instruction* Converted(Instruction* v, ElementType t) {
    if (v->shape.element_type() == t) return v;
    return w_.Add(Opcode::kConvert, Shape(t, v->shape.dims()), {v});
  }

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

  // Edge padding and lhs dilation on the spatial dims from `first`, and
  // `extra_features` zeros after the last dim's.
  Instruction* Padded(Instruction* x, int64_t first, int64_t extra_features = 0) {
    const Window& win = p_.window;
    std::vector<PaddingDimension> pads(x->shape.rank());
    std::vector<int64_t> dims = x->shape.dims();
    pads.back().high = extra_features;
    dims.back() += extra_features;
    bool any = extra_features > 0;
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

  // The windows of the padded input: a gather of `extents` from every
  // `strides`-th position along the spatial dims from `first` (`counts` of
  // them), [lead..., counts..., extents..., trail...]; start indices are
  // iotas times the strides (fused into the reads).
  Instruction* WindowGather(Instruction* x, int64_t first, const std::vector<int64_t>& counts, const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& extents) {
    const int64_t spatial = static_cast<int64_t>(counts.size());
    int64_t largest_start = 0;
    for (int64_t j = 0; j < spatial; ++j) largest_start = std::max(largest_start, (counts[j] - 1) * strides[j]);
    const ElementType index_type = largest_start < (int64_t{1} << 31) ? ElementType::kS32 : ElementType::kS64;
    std::vector<int64_t> index_dims = counts;
    index_dims.push_back(1);
    std::vector<Instruction*> starts;
    for (int64_t j = 0; j < spatial; ++j) {
      Instruction* iota = w_.Add(Opcode::kIota, Shape(index_type, index_dims), {});
      iota->iota_dimension = j;
      if (strides[j] != 1)
        iota = w_.Add(Opcode::kMultiply, iota->shape, {iota, w_.Filled(Scalar::Int(index_type, strides[j]), index_dims)});
      starts.push_back(iota);
    }
    Instruction* indices = w_.Concatenate(starts, spatial);
    GatherDimensions g;
    const int64_t rank = x->shape.rank();
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < first; ++i) dims.push_back(x->shape.dim(i));
    for (int64_t j = 0; j < spatial; ++j) dims.push_back(counts[j]);
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t j = i - first;
      const bool is_spatial = j >= 0 && j < spatial;
      g.slice_sizes.push_back(is_spatial ? extents[j] : x->shape.dim(i));
      if (is_spatial) g.start_index_map.push_back(i);
      g.offset_dims.push_back(i < first ? i : i + spatial);
    }
    for (int64_t e : extents) dims.push_back(e);
    for (int64_t i = first + spatial; i < rank; ++i) dims.push_back(x->shape.dim(i));
    g.index_vector_dim = spatial;
    g.indices_are_sorted = true;
    Instruction* gathered = w_.Add(Opcode::kGather, Shape(x->shape.element_type(), dims), {x, indices});
    SetGatherDimensions(*gathered, g);
    return gathered;
  }

  // The convolution's windows, [lead..., out spatial..., window
  // spatial..., trail...]: each the dilated window, then every
  // rhs_dilate-th element of it.
  Instruction* Windows(Instruction* x, int64_t first, const Shape& kernel) {
    const int64_t spatial = p_.dims.spatial_rank();
    const Window& win = p_.window;
    std::vector<int64_t> extents;
    for (int64_t j = 0; j < spatial; ++j) extents.push_back((kernel.dim(p_.dims.kernel_spatial[j]) - 1) * win.window_dilation[j] + 1);
    Instruction* gathered = WindowGather(x, first, p_.output_spatial, win.stride, extents);
    std::vector<int64_t> dims = gathered->shape.dims();
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
  const bool pad_features_;
  ConvolutionParams p_;
};

}  // namespace

StatusOr<std::shared_ptr<const Module>> ExpandConvolutions(const Module& module, bool pad_features) {
  return RewriteModule(
      module, [](const Instruction& inst) { return inst.opcode == Opcode::kConvolution; },
      [pad_features](Computation& c, const Instruction& conv, const std::vector<Instruction*>& operands) {
        return ConvolutionExpander(c, conv, pad_features).Expand(operands.at(0), operands.at(1));
      });
}

}  // namespace vkxla
