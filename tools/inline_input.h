// Values written on the command line, in iree-run-module's syntax:
// "2x3xf32=1,2,3,4,5,6" (dimensions, element type, row-major values; one
// value fills the array) and "f32=1.5". Every number is checked: a value
// outside its type or a count that does not match is an error quoting it.
#pragma once

#include <string>
#include <string_view>

#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

// The most an inline value may fill (256 MiB); larger inputs belong in .npy
// files, which are read rather than expanded.
inline constexpr int64_t kMaxInlineBytes = int64_t{1} << 28;

StatusOr<Literal> ParseInlineInput(const std::string& spec);

// One element of type t: true/false (or 1/0) for pred, a whole number in
// the type's range for integers, a decimal/hex/inf/nan for floats. `spec`
// is quoted in errors.
StatusOr<Scalar> ParseInlineValue(std::string_view text, ElementType t, const std::string& spec);

}  // namespace vkxla
