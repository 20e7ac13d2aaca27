// Collectives run on the device their members share (ProcessTransport::
// Share), with no byte through host memory:
// - an all-reduce of plain sums or products: member p folds the p-th share
//   of every leaf's 16-byte words from every member's operand, in group
//   order, and writes it to every member's result, so the group reads each
//   operand once and writes each result once;
// - a collective that only moves elements (plan/collective_moves.h): each
//   member copies its result leaves' bytes from the members' operand
//   buffers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/instruction.h"
#include "plan/collective_moves.h"
#include "plan/target_features.h"
#include "runtime/bound_kernel.h"

namespace vkxla {

// Groups of up to this many fold on the device: the kernel binds every
// member's operand and result (16 bindings, within what desktop and phone
// GPUs allow a stage); larger groups go through host memory.
constexpr size_t kMaxDeviceFoldMembers = 8;

// One member of a collective's group as the device sees it: its device
// and, by leaf, its operand's and result's slices.
struct DeviceMember {
  const Device* device = nullptr;
  std::vector<BufferSlice> operands, results;
};

// Whether `members` share one device, each with as many leaves of the
// same sizes as the first. Every member decides alike from the same list.
bool ShareOneDevice(const std::vector<const DeviceMember*>& members);

// Bytes of a reduce-scatter's block (its result leaf's elements).
uint64_t FoldBlockBytes(const Instruction& op, size_t leaf);

// Whether `members` fold on their device: an all-reduce (CanFoldInPlace)
// or a reduce-scatter (ScattersFold) of element types computed natively on
// `target` (emulated 64-bit types go through host memory; f16 and bf16 are
// computed in f32 and rounded with integer operations), ShareOneDevice,
// few enough members to bind, operands within one binding, an
// all-reduce's operand and result of one size, a reduce-scatter's blocks
// whole 16-byte words.
bool CanFoldOnDevice(const Instruction& op, const TargetFeatures& target, const std::vector<const DeviceMember*>& members);

// How a fold kernel reads and writes: operands as texel buffers (CPU
// drivers fetch a texel for all lanes at once, but load storage lane by
// lane), and results two words at a time as one 32-byte u64vec4 (llvmpipe
// pays per lane-store, not per byte: every leaf an even number of words).
struct DeviceFoldForm {
  bool texels = false, pairs = false;
};

// The fold kernel of `operands` members' operands (bindings 0..) into
// `results` results (the bindings after): units [begin, end) of the push
// constants (16-byte words, or pairs of them), one an invocation, read at
// `base` units further into the operands (a reduce-scatter's block).
std::string DeviceFoldGlsl(ElementType type, Opcode combiner, size_t operands, size_t results, DeviceFoldForm form);

// An executable's device collectives: fold pipelines by kernel, each
// step's byte moves, and per step the command buffer of its last run (the
// members' buffers do not move between runs, so a run replays it).
class DeviceCollectives {
 public:
  explicit DeviceCollectives(Device& device) : device_(device) {}
  ~DeviceCollectives();
  // Records a command buffer (the executable's, which starts it behind a
  // full barrier).
  using RecordFn = std::function<StatusOr<VkCommandBuffer>(const std::function<Status(Scheduler&)>&)>;
  // Member `position`'s share of all-reduce `op`'s leaves (or its block of
  // a reduce-scatter's), folded and waited for on `queue`.
  Status FoldShare(const void* step, const Instruction& op, const std::vector<const DeviceMember*>& members, size_t position,
                   DeviceFoldForm form, uint32_t queue, const RecordFn& record);
  // Member `position`'s result leaves of a collective that moves elements
  // (leaf shapes with their layouts), copied from the members' operands and
  // waited for on `queue`.
  Status MoveBytes(const void* step, const Instruction& op, const std::vector<const DeviceMember*>& members, size_t position,
                   const std::vector<Shape>& operand_shapes, const std::vector<Shape>& result_shapes, uint32_t queue,
                   const RecordFn& record);

 private:
  struct Recording {
    std::vector<uint64_t> key;  // the members' slices and the position
    std::vector<BoundKernel> kernels;
    VkCommandBuffer cb = VK_NULL_HANDLE;
  };
  // The recording of `step` for `key`, recorded anew (by `record_into`)
  // where the key changed.
  StatusOr<Recording*> Recorded(const void* step, std::vector<uint64_t> key,
                                const std::function<Status(Recording&)>& record_into);
  Device& device_;
  std::map<std::string, std::shared_ptr<ComputePipeline>> pipelines_;  // by source
  std::map<const void*, std::vector<LeafBytes>> moves_;               // by step: this member's
  std::map<const void*, Recording> recordings_;                        // by step
};

}  // namespace vkxla
