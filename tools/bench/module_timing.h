// Times the kernels of an HLO module on a device: compile, run once with the
// given arguments (so the device buffers hold real data), then the best
// device time of the kernels alone: ours and a library's (VkFFT's), without
// the uploads and downloads.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/executable.h"

namespace vkxla {

struct ModuleTiming {
  Timing kernels;        // per run of all dispatches
  int kernel_count = 0;
  std::string first_kernel_source;
};

// The best of `trials` trials of `runs` runs each (long modules take fewer;
// short ones more, so a trial lasts at least 20 ms), after one trial that
// warms the device.
StatusOr<ModuleTiming> TimeModuleKernels(Device& device, const std::string& hlo_text, const std::vector<Literal>& arguments,
                                         int trials = 7, int runs = 4);

// The same, with `other` (a library's timing of the same work) measured
// after each trial, so interference falls on both alike; the best of each.
struct TimedAlongside {
  ModuleTiming module;
  Timing other;
};
StatusOr<TimedAlongside> TimeModuleKernelsAlongside(Device& device, const std::string& hlo_text,
                                                    const std::vector<Literal>& arguments, int trials, int runs,
                                                    const std::function<StatusOr<Timing>()>& other);

// Several modules timed in alternation (round after round, the best of each
// kept), so that interference from other work falls on all of them alike:
// for comparing two variants of a kernel. `targets`, where given, holds
// what each module is planned for (else the device's features).
StatusOr<std::vector<ModuleTiming>> TimeModulesInterleaved(
    Device& device, const std::vector<std::pair<std::string, std::vector<Literal>>>& modules, int rounds, int runs,
    const std::vector<TargetFeatures>& targets = {});

// The best host wall time of `runs` calls of `run`, after one call that
// warms it (whole runs: uploads, control flow and host steps included).
StatusOr<double> BestWallSeconds(int runs, const std::function<Status()>& run);

// A literal of `shape` filled with uniform random values in [-1, 1)
// (floats) or over the type's range (integers); fixed seed.
Literal RandomBenchLiteral(const Shape& shape, uint64_t seed);

}  // namespace vkxla
