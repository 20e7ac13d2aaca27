// CHLO ops with no HLO opcode of their own, written as the HLO ops their
// CHLO decompositions produce (as XLA legalizes them): inverse
// trigonometric and hyperbolic functions, sinh, conj, square, is_inf and
// its signed forms, next_after, erf_inv, erfc, lgamma, digamma, zeta,
// polygamma, bessel_i1e, constant_like and the
// broadcast_* binaries. Real floats compute in f32 or f64 (f16 and bf16
// through f32, as XLA does); complex operands of the real-only formulas
// are an error naming the op and type.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontends/chlo_mulhi.h"
#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

// Whether `op` (without "chlo.") is one LowerChlo writes.
bool IsChloDecomposition(const std::string& op);

// `op` over `operands`; `attributes` are the statement's raw attributes
// (constant_like's value, broadcast_dimensions). The result has `result`.
StatusOr<Instruction*> LowerChlo(const std::string& op, const std::vector<Instruction*>& operands, const Shape& result,
                                 const std::map<std::string, std::string>& attributes, const HloMaker& make,
                                 const ConstantMaker& constant);

}  // namespace vkxla
