// Typed reading of the attributes the HLO parser keeps verbatim
// (`slice_sizes={1,3}`, `index_vector_dim=1`, `unique_indices=true`), with
// errors that name the op and the attribute.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

// The raw text of attribute `key`, or null when it was not written.
const std::string* FindAttribute(const Instruction& inst, const std::string& key);
// Sets (or replaces) attribute `key` to `text`; for the builders.
void SetAttribute(Instruction& inst, const std::string& key, std::string text);

Status BadAttribute(const Instruction& inst, const std::string& key, const std::string& text, const std::string& expected);

// `{1,2,3}`; an absent attribute reads as empty unless `required`.
StatusOr<std::vector<int64_t>> IntListAttribute(const Instruction& inst, const std::string& key, bool required);
// `7`; an absent attribute is an error.
StatusOr<int64_t> IntAttribute(const Instruction& inst, const std::string& key);
// `true` / `false`; absent reads as false.
StatusOr<bool> BoolAttribute(const Instruction& inst, const std::string& key);

std::string IntListText(const std::vector<int64_t>& values);  // "{1,2,3}"

// Reads a signed decimal integer at text[pos], advancing pos.
bool ReadIntAt(const std::string& text, size_t& pos, int64_t& out);

}  // namespace vkxla
