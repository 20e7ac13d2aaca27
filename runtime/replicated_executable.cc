#include "runtime/replicated_executable.h"

#include <optional>
#include <thread>

#include "ops/evaluator.h"

namespace vkxla {

StatusOr<std::unique_ptr<ReplicatedExecutable>> ReplicatedExecutable::Compile(const Module& module,
                                                                               const std::vector<Device*>& devices,
                                                                               ProcessGrid grid) {
  VKXLA_RETURN_IF_ERROR(CheckProcessGrid(grid));
  return Compile(std::vector<const Module*>(static_cast<size_t>(grid.processes()), &module), devices, grid);
}

StatusOr<std::unique_ptr<ReplicatedExecutable>> ReplicatedExecutable::Compile(const std::vector<const Module*>& modules,
                                                                               const std::vector<Device*>& devices,
                                                                               ProcessGrid grid) {
  VKXLA_RETURN_IF_ERROR(CheckProcessGrid(grid));
  if (modules.size() != static_cast<size_t>(grid.processes()))
    return InvalidArgument("a run of " + grid.ToString() + " needs " + std::to_string(grid.processes()) + " modules, got " +
                           std::to_string(modules.size()));
  if (devices.empty()) return InvalidArgument("a replicated run needs at least one device");
  auto r = std::unique_ptr<ReplicatedExecutable>(new ReplicatedExecutable());
  r->grid_ = grid;
  for (size_t p = 0; p < modules.size(); ++p) {
    StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(*modules[p], *devices[p % devices.size()]);
    if (!exe.ok()) return Status(exe.status().code(), "process " + std::to_string(p) + ": " + exe.status().message());
    r->processes_.push_back(std::move(*exe));
  }
  return r;
}

StatusOr<std::vector<Literal>> ReplicatedExecutable::Run(const std::vector<std::vector<Literal>>& arguments) {
  const size_t n = processes_.size();
  if (arguments.size() != n)
    return InvalidArgument("a run of " + grid_.ToString() + " takes " + std::to_string(n) + " argument lists, got " +
                           std::to_string(arguments.size()));
  std::lock_guard<std::mutex> lock(run_mu_);
  // A fresh rendezvous per run: nothing waits on a previous run's state.
  ProcessRendezvous rendezvous(grid_);
  std::vector<std::optional<StatusOr<Literal>>> results(n);
  std::vector<std::thread> threads;
  for (size_t p = 0; p < n; ++p) {
    processes_[p]->SetProcess(ProcessContext{grid_, static_cast<int64_t>(p), &rendezvous});
    threads.emplace_back([&, p] {
      results[p] = processes_[p]->Run(arguments[p]);
      rendezvous.Leave(static_cast<int64_t>(p), results[p]->status());
    });
  }
  for (std::thread& t : threads) t.join();
  for (auto& e : processes_) e->SetProcess(ProcessContext{});
  return GatherProcessResults(std::move(results));
}

}  // namespace vkxla
