// Kernel source for a planned fusion group: one builder per kernel kind
// (codegen/<kind>_kernel_builder.cc) over the shared element emitter.
// Adding a kind means a builder file here, a config and a fusion rule in
// plan/.
#pragma once

#include "codegen/kernel.h"
#include "plan/program.h"

namespace vkxla {

// Kernel `kernel` of `group` (an index into group.kernels).
StatusOr<KernelSource> BuildKernel(const Program& program, const FusionGroup& group, int kernel);

// The builders, one per kind.
StatusOr<KernelSource> BuildLoopKernel(const Program& program, const FusionGroup& group, int kernel);
StatusOr<KernelSource> BuildReduceKernel(const Program& program, const FusionGroup& group, int kernel);
StatusOr<KernelSource> BuildSortKernel(const Program& program, const FusionGroup& group, int kernel);
StatusOr<KernelSource> BuildScanKernel(const Program& program, const FusionGroup& group, int kernel);
StatusOr<KernelSource> BuildWindowKernel(const Program& program, const FusionGroup& group, int kernel);
StatusOr<KernelSource> BuildScatterKernel(const Program& program, const FusionGroup& group, int kernel);
StatusOr<KernelSource> BuildMatmulKernel(const Program& program, const FusionGroup& group, int kernel);
StatusOr<KernelSource> BuildTriangularKernel(const Program& program, const FusionGroup& group, int kernel);
StatusOr<KernelSource> BuildRowKernel(const Program& program, const FusionGroup& group, int kernel);

}  // namespace vkxla
