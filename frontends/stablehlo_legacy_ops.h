// Older StableHLO ops that exporters still write, read as the HLO ops they
// stand for: `broadcast` (sizes prepended: a broadcast), `einsum` and
// `unary_einsum` (labels summed away by a product with ones, the rest a
// dot_general and a transpose), `torch_index_select` (a gather, batch_dims
// as batching dimensions).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "frontends/chlo_mulhi.h"
#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

// Whether `op` (without "stablehlo.") is one LowerLegacyOp reads.
bool IsLegacyStablehloOp(const std::string& op);

StatusOr<Instruction*> LowerLegacyOp(const std::string& op, const std::vector<Instruction*>& operands, const Shape& result,
                                     const std::map<std::string, std::string>& attributes, const HloMaker& make,
                                     const ConstantMaker& constant);

}  // namespace vkxla
