// The capability table of one Vulkan device; VKXLA_MASK, which hides
// features from the code generator, and VKXLA_PROFILE=mobile, which also
// lowers the limits, so a capable device can stand in for a phone.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <string>

#include "plan/target_features.h"
#include "vkxla/status.h"

namespace vkxla {

// "1.3.255": a packed Vulkan version (VK_MAKE_API_VERSION) as people read it.
std::string VulkanVersionString(uint32_t version);

struct DeviceInfo {
  uint32_t index = 0;
  std::string name, driver_name, driver_info, type;
  uint32_t api_version = 0, vendor_id = 0, device_id = 0;
  std::array<uint8_t, VK_UUID_SIZE> pipeline_cache_uuid{};
  // What the hardware offers, and what codegen may use (after the mask).
  TargetFeatures hardware, target;
  bool storage_16bit = false, storage_8bit = false;
  bool timeline_semaphore = false, synchronization2 = false, cooperative_matrix = false;
  uint32_t subgroup_operations = 0;  // VkSubgroupFeatureFlags
  std::string masked;                // features VKXLA_MASK hid
  std::string profile;               // VKXLA_PROFILE applied ("mobile"), if any

  std::string Table() const;         // human-readable, for `vkxla devices`
};

// instance: for the extension queries that go through it.
DeviceInfo QueryDeviceInfo(VkInstance instance, VkPhysicalDevice device, uint32_t index);
// Applies a comma-separated mask ("f64,i64,f16,int8,subgroup,atomicf32"); an unknown
// name is an error.
Status ApplyMask(const std::string& mask, DeviceInfo& info);
// Applies a device profile's features and limits on top of the hardware's:
// "mobile" (VKXLA_PROFILE=mobile) is a typical phone; an unknown name is an
// error.
Status ApplyProfile(const std::string& profile, DeviceInfo& info);
// VKXLA_F64: "soft" (doubles as IEEE binary64 in software, also where the
// device has shaderFloat64) or "pairs" (as pairs of f32: faster, about 48
// bits and f32's exponent range; TargetFeatures::float64_pairs); "" leaves
// the device's own doubles, or software ones where it has none.
Status ApplyFloat64Form(const std::string& form, DeviceInfo& info);
// Sets the watchdog budget of one submission (VKXLA_SUBMISSION_BUDGET_MS,
// milliseconds); empty leaves the default, anything but a positive number
// is an error.
Status ApplySubmissionBudget(const std::string& milliseconds, DeviceInfo& info);
// Sets the staged GPU matmul's tuning (VKXLA_MATMUL_TILES=m,n,k,groups:
// invocations along m and n, slice depth, split-K's workgroup aim; see
// TargetFeatures::MatmulTuning); empty leaves the plan's choice.
Status ApplyMatmulTuning(const std::string& tiles, DeviceInfo& info);

}  // namespace vkxla
