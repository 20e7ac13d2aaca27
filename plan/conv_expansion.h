// Convolution on the Dot engine: before planning, each convolution in a copy
// of the module becomes an implicit GEMM of ops that fuse into the matmul
// kernel's operand loads (no im2col buffer is written):
//  - the input transposed to [batch, spatial..., features] (batch split into
//    [groups, batch / groups] for batch_group_count, features into
//    [groups, features / groups] for feature_group_count), padded with the
//    window's edge padding and lhs dilation as interior padding;
//  - its windows as a gather whose start indices are iotas times the strides
//    ([batch, out spatial..., window spatial..., features]), rhs dilation a
//    strided slice of each window; a 1x1 kernel is a strided slice of the
//    input, no gather;
//  - the kernel transposed to [window spatial..., in features, out features]
//    (reversed where rhs_reversal says; out features split by group);
//  - one dot_general contracting the window and feature dims, the group as
//    its batch dim, then the result's dims put in the order the output's
//    dim_labels name.
// A kernel with one input feature per group (depthwise, and any
// convolution of a single-feature input) and a window of at most
// kMaxDirectWindow positions is instead a direct sum over the window: per
// position, the strided slice of the padded input times that position's
// kernel vector broadcast, the products added in the accumulator type, all
// one elementwise kernel (a dot per group would contract only the window).
// A 2-D f32 3x3 convolution with stride 1, no dilation or groups, and at
// least kMinWinogradFeatures input and output features (whose transformed
// tiles and kernels each fit in kMaxWinogradBytes) is Winograd's
// F(2x2, 3x3) instead (Lavin and Gray): each 4x4 input tile (a gather with
// stride 2 of the padded input) and each 3x3 kernel transformed by a dot
// with a constant 16x16 or 16x9 matrix (entries 0, +-1, +-1/2, +-1/4, so
// small integers stay exact), one dot batched over the 16 transformed
// positions (2.25x fewer products than the implicit GEMM), and a dot with
// the constant 4x16 matrix back to 2x2 output tiles, put in place by a
// transpose. Its rounding differs from the direct sum's (sums of up to 16
// transformed terms), so a high or highest precision_config or an
// algorithm keeps the implicit GEMM.
// A convolution with no work (an empty result or an empty contraction) is
// a broadcast zero.
#pragma once

#include <cstdint>
#include <memory>

#include "ir/module.h"
#include "ops/convolution.h"
#include "vkxla/status.h"

namespace vkxla {

inline constexpr int64_t kMaxDirectWindow = 49;
inline constexpr int64_t kMinWinogradFeatures = 16;
inline constexpr int64_t kMaxWinogradBytes = int64_t{64} << 20;  // of transformed tiles or kernels

enum class ConvolutionLowering { kNone, kImplicitGemm, kOneByOne, kDirect, kWinograd };
// How a convolution of these operands runs (kNone: no work, zeros).
ConvolutionLowering ChooseConvolutionLowering(const ConvolutionParams& p, const Shape& lhs, const Shape& rhs, const Shape& result);

// A copy of `module` with every convolution expanded, or null when it has
// none. `pad_features`: an implicit GEMM over fewer input features than a
// vector holds (at least a third of one) pads both operands with zero
// features to a whole vector, which a target reading operands as vectors
// (a CPU driver's register blocks) reads a window position at a time once
// the padded input is written (plan/fusion.h, rule 6b).
StatusOr<std::shared_ptr<const Module>> ExpandConvolutions(const Module& module, bool pad_features);

}  // namespace vkxla
