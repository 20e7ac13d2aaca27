// RngUniform and RngNormal (operation_semantics: RngUniform, RngNormal;
// stablehlo_spec.md: rng) and RngGetAndUpdateState, as XLA's CPU and GPU
// backends expand them (xla/service/rng_expander.cc over
// xla/hlo/builder/lib/prng.cc), with one documented difference: the key.
//  - `rng-get-and-update-state(), delta=N` returns a 128-bit counter as
//    u64[2] (low word first) and advances it by N. Each program run on the
//    reference evaluator, and each executable, starts the counter at 0 and
//    keeps it across its runs: successive runs draw new numbers, a new
//    executable repeats them. A seed (Executable::SeedRng, or the feeds'
//    counter) restarts it at [0, seed]: the seed's own stream.
//  - `rng(a, b), distribution=rng_uniform|rng_normal` takes the counter
//    with delta = its 32-bit words (elements, twice for 64-bit types) and
//    the key kRngKey (XLA draws a key per op at random, so its numbers
//    differ from process to process; here a program's numbers are
//    reproducible), and runs Philox-4x32 (the u64[3] state [key, counter])
//    on u32 bits (u64 for 64-bit types). f16 and bf16 run as f32 and round.
//  - Uniform floats: (bits >> (width - mantissa)) * 2^-mantissa, times
//    (b - a), plus a. Uniform integers: with range = b - a (unsigned),
//    d = bits % range, a + d / 2 + (d - d / 2). Types: f16, bf16, f32, f64,
//    s32, u32, s64, u64.
//  - Normal: uniforms in [0, 1) over the shape with one dim split in halves
//    (XLA's SplitShapeIntoHalves), Box-Muller on each pair (u0, u1):
//    r = sqrt(-2 log(max(u0, 1e-7))), (r sin(2 pi u1), r cos(2 pi u1)) as
//    elements 2j and 2j + 1 of the split dim, then a + b * x. Float types.
#pragma once

#include <array>
#include <cstdint>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

inline constexpr uint64_t kRngKey = 42;

enum class RngDistribution { kUniform, kNormal };

StatusOr<RngDistribution> ReadRngDistribution(const Instruction& inst);
void SetRngDistribution(Instruction& inst, RngDistribution d);
// The type the numbers are computed in (f32 for f16 and bf16) and the
// counter's advance for one op.
ElementType RngComputeType(ElementType result);
int64_t RngCounterDelta(const Shape& result);

StatusOr<Shape> InferRngShape(const Instruction& inst);
StatusOr<int64_t> ReadRngDelta(const Instruction& inst);
StatusOr<Shape> InferRngGetAndUpdateStateShape(const Instruction& inst);

// The 128-bit counter, low word first.
using RngCounter = std::array<uint64_t, 2>;
// The counter's value as rng-get-and-update-state returns it; advances it.
Literal TakeRngCounter(RngCounter& counter, uint64_t delta);
// The reference for rng: the bits from the state [kRngKey, counter], then
// the conversion, on the host.
StatusOr<Literal> EvaluateRng(const Instruction& inst, const Literal& a, const Literal& b, const Literal& counter);

}  // namespace vkxla
