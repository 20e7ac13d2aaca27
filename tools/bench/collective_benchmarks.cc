#include "tools/bench/collective_benchmarks.h"

#include <algorithm>
#include <chrono>

#include "frontends/hlo_text.h"
#include "runtime/replicated_executable.h"
#include "tools/bench/module_timing.h"

namespace vkxla {
namespace {

// The values are made on the device and summed to one number after, so a
// run moves no 64 MiB to or from the host except what the collective
// does; the same module without the all-reduce is the baseline subtracted.
std::string AllReduceModule(int64_t elements, int64_t replicas, bool all_reduce) {
  const std::string n = std::to_string(elements);
  return "HloModule allreduce, replica_count=" + std::to_string(replicas) +
         "\nsum { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
         "ENTRY e { i = u32[] replica-id()\n f = f32[] convert(i)\n x = f32[" + n + "] broadcast(f), dimensions={}\n" +
         (all_reduce ? " r = f32[" + n + "] all-reduce(x), to_apply=sum\n" : " r = f32[" + n + "] copy(x)\n") +
         " z = f32[] constant(0)\n ROOT t = f32[] reduce(r, z), dimensions={0}, to_apply=sum }\n";
}

StatusOr<double> BestRun(Device& device, const std::string& text, int64_t replicas, int runs) {
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> m, ParseAndVerifyHlo(text));
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<ReplicatedExecutable> exe, ReplicatedExecutable::Compile(*m, {&device}, {replicas, 1}));
  const std::vector<std::vector<Literal>> args(static_cast<size_t>(replicas));
  return BestWallSeconds(runs, [&] { return exe->Run(args).status(); });
}

}  // namespace

Status RunCollectiveBenchmarks(Device& device, BenchReport& report) {
  constexpr int64_t kElements = int64_t{16} << 20;  // 64 MiB of f32
  constexpr int64_t kReplicas = 4;
  VKXLA_ASSIGN_OR_RETURN(const double with, BestRun(device, AllReduceModule(kElements, kReplicas, true), kReplicas, 3));
  VKXLA_ASSIGN_OR_RETURN(const double without, BestRun(device, AllReduceModule(kElements, kReplicas, false), kReplicas, 3));
  const double seconds = std::max(1e-9, with - without);
  const double bytes = 4.0 * kElements;
  const double bus_gbps = bytes / seconds * 2.0 * (kReplicas - 1) / kReplicas * 1e-9;
  report.rows.push_back(LimitRow("all-reduce 64 MiB f32, 4 replicas on one device's queue (bus bandwidth)",
                                 Format("%.2f GB/s", bus_gbps), bus_gbps, BenchLimit::kCopy, 0.5,
                                 "host-staged: each replica's operand crosses host memory and the sum runs on the host; " +
                                     Format("%.0f ms", seconds * 1e3) + " a collective"));
  return OkStatus();
}

}  // namespace vkxla
