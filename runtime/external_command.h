// Commands a library records itself (VkFFT: runtime/vkfft_command.h) where the plan places an
// External step: a factory per library name prepares a command for one
// step at compile time (plans, pipelines of its own), and the command is
// recorded into the executable's command buffer with the step's buffers.
#pragma once

#include <vulkan/vulkan.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vkxla/status.h"
#include "runtime/bound_kernel.h"

namespace vkxla {

class ExternalCommand {
 public:
  virtual ~ExternalCommand() = default;
  // Records the commands over the step's buffers (reads, then writes, in
  // the step's order).
  virtual Status Record(VkCommandBuffer cb, const std::vector<BufferSlice>& reads,
                        const std::vector<BufferSlice>& writes) = 0;
};

using ExternalCommandFactory =
    std::function<StatusOr<std::unique_ptr<ExternalCommand>>(Device& device, const std::string& config)>;

// Registers the factory for steps named `name` (replacing an earlier one).
void RegisterExternalCommand(const std::string& name, ExternalCommandFactory factory);
// A command for one step, or an error naming the library no one registered.
StatusOr<std::unique_ptr<ExternalCommand>> PrepareExternalCommand(Device& device, const std::string& name,
                                                                  const std::string& config);

}  // namespace vkxla
