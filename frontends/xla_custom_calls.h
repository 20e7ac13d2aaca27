// The custom calls jax.export writes for ops that XLA itself expands on
// every backend, read as the HLO they stand for:
//   stablehlo.dynamic_top_k(x, k)                    -> topk
//   stablehlo.dynamic_rng_bit_generator(state, shape) -> rng-bit-generator
//   stablehlo.dynamic_reduce_window(xs..., inits..., window, strides,
//       base_dilations, window_dilations, padding)   -> reduce-window
//   stablehlo.dynamic_approx_top_k(xs..., inits..., shapes...) and
//   ApproxTopK(xs..., inits...)                     -> a stable sort by
//       the comparator, sliced to the result's size: the exact top k,
//       which is what XLA's CPU backend returns for an approximate one
//   AllocateBuffer()                                 -> zeros (its values
//       are unspecified; zeros are a deterministic choice)
// and the calls that stand for linear algebra (frontends/linalg_custom_calls.h).
// And jaxlib's GPU cu_/hip_/oneapi_threefry2x32[_ffi] (jax.random's bits in
// GPU exports) as the Threefry-2x32 rounds in elementwise ops, and its 2023
// CPU FFT kernels (frontends/ducc_fft.h) as Fft.
// The dynamic_* forms' size operands must be known before the run (a
// constant, or shape arithmetic of a polymorphic export, folded).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frontends/chlo_mulhi.h"
#include "frontends/lu_decomposition.h"
#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

bool IsExpandedCustomCall(const std::string& target);

struct ExpandedCustomCall {
  std::string target;
  std::vector<Instruction*> operands;
  std::vector<Shape> result_types;  // as written; open dims are filled here
  std::map<std::string, std::string> attributes;
  Computation* computation = nullptr;  // called_computations[0], where the call names one
  // The integers operand i holds, folded before the run (an error where
  // the run alone knows them).
  std::function<StatusOr<std::vector<int64_t>>(size_t i)> integers;
  // (a, b) -> a or b over pred, a computation of the module.
  std::function<Computation*()> logical_or;
  // For expansions with loops and reducers of their own (LU).
  ComputationBuilders builders;
};

// The values the call gives, one per result.
StatusOr<std::vector<Instruction*>> LowerExpandedCustomCall(const ExpandedCustomCall& call, const HloMaker& make,
                                                            const ConstantMaker& constant);

}  // namespace vkxla
