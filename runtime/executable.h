// A module compiled for one device: its plan (plan/program.h), a kernel per
// (group, kernel) of the plan, one device allocation per arena with every
// buffer a slice of it, and the steps recorded once into command buffers
// that Run replays: runs of steps become command buffers (split where a
// submission would grow too long), loops and branches become host
// decisions between them that read a predicate or branch index back.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "ir/module.h"
#include "ops/process_rendezvous.h"
#include "plan/program.h"
#include "runtime/bound_kernel.h"
#include "runtime/device.h"
#include "runtime/device_collectives.h"
#include "runtime/external_command.h"
#include "runtime/gpu_timer.h"
#include "runtime/loop_gate.h"

namespace vkxla {

class Executable {
 public:
  static StatusOr<std::unique_ptr<Executable>> Compile(const Module& module, Device& device);
  // Plans for `target` instead of the device's own features (tests and
  // tools that force other limits; the device must support what it asks).
  static StatusOr<std::unique_ptr<Executable>> Compile(const Module& module, Device& device, const TargetFeatures& target);
  // Runs a program planned (or edited) elsewhere for `module`.
  static StatusOr<std::unique_ptr<Executable>> FromProgram(const Module& module, Device& device, Program program);
  ~Executable();

  // Arguments are logical literals in parameter order; the result is the
  // entry's result (a tuple for tuple roots), logical as well. Threads may
  // share an executable: its calls take turns (they share its buffers);
  // different executables run side by side.
  StatusOr<Literal> Run(const std::vector<Literal>& arguments);

  // Restarts rng's counter (ops/rng.h) at seed's stream: the counter's high
  // word is the seed, so seeds draw disjoint numbers and each seed the same
  // ones. Seed 0 is where a new executable starts.
  void SeedRng(uint64_t seed);

  // The process this executable is in a replicated run (ops/process_rendezvous.h):
  // replica-id and partition-id read it, collectives and sends and receives
  // between processes go through its transport, and its submissions go to
  // queue self % queue_count() of its device. Alone by default.
  void SetProcess(const ProcessContext& process);

  // Device time of the dispatches alone (no uploads or downloads), averaged
  // over `repeats` replays recorded back to back; for benchmarks.
  StatusOr<Timing> TimeKernels(int repeats);
  // Device time of each dispatch of the top-level steps (a library's steps
  // count as one), from a timestamp after each: a kernel's time includes
  // the barrier wait before it. Needs a queue with timestamps.
  struct KernelTime {
    std::string name;  // "reduce.3 (%r)": the kernel and its group's hero
    double seconds = 0;
  };
  StatusOr<std::vector<KernelTime>> TimeEachKernel();

  const Program& program() const { return program_; }
  int kernel_count() const { return program_.DispatchCount(); }  // dispatches per run
  int barrier_count() const { return program_.BarrierCount(); }
  // Command buffers recorded (a run submits each once, or once per loop trip).
  int command_buffer_count() const { return command_buffers_; }
  // Submissions the last Run made (a loop the host decides costs one per
  // decision).
  int64_t last_run_submissions() const { return submissions_; }
  // Collectives the last Run ran on the device its group shares
  // (CollectiveOnDevice), not through host memory.
  int64_t last_run_device_collectives() const { return device_collective_runs_; }
  const std::vector<std::string>& kernel_sources() const { return sources_; }

 private:
  explicit Executable(Device& d) : device_(d) {}
  Status Allocate();
  Status BuildKernels();
  Status PrepareExternals(const StepList& steps);
  // Ping-pong (WhileStep::alternates): odd trips run the body and condition
  // with each pair's buffers swapped, and no trip runs the closing copies;
  // `fixup` (device-counted loops) moves the state home after an odd number
  // of trips.
  struct Alternation {
    std::map<int, int> partner;
    std::set<const Step*> elided;
    std::map<std::pair<int, int>, std::unique_ptr<BoundKernel>> kernels;  // (group, kernel), rebound
    VkCommandBuffer fixup = VK_NULL_HANDLE;
    int Map(int buffer) const {
      auto it = partner.find(buffer);
      return it == partner.end() ? buffer : it->second;
    }
  };
  // A kernel as BuildKernels bound it: what PrepareAlternation needs to bind
  // it again with buffers swapped.
  struct KernelBinding {
    std::shared_ptr<ComputePipeline> pipeline;
    std::vector<int> buffers;
    uint64_t invocations = 0;
    uint32_t local_size = 0;
  };
  // What Run executes: command buffers, and host decisions between them.
  struct Node {
    enum class Kind { kCommands, kWhile, kConditional, kHost };
    Kind kind = Kind::kCommands;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    std::vector<Node> condition, body;        // kWhile
    std::vector<std::vector<Node>> branches;  // kConditional
    int buffer = -1;                          // the predicate or branch index (host memory)
    // A counted loop: `trips` runs of the body, `unroll` of them recorded
    // back to back in `unrolled` (one submission for many trips).
    int64_t trips = -1;
    int64_t unroll = 0;
    VkCommandBuffer unrolled = VK_NULL_HANDLE;
    // A loop only the device can count (LoopGate): submissions of
    // (trips, command buffer), growing, the last repeated until it ends.
    std::unique_ptr<LoopGate> gate;
    std::vector<std::pair<int64_t, VkCommandBuffer>> batches;
    // The body's copy steps as kernels, for even and (ping-pong) odd trips.
    std::vector<std::unique_ptr<BoundKernel>> gated_copies[2];
    std::unique_ptr<Alternation> alternation;  // ping-pong, where recorded
    const HostStep* host = nullptr;  // kHost
    // An all-reduce that may fold on the device: its copies to and from
    // host memory, for when it cannot (HostStep::stage_in, stage_out).
    VkCommandBuffer stage_in = VK_NULL_HANDLE, stage_out = VK_NULL_HANDLE;
  };
  // The alternation of `w`, or null where it has none or its steps are not
  // all dispatches, copies and fills; with its fix-up copies where the
  // loop is device-counted.
  StatusOr<std::unique_ptr<Alternation>> PrepareAlternation(const WhileStep& w, bool device_counted);
  // The kernel of dispatch `d` on a trip (swapped: an odd ping-pong trip).
  const BoundKernel* KernelFor(const DispatchStep& d, const Alternation* alt, bool swapped) const;
  // Records `w` as a gated loop into `n` (Gateable(w) holds).
  Status RecordGated(const WhileStep& w, Node& n);
  int64_t TripsWithinBudget(const StepList& body) const;
  // Infeed, outfeed or a host custom call, between submissions.
  Status RunHostStep(const HostStep& step);
  // An all-reduce the members fold from each other's host buffers
  // (ProcessTransport::AllReduceInPlace); false where the transport cannot.
  StatusOr<bool> AllReduceInPlace(const HostStep& step);
  // A collective with device buffers (HostStep::device_inputs): true once
  // the group ran it on the device it shares; false where the members must
  // stage through host memory (no transport, other devices, a fold the
  // device cannot bind or compute), as every member then does.
  StatusOr<bool> CollectiveOnDevice(const HostStep& step);
  Status Record(const StepList& steps, std::vector<Node>& out);
  // Records the plain steps [begin, end) of `steps` into one command buffer.
  StatusOr<VkCommandBuffer> RecordCommands(const StepList& steps, size_t begin, size_t end, int64_t repeats = 1);
  // A command buffer of what `record` records.
  StatusOr<VkCommandBuffer> RecordCommandBuffer(const std::function<Status(Scheduler&)>& record);
  Status Submit(VkCommandBuffer cb);
  // Records `steps` (dispatches, copies, fills, external commands) into `s`;
  // with `alt`, leaving out its elided copies and, when `swapped`, with its
  // pairs' buffers swapped.
  Status RecordSteps(Scheduler& s, const StepList& steps, size_t begin, size_t end, bool dispatches_only,
                     const Alternation* alt = nullptr, bool swapped = false) const;
  Status Execute(const std::vector<Node>& nodes);
  void Free(std::vector<Node>& nodes);
  BufferSlice SliceOf(int buffer) const;
  // What a kernel binds for `buffer`: its slice, or for an addressed one
  // (past the binding range) its slot of address_table_, unless the kernel
  // reads it through a texel view (`texel`), which takes the slice.
  BufferSlice BindingOf(int buffer, bool texel = false) const;
  void* Mapped(int buffer) const;

  Device& device_;
  const Module* module_ = nullptr;
  Program program_;
  std::vector<Buffer> arenas_;
  // The device addresses of addressed buffers, one aligned slot each.
  std::optional<Buffer> address_table_;
  std::map<int, uint64_t> address_slot_;  // buffer -> its slot's offset
  // kernels_[group][kernel]; null for kernels that never run (empty arrays).
  std::vector<std::vector<std::unique_ptr<BoundKernel>>> kernels_;
  std::vector<std::vector<KernelBinding>> kernel_bindings_;  // alike
  std::vector<std::string> sources_;
  std::map<const ExternalStep*, std::unique_ptr<ExternalCommand>> externals_;
  std::vector<Node> nodes_;
  int command_buffers_ = 0;
  int64_t submissions_ = 0, device_collective_runs_ = 0;
  std::unique_ptr<DeviceCollectives> device_collectives_;  // made for the first collective run on the device
  std::optional<LoopGatePipelines> gate_pipelines_;  // built for the first gated loop
  std::mutex run_mu_;  // one Run or TimeKernels at a time
  // rng-get-and-update-state's 128-bit counter (ops/rng.h): from 0, kept across runs.
  std::array<uint64_t, 2> rng_counter_{};
  ProcessContext process_;
  uint32_t queue_ = 0;  // the device queue its submissions go to (a process's own, where there are several)
};

}  // namespace vkxla
