// One array value of a computation: an instruction's result, or element
// `index` of a tuple-shaped one (a variadic reduce's second result). The
// plan keys buffers, fusion outputs and reads by it.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

#include "ir/instruction.h"

namespace vkxla {

struct ValueRef {
  const Instruction* inst = nullptr;
  int64_t index = -1;  // tuple element, or -1 for the whole value

  // The value an instruction stands for when its value is read:
  // get-tuple-element names an element of its operand (through tuple
  // instructions to what they hold).
  static ValueRef Of(const Instruction* read);
  const Shape& shape() const;
  std::string ToString() const;  // "%x" or "%x.1"
  auto operator<=>(const ValueRef&) const = default;
};

}  // namespace vkxla
