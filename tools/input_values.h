// What `vkxla run --input` and `vkxla benchmark --input` take, in the
// conventions of iree-run-module:
//   @x.npy                 a .npy file (a bare path works too)
//   @args.npz              every array of an .npz archive, in archive order
//   2x3xf32=1,2,3,4,5,6    inline: dimensions, element type, row-major values
//   f32=1.5                an inline scalar
//   1.5                    a scalar of the next parameter's type
// One value fills a whole inline array (4xf32=0).
// Each value stands for one array leaf of the entry's parameters, in order:
// a tuple parameter takes one per array it holds, a token parameter none.
#pragma once

#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// The literals the specs give, in order; `parameters` supplies the element
// type where the spec leaves it open (bare scalars, bf16/f8 .npy data).
StatusOr<std::vector<Literal>> ReadInputs(const std::vector<std::string>& specs, const std::vector<Shape>& parameters);

// The module at `path`, its entry refined with the inputs' shapes where it
// is a shape-polymorphic StableHLO export (jax.export with symbolic dims).
StatusOr<std::unique_ptr<Module>> LoadModuleForInputs(const std::string& path, const std::string& function,
                                                      const std::vector<std::string>& specs);

// One array leaf of the entry's parameters: its shape and its name in
// errors ("parameter 0 (%p)", "parameter 0 (%p) element {1,0}").
struct InputSlot {
  Shape shape;
  std::string name;
};
std::vector<InputSlot> EntryInputSlots(const Computation& entry);

// The entry's arguments from one value per slot (checked against it, named
// in errors with `path`): tuples rebuilt, tokens made.
StatusOr<std::vector<Literal>> EntryArguments(std::vector<Literal> inputs, const Computation& entry, const std::string& path);

}  // namespace vkxla
