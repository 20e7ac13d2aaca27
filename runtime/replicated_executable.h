// A module run as the processes of a replica_count × num_partitions grid
// (StableHLO's process grid): one Executable per process, with its own
// buffers, each driven by its own host thread, on the devices given (one
// device may hold every process: process p submits to its queue
// p % queue_count(), so a family of several queues runs processes side by
// side, and on one queue they take turns per submission). The processes meet at their collectives through a
// ProcessRendezvous; a waiting process sleeps, it does not spin.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "ops/collectives.h"
#include "runtime/executable.h"

namespace vkxla {

class ReplicatedExecutable {
 public:
  // Every process runs `module`; process p runs on devices[p % devices.size()].
  static StatusOr<std::unique_ptr<ReplicatedExecutable>> Compile(const Module& module, const std::vector<Device*>& devices,
                                                                 ProcessGrid grid);
  // Process p runs modules[p] (the StableHLO interpreter's run_parallel).
  static StatusOr<std::unique_ptr<ReplicatedExecutable>> Compile(const std::vector<const Module*>& modules,
                                                                 const std::vector<Device*>& devices, ProcessGrid grid);

  // arguments[p] are process p's (flat id replica * partitions + partition);
  // the result is each process's. Runs take turns.
  StatusOr<std::vector<Literal>> Run(const std::vector<std::vector<Literal>>& arguments);

  const ProcessGrid& grid() const { return grid_; }
  Executable& process(int64_t p) { return *processes_.at(static_cast<size_t>(p)); }

 private:
  ProcessGrid grid_;
  std::vector<std::unique_ptr<Executable>> processes_;
  std::mutex run_mu_;
};

}  // namespace vkxla
