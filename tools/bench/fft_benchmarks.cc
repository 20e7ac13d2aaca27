#include "tools/bench/fft_benchmarks.h"

#include <algorithm>

#include "frontends/hlo_text.h"
#include "plan/fft_config.h"
#include "runtime/vkfft_command.h"
#include "tools/bench/module_timing.h"

namespace vkxla {
namespace {

struct FftCase {
  std::string name;
  std::string in, out;                 // element types
  std::vector<int64_t> in_dims, out_dims, lengths;
  std::string type;                    // fft_type
  int trials, runs;
};

std::string Dims(const std::vector<int64_t>& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s;
}

std::string FftHlo(const FftCase& c) {
  return "HloModule fft\n\nENTRY main {\n  x = " + c.in + "[" + Dims(c.in_dims) + "] parameter(0)\n  ROOT f = " + c.out + "[" +
         Dims(c.out_dims) + "] fft(x), fft_type=" + c.type + ", fft_length={" + Dims(c.lengths) + "}\n}\n";
}

}  // namespace

Status RunFftBenchmarks(Device& device, const DeviceLimits& limits, BenchReport& report) {
  const std::vector<FftCase> cases = {
      {"c64 FFT 1-D 2^20", "c64", "c64", {1 << 20}, {1 << 20}, {1 << 20}, "FFT", 5, 2},
      {"c64 FFT batched 2-D 4 x 1024^2", "c64", "c64", {4, 1024, 1024}, {4, 1024, 1024}, {1024, 1024}, "FFT", 3, 1},
      {"c64 FFT 3-D 128^3", "c64", "c64", {128, 128, 128}, {128, 128, 128}, {128, 128, 128}, "FFT", 3, 1},
      {"f32 RFFT (R2C) 1-D 2^20", "f32", "c64", {1 << 20}, {(1 << 19) + 1}, {1 << 20}, "RFFT", 5, 2},
      {"c64 FFT of prime length 1009, 1024 batches", "c64", "c64", {1024, 1009}, {1024, 1009}, {1009}, "FFT", 5, 2},
  };
  for (const FftCase& c : cases) {
    const std::string hlo = FftHlo(c);
    StatusOr<std::unique_ptr<Module>> module = ParseAndVerifyHlo(hlo);
    if (!module.ok()) return module.status();
    const Shape& param = (*module)->entry()->parameters()[0]->shape;
    // VkFFT's own plan of the transform the step runs (the same config),
    // timed after each of our trials.
    StatusOr<FftConfig> direct = ChooseFftConfig(*(*module)->entry()->root(), device.target());
    if (!direct.ok()) return direct.status();
    StatusOr<TimedAlongside> timed = TimeModuleKernelsAlongside(device, hlo, {RandomBenchLiteral(param, 5)}, c.trials, c.runs,
                                                                [&] { return TimeVkfftDirectly(device, *direct, c.runs); });
    if (!timed.ok()) {
      report.rows.push_back({c.name, "-", "", 0, 0, timed.status().message().substr(0, 120)});
      continue;
    }
    const double mine = timed->module.kernels.seconds, theirs = timed->other.seconds;
    report.rows.push_back({c.name, Format("%.2f ms", mine * 1e3), Format("VkFFT's own plan called directly %.2f ms", theirs * 1e3),
                           theirs / mine, 0.95,
                           std::to_string(timed->module.kernel_count) + " kernel(s) of ours around the VkFFT step"});
    // Bytes a transform must move at least: its operand read once, its result written once.
    const double bytes = static_cast<double>(param.element_count()) * (c.in == "f32" ? 4 : 8) +
                         static_cast<double>((*module)->entry()->root()->shape.element_count()) * 8;
    report.rows.push_back(LimitRow(c.name + ", operand and result bytes", Format("%.1f GB/s", bytes / mine * 1e-9),
                                   bytes / mine * 1e-9, BenchLimit::kStream, 0, "memory-bound view: one read and one write"));
  }
  return OkStatus();
}

}  // namespace vkxla
