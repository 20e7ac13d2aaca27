// What the lowerings of custom calls share: errors that name the call,
// integers of a backend_config dictionary, and the results as the call
// writes them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontends/xla_custom_calls.h"

namespace vkxla {

Status CustomCallError(const ExpandedCustomCall& c, const std::string& m);

// The integer after `key =` in a dictionary attribute's text.
std::optional<int64_t> DictInteger(const std::string& dict, const std::string& key);
// The boolean after `key =` (true or false) in a dictionary attribute's text.
std::optional<bool> DictBool(const std::string& dict, const std::string& key);

// `parts` as the call's written results: the leading ones, then zeros for
// the rest (LAPACK's info and workspace) and for the null ones, in one tuple
// where the call writes its results as one.
StatusOr<std::vector<Instruction*>> WrittenResults(const ExpandedCustomCall& c, std::vector<Instruction*> parts, const HloMaker& make,
                                                   const ConstantMaker& constant);

}  // namespace vkxla
