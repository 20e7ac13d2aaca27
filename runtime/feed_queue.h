// A device's infeed and outfeed: values the host hands a program while it
// runs (infeed, in the order its infeed ops run) and values it hands back
// (outfeed). Thread-safe: another thread may push or pop during a run.
#pragma once

#include <deque>
#include <mutex>
#include <optional>

#include "ir/literal.h"

namespace vkxla {

class FeedQueue {
 public:
  void Push(Literal value);
  // The oldest value, or nullopt when the queue is empty (a run never
  // waits for a value that may not come).
  std::optional<Literal> Pop();
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::deque<Literal> values_;
};

}  // namespace vkxla
