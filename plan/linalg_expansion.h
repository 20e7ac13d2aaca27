// Cholesky and TriangularSolve too large for one invocation, as recursive
// blocked algorithms whose bulk is the Dot engine's matmul. Blocks of at
// most the leaf order stay Cholesky and TriangularSolve ops, which run as
// substitution kernels (codegen/triangular_kernel_builder.cc: one
// invocation per matrix or per right-hand side).
//  - TriangularSolve in T form (ops/triangular_solve.h): up to order 128,
//    split T's order in two; solve the block that comes first in the
//    substitution order, subtract its product with T's off-diagonal block
//    from the other part of b (a matmul, the transposes and conjugates of
//    op(a) folded into the dot's dimension numbers and a fused conjugate),
//    solve that part. Above it, left-looking over panels of 128: each
//    panel's part of b less one long-contraction matmul with all unknowns
//    solved so far, then the panel by halves (mid-size matmuls of halves
//    ran well below large ones on lavapipe: n = 1024, 500 -> 420 ms). The
//    flops are those of the plain algorithm either way.
//  - Cholesky, lower (an upper one is the conjugate transpose of the lower
//    factor of a's conjugate transpose): L11 = chol(A11), L21 = A21
//    L11^-H (a right-side solve), L22 = chol(A22 - L21 L21^H). Only the
//    update's lower triangle is read, so above kLowerUpdateLeafOrder it
//    splits too: the lower half and the block below the diagonal, the
//    block above left zero (square matmuls at the leaves only).
//    As XLA's expansion does, a matrix whose factorisation fails anywhere
//    is NaN throughout: the sum of its factor (two matrix-vector dots) is
//    NaN exactly when some block's pivot failed.
// Blocks split at a multiple of the leaf order, so a power-of-two order
// ends in equal leaves; only the named triangle of a is ever read.
#pragma once

#include <cstdint>
#include <memory>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

inline constexpr int64_t kCholeskyLeafOrder = 32;
inline constexpr int64_t kTriangularSolveLeafOrder = 32;
// Solves above this order go left-looking over panels of it.
inline constexpr int64_t kTriangularSolvePanelOrder = 128;
// Cholesky's trailing updates are square matmuls up to this order; larger
// ones split so the blocks above the diagonal (never read) are not computed.
inline constexpr int64_t kLowerUpdateLeafOrder = 128;
// Larger orders are an error before expanding (2^16: a 16 GiB f32 matrix,
// past any binding; the expansion's size grows with the order).
inline constexpr int64_t kMaxLinearAlgebraOrder = int64_t{1} << 16;

// A copy of `module` with every Cholesky and TriangularSolve above its
// leaf order expanded, or null when it has none.
StatusOr<std::shared_ptr<const Module>> ExpandLinearAlgebra(const Module& module);

}  // namespace vkxla
