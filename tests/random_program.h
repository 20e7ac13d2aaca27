// Random HLO programs for differential testing: chains of elementwise ops,
// data movement, reductions, windows and products over random element
// types, shapes and layouts (tiled ones included), with arguments whose
// results every correct evaluation order computes bit for bit. The device
// must match the reference evaluator exactly on them; a mismatch is a bug
// in one of the two, and the program's text is its reproducer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/literal.h"

namespace vkxla {

struct RandomProgram {
  std::string hlo;
  std::vector<Literal> args;
};

// The program of `seed` (the same seed gives the same program).
RandomProgram GenerateRandomProgram(uint64_t seed);

}  // namespace vkxla
