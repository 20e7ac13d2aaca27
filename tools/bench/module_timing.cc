#include "tools/bench/module_timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <cstring>
#include <random>

#include "frontends/hlo_text.h"
#include "tools/bench/device_limits.h"

namespace vkxla {
namespace {

// Device time one trial keeps the device busy at least: a GPU that idles
// at low clocks ramps up within it (on an H200, trials of 4 runs of a 0.1
// ms product measured the same kernel 2-5x slow from one bench to the next).
constexpr double kTrialSeconds = 0.02;

// `runs` per trial, raised (up to 1000) until a trial lasts kTrialSeconds
// when one run takes `seconds_per_run`.
int RunsPerTrial(double seconds_per_run, int runs) {
  if (!(seconds_per_run > 0)) return runs;
  return static_cast<int>(std::clamp<double>(std::ceil(kTrialSeconds / seconds_per_run), runs, 1000));
}

// Device time a GPU is kept busy before the timed trials: after the host
// compiled kernels for seconds, an H200 came back at low clocks that 20 ms
// trials did not lift (the stream kernel measured 4.0 TB/s before a
// whole bench and 1.7 after it; f32 4096^3 35 TFLOP/s alone, 22.6 late in
// the bench).
constexpr double kGpuWarmSeconds = 0.25;

// Runs `exe` in trials of `runs` until the device has been busy
// kGpuWarmSeconds (GPUs only: a CPU driver runs at one speed).
Status WarmUp(const Device& device, Executable& exe, int runs) {
  if (device.target().cpu) return OkStatus();
  double busy = 0;
  for (int trial = 0; trial < 1000 && busy < kGpuWarmSeconds; ++trial) {
    VKXLA_ASSIGN_OR_RETURN(Timing t, exe.TimeKernels(runs));
    if (!(t.seconds > 0)) break;
    busy += t.seconds * runs;
  }
  return OkStatus();
}

}  // namespace

StatusOr<ModuleTiming> TimeModuleKernels(Device& device, const std::string& hlo_text, const std::vector<Literal>& arguments,
                                         int trials, int runs) {
  VKXLA_ASSIGN_OR_RETURN(TimedAlongside t, TimeModuleKernelsAlongside(device, hlo_text, arguments, trials, runs, nullptr));
  return t.module;
}

StatusOr<TimedAlongside> TimeModuleKernelsAlongside(Device& device, const std::string& hlo_text,
                                                    const std::vector<Literal>& arguments, int trials, int runs,
                                                    const std::function<StatusOr<Timing>()>& other) {
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, ParseAndVerifyHlo(hlo_text));
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, Executable::Compile(*module, device));
  VKXLA_RETURN_IF_ERROR(exe->Run(arguments).status());
  TimedAlongside t;
  ModuleTiming& m = t.module;
  m.kernel_count = exe->kernel_count();
  if (!exe->kernel_sources().empty()) m.first_kernel_source = exe->kernel_sources()[0];
  VKXLA_ASSIGN_OR_RETURN(Timing first, exe->TimeKernels(runs));  // warms the device and sizes the trials
  runs = RunsPerTrial(first.seconds, runs);
  VKXLA_RETURN_IF_ERROR(WarmUp(device, *exe, runs));
  for (int trial = 0; trial < std::max(trials, 1); ++trial) {
    VKXLA_ASSIGN_OR_RETURN(Timing mine, exe->TimeKernels(runs));
    if (trial == 0 || mine.seconds < m.kernels.seconds) m.kernels = mine;
    if (!other) continue;
    VKXLA_ASSIGN_OR_RETURN(Timing theirs, other());
    if (trial == 0 || theirs.seconds < t.other.seconds) t.other = theirs;
  }
  return t;
}

StatusOr<std::vector<ModuleTiming>> TimeModulesInterleaved(
    Device& device, const std::vector<std::pair<std::string, std::vector<Literal>>>& modules, int rounds, int runs,
    const std::vector<TargetFeatures>& targets) {
  std::vector<std::unique_ptr<Module>> parsed;
  std::vector<std::unique_ptr<Executable>> exes;
  std::vector<ModuleTiming> out(modules.size());
  for (size_t i = 0; i < modules.size(); ++i) {
    VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> m, ParseAndVerifyHlo(modules[i].first));
    VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe,
                           Executable::Compile(*m, device, i < targets.size() ? targets[i] : device.target()));
    VKXLA_RETURN_IF_ERROR(exe->Run(modules[i].second).status());
    out[i].kernel_count = exe->kernel_count();
    parsed.push_back(std::move(m));
    exes.push_back(std::move(exe));
  }
  std::vector<int> module_runs(exes.size(), runs);
  for (size_t i = 0; i < exes.size(); ++i) {
    VKXLA_ASSIGN_OR_RETURN(Timing first, exes[i]->TimeKernels(runs));
    module_runs[i] = RunsPerTrial(first.seconds, runs);
  }
  if (!exes.empty()) VKXLA_RETURN_IF_ERROR(WarmUp(device, *exes[0], module_runs[0]));
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < exes.size(); ++i) {
      VKXLA_ASSIGN_OR_RETURN(Timing t, exes[i]->TimeKernels(module_runs[i]));
      if (r == 0 || t.seconds < out[i].kernels.seconds) out[i].kernels = t;
    }
  return out;
}

Literal RandomBenchLiteral(const Shape& shape, uint64_t seed) {
  Literal l(Shape(shape.element_type(), shape.dims()));
  std::mt19937_64 rng(seed);
  if (shape.element_type() == ElementType::kF32) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    float* p = reinterpret_cast<float*>(l.bytes().data());
    for (int64_t i = 0; i < l.element_count(); ++i) p[i] = dist(rng);
  } else if (IsFloat(shape.element_type()) && !IsComplex(shape.element_type())) {
    // Other floats in [-1, 1] too: random bits span the whole exponent
    // range, so a fair share of products land below the normal range, and
    // a CPU computes subnormal results through slow microcode (bf16
    // 1024^3 on llvmpipe: 62 ms against 21).
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (int64_t i = 0; i < l.element_count(); ++i) l.Set(i, Scalar::Float(shape.element_type(), dist(rng)));
  } else {
    for (uint8_t& b : l.bytes()) b = static_cast<uint8_t>(rng());
  }
  return l;
}

StatusOr<double> BestWallSeconds(int runs, const std::function<Status()>& run) {
  VKXLA_RETURN_IF_ERROR(run());  // warm
  double best = 1e30;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    VKXLA_RETURN_IF_ERROR(run());
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace vkxla
