// What `vkxla run --input` and `vkxla benchmark --input` take, in the
// conventions of iree-run-module:
//   @x.npy                 a .npy file (a bare path works too)
//   @args.npz              every array of an .npz archive, in archive order
//   2x3xf32=1,2,3,4,5,6    inline: dimensions, element type, row-major values
//   f32=1.5                an inline scalar
//   1.5                    a scalar of the next parameter's type
// One value fills a whole inline array (4xf32=0).
#pragma once

#include <string>
#include <vector>

#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

// The literals the specs give, in order; `parameters` supplies the element
// type where the spec leaves it open (bare scalars, bf16/f8 .npy data).
StatusOr<std::vector<Literal>> ReadInputs(const std::vector<std::string>& specs, const std::vector<Shape>& parameters);

}  // namespace vkxla
