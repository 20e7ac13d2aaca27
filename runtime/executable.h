// A module compiled for one device: one fused kernel per result array,
// device buffers for parameters, constants and results, and a command
// buffer recorded once (uploads, dispatches, downloads) and replayed by Run.
#pragma once

#include <memory>
#include <vector>

#include "ir/module.h"
#include "runtime/device.h"
#include "codegen/kernel.h"
#include "runtime/bound_kernel.h"
#include "runtime/gpu_timer.h"

namespace vkxla {

class Executable {
 public:
  static StatusOr<std::unique_ptr<Executable>> Compile(const Module& module, Device& device);
  ~Executable();

  // Arguments are logical literals in parameter order; the result is the
  // entry's result (a tuple for tuple roots), logical as well.
  StatusOr<Literal> Run(const std::vector<Literal>& arguments);

  // Device time of the dispatches alone (no uploads or downloads), averaged
  // over `repeats` replays recorded back to back; for benchmarks.
  StatusOr<Timing> TimeKernels(int repeats);

  int kernel_count() const { return static_cast<int>(kernels_.size()); }
  int barrier_count() const { return barriers_; }
  const std::vector<std::string>& kernel_sources() const { return sources_; }

 private:
  struct Output {
    Shape shape;  // with layout
    Buffer device, staging;
  };
  explicit Executable(Device& d) : device_(d) {}
  // Device buffers for parameters (with staging) and results; the kernel
  // sources that compute the results.
  Status PlanBuffers(const std::vector<const Instruction*>& leaves, std::vector<KernelSource>& sources);
  // Uploads constants, compiles and binds each kernel.
  Status BuildKernels(const std::vector<KernelSource>& sources);
  Status Record();
  Literal Assemble(const Shape& result, size_t& next, const std::vector<Literal>& leaves) const;

  Device& device_;
  const Module* module_ = nullptr;
  ProgramShape program_;
  std::vector<Buffer> param_device_, param_staging_;
  std::vector<Buffer> constants_;
  std::vector<Output> outputs_;
  std::vector<BoundKernel> kernels_;
  std::vector<std::string> sources_;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  int barriers_ = 0;
};

}  // namespace vkxla
