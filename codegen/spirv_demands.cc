#include "codegen/spirv_demands.h"

#include <algorithm>
#include <map>
#include <set>

namespace vkxla {
namespace {

// SPIR-V opcodes, storage classes and execution modes read here (from the
// SPIR-V specification's tables).
constexpr uint32_t kMagic = 0x07230203u;
constexpr uint32_t kOpExecutionMode = 16, kOpTypeBool = 20, kOpTypeInt = 21, kOpTypeFloat = 22, kOpTypeVector = 23,
                   kOpTypeMatrix = 24, kOpTypeImage = 25, kOpTypeSampledImage = 27, kOpTypeArray = 28, kOpTypeStruct = 30,
                   kOpTypePointer = 32, kOpConstant = 43, kOpVariable = 59, kOpDecorate = 71;
constexpr uint32_t kModeLocalSize = 17, kStorageWorkgroup = 4, kStorageUniformConstant = 0, kDimBuffer = 5,
                   kDecorationBinding = 33;

}  // namespace

StatusOr<KernelDemands> ReadKernelDemands(const std::vector<uint32_t>& spirv) {
  if (spirv.size() < 5 || spirv[0] != kMagic) return InvalidArgument("not a SPIR-V module");
  KernelDemands d;
  std::map<uint32_t, uint64_t> type_bytes;       // type id -> size
  std::map<uint32_t, uint32_t> pointee, constant; // pointer id -> type id; constant id -> low word
  std::map<uint32_t, uint32_t> binding;           // variable id -> binding
  std::set<uint32_t> buffer_images, texel_types, texel_variables;  // sampled Buffer images; their sampled images
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t words = spirv[at] >> 16, op = spirv[at] & 0xFFFFu;
    if (words == 0 || at + words > spirv.size()) return InvalidArgument("SPIR-V instruction at word " + std::to_string(at) + " is cut short");
    const uint32_t* w = &spirv[at];
    auto size_of = [&](uint32_t id) { auto it = type_bytes.find(id); return it == type_bytes.end() ? uint64_t{0} : it->second; };
    switch (op) {
      case kOpExecutionMode:
        if (words >= 6 && w[2] == kModeLocalSize)
          for (int k = 0; k < 3; ++k) d.local_size[k] = w[3 + k];
        break;
      case kOpTypeBool: if (words >= 2) type_bytes[w[1]] = 4; break;
      case kOpTypeInt: case kOpTypeFloat: if (words >= 3) type_bytes[w[1]] = w[2] / 8; break;
      case kOpTypeVector: case kOpTypeMatrix: if (words >= 4) type_bytes[w[1]] = size_of(w[2]) * w[3]; break;
      case kOpTypeArray:
        if (words >= 4) type_bytes[w[1]] = size_of(w[2]) * (constant.count(w[3]) ? constant[w[3]] : 0);
        break;
      case kOpTypeStruct: {
        uint64_t total = 0;
        for (uint32_t k = 2; k < words; ++k) total += size_of(w[k]);
        if (words >= 2) type_bytes[w[1]] = total;
        break;
      }
      case kOpTypePointer:
        if (words >= 4) pointee[w[1]] = w[3];
        break;
      case kOpConstant: if (words >= 4) constant[w[2]] = w[3]; break;
      case kOpDecorate: if (words >= 4 && w[2] == kDecorationBinding) binding[w[1]] = w[3]; break;
      case kOpTypeImage: if (words >= 9 && w[3] == kDimBuffer && w[7] == 1) buffer_images.insert(w[1]); break;
      case kOpTypeSampledImage: if (words >= 3 && buffer_images.count(w[2])) texel_types.insert(w[1]); break;
      case kOpVariable:
        if (words >= 4 && w[3] == kStorageWorkgroup && pointee.count(w[1])) d.shared_bytes += size_of(pointee[w[1]]);
        if (words >= 4 && w[3] == kStorageUniformConstant && pointee.count(w[1]) && texel_types.count(pointee[w[1]]))
          texel_variables.insert(w[2]);
        break;
      default: break;
    }
    at += words;
  }
  for (uint32_t v : texel_variables)
    if (binding.count(v)) d.texel_bindings.push_back(binding[v]);
  std::sort(d.texel_bindings.begin(), d.texel_bindings.end());
  return d;
}

Status CheckKernelFits(const KernelDemands& demands, const TargetFeatures& target, const std::string& kernel) {
  if (demands.invocations() > target.max_workgroup_invocations)
    return ResourceExhausted(kernel + ": a workgroup of " + std::to_string(demands.local_size[0]) + "x" +
                             std::to_string(demands.local_size[1]) + "x" + std::to_string(demands.local_size[2]) +
                             " invocations exceeds " + target.device_name + "'s maxComputeWorkGroupInvocations (" +
                             std::to_string(target.max_workgroup_invocations) + ")");
  if (demands.shared_bytes > target.max_shared_memory_bytes)
    return ResourceExhausted(kernel + ": " + std::to_string(demands.shared_bytes) + " bytes of shared memory exceed " +
                             target.device_name + "'s maxComputeSharedMemorySize (" +
                             std::to_string(target.max_shared_memory_bytes) + ")");
  return OkStatus();
}

}  // namespace vkxla
