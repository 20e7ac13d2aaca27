// NumPy .npy files <-> logical literals. bf16 and the f8 types, which NumPy
// lacks, travel as raw little-endian void fields ('<V2', '|V1').
#pragma once

#include <string>
#include <string_view>

#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

// `expected` supplies the element type for void-typed data (bf16, f8).
StatusOr<Literal> ReadNpy(const std::string& path, ElementType expected = ElementType::kInvalid);
// The same from a file's bytes; `name` goes into errors.
StatusOr<Literal> ParseNpy(std::string_view bytes, const std::string& name, ElementType expected = ElementType::kInvalid);
Status WriteNpy(const std::string& path, const Literal& literal);

}  // namespace vkxla
