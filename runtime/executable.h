// A module compiled for one device: one fused kernel per result array,
// device buffers for parameters, constants and results, and a command
// buffer recorded once (uploads, dispatches, downloads) and replayed by Run.
#pragma once

#include <memory>
#include <vector>

#include "ir/module.h"
#include "runtime/device.h"
#include "runtime/pipeline.h"

namespace vkxla {

class Executable {
 public:
  static StatusOr<std::unique_ptr<Executable>> Compile(const Module& module, Device& device);
  ~Executable();

  // Arguments are logical literals in parameter order; the result is the
  // entry's result (a tuple for tuple roots), logical as well.
  StatusOr<Literal> Run(const std::vector<Literal>& arguments);

  int kernel_count() const { return static_cast<int>(kernels_.size()); }
  int barrier_count() const { return barriers_; }
  const std::vector<std::string>& kernel_sources() const { return sources_; }

 private:
  struct Kernel {
    std::unique_ptr<ComputePipeline> pipeline;
    VkDescriptorSet set = VK_NULL_HANDLE;
    uint32_t groups_x = 0, groups_y = 0;
    std::vector<VkBuffer> reads;
    VkBuffer write = VK_NULL_HANDLE;
  };
  struct Output {
    Shape shape;  // with layout
    Buffer device, staging;
  };
  explicit Executable(Device& d) : device_(d) {}
  Status Record();
  Literal Assemble(const Shape& result, size_t& next, const std::vector<Literal>& leaves) const;

  Device& device_;
  const Module* module_ = nullptr;
  ProgramShape program_;
  std::vector<Buffer> param_device_, param_staging_;
  std::vector<Buffer> constants_;
  std::vector<Output> outputs_;
  std::vector<Kernel> kernels_;
  std::vector<std::string> sources_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  int barriers_ = 0;
};

}  // namespace vkxla
