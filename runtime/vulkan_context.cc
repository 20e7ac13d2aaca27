#include "runtime/vulkan_context.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "ir/numbers.h"
#include "runtime/vk_check.h"

namespace vkxla {

std::string VkResultName(VkResult r) {
  switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    default: return "VkResult(" + std::to_string(static_cast<int>(r)) + ")";
  }
}

VKAPI_ATTR VkBool32 VKAPI_CALL VulkanContext::OnMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                        VkDebugUtilsMessageTypeFlagsEXT,
                                                        const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* self = static_cast<VulkanContext*>(user);
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    const std::string message = data->pMessage ? data->pMessage : "";
    {
      std::lock_guard<std::mutex> lock(self->message_mu_);  // drivers call back from any thread
      self->last_message_ = message;
    }
    self->messages_++;
    std::fprintf(stderr, "[vulkan validation] %s\n", message.c_str());
  }
  return VK_FALSE;
}

StatusOr<VulkanContext*> VulkanContext::Get() {
  static std::once_flag once;
  static VulkanContext* context = nullptr;
  static Status error;
  std::call_once(once, [] {
    auto ctx = std::unique_ptr<VulkanContext>(new VulkanContext());
    const char* v = std::getenv("VKXLA_VALIDATION");
    ctx->validation_ = v && std::string(v) == "1";
    std::vector<const char*> layers, extensions;
    if (ctx->validation_) {
      uint32_t n = 0;
      vkEnumerateInstanceLayerProperties(&n, nullptr);
      std::vector<VkLayerProperties> available(n);
      vkEnumerateInstanceLayerProperties(&n, available.data());
      bool found = false;
      for (const auto& l : available) found |= std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0;
      if (!found) {
        error = FailedPrecondition("VKXLA_VALIDATION=1 but VK_LAYER_KHRONOS_validation is not installed (Debian: vulkan-validationlayers)");
        return;
      }
      layers.push_back("VK_LAYER_KHRONOS_validation");
      extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
    uint32_t api = VK_API_VERSION_1_1;
    vkEnumerateInstanceVersion(&api);  // the 1.1+ loader we link always has it
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkxla";
    app.apiVersion = api >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : api;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
    ci.ppEnabledLayerNames = layers.data();
    ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    ci.ppEnabledExtensionNames = extensions.data();
    VkResult r = vkCreateInstance(&ci, nullptr, &ctx->instance_);
    if (r != VK_SUCCESS) {
      error = VkStatus(r, "vkCreateInstance").WithContext("no Vulkan driver? (Debian: mesa-vulkan-drivers)");
      return;
    }
    if (ctx->validation_) {
      VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
      mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
      mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
      mi.pfnUserCallback = &VulkanContext::OnMessage;
      mi.pUserData = ctx.get();
      auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(ctx->instance_, "vkCreateDebugUtilsMessengerEXT"));
      if (create) create(ctx->instance_, &mi, nullptr, &ctx->messenger_);
    }
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(ctx->instance_, &count, nullptr);
    ctx->devices_.resize(count);
    vkEnumeratePhysicalDevices(ctx->instance_, &count, ctx->devices_.data());
    if (count == 0) {
      error = FailedPrecondition("no Vulkan device found (for a CPU device install Debian's mesa-vulkan-drivers)");
      return;
    }
    const char* mask = std::getenv("VKXLA_MASK");
    const char* f64 = std::getenv("VKXLA_F64");
    const char* profile = std::getenv("VKXLA_PROFILE");
    const char* budget = std::getenv("VKXLA_SUBMISSION_BUDGET_MS");
    const char* tiles = std::getenv("VKXLA_MATMUL_TILES");
    for (uint32_t i = 0; i < count; ++i) {
      DeviceInfo info = QueryDeviceInfo(ctx->instance_, ctx->devices_[i], i);
      Status s = ApplyProfile(profile ? profile : "", info);
      if (s.ok() && mask) s = ApplyMask(mask, info);
      if (s.ok()) s = ApplyFloat64Form(f64 ? f64 : "", info);
      if (s.ok()) s = ApplySubmissionBudget(budget ? budget : "", info);
      if (s.ok()) s = ApplyMatmulTuning(tiles ? tiles : "", info);
      if (!s.ok()) {
        error = s;
        return;
      }
      ctx->infos_.push_back(std::move(info));
    }
    context = ctx.release();  // lives for the process: devices outlive any caller
  });
  if (!context) return error;
  return context;
}

VulkanContext::~VulkanContext() {
  if (messenger_) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(instance_, messenger_, nullptr);
  }
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

StatusOr<uint32_t> VulkanContext::ResolveDeviceIndex(int requested) const {
  int index = requested;
  if (index < 0) {
    const char* env = std::getenv("VKXLA_DEVICE");
    const std::optional<int64_t> parsed = env ? ParseInt64(env) : std::optional<int64_t>(0);
    if (!parsed || *parsed < 0 || *parsed > 1 << 20)
      return InvalidArgument(std::string("VKXLA_DEVICE=") + env + " is not a device index (see `vkxla devices`)");
    index = static_cast<int>(*parsed);
  }
  if (index < 0 || index >= static_cast<int>(devices_.size()))
    return InvalidArgument("device " + std::to_string(index) + " does not exist; this machine has " +
                           std::to_string(devices_.size()) + " Vulkan device(s) (see `vkxla devices`)");
  return static_cast<uint32_t>(index);
}

}  // namespace vkxla
