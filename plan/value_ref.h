// One array value of a computation: an instruction's result, or an
// element of a tuple-shaped one (a variadic reduce's second result). For
// nested tuples (a loop state holding a tuple) `index` counts the
// elements that are not tuples, depth first, so every array has one; for
// flat tuples it is the element's position. The plan keys buffers, fusion
// outputs and reads by it.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

struct ValueRef {
  const Instruction* inst = nullptr;
  int64_t index = -1;  // flat tuple element, or -1 for the whole value

  // The value an instruction stands for when its value is read:
  // get-tuple-element names an element of its operand (through tuple
  // instructions to what they hold); ops that forward their operand
  // (opt-barrier, add-dependency, the no-op custom calls) are seen through.
  static ValueRef Of(const Instruction* read);
  const Shape& shape() const;
  std::string ToString() const;  // "%x" or "%x.1"
  auto operator<=>(const ValueRef&) const = default;
};

// The array values a (possibly tuple-shaped) value is made of, in tuple
// order: tuple instructions are looked through, tuple-shaped ops give
// their elements (nested tuples too); tokens hold no data and are left
// out.
StatusOr<std::vector<ValueRef>> ValueLeaves(const Instruction* root);

}  // namespace vkxla
