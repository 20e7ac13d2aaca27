// A module compiled for one device: device buffers for parameters,
// constants, results, the values that get their own kernel (NeedsOwnKernel)
// and sort permutations; the kernels that compute them (one per value, the
// passes of a sort); and a command
// buffer recorded once (uploads, dispatches in dependency order with the
// barriers their buffers need, downloads) and replayed by Run.
#pragma once

#include <map>
#include <memory>
#include <utility>
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
  // An array value: an instruction, or element `index` of a tuple-shaped
  // one, or (index kPermutation) the permutation that sorts a sort's lines,
  // or (index kPartials) a split reduce's partial results.
  using ValueId = std::pair<const Instruction*, int64_t>;
  static constexpr int64_t kPermutation = -2;
  static constexpr int64_t kPartials = -3;
  struct PlannedKernel {
    size_t computed;  // the value (index into computed_) it writes
    KernelSource source;
  };
  // A value computed into a device buffer by its kernels.
  struct Computed {
    ValueId id;
    Shape shape;  // with layout; dynamic dims at their bounds
    Buffer device;
    Buffer sizes;  // run-time sizes of dynamic dims, written by the kernel
  };
  struct Output {
    size_t computed;  // index into computed_
    Buffer staging;
  };
  explicit Executable(Device& d) : device_(d) {}
  // Device buffers for parameters (with staging), for values with their own
  // kernel and for results; the kernel sources that compute them.
  Status PlanBuffers(const std::vector<ValueId>& leaves, std::vector<PlannedKernel>& sources);
  StatusOr<VkBuffer> BufferOf(const Instruction* inst, const std::map<const Instruction*, VkBuffer>& constants) const;
  // Uploads constants, compiles and binds each kernel.
  Status BuildKernels(const std::vector<PlannedKernel>& sources);
  Status Record();
  Literal Assemble(const Shape& result, size_t& next, const std::vector<Literal>& leaves) const;

  Device& device_;
  const Module* module_ = nullptr;
  ProgramShape program_;
  std::vector<Buffer> param_device_, param_staging_;
  Buffer param_sizes_;  // kMaxDynamicRank u32s per parameter: its run-time sizes
  std::vector<Buffer> constants_;
  std::vector<Computed> computed_;
  std::map<ValueId, size_t> computed_index_;
  std::vector<Output> outputs_;
  // Roots made for tuple elements (get-tuple-element of a variadic op).
  std::vector<std::unique_ptr<Instruction>> element_roots_;
  std::vector<BoundKernel> kernels_;
  std::vector<std::string> sources_;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  int barriers_ = 0;
};

}  // namespace vkxla
