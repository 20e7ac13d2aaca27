#include "tools/bench/collective_benchmarks.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

#include "frontends/hlo_text.h"
#include "runtime/replicated_executable.h"
#include "tools/bench/module_timing.h"

namespace vkxla {
namespace {

// A collective timed by subtraction: each replica's `elements` values are
// made on the device, `r` (`result` elements) is computed from them by
// `line` and summed to one number after; the same module with a baseline
// line instead is subtracted. Both return x too, so x is written by its
// own kernel in both (the baseline would otherwise fuse the broadcast into
// the sum and skip it): what remains is the collective's own cost.
std::string CollectiveModule(int64_t elements, int64_t result, int64_t replicas, const std::string& line) {
  const std::string n = std::to_string(elements);
  return "HloModule collective, replica_count=" + std::to_string(replicas) +
         "\nsum { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
         "ENTRY e { i = u32[] replica-id()\n f = f32[] convert(i)\n x = f32[" + n + "] broadcast(f), dimensions={}\n"
         " r = f32[" + std::to_string(result) + "] " + line + "\n"
         " z = f32[] constant(0)\n t = f32[] reduce(r, z), dimensions={0}, to_apply=sum\n"
         " ROOT out = (f32[], f32[" + n + "]) tuple(t, x) }\n";
}

// An all-reduce of the replicas' values, or the baseline's copy.
std::string AllReduceModule(int64_t elements, int64_t replicas, bool all_reduce) {
  return CollectiveModule(elements, elements, replicas, all_reduce ? "all-reduce(x), to_apply=sum" : "copy(x)");
}

// An all-gather along dimension 0, or the baseline's broadcast of the
// gathered shape (its reduce fuses it).
std::string AllGatherModule(int64_t elements, int64_t replicas, bool all_gather) {
  return CollectiveModule(elements, elements * replicas, replicas,
                          all_gather ? "all-gather(x), dimensions={0}" : "broadcast(f), dimensions={}");
}

// The collective's own seconds: the best run of the module with it less
// the best of the baseline, the two compiled once and run in alternation
// (`rounds` times each) so interference on this shared host falls on both.
StatusOr<double> CollectiveSeconds(Device& device, const std::string& with, const std::string& without, int64_t replicas,
                                   int rounds) {
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> m1, ParseAndVerifyHlo(with));
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> m0, ParseAndVerifyHlo(without));
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<ReplicatedExecutable> e1, ReplicatedExecutable::Compile(*m1, {&device}, {replicas, 1}));
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<ReplicatedExecutable> e0, ReplicatedExecutable::Compile(*m0, {&device}, {replicas, 1}));
  const std::vector<std::vector<Literal>> args(static_cast<size_t>(replicas));
  double best1 = 1e30, best0 = 1e30;
  for (int r = 0; r < rounds; ++r) {
    VKXLA_ASSIGN_OR_RETURN(const double t1, BestWallSeconds(1, [&] { return e1->Run(args).status(); }));
    VKXLA_ASSIGN_OR_RETURN(const double t0, BestWallSeconds(1, [&] { return e0->Run(args).status(); }));
    best1 = std::min(best1, t1), best0 = std::min(best0, t0);
  }
  return std::max(1e-9, best1 - best0);
}

// The best wall time of one run of `text` as `ranks` Open MPI ranks on
// this machine (`mpirun ... vkxla run --time-runs`, rank 0's figure), each
// rank on `device_index`; nullopt where mpirun or this build's MPI is missing.
std::optional<double> MpiRunSeconds(const std::string& text, int ranks, uint32_t device_index, int runs) {
  if (std::system("command -v mpirun > /dev/null 2>&1") != 0) return std::nullopt;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("vkxla_bench_mpi_" + std::to_string(::getpid()) + ".hlo");
  std::ofstream(file) << text;
  const std::string command = "OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1 timeout 900 "
                              "mpirun --oversubscribe --allow-run-as-root -n " + std::to_string(ranks) + " " + self.string() +
                              " run " + file.string() + " --device " + std::to_string(device_index) + " --time-runs " +
                              std::to_string(runs) + " --output /dev/null --output /dev/null 2>&1";
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) output.append(buf, n);
    pclose(pipe);
  }
  std::filesystem::remove(file, ec);
  const std::string key = "timed runs: ";
  const size_t at = output.find(key);
  if (at == std::string::npos) {
    std::fprintf(stderr, "vkxla bench: the all-reduce under mpirun gave no timing:\n%s\n", output.c_str());
    return std::nullopt;
  }
  double ms = 0;
  const char* first = output.c_str() + at + key.size();
  const auto [end, error] = std::from_chars(first, output.c_str() + output.size(), ms);
  if (error != std::errc() || end == first || !(ms > 0)) return std::nullopt;
  return ms * 1e-3;
}

}  // namespace

Status RunCollectiveBenchmarks(Device& device, BenchReport& report) {
  constexpr int64_t kElements = int64_t{16} << 20;  // 64 MiB of f32
  constexpr int64_t kReplicas = 4;
  VKXLA_ASSIGN_OR_RETURN(const double seconds, CollectiveSeconds(device, AllReduceModule(kElements, kReplicas, true),
                                                                  AllReduceModule(kElements, kReplicas, false), kReplicas, 7));
  const double bytes = 4.0 * kElements;
  const double bus_gbps = bytes / seconds * 2.0 * (kReplicas - 1) / kReplicas * 1e-9;
  report.rows.push_back(LimitRow("all-reduce 64 MiB f32, 4 replicas on one device's queue (bus bandwidth)",
                                 Format("%.2f GB/s", bus_gbps), bus_gbps, BenchLimit::kCopy, 0.5,
                                 "folded on the device the replicas share: each folds a quarter of every replica's operand into every "
                                 "replica's result, 4 reads and 4 writes of 64 MiB in all; " +
                                     Format("%.0f ms", seconds * 1e3) + " a collective"));
  // An all-gather of 16 MiB a replica into 64 MiB each: bytes copied
  // between the replicas' buffers (nccl-tests: bus bandwidth = result bytes
  // x (n-1)/n / time).
  VKXLA_ASSIGN_OR_RETURN(const double gather_seconds,
                         CollectiveSeconds(device, AllGatherModule(kElements / kReplicas, kReplicas, true),
                                           AllGatherModule(kElements / kReplicas, kReplicas, false), kReplicas, 7));
  const double gather_gbps = bytes / gather_seconds * (kReplicas - 1) / kReplicas * 1e-9;
  report.rows.push_back(LimitRow("all-gather 16 MiB f32 a replica into 64 MiB, 4 replicas on one device's queue (bus bandwidth)",
                                 Format("%.2f GB/s", gather_gbps), gather_gbps, BenchLimit::kCopy, 0,
                                 "each replica copies the four blocks of its result from the replicas' operands on the device; " +
                                     Format("%.1f ms", gather_seconds * 1e3) + " a collective"));
  // The same over 4 MPI ranks (processes of this machine): the collective
  // crosses MPI as well as host memory.
  const std::optional<double> mpi_with = MpiRunSeconds(AllReduceModule(kElements, kReplicas, true), kReplicas, device.info().index, 3);
  const std::optional<double> mpi_without = MpiRunSeconds(AllReduceModule(kElements, kReplicas, false), kReplicas, device.info().index, 3);
  if (mpi_with && mpi_without) {
    const double mpi_seconds = std::max(1e-9, *mpi_with - *mpi_without);
    const double mpi_gbps = bytes / mpi_seconds * 2.0 * (kReplicas - 1) / kReplicas * 1e-9;
    report.rows.push_back(LimitRow("all-reduce 64 MiB f32, 4 Open MPI ranks on this machine, each on this device (bus bandwidth)",
                                   Format("%.2f GB/s", mpi_gbps), mpi_gbps, BenchLimit::kCopy, 0,
                                   "each rank's operand crosses host memory and MPI, a reduce-scatter then an all-gather of the ranks' bytes; " + Format("%.0f ms", mpi_seconds * 1e3) +
                                       " a collective (rank 0's wall time, the same run without the all-reduce taken off)"));
  }
  return OkStatus();
}

}  // namespace vkxla
