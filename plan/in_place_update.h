// Whether a loop body's result can be written straight into the state
// buffer it replaces, so the trip copies nothing back. Two shapes qualify:
// - a dynamic-update-slice of the state leaf (a scan written as While +
//   DUS writes one slice a trip);
// - an elementwise chain over the state leaf (x' = x * a + b, i' = i + 1):
//   every element is read and written at the same index by the same
//   invocation, and no other kernel of the body reads the old value.
// Both need 32- or 64-bit elements (no two invocations share a word) and
// a leaf nothing else in the body reads.
#pragma once

#include "ir/module.h"
#include "plan/value_ref.h"

namespace vkxla {

bool UpdatesInPlace(const Computation& body, const ValueRef& v, const ValueRef& state_leaf);

}  // namespace vkxla
