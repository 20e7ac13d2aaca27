#include "runtime/vkfft_command.h"

#define VKFFT_BACKEND 0
#include <vkFFT.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "codegen/spirv_compiler.h"
#include "plan/fft_config.h"
#include "runtime/device.h"

namespace vkxla {
namespace {

// deleteVkFFT in 1.2.26 leaves the extra passes of multi-pass Bluestein
// axes (inverseBluesteinAxes) alive; validation reports them at device
// destruction. They are deleted here first.
void DeleteVkfft(VkFFTApplication& app) {
  for (VkFFTPlan* plan : {app.localFFTPlan, app.localFFTPlan_inverse}) {
    if (!plan) continue;
    for (uint64_t i = 0; i < app.configuration.FFTdim && i < 3; ++i)
      if (app.useBluesteinFFT[i])
        for (uint64_t j = 1; j < plan->numAxisUploads[i]; ++j) deleteAxis(&app, &plan->inverseBluesteinAxes[i][j]);
  }
  deleteVkFFT(&app);
}

Status VkfftError(const FftConfig& config, const std::string& what, VkFFTResult r) {
  return Internal("VkFFT " + what + " failed (VkFFTResult " + std::to_string(static_cast<int>(r)) + ") for the fft step " +
                  config.ToString());
}

class VkfftCommand : public ExternalCommand {
 public:
  VkfftCommand(Device& device, FftConfig config) : device_(device), config_(std::move(config)) {}
  VkfftCommand(const VkfftCommand&) = delete;
  VkfftCommand& operator=(const VkfftCommand&) = delete;

  ~VkfftCommand() override {
    for (auto& plan : plans_) DeleteVkfft(plan->app);
    if (fence_) vkDestroyFence(device_.handle(), fence_, nullptr);
    if (pool_) vkDestroyCommandPool(device_.handle(), pool_, nullptr);
  }

  Status Init() {
    // VkFFT records and submits its own set-up work (twiddle tables,
    // Bluestein's kernels) from a pool and fence of this command's.
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = device_.queue_family();
    if (vkCreateCommandPool(device_.handle(), &pci, nullptr, &pool_) != VK_SUCCESS)
      return Internal("vkCreateCommandPool failed for the fft step " + config_.ToString());
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (vkCreateFence(device_.handle(), &fci, nullptr, &fence_) != VK_SUCCESS)
      return Internal("vkCreateFence failed for the fft step " + config_.ToString());
    physical_ = device_.physical();
    device_handle_ = device_.handle();
    queue_ = device_.queue();
    return OkStatus();
  }

  VkCommandPool pool() const { return pool_; }
  VkFence fence() const { return fence_; }

  Status Record(VkCommandBuffer cb, const std::vector<BufferSlice>& reads, const std::vector<BufferSlice>& writes) override {
    if (reads.size() != 1 || writes.size() != 2)
      return Internal("the fft step reads one buffer and writes two, got " + std::to_string(reads.size()) + " and " +
                      std::to_string(writes.size()));
    const BufferSlice slices[3] = {reads[0], writes[0], writes[1]};
    VKXLA_ASSIGN_OR_RETURN(Plan * plan, PlanFor(slices));
    const uint64_t steps = config_.per_batch ? static_cast<uint64_t>(config_.batch) : 1;
    for (uint64_t b = 0; b < steps; ++b) {
      VkFFTLaunchParams lp = {};
      lp.commandBuffer = &cb;
      lp.inputBuffer = &plan->handles[0];
      lp.buffer = &plan->handles[1];
      lp.tempBuffer = &plan->handles[2];
      const uint64_t shift = config_.per_batch ? b * config_.array_bytes : 0;
      lp.inputBufferOffset = slices[0].offset + shift;
      lp.bufferOffset = slices[1].offset + shift;
      lp.tempBufferOffset = slices[2].offset;
      const VkFFTResult r = VkFFTAppend(&plan->app, config_.inverse ? 1 : -1, &lp);
      if (r != VKFFT_SUCCESS) return VkfftError(config_, "recording", r);
      // The next batch element reuses the temporary.
      VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      mb.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
      mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
      if (b + 1 < steps)
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0,
                             nullptr, 0, nullptr);
    }
    return OkStatus();
  }

 private:
  // One VkFFT application per set of buffers it binds (a loop body whose
  // buffers swap every other trip records the step over two sets).
  struct Plan {
    VkBuffer handles[3] = {};
    uint64_t sizes[3] = {};  // how far VkFFT binds each buffer from its start
    VkFFTApplication app = {};
  };

  StatusOr<Plan*> PlanFor(const BufferSlice (&slices)[3]) {
    for (auto& p : plans_) {
      bool fits = true;
      for (int i = 0; i < 3; ++i)
        fits = fits && p->handles[i] == slices[i].buffer && slices[i].offset + slices[i].size <= p->sizes[i];
      if (fits) return p.get();
    }
    auto plan = std::make_unique<Plan>();
    const uint64_t range = device_.target().max_storage_buffer_range;
    for (int i = 0; i < 3; ++i) {
      plan->handles[i] = slices[i].buffer;
      plan->sizes[i] = slices[i].offset + slices[i].size;
      if (plan->sizes[i] > range)
        return Unimplemented("fft step " + config_.ToString() + ": a buffer ends at byte " + std::to_string(plan->sizes[i]) +
                             " of its arena, beyond the device's maxStorageBufferRange of " + std::to_string(range) +
                             " bytes, which VkFFT binds from the arena's start");
    }
    if (slices[2].size < config_.temp_bytes)
      return Internal("fft step " + config_.ToString() + ": the temporary holds " + std::to_string(slices[2].size) + " bytes");
    VkFFTConfiguration c = {};
    c.FFTdim = config_.lengths.size();
    for (size_t i = 0; i < 3; ++i) c.size[i] = i < config_.lengths.size() ? static_cast<uint64_t>(config_.lengths[i]) : 1;
    c.numberBatches = config_.per_batch ? 1 : static_cast<uint64_t>(config_.batch);
    c.physicalDevice = &physical_;
    c.device = &device_handle_;
    c.queue = &queue_;
    c.commandPool = &pool_;
    c.fence = &fence_;
    InitializeGlslangOnce();  // kept for the process: VkFFT then never finalizes it
    c.isCompilerInitialized = 1;
    c.doublePrecision = config_.double_precision;
    if (config_.inverse) c.makeInversePlanOnly = 1;
    else c.makeForwardPlanOnly = 1;
    c.normalize = config_.inverse ? 1 : 0;  // XLA's IFFT divides by the element count
    c.isInputFormatted = 1;                 // read the operand, write the result: out of place
    if (config_.real_input) {
      // R2C: rows of n reals in, rows of n/2 + 1 complex numbers out.
      c.performR2C = 1;
      const uint64_t n = static_cast<uint64_t>(config_.lengths[0]);
      for (int i = 0; i < 3; ++i) {
        c.inputBufferStride[i] = n;
        c.bufferStride[i] = n / 2 + 1;
      }
    }
    c.inputBufferSize = &plan->sizes[0];
    c.bufferSize = &plan->sizes[1];
    c.userTempBuffer = 1;
    c.tempBufferSize = &plan->sizes[2];
    c.specifyOffsetsAtLaunch = 1;
    {
      // VkFFT submits its set-up work to the device's queue.
      std::lock_guard<std::mutex> lock(device_.queue_mutex());
      const VkFFTResult r = initializeVkFFT(&plan->app, c);
      if (r != VKFFT_SUCCESS) {
        DeleteVkfft(plan->app);  // what it made before it failed
        return VkfftError(config_, "planning", r);
      }
    }
    // What VkFFT will use of the temporary: each axis's arrays at that
    // axis's working length (Bluestein's padding included). A 1-D plan
    // folds its batches into the second size and keeps numberBatches 1.
    const VkFFTPlan* fft = config_.inverse ? plan->app.localFFTPlan_inverse : plan->app.localFFTPlan;
    const uint64_t complex_bytes = config_.double_precision ? 16 : 8;
    uint64_t needed = 0;
    for (size_t axis = 0; fft && axis < config_.lengths.size(); ++axis) {
      uint64_t elements = 1;
      for (int j = 0; j < 3; ++j)
        elements *= std::max<uint64_t>(1, fft->actualFFTSizePerAxis[axis][j]) + (config_.real_input && j == 0 ? 1 : 0);
      needed = std::max(needed, elements * plan->app.configuration.numberBatches * complex_bytes);
    }
    if (needed > slices[2].size) {
      DeleteVkfft(plan->app);
      return Internal("fft step " + config_.ToString() + ": VkFFT asks " + std::to_string(needed) +
                      " bytes of temporary, more than the " + std::to_string(slices[2].size) + " planned");
    }
    plans_.push_back(std::move(plan));
    return plans_.back().get();
  }

  Device& device_;
  FftConfig config_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_handle_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  std::vector<std::unique_ptr<Plan>> plans_;
};

}  // namespace

StatusOr<std::unique_ptr<ExternalCommand>> PrepareVkfftCommand(Device& device, const std::string& text) {
  VKXLA_ASSIGN_OR_RETURN(FftConfig config, FftConfig::Parse(text));
  auto command = std::make_unique<VkfftCommand>(device, std::move(config));
  VKXLA_RETURN_IF_ERROR(command->Init());
  return std::unique_ptr<ExternalCommand>(std::move(command));
}

StatusOr<Timing> TimeVkfftDirectly(Device& device, const FftConfig& config, int runs) {
  const bool real = config.real_input;
  const uint64_t complex_bytes = config.double_precision ? 16 : 8;
  uint64_t rows = 1, first = static_cast<uint64_t>(config.lengths.at(0));
  for (size_t i = 1; i < config.lengths.size(); ++i) rows *= static_cast<uint64_t>(config.lengths[i]);
  // R2C in place: rows padded to n/2 + 1 complex numbers.
  uint64_t size = (real ? (first / 2 + 1) : first) * rows * complex_bytes * static_cast<uint64_t>(config.batch);
  uint64_t temp_size = std::max<uint64_t>(config.temp_bytes, size);
  VKXLA_ASSIGN_OR_RETURN(Buffer data, device.CreateBuffer(size, Device::Memory::kDeviceLocal));
  VKXLA_ASSIGN_OR_RETURN(Buffer temp, device.CreateBuffer(temp_size, Device::Memory::kDeviceLocal));
  VkfftCommand owner(device, config);  // its pool and fence
  VKXLA_RETURN_IF_ERROR(owner.Init());
  VkPhysicalDevice physical = device.physical();
  VkDevice handle = device.handle();
  VkQueue queue = device.queue();
  VkCommandPool pool = owner.pool();
  VkFence fence = owner.fence();
  VkFFTConfiguration c = {};
  c.FFTdim = config.lengths.size();
  for (size_t i = 0; i < 3; ++i) c.size[i] = i < config.lengths.size() ? static_cast<uint64_t>(config.lengths[i]) : 1;
  c.numberBatches = static_cast<uint64_t>(config.batch);
  c.physicalDevice = &physical;
  c.device = &handle;
  c.queue = &queue;
  c.commandPool = &pool;
  c.fence = &fence;
  InitializeGlslangOnce();
  c.isCompilerInitialized = 1;
  c.doublePrecision = config.double_precision;
  c.performR2C = real ? 1 : 0;
  c.normalize = config.inverse ? 1 : 0;
  if (config.inverse) c.makeInversePlanOnly = 1;
  else c.makeForwardPlanOnly = 1;
  c.bufferSize = &size;
  c.userTempBuffer = 1;
  c.tempBufferSize = &temp_size;
  VkFFTApplication app = {};
  {
    std::lock_guard<std::mutex> lock(device.queue_mutex());
    const VkFFTResult r = initializeVkFFT(&app, c);
    if (r != VKFFT_SUCCESS) {
      DeleteVkfft(app);
      return VkfftError(config, "planning (direct)", r);
    }
  }
  VkBuffer buffers[2] = {data.handle(), temp.handle()};
  auto time_runs = [&](int count) {
    return TimeCommands(device, [&](Scheduler& s) -> Status {
      for (int r = 0; r < count; ++r) {
        if (r > 0) s.Barrier();
        VkFFTLaunchParams lp = {};
        VkCommandBuffer cb = s.command_buffer();
        lp.commandBuffer = &cb;
        lp.buffer = &buffers[0];  // given at launch: see the header
        lp.tempBuffer = &buffers[1];
        const VkFFTResult res = VkFFTAppend(&app, config.inverse ? 1 : -1, &lp);
        if (res != VKFFT_SUCCESS) return VkfftError(config, "recording (direct)", res);
      }
      return OkStatus();
    });
  };
  // One run first, untimed, as our own steps are warmed before they are
  // timed: a CPU driver compiles a new plan's pipelines at their first
  // dispatch (lavapipe: c64 1-D 2^20 timed 42 ms that way against 25 ms warm).
  StatusOr<Timing> t = time_runs(1);
  if (t.ok()) t = time_runs(runs);
  DeleteVkfft(app);
  if (t.ok()) t->seconds /= std::max(1, runs);
  return t;
}

}  // namespace vkxla
