#include "runtime/feed_queue.h"

namespace vkxla {

void FeedQueue::Push(Literal value) {
  std::lock_guard<std::mutex> lock(mu_);
  values_.push_back(std::move(value));
}

std::optional<Literal> FeedQueue::Pop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (values_.empty()) return std::nullopt;
  std::optional<Literal> v(std::in_place, std::move(values_.front()));
  values_.pop_front();
  return v;
}

size_t FeedQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return values_.size();
}

}  // namespace vkxla
