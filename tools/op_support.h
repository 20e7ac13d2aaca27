// Which element types each op takes and runs, computed from the code: a
// small instance of the op per element type is verified (ops/), planned
// (plan/) and its kernels generated (codegen/) for a desktop GPU and for a
// phone without 64-bit types. No device is needed. `vkxla ops` prints it;
// docs/ops.md is its output, and a test keeps the two equal.
#pragma once

#include <string>

namespace vkxla {

// The op × element-type table as markdown.
std::string OpSupportMarkdown();

}  // namespace vkxla
