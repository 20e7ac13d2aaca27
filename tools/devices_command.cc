#include "tools/devices_command.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "runtime/vulkan_context.h"
#include "tools/cli_flags.h"

namespace vkxla {
namespace {

nlohmann::ordered_json DeviceJson(const DeviceInfo& d) {
  const TargetFeatures& hw = d.hardware;
  const TargetFeatures& used = d.target;
  // Per feature: whether the hardware has it and whether codegen uses it
  // (VKXLA_MASK can hide what the hardware has).
  auto feature = [](bool has, bool uses) { return nlohmann::ordered_json{{"hardware", has}, {"used", uses}}; };
  return {
      {"index", d.index},
      {"name", d.name},
      {"type", d.type},
      {"driver", d.driver_name + (d.driver_info.empty() ? "" : " " + d.driver_info)},
      {"api_version", VulkanVersionString(d.api_version)},
      {"vendor_id", d.vendor_id},
      {"device_id", d.device_id},
      {"kernels_shaped_for", used.cpu ? "cpu" : "gpu"},
      {"subgroup_size", hw.subgroup_size},
      {"max_storage_buffer_range", hw.max_storage_buffer_range},
      {"max_workgroup_invocations", hw.max_workgroup_invocations},
      {"features",
       {{"float64", feature(hw.float64, used.float64)},
        // Without it, doubles run in software (IEEE binary64 on word pairs).
        {"float64_emulated", !used.float64},
        {"int64", feature(hw.int64, used.int64)},
        // Without it, 64-bit integers run as pairs of 32-bit words.
        {"int64_emulated", !used.int64},
        {"float16", feature(hw.float16, used.float16)},
        {"int8", feature(hw.int8, used.int8)},
        {"subgroup_arithmetic", feature(hw.subgroup_arithmetic, used.subgroup_arithmetic)},
        {"subgroup_broadcast", feature(hw.subgroup_broadcast, used.subgroup_broadcast)},
        {"float32_atomic_add", feature(hw.float32_atomic_add, used.float32_atomic_add)},
        {"int64_atomics", feature(hw.int64_atomics, used.int64_atomics)},
        {"buffer_device_address", feature(hw.buffer_device_address, used.buffer_device_address)},
        {"storage_16bit", d.storage_16bit},
        {"storage_8bit", d.storage_8bit},
        {"timeline_semaphore", d.timeline_semaphore},
        {"synchronization2", d.synchronization2},
        {"cooperative_matrix", d.cooperative_matrix},
        {"cooperative_matrix_f16", feature(hw.cooperative_matrix_f16, used.cooperative_matrix_f16)},
        {"texel_buffer_reads", feature(hw.max_texel_buffer_elements > 0, used.max_texel_buffer_elements > 0)},
        {"exact_div_sqrt", feature(hw.exact_div_sqrt, used.exact_div_sqrt)}}},
      {"float_controls",
       {{"denorm_preserve_widths", nlohmann::ordered_json(FloatControls::Widths(used.float_controls.denorm_preserve))},
        {"signed_zero_inf_nan_preserve_widths", nlohmann::ordered_json(FloatControls::Widths(used.float_controls.signed_zero_inf_nan_preserve))},
        {"rounding_rte_widths", nlohmann::ordered_json(FloatControls::Widths(used.float_controls.rounding_rte))},
        {"no_contraction", used.float_controls.no_contraction}}},
      {"masked", d.masked},
  };
}

}  // namespace

void AddDevicesCommand(CLI::App& app, int& exit_code) {
  CLI::App* command = AddCommand(app, "devices", "List the Vulkan devices: name, driver, API version, capabilities");
  auto json = std::make_shared<bool>(false);
  command->add_flag("--json", *json, "print a JSON array instead of the tables");
  command->callback([json, &exit_code] {
    StatusOr<VulkanContext*> context = VulkanContext::Get();
    if (!context.ok()) {
      exit_code = ReportError("devices", context.status());
      return;
    }
    if (*json) {
      nlohmann::ordered_json all = nlohmann::ordered_json::array();
      for (const DeviceInfo& d : (*context)->device_infos()) all.push_back(DeviceJson(d));
      std::cout << all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      for (const DeviceInfo& d : (*context)->device_infos()) std::cout << d.Table();
    }
    exit_code = kExitOk;
  });
}

}  // namespace vkxla
