// The computations an op calls (reduce's to_apply, sort's comparator,
// select-and-scatter's select and scatter): finding them and checking their
// signature, with errors that show the signature expected and the one given.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// The computation attribute `key` names; an error naming the op and `role`
// ("the reduction computation") when it is missing.
StatusOr<const Computation*> CalledComputation(const Instruction& inst, const std::string& key, const std::string& role);

// Checks that `c` takes `params` and returns `results` (one array, or a
// tuple of them when there are several). Only element types and dims are
// compared.
Status CheckSignature(const Instruction& inst, const Computation& c, const std::string& role,
                      const std::vector<Shape>& params, const std::vector<Shape>& results);

// Scalar shapes of the given operands' element types, repeated `times`:
// (T_0..T_N-1, T_0..T_N-1) for times = 2.
std::vector<Shape> ScalarsOf(const std::vector<const Instruction*>& operands, int times);

}  // namespace vkxla
