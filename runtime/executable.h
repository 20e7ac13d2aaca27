// A module compiled for one device: its plan (plan/program.h), a kernel per
// (group, kernel) of the plan, one device allocation per arena with every
// buffer a slice of it, and the steps recorded once into command buffers
// (split where a step needs the host or a submission would grow too long)
// that Run replays.
#pragma once

#include <memory>
#include <vector>

#include "ir/module.h"
#include "plan/program.h"
#include "runtime/bound_kernel.h"
#include "runtime/device.h"
#include "runtime/gpu_timer.h"

namespace vkxla {

class Executable {
 public:
  static StatusOr<std::unique_ptr<Executable>> Compile(const Module& module, Device& device);
  // Plans for `target` instead of the device's own features (tests and
  // tools that force other limits; the device must support what it asks).
  static StatusOr<std::unique_ptr<Executable>> Compile(const Module& module, Device& device, const TargetFeatures& target);
  ~Executable();

  // Arguments are logical literals in parameter order; the result is the
  // entry's result (a tuple for tuple roots), logical as well.
  StatusOr<Literal> Run(const std::vector<Literal>& arguments);

  // Device time of the dispatches alone (no uploads or downloads), averaged
  // over `repeats` replays recorded back to back; for benchmarks.
  StatusOr<Timing> TimeKernels(int repeats);

  const Program& program() const { return program_; }
  int kernel_count() const { return program_.DispatchCount(); }  // dispatches per run
  int barrier_count() const { return program_.BarrierCount(); }
  int submission_count() const { return static_cast<int>(segments_.size()); }
  const std::vector<std::string>& kernel_sources() const { return sources_; }

 private:
  explicit Executable(Device& d) : device_(d) {}
  Status Allocate();
  Status BuildKernels();
  // Records `steps` (dispatches, copies, fills) into `s`.
  Status RecordSteps(Scheduler& s, const StepList& steps, bool dispatches_only) const;
  Status Record();
  BufferSlice SliceOf(int buffer) const;
  void* Mapped(int buffer) const;

  Device& device_;
  const Module* module_ = nullptr;
  Program program_;
  std::vector<Buffer> arenas_;
  // kernels_[group][kernel]; null for kernels that never run (empty arrays).
  std::vector<std::vector<std::unique_ptr<BoundKernel>>> kernels_;
  std::vector<std::string> sources_;
  // Consecutive runs of top-level steps, each recorded into one command buffer.
  struct Segment {
    size_t begin = 0, end = 0;
    VkCommandBuffer cb = VK_NULL_HANDLE;
  };
  std::vector<Segment> segments_;
};

}  // namespace vkxla
