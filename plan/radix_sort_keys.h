// Which sorts a radix sort can run: those whose comparator orders records
// lexicographically by some operands' values, each ascending or descending
// (`a < b`, or JAX's `a0 < b0 || (a0 == b0 && <the rest>)` for several
// keys), on types whose order maps to unsigned integers. That is what
// jnp.sort, argsort and lexsort and TF's sorts write; and topk (its key
// in total order). Every other comparator keeps the general network.
#pragma once

#include <optional>
#include <vector>

#include "ir/instruction.h"

namespace vkxla {

struct RadixKey {
  int operand = 0;
  bool descending = false;
  // Floats: TOTALORDER (-NaN < -inf < -0 < +0 < inf < NaN); otherwise -0
  // and +0 are one key (a comparator with a NaN key is no strict weak
  // order: NaNs go to the ends as in the total order).
  bool total_order = false;
  int bits = 32;  // order-preserving bits of the key's image
  int Words() const { return bits > 32 ? 2 : 1; }  // u32 words of the image
};

// The sort's keys from the most significant, or nullopt where the
// comparator is anything else (or a key's type has no such mapping).
std::optional<std::vector<RadixKey>> RadixKeysOf(const Instruction& sort);

}  // namespace vkxla
