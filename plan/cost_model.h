// What computing one element of an op costs on a device, for the fusion
// pass (recompute a shared value or write it to memory once?) and for loop
// bounds (how many elements one invocation may fold before a driver stops
// its loops). Costs are in units of one cheap ALU op; the math library
// (shaders/real_math.glsl) builds division, sqrt and transcendentals from
// exact +, -, x, so those cost tens of units.
#pragma once

#include <cstdint>

#include "ir/instruction.h"
#include "plan/materialized.h"

namespace vkxla {

// Writing an element to memory and reading it back once, in ALU units. A
// 4-byte element streamed at ~10 GB/s on lavapipe takes about as long as 16
// vector ops of its 2 cores; GPUs have more ALU per byte, so this is the
// low end.
constexpr int64_t kMemoryRoundTripCost = 32;
// A kernel launch of its own: ~30 us on lavapipe, ~5 us on a GPU, each
// worth about a million ALU units there.
constexpr int64_t kDispatchCost = int64_t{1} << 20;

// Cost of one element of `inst` alone (its operands not counted).
int64_t ElementCost(const Instruction& inst);

// Loop iterations one element of `inst` runs inside the math library, in
// loops a driver may not unroll (erf's series, fmod's subtraction, pow's
// logarithm); 0 for straight-line ops.
int64_t ElementLoopTrips(const Instruction& inst);

// Loop trips of one element of `v` with everything the kernel computes
// inline under it (stopping at values read from buffers).
int64_t InlineLoopTrips(const Instruction* v, const MaterializedLayoutFn& materialized);
// Cost of one element of `v` with everything the kernel computes inline
// under it.
int64_t InlineElementCost(const Instruction* v, const MaterializedLayoutFn& materialized);
// Loop trips of one application of a called computation.
int64_t ComputationLoopTrips(const Computation& c);

}  // namespace vkxla
