// How scatter runs. Five ways, chosen per op and device:
// - kOwner: each invocation owns one result element, starts from the
//   operand's value and combines in every update whose window covers it, in
//   order of the update's scatter index. No two invocations write one
//   element, so any combiner and any collisions give one deterministic
//   answer. More updates than the loop budget allows are taken in passes,
//   the partial result kept in the result buffer between them.
// - kAtomic: the combiner is one commutative op the device does atomically
//   on the 32-bit element type (add, min, max, and, or, xor on s32/u32; add
//   on f32 with VK_EXT_shader_atomic_float; min and max on f32 through
//   ordered integer atomics). A first kernel copies the operand into the
//   result; a second runs one invocation per update element, in one pass.
//   Integer results are exact whatever the order; an f32 sum's rounding
//   follows the order the device applies the updates in, which the spec
//   leaves to the implementation.
// - kCompareSwap: the combiner is one commutative op (add, multiply, min,
//   max, and, or, xor) on a type of at most 32 bits that no atomic above
//   covers (f16, bf16, the 8-bit floats, 8- and 16-bit integers, pred,
//   multiply, f32 add without the float extension), or of 64 bits (f64,
//   s64, u64, c64) on a device with 64-bit atomics: the same two kernels,
//   the second computing the combined element in a compare-and-swap loop
//   on the 32- or 64-bit word that holds it (sub-word elements share words
//   with their neighbours). Every failed swap means another update of that word
//   landed, so an invocation retries at most once per update: bounded.
//   Float sums round in the order the device lands them, as with kAtomic.
// - kLastWins: the combiner returns the update (JAX's .at[].set()), so an
//   element ends as the update with the highest scatter index among those
//   covering it, as the owner kernel's row-major order would leave it.
//   Kernel 0 copies the operand, kernel 1 zeroes a winner word per result
//   element, kernel 2 (one invocation per update element) raises its
//   element's winner to its scatter index + 1 with atomicMax, and kernel 3
//   stores the updates whose index won. Deterministic, any type.
// - kUnique: the op says unique_indices=true, so no two updates meet: the
//   same two kernels, the second combining with a plain read and write, for
//   any combiner and type.
#pragma once

#include <cstdint>

#include "ir/instruction.h"
#include "vkxla/status.h"
#include "plan/target_features.h"

namespace vkxla {

struct ScatterConfig {
  enum class Mode { kOwner, kAtomic, kCompareSwap, kLastWins, kUnique };
  Mode mode = Mode::kOwner;
  Opcode atomic_op = Opcode::kAdd;  // kAtomic, kCompareSwap: the combiner's one op
  int64_t updates = 0;  // scatter indices (kOwner: the loop's length)
  int64_t chunk = 1;    // kOwner: scatter indices one pass takes
  int64_t passes = 1;
  uint64_t invocations = 0;         // one per physical element of the first result
  uint64_t update_invocations = 0;  // kAtomic, kCompareSwap, kLastWins, kUnique: one per update element
  bool one_pass() const { return mode != Mode::kOwner; }
};

// `update_trips`: loop trips of one update (its index, value and combiner).
StatusOr<ScatterConfig> ChooseScatterConfig(const Instruction& scatter, const Shape& first_result, int64_t update_trips,
                                            const TargetFeatures& target);

// The way `scatter` runs on `target` when its result is laid out as
// `result` (kOwner where anything rules the others out).
ScatterConfig::Mode ChooseScatterMode(const Instruction& scatter, const Shape& result, const TargetFeatures& target);

}  // namespace vkxla
