#include "runtime/capabilities.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <vector>

#include "ir/numbers.h"

namespace vkxla {

std::string VulkanVersionString(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

namespace {

bool HasExtension(VkPhysicalDevice d, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(d, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  vkEnumerateDeviceExtensionProperties(d, nullptr, &n, exts.data());
  for (const auto& e : exts)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

// The modes a kernel may declare. Where widths are not independent, a mode
// is kept only if all three widths honour it (it is then declared for all).
FloatControls FloatControlsOf(const VkPhysicalDeviceFloatControlsProperties& p) {
  FloatControls c;
  auto bits = [](VkBool32 w16, VkBool32 w32, VkBool32 w64) {
    return static_cast<uint8_t>((w16 ? FloatControls::Bit(16) : 0) | (w32 ? FloatControls::Bit(32) : 0) | (w64 ? FloatControls::Bit(64) : 0));
  };
  c.independent_widths = p.denormBehaviorIndependence == VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL &&
                         p.roundingModeIndependence == VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
  auto keep = [&](uint8_t b) { return c.independent_widths || b == 7 ? b : uint8_t{0}; };
  c.denorm_preserve = keep(bits(p.shaderDenormPreserveFloat16, p.shaderDenormPreserveFloat32, p.shaderDenormPreserveFloat64));
  c.signed_zero_inf_nan_preserve = keep(bits(p.shaderSignedZeroInfNanPreserveFloat16, p.shaderSignedZeroInfNanPreserveFloat32,
                                             p.shaderSignedZeroInfNanPreserveFloat64));
  c.rounding_rte = keep(bits(p.shaderRoundingModeRTEFloat16, p.shaderRoundingModeRTEFloat32, p.shaderRoundingModeRTEFloat64));
  return c;
}

std::string WidthList(uint8_t mask) {
  std::string s;
  for (uint32_t w : FloatControls::Widths(mask)) s += (s.empty() ? "" : ",") + std::to_string(w);
  return s.empty() ? "none" : s;
}

// VK_NV_cooperative_matrix offering a 16 x 16 x 16 product of f16 operands
// into f32 per subgroup, and the features its kernels need.
bool HasF16CooperativeMatrix(VkInstance instance, VkPhysicalDevice device, bool vk12, uint32_t subgroup_size) {
  if (!vk12 || subgroup_size != 32 || !HasExtension(device, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME)) return false;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coop{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceVulkanMemoryModelFeatures model{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES, &coop};
  VkPhysicalDeviceShaderFloat16Int8Features f16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES, &model};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f16};
  vkGetPhysicalDeviceFeatures2(device, &features);
  // Device scope too: enabling the memory model subjects every kernel to
  // it, and the atomics of scatters and sorts use Device scope
  // (VUID-RuntimeSpirv-vulkanMemoryModel-06265 on the H200 without it).
  if (!coop.cooperativeMatrix || !model.vulkanMemoryModel || !model.vulkanMemoryModelDeviceScope || !f16.shaderFloat16) return false;
  auto get = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (!get) return false;
  uint32_t n = 0;
  if (get(device, &n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkCooperativeMatrixPropertiesNV> shapes(n, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
  if (get(device, &n, shapes.data()) != VK_SUCCESS) return false;
  for (const auto& s : shapes)
    if (s.MSize == 16 && s.NSize == 16 && s.KSize == 16 && s.AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
        s.BType == VK_COMPONENT_TYPE_FLOAT16_NV && s.CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
        s.DType == VK_COMPONENT_TYPE_FLOAT32_NV && s.scope == VK_SCOPE_SUBGROUP_NV)
      return true;
  return false;
}

}  // namespace

DeviceInfo QueryDeviceInfo(VkInstance instance, VkPhysicalDevice device, uint32_t index) {
  DeviceInfo info;
  info.index = index;
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(device, &props);
  info.name = props.deviceName;
  info.api_version = props.apiVersion;
  info.vendor_id = props.vendorID;
  info.device_id = props.deviceID;
  std::memcpy(info.pipeline_cache_uuid.data(), props.pipelineCacheUUID, VK_UUID_SIZE);
  switch (props.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: info.type = "discrete GPU"; break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: info.type = "integrated GPU"; break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: info.type = "CPU"; break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: info.type = "virtual GPU"; break;
    default: info.type = "other"; break;
  }

  VkPhysicalDeviceFloatControlsProperties float_controls{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES, &float_controls};
  VkPhysicalDeviceMaintenance3Properties maintenance3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, &driver};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, &maintenance3};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
  const bool vk12 = props.apiVersion >= VK_API_VERSION_1_2;
  if (!vk12) maintenance3.pNext = nullptr;
  vkGetPhysicalDeviceProperties2(device, &props2);
  info.driver_name = vk12 ? driver.driverName : "unknown";
  info.driver_info = vk12 ? driver.driverInfo : "";
  info.subgroup_operations = subgroup.supportedOperations;

  VkPhysicalDeviceShaderFloat16Int8Features f16i8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES, &f16i8};
  VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES, &s16};
  VkPhysicalDeviceShaderAtomicInt64Features atomic64{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES, &s8};
  VkPhysicalDeviceBufferDeviceAddressFeatures address{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES, &atomic64};
  VkPhysicalDeviceTimelineSemaphoreFeatures timeline{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES, &address};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, vk12 ? static_cast<void*>(&timeline) : static_cast<void*>(&s16)};
  // Float atomics come from an extension; chained only where it is offered.
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  const bool has_atomic_float = HasExtension(device, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  if (has_atomic_float) {
    atomic_float.pNext = features.pNext;
    features.pNext = &atomic_float;
  }
  vkGetPhysicalDeviceFeatures2(device, &features);

  TargetFeatures& hw = info.hardware;
  hw.device_name = info.name;
  hw.cpu = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  hw.float64 = features.features.shaderFloat64;
  hw.int64 = features.features.shaderInt64;
  hw.float16 = vk12 && f16i8.shaderFloat16;
  hw.int8 = vk12 && f16i8.shaderInt8;
  hw.subgroup_size = subgroup.subgroupSize;
  hw.float32_atomic_add = has_atomic_float && atomic_float.shaderBufferFloat32AtomicAdd;
  hw.int64_atomics = vk12 && hw.int64 && atomic64.shaderBufferInt64Atomics;
  hw.buffer_device_address = vk12 && address.bufferDeviceAddress;
  hw.subgroup_arithmetic = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) &&
                           (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
  hw.subgroup_broadcast = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT) &&
                          (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
  if (vk12) hw.float_controls = FloatControlsOf(float_controls);
  hw.float_controls.no_contraction = true;
  hw.cooperative_matrix_f16 = HasF16CooperativeMatrix(instance, device, vk12, subgroup.subgroupSize);
  hw.max_workgroup_invocations = props.limits.maxComputeWorkGroupInvocations;
  hw.max_workgroup_count_x = props.limits.maxComputeWorkGroupCount[0];
  hw.max_storage_buffer_range = props.limits.maxStorageBufferRange;
  hw.max_shared_memory_bytes = props.limits.maxComputeSharedMemorySize;
  hw.min_storage_buffer_offset_alignment = static_cast<uint32_t>(props.limits.minStorageBufferOffsetAlignment);
  // CPU drivers read operand vectors through texel views of the bindings
  // (TargetFeatures::max_texel_buffer_elements); slices of an arena then
  // start where a view may (both alignments are powers of two).
  if (hw.cpu && props.limits.maxTexelBufferElements > 0) {
    hw.max_texel_buffer_elements = props.limits.maxTexelBufferElements;
    hw.min_storage_buffer_offset_alignment =
        std::max(hw.min_storage_buffer_offset_alignment, static_cast<uint32_t>(props.limits.minTexelBufferOffsetAlignment));
  }
  // llvmpipe's division and square root are LLVM's, correctly rounded
  // (TargetFeatures::exact_div_sqrt). Named by driver, not by device type:
  // other CPU drivers may approximate.
  const bool llvmpipe = vk12 && driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  hw.exact_div_sqrt = llvmpipe;
  hw.exact_half_widen = llvmpipe;  // TargetFeatures::exact_half_widen
  // Where calls of the software-double library are known to compile right
  // (TargetFeatures::soft_float_calls); a driver's trait, kept by profiles.
  hw.soft_float_calls = llvmpipe;
  hw.literal_zeros_folded = llvmpipe;  // a driver's trait, kept by profiles
  // f32 subnormals: kept where DenormPreserve for 32 bits is declared
  // (codegen/spirv_float_controls.h), and by llvmpipe unasked; flushed by
  // the others' arithmetic (TargetFeatures::f32_subnormals_kept).
  hw.f32_subnormals_kept = llvmpipe || (hw.float_controls.denorm_preserve & FloatControls::Bit(32)) != 0;
  hw.max_memory_allocation_size = maintenance3.maxMemoryAllocationSize;
  hw.vulkan_api_version = props.apiVersion;
  // Throughput for the watchdog estimates (plan/submission_split.h):
  // conservative for the device's kind, so submissions err short.
  if (props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
    hw.estimated_bytes_per_second = 2e11;
    hw.estimated_ops_per_second = 5e12;
  } else if (props.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU) {
    hw.estimated_bytes_per_second = 2e10;
    hw.estimated_ops_per_second = 3e11;
  }
  info.storage_16bit = s16.storageBuffer16BitAccess;
  info.storage_8bit = vk12 && s8.storageBuffer8BitAccess;
  info.timeline_semaphore = vk12 && timeline.timelineSemaphore;
  info.synchronization2 = HasExtension(device, "VK_KHR_synchronization2");
  info.cooperative_matrix = HasExtension(device, "VK_KHR_cooperative_matrix") || HasExtension(device, "VK_NV_cooperative_matrix");
  info.target = hw;
  return info;
}

Status ApplyMask(const std::string& mask, DeviceInfo& info) {
  std::stringstream ss(mask);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    if (item == "f64") info.target.float64 = false;
    else if (item == "i64") { info.target.int64 = false; info.target.int64_atomics = false; }
    else if (item == "f16") info.target.float16 = false;
    else if (item == "int8") info.target.int8 = false;
    else if (item == "subgroup") {
      info.target.subgroup_arithmetic = info.target.subgroup_broadcast = false;
      info.target.subgroup_size = 1;
    }
    else if (item == "atomicf32") info.target.float32_atomic_add = false;
    else if (item == "atomici64") info.target.int64_atomics = false;
    else if (item == "address") info.target.buffer_device_address = false;
    else if (item == "floatcontrols") {
      // Kept only by the modes masked here: flushed now.
      if (info.target.float_controls.denorm_preserve & FloatControls::Bit(32)) info.target.f32_subnormals_kept = false;
      info.target.float_controls = FloatControls{};
    }
    else if (item == "coopmat") info.target.cooperative_matrix_f16 = false;
    else if (item == "texel") info.target.max_texel_buffer_elements = 0;
    else if (item == "exactdiv") info.target.exact_div_sqrt = false;
    else if (item == "halfwiden") info.target.exact_half_widen = false;
    else return InvalidArgument("VKXLA_MASK: unknown feature '" + item + "'; known: f64, i64, f16, int8, subgroup, atomicf32, atomici64, address, floatcontrols, coopmat, texel, exactdiv, halfwiden");
    info.masked += (info.masked.empty() ? "" : ",") + item;
  }
  if (!info.masked.empty())
    info.target.device_name = info.name + (info.profile.empty() ? "" : " (profile: " + info.profile + ")") + " (masked: " + info.masked + ")";
  return OkStatus();
}

Status ApplyFloat64Form(const std::string& form, DeviceInfo& info) {
  if (form.empty()) return OkStatus();
  if (form != "soft" && form != "pairs") return InvalidArgument("VKXLA_F64: unknown form '" + form + "'; known: soft, pairs");
  info.target.float64 = false;
  info.target.float64_pairs = form == "pairs";
  info.target.device_name += " (f64: " + form + ")";
  return OkStatus();
}

Status ApplyProfile(const std::string& profile, DeviceInfo& info) {
  if (profile.empty()) return OkStatus();
  if (profile == "desktop") {
    // A desktop GPU's kernel shapes with the device's own features: on
    // lavapipe, the GPU paths with 64-bit types and subgroup arithmetic,
    // which the phone profile hides.
    info.target.cpu = false;
    info.target.max_texel_buffer_elements = 0;  // a GPU's reads
    info.target.exact_div_sqrt = false;         // and its corrected quotients
    info.target.exact_half_widen = false;       // and its f16 decoding
    info.profile = profile;
    info.target.device_name = info.name + " (profile: " + profile + ")";
    return OkStatus();
  }
  if (profile != "mobile") return InvalidArgument("VKXLA_PROFILE: unknown profile '" + profile + "'; known: mobile, desktop");
  // A typical Mali/Adreno phone: no 64-bit or small-type arithmetic, a 128
  // MiB binding, 16 KiB of shared memory, workgroups of at most 256, a GPU. Its
  // subgroups (often 16 wide) cannot be imitated on a device whose width
  // differs, so subgroup operations are hidden as VKXLA_MASK=subgroup does.
  VKXLA_RETURN_IF_ERROR(ApplyMask("f64,i64,f16,int8,subgroup,atomicf32,coopmat,texel,exactdiv,halfwiden", info));
  TargetFeatures& t = info.target;
  t.max_storage_buffer_range = std::min<uint64_t>(t.max_storage_buffer_range, uint64_t{128} << 20);
  t.max_shared_memory_bytes = std::min<uint32_t>(t.max_shared_memory_bytes, 16384);
  t.max_workgroup_invocations = std::min<uint32_t>(t.max_workgroup_invocations, 256);
  t.max_memory_allocation_size = std::min<uint64_t>(t.max_memory_allocation_size, uint64_t{1} << 30);
  // A phone is a GPU: plan its kernel shapes (many short invocations), so
  // that this profile runs the GPU configurations on lavapipe too.
  t.cpu = false;
  // Phones' arithmetic flushes f32 subnormals: the math library's operands
  // are flushed as there (the driver's own arithmetic keeps what it keeps).
  t.f32_subnormals_kept = false;
  info.profile = profile;
  t.device_name = info.name + " (profile: " + profile + ")";
  return OkStatus();
}

Status ApplySubmissionBudget(const std::string& milliseconds, DeviceInfo& info) {
  if (milliseconds.empty()) return OkStatus();
  const std::optional<double> ms = ParseDouble(milliseconds);
  if (!ms || !(*ms > 0) || !std::isfinite(*ms))
    return InvalidArgument("VKXLA_SUBMISSION_BUDGET_MS: expected a positive number of milliseconds, found '" + milliseconds + "'");
  info.target.submission_budget_ms = *ms;
  return OkStatus();
}

Status ApplyMatmulTuning(const std::string& tiles, DeviceInfo& info) {
  if (tiles.empty()) return OkStatus();
  std::vector<int64_t> values;
  std::stringstream in(tiles);
  for (std::string item; std::getline(in, item, ',');) {
    const std::optional<int64_t> v = ParseInt64(item);
    if (!v || *v < 0 || *v > 65536) break;
    values.push_back(*v);
  }
  // Invocations along m and n powers of two (tiles of 8 x 8 blocks, 1024 at
  // most), slices of 4, 8 or 16 steps.
  auto power_of_two = [](int64_t v) { return v > 0 && (v & (v - 1)) == 0; };
  // Each invocation stores whole vectors of both slices: the invocations
  // along m and n each divide twice the slice's steps.
  if (values.size() != 4 || !power_of_two(values[0]) || !power_of_two(values[1]) || values[0] * values[1] > 1024 ||
      values[0] * values[1] < 32 || (values[2] != 4 && values[2] != 8 && values[2] != 16) || values[3] < 1 ||
      values[0] > 2 * values[2] || values[1] > 2 * values[2])
    return InvalidArgument("VKXLA_MATMUL_TILES: expected threads_m,threads_n,tile_k,groups (powers of two with 32 to 1024 "
                           "invocations, each at most twice the slice's steps, a slice of 4, 8 or 16 steps, at least one "
                           "workgroup), found '" + tiles + "'");
  info.target.matmul_tuning = {static_cast<int>(values[0]), static_cast<int>(values[1]), static_cast<int>(values[2]),
                               static_cast<int>(values[3])};
  return OkStatus();
}

std::string DeviceInfo::Table() const {
  std::ostringstream o;
  auto yn = [](bool hw, bool used) { return std::string(hw ? "yes" : "no") + (hw && !used ? " (masked)" : ""); };
  o << "device " << index << ": " << name << " (" << type << ")\n"
    << "  driver: " << driver_name << " " << driver_info << "\n"
    << "  Vulkan API: " << VulkanVersionString(api_version) << "\n"
    << "  kernels shaped for: " << (target.cpu ? "a CPU" : "a GPU") << (target.cpu != hardware.cpu ? " (profile " + profile + ")" : "") << "\n"
    << "  subgroup size: " << hardware.subgroup_size << ", subgroup arithmetic: "
    << yn(hardware.subgroup_arithmetic, target.subgroup_arithmetic) << (target.subgroup_arithmetic ? "" : " (shared-memory trees)")
    << ", subgroup broadcast: " << yn(hardware.subgroup_broadcast, target.subgroup_broadcast)
    << ", f32 atomic add: " << yn(hardware.float32_atomic_add, target.float32_atomic_add)
    << ", 64-bit atomics: " << yn(hardware.int64_atomics, target.int64_atomics) << "\n"
    << "  f64: " << yn(hardware.float64, target.float64) << (target.float64 ? "" : target.float64_pairs ? " (emulated: pairs of f32, VKXLA_F64=pairs)" : " (emulated: software floats)")
    << "  i64: " << yn(hardware.int64, target.int64)
    << (target.int64 ? "" : " (emulated: word pairs)")
    << "  f16: " << yn(hardware.float16, target.float16) << "  i8: " << yn(hardware.int8, target.int8)
    << "\n  16-bit storage: " << (storage_16bit ? "yes" : "no") << "  8-bit storage: " << (storage_8bit ? "yes" : "no")
    << " (neither is used: narrow types are packed in 32-bit words and computed in f32/i32)\n"
    << "  max storage buffer range: " << target.max_storage_buffer_range << " bytes"
    << (target.max_storage_buffer_range != hardware.max_storage_buffer_range ? " (profile " + profile + ")" : "")
    << "; larger arrays through device addresses: " << yn(hardware.buffer_device_address, target.buffer_device_address) << "\n"
    << "  kernel inputs read through texel buffers: "
    << yn(hardware.max_texel_buffer_elements > 0, target.max_texel_buffer_elements > 0) << "\n"
    << "  division and square root correctly rounded: " << yn(hardware.exact_div_sqrt, target.exact_div_sqrt) << "\n"
    << "  f16 widened exactly by unpackHalf2x16: " << yn(hardware.exact_half_widen, target.exact_half_widen) << "\n"
    << "  float controls (widths): subnormals kept " << WidthList(target.float_controls.denorm_preserve)
    << ", signed zeros/inf/NaN kept " << WidthList(target.float_controls.signed_zero_inf_nan_preserve)
    << ", round to nearest even " << WidthList(target.float_controls.rounding_rte)
    << ", no fma contraction: " << (target.float_controls.no_contraction ? "yes" : "no")
    << (masked.find("floatcontrols") != std::string::npos ? " (masked)" : "") << "\n"
    << "  f32 subnormals: " << (target.f32_subnormals_kept ? "kept" : "flushed (the math library's operands too)") << "\n"
    << "  max workgroup invocations: " << target.max_workgroup_invocations
    << (target.max_workgroup_invocations != hardware.max_workgroup_invocations ? " (profile " + profile + ")" : "") << "\n"
    << "  max shared memory: " << target.max_shared_memory_bytes << " bytes"
    << (target.max_shared_memory_bytes != hardware.max_shared_memory_bytes ? " (profile " + profile + ")" : "") << "\n"
    << "  timeline semaphores: " << (timeline_semaphore ? "yes" : "no")
    << "  synchronization2: " << (synchronization2 ? "yes" : "no")
    << "  cooperative matrix: " << (cooperative_matrix ? "yes" : "no")
    << ", f16 16x16x16 products in f32 for matmul: " << yn(hardware.cooperative_matrix_f16, target.cooperative_matrix_f16) << "\n";
  return o.str();
}

}  // namespace vkxla
