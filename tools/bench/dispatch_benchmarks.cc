#include "tools/bench/dispatch_benchmarks.h"

#include "runtime/bound_kernel.h"
#include "runtime/gpu_timer.h"
#include "tools/bench/device_limits.h"
#include "tools/bench/module_timing.h"

namespace vkxla {
namespace {

constexpr int kChain = 1000;

// x_{i+1} = x_i . w, kChain times: one matmul kernel each (a product's
// result is a hero's, so nothing fuses across links), all one pipeline.
std::string DotChain() {
  std::string text = "HloModule dot_chain\nENTRY %e {\n  %x0 = f32[8,8] parameter(0)\n  %w = f32[8,8] parameter(1)\n";
  for (int i = 0; i < kChain; ++i)
    text += "  %x" + std::to_string(i + 1) + " = f32[8,8] dot(%x" + std::to_string(i) +
            ", %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
  return text + "  ROOT %r = f32[8,8] copy(%x" + std::to_string(kChain) + ")\n}\n";
}

// The same number of dependent dispatches of a one-invocation kernel.
StatusOr<Timing> TrivialChain(Device& device) {
  VKXLA_ASSIGN_OR_RETURN(Buffer b, device.CreateBuffer(16, Device::Memory::kDeviceLocal));
  const std::string glsl =
      "#version 450\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { float v[]; };\n"
      "void main() { v[0] = v[0] * 0.5 + 1.0; }\n";
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<ComputePipeline> pipeline, ComputePipeline::FromGlsl(device, glsl, 1));
  VKXLA_ASSIGN_OR_RETURN(BoundKernel kernel, BoundKernel::Create(device, std::move(pipeline), {Whole(b)}, 1, 1));
  VKXLA_RETURN_IF_ERROR(TimeCommands(device, [&](Scheduler& s) {
    s.Fill(b.handle(), 0, b.size(), 0);
    return OkStatus();
  }).status());
  return BestTiming(5, [&]() {
    return TimeCommands(device, [&](Scheduler& s) {
      for (int i = 0; i < kChain; ++i) {
        if (i > 0) s.Barrier();
        kernel.Record(s);
      }
      return OkStatus();
    });
  });
}

}  // namespace

Status RunDispatchBenchmarks(Device& device, BenchReport& report) {
  const std::vector<Literal> args = {RandomBenchLiteral(Shape(ElementType::kF32, {8, 8}), 31),
                                     RandomBenchLiteral(Shape(ElementType::kF32, {8, 8}), 32)};
  VKXLA_ASSIGN_OR_RETURN(ModuleTiming chain, TimeModuleKernels(device, DotChain(), args, 5, 1));
  VKXLA_ASSIGN_OR_RETURN(Timing trivial, TrivialChain(device));
  const double per = chain.kernels.seconds / chain.kernel_count, trivial_per = trivial.seconds / kChain;
  report.rows.push_back({"dispatches per second, a chain of " + std::to_string(chain.kernel_count) + " small kernels (8x8 matmuls)",
                         Format("%.0f /s", 1.0 / per),
                         Format("the same count of a one-invocation kernel, recorded by hand: %.0f /s", 1.0 / trivial_per),
                         trivial_per / per, 0,
                         Format("%.2f us a dispatch", per * 1e6) + Format(", against %.2f us (device time, barriers between all)",
                                                                          trivial_per * 1e6)});
  return OkStatus();
}

}  // namespace vkxla
