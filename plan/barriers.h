// Barriers from the bytes each step touches: a step waits for earlier ones
// (one memory barrier) when it reads bytes written since the last barrier
// (read after write), or overwrites bytes written or read since then
// (write after write, write after read). Buffers sharing arena bytes count
// as the same memory. Independent dispatches run back to back.
#pragma once

#include "plan/program.h"

namespace vkxla {

// Sets Step::barrier_before throughout the program (loop and branch bodies
// start behind a barrier: their steps follow a host decision).
void DeriveBarriers(Program& program);

}  // namespace vkxla
