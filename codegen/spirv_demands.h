// What a compiled compute kernel asks of a device, read from its SPIR-V:
// its workgroup size, the bytes its shared (Workgroup) variables take, and
// which bindings are uniform texel buffers rather than storage buffers.
// The runtime checks both against the target's limits before creating a
// pipeline, so a kernel that would not fit a phone (or VKXLA_PROFILE=mobile)
// is a clear error rather than a driver failure or a wrong answer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/target_features.h"
#include "vkxla/status.h"

namespace vkxla {

struct KernelDemands {
  uint32_t local_size[3] = {1, 1, 1};
  uint64_t shared_bytes = 0;  // tightly packed: a lower bound on what the driver reserves
  std::vector<uint32_t> texel_bindings;  // `uniform (u)samplerBuffer` bindings, ascending
  uint64_t invocations() const { return uint64_t{local_size[0]} * local_size[1] * local_size[2]; }
};

// InvalidArgument for a module that is not SPIR-V or is cut short.
StatusOr<KernelDemands> ReadKernelDemands(const std::vector<uint32_t>& spirv);

// ResourceExhausted naming `kernel`, the demand and the target's limit when
// the kernel does not fit.
Status CheckKernelFits(const KernelDemands& demands, const TargetFeatures& target, const std::string& kernel);

}  // namespace vkxla
