#include "codegen/spirv_float_controls.h"

#include <optional>
#include <set>
#include <utility>

namespace vkxla {

namespace {

// SPIR-V enumerants (the unified spirv.hpp of the SPIR-V registry).
constexpr uint32_t kOpMemoryModel = 14, kOpEntryPoint = 15, kOpExecutionMode = 16, kOpCapability = 17,
                   kOpTypeVoid = 19, kOpTypeForwardPointer = 39, kOpDecorate = 71, kOpFAdd = 129,
                   kOpFSub = 131, kOpFMul = 133, kOpVectorTimesScalar = 142, kOpDot = 148;
constexpr uint32_t kCapabilityFloat16 = 9, kCapabilityFloat64 = 10, kCapabilityDenormPreserve = 4464,
                   kCapabilitySignedZeroInfNanPreserve = 4466, kCapabilityRoundingModeRTE = 4467;
constexpr uint32_t kModeDenormPreserve = 4459, kModeSignedZeroInfNanPreserve = 4461, kModeRoundingModeRTE = 4462;
constexpr uint32_t kDecorationNoContraction = 42;

uint32_t Word0(uint32_t opcode, uint32_t words) { return words << 16 | opcode; }

bool Contractible(uint32_t opcode) {
  return opcode == kOpFAdd || opcode == kOpFSub || opcode == kOpFMul || opcode == kOpVectorTimesScalar || opcode == kOpDot;
}

}  // namespace

StatusOr<std::vector<uint32_t>> ApplyFloatControls(const std::vector<uint32_t>& spirv, const FloatControls& controls) {
  if (spirv.size() < 5 || spirv[0] != 0x07230203u) return InvalidArgument("ApplyFloatControls: not a SPIR-V module");
  // One walk to find the sections and what the module declares.
  bool has_f16 = false, has_f64 = false;
  std::set<uint32_t> capabilities_present, no_contraction_present;
  std::set<std::pair<uint32_t, uint32_t>> modes_present;  // (mode, width)
  std::optional<size_t> last_capability, entry_point_end, first_decoration, first_type, memory_model;
  std::optional<uint32_t> entry;
  std::vector<uint32_t> contractible;  // result ids of float arithmetic
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t words = spirv[at] >> 16, opcode = spirv[at] & 0xffff;
    if (words == 0 || at + words > spirv.size()) return InvalidArgument("ApplyFloatControls: a SPIR-V instruction runs past the module's end");
    if (opcode == kOpCapability && words >= 2) {
      last_capability = at + words;
      has_f16 |= spirv[at + 1] == kCapabilityFloat16;
      has_f64 |= spirv[at + 1] == kCapabilityFloat64;
      capabilities_present.insert(spirv[at + 1]);
    } else if (opcode == kOpExecutionMode && words == 4) {
      modes_present.insert({spirv[at + 2], spirv[at + 3]});
    } else if (opcode == kOpDecorate && words == 3 && spirv[at + 2] == kDecorationNoContraction) {
      no_contraction_present.insert(spirv[at + 1]);
      if (!first_decoration) first_decoration = at;
    } else if (opcode == kOpMemoryModel) {
      memory_model = at;
    } else if (opcode == kOpEntryPoint && words >= 3 && !entry) {
      entry = spirv[at + 2];
      entry_point_end = at + words;
    } else if (opcode == kOpDecorate && !first_decoration) {
      first_decoration = at;
    } else if (opcode >= kOpTypeVoid && opcode <= kOpTypeForwardPointer && !first_type) {
      first_type = at;
    } else if (Contractible(opcode) && words >= 3) {
      contractible.push_back(spirv[at + 2]);
    }
    at += words;
  }
  if (!last_capability || !entry || !memory_model) return InvalidArgument("ApplyFloatControls: the module has no capability, memory model or entry point");

  std::vector<uint32_t> widths;
  if (has_f16 || !controls.independent_widths) widths.push_back(16);
  widths.push_back(32);
  if (has_f64 || !controls.independent_widths) widths.push_back(64);
  auto honoured = [](uint8_t mask, uint32_t width) { return (mask & FloatControls::Bit(width)) != 0; };
  std::vector<uint32_t> capabilities, modes;
  auto add_mode = [&](uint8_t mask, uint32_t capability, uint32_t mode) {
    bool any = false;
    for (uint32_t w : widths)
      if (honoured(mask, w)) {
        if (!modes_present.count({mode, w})) modes.insert(modes.end(), {Word0(kOpExecutionMode, 4), *entry, mode, w});
        any = true;
      }
    if (any && !capabilities_present.count(capability)) capabilities.insert(capabilities.end(), {Word0(kOpCapability, 2), capability});
  };
  add_mode(controls.denorm_preserve, kCapabilityDenormPreserve, kModeDenormPreserve);
  add_mode(controls.signed_zero_inf_nan_preserve, kCapabilitySignedZeroInfNanPreserve, kModeSignedZeroInfNanPreserve);
  add_mode(controls.rounding_rte, kCapabilityRoundingModeRTE, kModeRoundingModeRTE);
  std::vector<uint32_t> decorations;
  if (controls.no_contraction)
    for (uint32_t id : contractible)
      if (!no_contraction_present.count(id)) decorations.insert(decorations.end(), {Word0(kOpDecorate, 3), id, kDecorationNoContraction});
  if (capabilities.empty() && modes.empty() && decorations.empty()) return spirv;

  // Capabilities go after the last capability, modes right after the entry
  // point (modes follow all entry points; vkxla's kernels have one), and
  // decorations at the start of the annotation section: before the first
  // decoration or, with none, before the first type.
  const std::optional<size_t> decorate_at = first_decoration ? first_decoration : first_type;
  if (!decorations.empty() && !decorate_at) return InvalidArgument("ApplyFloatControls: the module has no types");
  std::vector<uint32_t> out;
  out.reserve(spirv.size() + capabilities.size() + modes.size() + decorations.size());
  for (size_t at = 0; at < spirv.size();) {
    if (at == *last_capability) out.insert(out.end(), capabilities.begin(), capabilities.end());
    if (at == *entry_point_end) out.insert(out.end(), modes.begin(), modes.end());
    if (at == decorate_at) out.insert(out.end(), decorations.begin(), decorations.end());
    const size_t words = at < 5 ? 1 : spirv[at] >> 16;
    out.insert(out.end(), spirv.begin() + at, spirv.begin() + at + words);
    at += words;
  }
  return out;
}

}  // namespace vkxla
