// Places a program's buffers in arenas: one per memory kind, where buffers
// whose live ranges (in steps) do not overlap share bytes, so a chain of
// kernels needs two temporaries however long it is and the peak memory of
// a program is known before anything is allocated. Greedy by size, largest
// first, each at the lowest aligned offset free for its whole life (XLA's
// heap simulator does the same).
#pragma once

#include "vkxla/status.h"
#include "plan/program.h"

namespace vkxla {

// The most bytes of one array kernels reach (32-bit byte indices).
inline constexpr uint64_t kMaxAddressedBytes = (uint64_t{1} << 32) - 16;

// Arrays past the target's binding range (max_storage_buffer_range) are
// marked `addressed`: kernels reach them through their device address
// (bufferDeviceAddress), which their binding holds instead of the array.
// Sets arena and offset of every buffer and the arenas' sizes; errors name
// the sizes when an arena or a bound buffer exceeds what the target allows.
Status AssignBuffers(Program& program);

}  // namespace vkxla
