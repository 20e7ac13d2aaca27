#include "codegen/kernel_builder.h"

namespace vkxla {

StatusOr<KernelSource> BuildKernel(const Program& program, const FusionGroup& group, int kernel) {
  switch (group.kind) {
    case KernelKind::kLoop: return BuildLoopKernel(program, group, kernel);
    case KernelKind::kReduce: return BuildReduceKernel(program, group, kernel);
    case KernelKind::kSort: return BuildSortKernel(program, group, kernel);
    case KernelKind::kScan: return BuildScanKernel(program, group, kernel);
    case KernelKind::kWindow: return BuildWindowKernel(program, group, kernel);
    case KernelKind::kScatter: return BuildScatterKernel(program, group, kernel);
    case KernelKind::kMatmul: return BuildMatmulKernel(program, group, kernel);
    case KernelKind::kTriangular: return BuildTriangularKernel(program, group, kernel);
    case KernelKind::kRow: return BuildRowKernel(program, group, kernel);
  }
  return Internal("unknown kernel kind");
}

}  // namespace vkxla
