// An all-reduce of plain sums or products folded on the device its
// members share (ProcessTransport::Share): member p folds the p-th share of
// every leaf's 16-byte words from every member's operand, in group order,
// and writes it to every member's result. The group reads each operand
// once and writes each result once, where host staging copied every
// operand out and every result back and folded on the CPU.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/instruction.h"
#include "plan/target_features.h"
#include "runtime/bound_kernel.h"

namespace vkxla {

// Groups of up to this many fold on the device: the kernel binds every
// member's operand and result (16 bindings, within what desktop and phone
// GPUs allow a stage); larger groups go through host memory.
constexpr size_t kMaxDeviceFoldMembers = 8;

// One member of an all-reduce's group as the fold sees it: its device and,
// by leaf, its operand's and result's slices (whole 16-byte words).
struct DeviceFoldMember {
  const Device* device = nullptr;
  std::vector<BufferSlice> operands, results;
};

// Whether `members` fold on their device: one device, every member's
// leaves as long as the first's, few enough members to bind, and the
// element types computed natively on `target` (emulated 64-bit types and
// buffers past one binding's range go through host memory). Every member
// decides alike from the same list.
bool CanFoldOnDevice(const Instruction& op, const TargetFeatures& target, const std::vector<const DeviceFoldMember*>& members);

// How a fold kernel reads and writes: operands as texel buffers (CPU
// drivers fetch a texel for all lanes at once, but load storage lane by
// lane), and results two words at a time as one 32-byte u64vec4 (llvmpipe
// pays per lane-store, not per byte: every leaf an even number of words).
struct DeviceFoldForm {
  bool texels = false, pairs = false;
};

// The fold kernel of `members` operands (bindings 0..members-1) into as
// many results (the bindings after): the units [begin, end) of the push
// constants (16-byte words, or pairs of them), one a invocation.
std::string DeviceFoldGlsl(ElementType type, Opcode combiner, size_t members, DeviceFoldForm form);

// An executable's folds: pipelines by kernel, and per all-reduce step the
// command buffer of its last fold (the members' buffers do not move
// between runs, so a run replays it).
class DeviceFolds {
 public:
  explicit DeviceFolds(Device& device) : device_(device) {}
  ~DeviceFolds();
  // Member `position`'s share of `op`'s leaves (types by leaf), folded and
  // waited for on `queue`. `record` records a command buffer (the
  // executable's, which starts it behind a full barrier).
  using RecordFn = std::function<StatusOr<VkCommandBuffer>(const std::function<Status(Scheduler&)>&)>;
  Status FoldShare(const void* step, const Instruction& op, const std::vector<const DeviceFoldMember*>& members,
                   size_t position, DeviceFoldForm form, uint32_t queue, const RecordFn& record);

 private:
  struct Recording {
    std::vector<uint64_t> key;  // the members' slices and the position
    std::vector<BoundKernel> kernels;
    VkCommandBuffer cb = VK_NULL_HANDLE;
  };
  Device& device_;
  std::map<std::string, std::shared_ptr<ComputePipeline>> pipelines_;  // by source
  std::map<const void*, Recording> recordings_;                        // by step
};

}  // namespace vkxla
