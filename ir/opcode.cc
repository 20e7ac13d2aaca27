#include "ir/opcode.h"

#include <array>
#include <utility>

namespace vkxla {
namespace {

constexpr std::pair<Opcode, std::string_view> kNames[] = {
#define VKXLA_OPCODE_NAME(e, s) {Opcode::e, s},
    VKXLA_OPCODES(VKXLA_OPCODE_NAME)
#undef VKXLA_OPCODE_NAME
};

}  // namespace

std::string_view OpcodeName(Opcode op) {
  for (const auto& [o, n] : kNames)
    if (o == op) return n;
  return "unknown";
}

std::optional<Opcode> ParseOpcode(std::string_view name) {
  for (const auto& [o, n] : kNames)
    if (n == name) return o;
  return std::nullopt;
}

}  // namespace vkxla
