// String-valued attributes kept on instructions as written: a
// `mhlo.frontend_attributes = {key = "value", ...}` dictionary (HLO text's
// `frontend_attributes={key="value",...}`) and its values' escapes, MLIR's
// (\22) and C's (\"), sometimes applied twice where one attribute string
// holds another.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vkxla {

// One level of a string's escapes (\\, \", \n, \t, \XX in hex) undone:
// the bytes an MLIR string attribute holds.
std::string UnescapeOnce(std::string_view quoted);

// UnescapeOnce, repeated while a level of escapes is left (at most three).
std::string UnescapeAttributeString(std::string_view quoted);

// The value of `key` in `dictionary` (`{k = "v", ...}`), unescaped; nothing
// where the dictionary has no such string-valued key.
std::optional<std::string> FrontendAttribute(std::string_view dictionary, std::string_view key);

}  // namespace vkxla
