#include "plan/barriers.h"

namespace vkxla {
namespace {

struct Range {
  int arena;
  uint64_t begin, end;
};

class HazardTracker {
 public:
  explicit HazardTracker(const Program& p) : program_(p) {}

  void Walk(StepList& steps) {
    for (Step& s : steps) {
      if (auto* w = std::get_if<WhileStep>(&s.op)) {
        Fence(s);
        Walk(w->condition);
        Clear();
        Walk(w->body);
        Clear();
        continue;
      }
      if (auto* c = std::get_if<ConditionalStep>(&s.op)) {
        Fence(s);
        for (StepList& branch : c->branches) {
          Clear();
          Walk(branch);
        }
        Clear();
        continue;
      }
      if (std::holds_alternative<HostStep>(s.op)) {  // the host waits for everything before it
        Fence(s);
        continue;
      }
      bool needed = false;
      for (int b : s.reads) needed = needed || Overlaps(b, writes_);
      for (int b : s.writes) needed = needed || Overlaps(b, writes_) || Overlaps(b, reads_);
      s.barrier_before = needed;
      if (needed) Clear();
      for (int b : s.reads) reads_.push_back(RangeOf(b));
      for (int b : s.writes) writes_.push_back(RangeOf(b));
    }
  }

 private:
  // A step the host waits on: everything before it must be done.
  void Fence(Step& s) {
    s.barrier_before = !reads_.empty() || !writes_.empty();
    Clear();
  }
  void Clear() {
    reads_.clear();
    writes_.clear();
  }
  Range RangeOf(int buffer) const {
    const BufferDecl& b = program_.buffers[buffer];
    return {b.arena, b.offset, b.offset + b.bytes};
  }
  bool Overlaps(int buffer, const std::vector<Range>& set) const {
    const Range r = RangeOf(buffer);
    for (const Range& o : set)
      if (o.arena == r.arena && o.begin < r.end && r.begin < o.end) return true;
    return false;
  }

  const Program& program_;
  std::vector<Range> reads_, writes_;
};

}  // namespace

void DeriveBarriers(Program& program) { HazardTracker(program).Walk(program.steps); }

}  // namespace vkxla
