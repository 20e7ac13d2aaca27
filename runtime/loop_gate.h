// A loop whose trip count only the device knows, run many trips per
// submission. After each trip's condition, a gate kernel writes the group
// counts of the body's commands into an indirect-argument table: their own
// grids while the predicate holds, zeros from the first false one on (an
// "alive" word makes that sticky, so a condition that re-reads the final
// state cannot restart the loop). The body then runs by indirect dispatch,
// its copies as a copy kernel, and a trip past the end does nothing. The
// host reads the alive word once per submission instead of the predicate
// once per trip.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "runtime/bound_kernel.h"
#include "runtime/buffer.h"

namespace vkxla {

// The two kernels every gated loop of an executable shares.
struct LoopGatePipelines {
  std::shared_ptr<ComputePipeline> gate, copy;
  static StatusOr<LoopGatePipelines> Create(Device& device);
};

class LoopGate {
 public:
  // `predicate`: the condition's pred (one byte, read as the first of a
  // word: planned buffers span whole 16-byte vectors). `grids`: the (x, y)
  // group counts of the body's commands, in recording order.
  static StatusOr<std::unique_ptr<LoopGate>> Create(Device& device, const LoopGatePipelines& pipelines,
                                                    BufferSlice predicate, const std::vector<std::array<uint32_t, 2>>& grids);
  // A kernel copying `bytes` (rounded up to words, inside the buffers'
  // whole vectors) from src to dst, for a copy step of a gated body.
  static StatusOr<BoundKernel> CopyKernel(Device& device, const LoopGatePipelines& pipelines, BufferSlice src,
                                          BufferSlice dst, uint64_t bytes);
  static std::vector<uint32_t> CopyPushConstants(uint64_t bytes);

  // Trip `trip` of a submission: the gate, between barriers.
  void RecordGate(Scheduler& s, int64_t trip) const;
  // Where body command `command`'s group counts are.
  VkBuffer arguments() const { return control_.handle(); }
  uint64_t ArgumentsOffset(size_t command) const { return (3 + 3 * commands_ + 3 * command) * 4; }
  // Before a submission: the loop is alive.
  void Arm();
  // After a submission of `trips` trips: whether the loop still runs.
  bool Alive(int64_t trips) const;
  // Once it stopped: how many trips of the last submission ran their body.
  int64_t LastTrips() const;

 private:
  LoopGate() = default;
  // control_ words: alive (two, alternating by trip parity so a gate never
  // reads the word it writes), the trip it stopped at, the grids, the
  // arguments (3 words each).
  Buffer control_;
  size_t commands_ = 0;
  std::unique_ptr<BoundKernel> gate_;
};

}  // namespace vkxla
