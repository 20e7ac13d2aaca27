// The fusion pass: one walk over a computation that decides which values
// live in memory and which kernels compute them.
//
// Rules, in order:
// 0. Row kernels (plan/row_config.h): reduces over the same unit-stride
//    dims of operands of one shape, each a single commutative op, the
//    elementwise work of that shape and of their result shape between and
//    after them, and the broadcasts of their results back along the rows,
//    become one kernel (softmax, layer norm) where no other op reads a row
//    result, no member's other operands depend on a member, and rows are at
//    most kMaxRowLength long. Its members are computed in it, never written
//    (rules 3 to 6 skip them); row values read elsewhere are its outputs.
// 1. Heroes get a kernel of their own: reduce, sort/topk (its permutation),
//    scan, reduce-window, select-and-scatter, scatter, dot. Everything else
//    (elementwise ops, data movement, gathers, dynamic slices, a sort's
//    results read through its permutation) fuses into the kernels that read
//    it, as index maps and inline arithmetic.
// 2. Parameters, array constants, heroes' results and the entry's results
//    live in buffers.
// 3. Epilogue: a reduce's or a dot's result that feeds elementwise ops of
//    its own shape, read by nothing else up to one value (a chain, or a
//    graph that splits and joins again, as gelu's x and erf(x)), is
//    finished in the hero's kernel; that value is what it writes (layer
//    norm's rsqrt(var + eps) is computed once per row, not once per
//    element; relu(dot(x, w) + b) and gelu(dot(x, w) + b) are one kernel). An op where two heroes'
//    results meet ends the first one's chain only; the group runs where
//    its chain ends, after the kernels writing what the chain reads.
// 4. A fused value is written to memory once instead of being recomputed
//    where recomputing costs more than the memory traffic saved: with E the
//    times each of its elements would be computed (summed over its users:
//    1 per elementwise user, the expansion of a broadcast, a reduce-window's
//    window, the passes of a sort, every result element of a scatter for
//    its updates), C the cost of one element and N the elements
//    (plan/cost_model.h): (E - 1) * C * N > kMemoryRoundTripCost * N +
//    kDispatchCost. softmax's exp(x - max), read by the sum and by the
//    division, is written once; x - mean in layer norm is recomputed, and
//    so is a negated vector under a broadcast (a kernel launch costs more).
//    A value that only views memory (slices, reshapes, transposes,
//    broadcasts of values in buffers) is never written: each read is one
//    load either way.
// 5. Multi-output: such a value that is exactly a reduce's operand, with
//    every other reader after the reduce, is written by the reduce's
//    kernel as it reads it (one pass instead of two).
// 6a. Matmul loads: a matmul repeats its fused operand producers and its
//    epilogue's side reads in every unrolled load; an operand whose fused
//    elementwise arithmetic costs more than kMatmulOperandCost (a
//    depthwise sum), and any costly op (element cost at least
//    kCostlyElement, or a loop) under them, is written first. Index maps
//    (a convolution's window gather, pads, transposes) stay fused: that is
//    the implicit GEMM, with no im2col buffer.
// 6b. Matmul vectors (CPU drivers): a pad under a dot's operand that keeps the operand
//    from being read as whole vectors along its contraction, where the
//    padded value written would be, is written first (a convolution's
//    input padded to whole vectors of features: one small copy, then
//    vector reads instead of element loads through the window's index
//    math).
// 6. Depth: no chain of fused values (or epilogue) is longer than
//    kMaxFusionDepth; the value at each limit is written and read back.
//    Code generation walks a value's producers recursively, and a chain of
//    10,000 ops would overflow its stack (and make a kernel no compiler
//    finishes quickly).
// 7. Control flow (while, conditional, call), host work (infeed,
//    outfeed, host custom calls) and Fft (a VkFFT step) are boundaries: their operands' array
//    leaves and their results live in memory; called computations are
//    planned on their own (plan/planner.h).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/module.h"
#include "vkxla/status.h"
#include "plan/kernel_configs.h"
#include "plan/target_features.h"
#include "plan/value_ref.h"

namespace vkxla {

inline constexpr int kMaxFusionDepth = 500;
inline constexpr double kMatmulOperandCost = 16;
inline constexpr int64_t kCostlyElement = 8;

struct GroupChoice {
  KernelKind kind = KernelKind::kLoop;
  const Instruction* hero = nullptr;  // the hero, or the loop's output instruction
  std::vector<ValueRef> outputs;      // values the group writes (a sort's: none, it writes its permutation)
  // A row kernel's reduces, its stages (plan/row_config.h), in definition
  // order: the other reduces its members read are computed inline.
  std::vector<const Instruction*> row_stages;
  // A while, conditional or call: no kernel of its own; the planner lays
  // out its called computations as steps (its operands and results are in
  // memory).
  bool control = false;
};

struct FusionChoice {
  // Every value that lives in a buffer, with why.
  std::map<ValueRef, std::string> materialized;
  // Groups in an order where each reads only what earlier ones wrote.
  std::vector<GroupChoice> groups;
  // The times each fused value's elements are computed per run (rule 4), for tests.
  std::map<const Instruction*, double> evaluations;
};

// `results`: the entry's result leaves. Errors name ops that no kernel
// implements.
StatusOr<FusionChoice> ChooseFusion(const Computation& entry, const std::vector<ValueRef>& results,
                                    const TargetFeatures& target);

// While, conditional and call (steps over called computations), infeed,
// outfeed and host custom calls (host work between submissions) and Fft (a
// library's step): ops the planner turns into steps rather than kernels.
bool RunsAsSteps(const Instruction& inst);

// The kernel kind an instruction heads, if it is a hero.
std::optional<KernelKind> HeroKind(const Instruction& inst);

}  // namespace vkxla
