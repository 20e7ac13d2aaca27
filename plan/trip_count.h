// Trip counts of while loops known before the run: `known_trip_count` in
// the loop's backend_config, or the counter pattern front ends write for
// fori_loop and scan (a state element that starts at a constant, grows by a
// positive constant each trip, and is compared with a constant bound by the
// whole condition, which has no side effects).
#pragma once

#include <cstdint>
#include <optional>

#include "ir/instruction.h"

namespace vkxla {

std::optional<int64_t> KnownTripCount(const Instruction& while_op);

}  // namespace vkxla
