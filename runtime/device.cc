#include "runtime/device.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "codegen/kernel_cache.h"
#include "runtime/live_objects.h"
#include "runtime/vk_check.h"
#include "runtime/vulkan_context.h"

namespace vkxla {
namespace {

// Saved pipeline caches start with this header so a driver never gets data
// from another device or driver version.
struct CacheHeader {
  uint32_t vendor_id, device_id, driver_version;
  uint8_t uuid[VK_UUID_SIZE];
};

std::string PipelineCachePath(const DeviceInfo& info) {
  std::string dir = KernelCache::Global().directory();
  if (dir.empty()) return "";
  return dir + "/pipelines-" + ContentHash(info.name + info.driver_info) + ".bin";
}

}  // namespace

StatusOr<std::unique_ptr<Device>> Device::Open(int index) {
  VKXLA_ASSIGN_OR_RETURN(VulkanContext * ctx, VulkanContext::Get());
  VKXLA_ASSIGN_OR_RETURN(uint32_t i, ctx->ResolveDeviceIndex(index));
  auto d = std::unique_ptr<Device>(new Device());
  d->info_ = ctx->device_infos()[i];
  d->physical_ = ctx->physical_devices()[i];
  vkGetPhysicalDeviceMemoryProperties(d->physical_, &d->memory_props_);

  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(d->physical_, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(d->physical_, &n, families.data());
  bool found = false;
  for (uint32_t f = 0; f < n && !found; ++f)
    if (families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      d->queue_family_ = f;
      found = true;
      VkPhysicalDeviceProperties props;
      vkGetPhysicalDeviceProperties(d->physical_, &props);
      if (families[f].timestampValidBits > 0) d->timestamp_period_ns_ = props.limits.timestampPeriod;
    }
  if (!found) return FailedPrecondition("device " + d->info_.name + " has no compute queue");

  const uint32_t queues = std::clamp<uint32_t>(families[d->queue_family_].queueCount, 1, kMaxQueues);
  const std::vector<float> priorities(queues, 1.0f);
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = d->queue_family_;
  qci.queueCount = queues;
  qci.pQueuePriorities = priorities.data();
  // Enable exactly what the hardware has; codegen decides what it uses.
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.features.shaderFloat64 = d->info_.hardware.float64;
  features.features.shaderInt64 = d->info_.hardware.int64;
  features.features.shaderInt16 = VK_FALSE;
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  std::vector<const char*> extensions;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  if (d->info_.hardware.float32_atomic_add) {
    atomic_float.shaderBufferFloat32AtomicAdd = VK_TRUE;
    features.pNext = &atomic_float;
    extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  }
  // 64-bit atomics are core in Vulkan 1.2; chained only where offered.
  VkPhysicalDeviceShaderAtomicInt64Features atomic64{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
  if (d->info_.hardware.int64_atomics) {
    atomic64.shaderBufferInt64Atomics = VK_TRUE;
    atomic64.pNext = features.pNext;
    features.pNext = &atomic64;
  }
  // Device addresses reach arrays past the binding range (plan/buffer_assignment.h).
  VkPhysicalDeviceBufferDeviceAddressFeatures address{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  if (d->info_.hardware.buffer_device_address) {
    address.bufferDeviceAddress = VK_TRUE;
    address.pNext = features.pNext;
    features.pNext = &address;
  }
  // f16 cooperative matrices (plan/matmul_config.h): the extension, f16
  // arithmetic and the Vulkan memory model their kernels declare.
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coop{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceVulkanMemoryModelFeatures model{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features f16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  if (d->info_.hardware.cooperative_matrix_f16) {
    coop.cooperativeMatrix = VK_TRUE;
    model.vulkanMemoryModel = VK_TRUE;
    model.vulkanMemoryModelDeviceScope = VK_TRUE;  // every kernel's Device-scope atomics fall under the model
    f16.shaderFloat16 = VK_TRUE;
    coop.pNext = &model;
    model.pNext = &f16;
    f16.pNext = features.pNext;
    features.pNext = &coop;
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  }
  dci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  dci.ppEnabledExtensionNames = extensions.data();
  dci.pNext = &features;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  VKXLA_VK_RETURN_IF_ERROR(vkCreateDevice(d->physical_, &dci, nullptr, &d->device_));
  vkGetDeviceQueue(d->device_, d->queue_family_, 0, &d->queue_);

  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = d->queue_family_;
  VKXLA_VK_RETURN_IF_ERROR(vkCreateCommandPool(d->device_, &pci, nullptr, &d->pool_));
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VKXLA_VK_RETURN_IF_ERROR(vkCreateFence(d->device_, &fci, nullptr, &d->fence_));
  for (uint32_t q = 1; q < queues; ++q) {
    auto extra = std::make_unique<ExtraQueue>();
    vkGetDeviceQueue(d->device_, d->queue_family_, q, &extra->queue);
    VKXLA_VK_RETURN_IF_ERROR(vkCreateFence(d->device_, &fci, nullptr, &extra->fence));
    d->extra_queues_.push_back(std::move(extra));
  }

  // Reuse a saved pipeline cache only if its header matches this device.
  std::vector<char> initial;
  const std::string path = PipelineCachePath(d->info_);
  if (!path.empty()) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CacheHeader want{d->info_.vendor_id, d->info_.device_id, 0, {}};
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(d->physical_, &props);
    want.driver_version = props.driverVersion;
    std::memcpy(want.uuid, d->info_.pipeline_cache_uuid.data(), VK_UUID_SIZE);
    if (data.size() > sizeof(CacheHeader) && std::memcmp(data.data(), &want, sizeof want) == 0)
      initial.assign(data.begin() + sizeof(CacheHeader), data.end());
  }
  VkPipelineCacheCreateInfo cci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  cci.initialDataSize = initial.size();
  cci.pInitialData = initial.empty() ? nullptr : initial.data();
  VKXLA_VK_RETURN_IF_ERROR(vkCreatePipelineCache(d->device_, &cci, nullptr, &d->pipeline_cache_));
  return d;
}

Device::~Device() {
  if (!device_) return;
  vkDeviceWaitIdle(device_);
  (void)SavePipelineCache();
  vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
  vkDestroyFence(device_, fence_, nullptr);
  for (const auto& q : extra_queues_) vkDestroyFence(device_, q->fence, nullptr);
  vkDestroyCommandPool(device_, pool_, nullptr);
  vkDestroyDevice(device_, nullptr);
}

Status Device::SavePipelineCache() {
  const std::string path = PipelineCachePath(info_);
  if (path.empty() || !pipeline_cache_) return OkStatus();
  size_t size = 0;
  VKXLA_VK_RETURN_IF_ERROR(vkGetPipelineCacheData(device_, pipeline_cache_, &size, nullptr));
  std::vector<char> data(size);
  VKXLA_VK_RETURN_IF_ERROR(vkGetPipelineCacheData(device_, pipeline_cache_, &size, data.data()));
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  CacheHeader h{info_.vendor_id, info_.device_id, props.driverVersion, {}};
  std::memcpy(h.uuid, info_.pipeline_cache_uuid.data(), VK_UUID_SIZE);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp";
  std::ofstream out(tmp, std::ios::binary);
  if (!out) return OkStatus();  // a read-only cache folder only costs speed
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  out.write(data.data(), static_cast<std::streamsize>(size));
  out.close();
  std::filesystem::rename(tmp, path, ec);
  return OkStatus();
}

StatusOr<uint32_t> Device::FindMemoryType(uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer) {
  int best = -1;
  for (uint32_t i = 0; i < memory_props_.memoryTypeCount; ++i) {
    if (!(bits & (1u << i))) continue;
    VkMemoryPropertyFlags f = memory_props_.memoryTypes[i].propertyFlags;
    if ((f & want) != want) continue;
    if ((f & prefer) == prefer) return i;
    if (best < 0) best = static_cast<int>(i);
  }
  if (best < 0) return ResourceExhausted("no suitable Vulkan memory type on " + info_.name);
  return static_cast<uint32_t>(best);
}

StatusOr<Buffer> Device::CreateBuffer(uint64_t size, Memory memory) {
  VKXLA_RETURN_IF_ERROR(CheckUsable());
  // Whole uvec4s: kernels read and write aligned vectors of four words.
  size = std::max<uint64_t>(16, (size + 15) / 16 * 16);
  Buffer b;
  b.device_ = device_;
  b.size_ = size;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = size;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
              VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  // Texel views of the bindings read operand vectors on CPU drivers.
  if (info_.hardware.max_texel_buffer_elements > 0) bci.usage |= VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
  const bool addressable = info_.hardware.buffer_device_address;
  if (addressable) bci.usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VKXLA_VK_RETURN_IF_ERROR(vkCreateBuffer(device_, &bci, nullptr, &b.buffer_));
  CountVulkanObject(VulkanObject::kBuffer, 1);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, b.buffer_, &req);
  VkMemoryPropertyFlags want = memory == Memory::kHostVisible
                                   ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                   : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  VkMemoryPropertyFlags prefer = memory == Memory::kHostVisible ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : 0;
  VKXLA_ASSIGN_OR_RETURN(uint32_t type, FindMemoryType(req.memoryTypeBits, want, prefer));
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  if (addressable) mai.pNext = &flags;
  const VkResult allocated = vkAllocateMemory(device_, &mai, nullptr, &b.memory_);
  if (allocated == VK_ERROR_OUT_OF_DEVICE_MEMORY || allocated == VK_ERROR_OUT_OF_HOST_MEMORY) {
    const VkMemoryHeap& heap = memory_props_.memoryHeaps[memory_props_.memoryTypes[type].heapIndex];
    return ResourceExhausted("allocating " + std::to_string(req.size >> 20) + " MiB of " +
                             (memory == Memory::kHostVisible ? "host-visible" : "device-local") + " memory on " + info_.name +
                             " failed with " + VkResultName(allocated) + " (its heap holds " +
                             std::to_string(heap.size >> 20) + " MiB in all)");
  }
  VKXLA_VK_RETURN_IF_ERROR(allocated);
  CountVulkanObject(VulkanObject::kMemory, 1);
  VKXLA_VK_RETURN_IF_ERROR(vkBindBufferMemory(device_, b.buffer_, b.memory_, 0));
  if (memory == Memory::kHostVisible) VKXLA_VK_RETURN_IF_ERROR(vkMapMemory(device_, b.memory_, 0, VK_WHOLE_SIZE, 0, &b.mapped_));
  return b;
}

StatusOr<uint64_t> Device::DeviceAddress(const Buffer& b) const {
  if (!info_.hardware.buffer_device_address)
    return FailedPrecondition(info_.name + " lacks bufferDeviceAddress: an array past maxStorageBufferRange cannot be reached");
  VkBufferDeviceAddressInfo ai{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  ai.buffer = b.handle();
  return static_cast<uint64_t>(vkGetBufferDeviceAddress(device_, &ai));
}

StatusOr<VkCommandBuffer> Device::AllocateCommandBuffer() {
  VKXLA_RETURN_IF_ERROR(CheckUsable());
  std::lock_guard<std::recursive_mutex> lock(pool_mu_);
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cb;
  VKXLA_VK_RETURN_IF_ERROR(vkAllocateCommandBuffers(device_, &ai, &cb));
  CountVulkanObject(VulkanObject::kCommandBuffer, 1);
  return cb;
}

void Device::FreeCommandBuffer(VkCommandBuffer cb) {
  std::lock_guard<std::recursive_mutex> lock(pool_mu_);
  vkFreeCommandBuffers(device_, pool_, 1, &cb);
  CountVulkanObject(VulkanObject::kCommandBuffer, -1);
}

Status Device::CheckUsable() const {
  if (!lost_.load()) return OkStatus();
  return Unavailable("device " + info_.name + " is lost (" + lost_reason_ + "); open a new Device to go on");
}

Status Device::SubmitAndWait(VkCommandBuffer cb, uint32_t queue_index) {
  if (queue_index >= queue_count())
    return Internal("queue " + std::to_string(queue_index) + " of a device with " + std::to_string(queue_count()));
  ExtraQueue* extra = queue_index == 0 ? nullptr : extra_queues_[queue_index - 1].get();
  std::lock_guard<std::mutex> lock(extra ? extra->mu : queue_mu_);
  VkQueue queue = extra ? extra->queue : queue_;
  VkFence fence = extra ? extra->fence : fence_;
  VKXLA_RETURN_IF_ERROR(CheckUsable());
  auto lose = [&](const std::string& why) {
    {
      std::lock_guard<std::mutex> l(lost_mu_);
      if (!lost_.load()) lost_reason_ = why;
      lost_.store(true);
    }
    return CheckUsable();
  };
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  const VkResult submitted = vkQueueSubmit(queue, 1, &si, fence);
  if (submitted == VK_ERROR_DEVICE_LOST) return lose("VK_ERROR_DEVICE_LOST from vkQueueSubmit");
  VKXLA_VK_RETURN_IF_ERROR(submitted);
  // A CPU driver (llvmpipe) compiles a kernel's machine code the first time
  // a submission dispatches it, inside that submission: a model's first run
  // on a busy machine may take many minutes of compiling, not a hang.
  const uint64_t limit_s = info_.hardware.cpu ? 1800 : 600;
  VkResult r = vkWaitForFences(device_, 1, &fence, VK_TRUE, limit_s * 1000 * 1000 * 1000);
  if (const VkResult injected = injected_.exchange(VK_SUCCESS); injected != VK_SUCCESS && r == VK_SUCCESS) r = injected;
  if (r == VK_ERROR_DEVICE_LOST) return lose("VK_ERROR_DEVICE_LOST while waiting for a submission");
  // The submission may still run: its fence is neither reset nor reused.
  if (r == VK_TIMEOUT)
    return lose("a submission did not finish within " + std::to_string(limit_s) +
                " s (VK_TIMEOUT); its work may still be running");
  VKXLA_VK_RETURN_IF_ERROR(r);
  return VkStatus(vkResetFences(device_, 1, &fence), "vkResetFences");
}

FeedQueue& Device::to_device(int64_t channel) {
  std::lock_guard<std::mutex> lock(channels_mu_);
  return to_device_[channel];
}

FeedQueue& Device::from_device(int64_t channel) {
  std::lock_guard<std::mutex> lock(channels_mu_);
  return from_device_[channel];
}

std::string Device::HeapsDescription() const {
  std::string out;
  for (uint32_t i = 0; i < memory_props_.memoryHeapCount; ++i) {
    const VkMemoryHeap& h = memory_props_.memoryHeaps[i];
    out += "  heap " + std::to_string(i) + ": " + std::to_string(h.size >> 20) + " MiB" +
           ((h.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) ? ", device-local" : "") + "\n";
  }
  return out;
}

uint64_t Device::LargestHeapBytes(bool device_local) const {
  uint64_t largest = 0;
  for (uint32_t i = 0; i < memory_props_.memoryHeapCount; ++i) {
    const VkMemoryHeap& h = memory_props_.memoryHeaps[i];
    if (((h.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0) == device_local) largest = std::max<uint64_t>(largest, h.size);
  }
  return largest;
}

}  // namespace vkxla
