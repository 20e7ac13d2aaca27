// Makes a compiled kernel's floating-point arithmetic the same on every
// driver, by editing its SPIR-V after optimization:
// - execution modes from Vulkan 1.2's float controls, for the widths the
//   device honours them: subnormals kept (NVIDIA's driver flushes them
//   otherwise: f8e8m0fnu's smallest values, erfc's tail and nextafter near
//   zero came out 0), signed zeros, infinities and NaNs kept, and
//   round-to-nearest-even;
// - NoContraction on every float multiply, add and subtract, so neither
//   SPIRV-Tools' folding (which turns `a * b + c` into an Fma) nor a GPU
//   compiler fuses two operations into one rounding that the reference
//   does not make (NVIDIA's driver fused them: 1-ulp differences that grow
//   through a loop). Kernels that want fma (matmul accumulation) call fma()
//   explicitly, which this leaves alone.
// Idempotent: what a module already declares is not declared again, so it
// runs before the optimizer and again after it.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/target_features.h"
#include "vkxla/status.h"

namespace vkxla {

// InvalidArgument for a module that is not SPIR-V or is cut short.
StatusOr<std::vector<uint32_t>> ApplyFloatControls(const std::vector<uint32_t>& spirv, const FloatControls& controls);

}  // namespace vkxla
