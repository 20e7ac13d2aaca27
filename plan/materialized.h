// Which values a kernel reads from memory and through which layout: the
// plan's answer to "is this operand computed inline or loaded?", shared by
// the kernel configs and the code generator so both see the same kernel.
#pragma once

#include <functional>
#include <optional>

#include "ir/instruction.h"

namespace vkxla {

// The layout of the buffer holding `inst`'s value (a get-tuple-element
// names an element of its operand), or nullopt where the kernel computes
// it. Parameters and array constants always live in buffers.
using MaterializedLayoutFn = std::function<std::optional<Layout>(const Instruction*)>;

// The layout of the buffer `n` is read through, following elementwise ops,
// copies and transposes (permuting the layout) of the same rank to the
// buffer that feeds them (`n`'s default layout where none does), as dims of
// `n`. `root` is the kernel's own output, never loaded.
Layout LeafLayout(const Instruction* n, const Instruction* root, const Layout& root_layout,
                  const MaterializedLayoutFn& materialized);

// Visits `v` and everything a kernel computes inline under it, each once,
// stopping below values read from buffers (iteratively: no recursion on
// deep graphs). `visit` returns false to stop the walk; the result says
// whether it ran to the end.
bool VisitInline(const Instruction* v, const MaterializedLayoutFn& materialized,
                 const std::function<bool(const Instruction*)>& visit);

}  // namespace vkxla
