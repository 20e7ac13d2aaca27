// The plan of a module on one target: what every kernel computes (fusion
// groups around a hero), where every value lives (buffers as slices of a
// few arenas, shared by values whose lifetimes do not overlap), and the
// steps that run (dispatches, copies, fills, external commands, loops,
// branches, collectives) with the barriers their buffers need. Pure data:
// codegen writes each group's kernels from it, the runtime allocates the
// arenas and records the steps, and `vkxla run --dump-plan` prints it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/module.h"
#include "plan/kernel_configs.h"
#include "plan/target_features.h"
#include "plan/value_ref.h"

namespace vkxla {

// Run-time sizes of a parameter's dynamic dims: this many u32s per parameter.
constexpr int64_t kMaxDynamicRank = 8;

enum class MemoryKind { kDevice, kHost };

enum class BufferKind {
  kParameter,       // an entry parameter on the device (uploaded from its staging buffer)
  kStaging,         // host copy of a parameter or a result
  kConstant,        // an array constant (written once at compile time)
  kTemporary,       // a value computed by one group and read by later ones
  kResult,          // an entry result on the device (downloaded to its staging buffer)
  kScratch,         // a group's own working memory (partial results, a sort's permutation)
  kParameterSizes,  // run-time sizes of the parameters' dynamic dims
  kResultSizes,     // run-time sizes of a result's dynamic dims
};
std::string_view BufferKindName(BufferKind k);

struct BufferDecl {
  std::string name;    // "%x", "%x.staging", "%s.partials0"
  BufferKind kind = BufferKind::kTemporary;
  MemoryKind memory = MemoryKind::kDevice;
  Shape shape;         // with its layout; dynamic dims at their bounds
  uint64_t bytes = 0;  // whole 16-byte vectors
  // Past the device's binding range: kernels reach it through its device
  // address, which their binding holds instead (plan/buffer_assignment.h).
  bool addressed = false;
  int64_t parameter = -1;                 // kParameter / kStaging of a parameter
  int64_t result = -1;                    // kResult / kStaging of result leaf `result`
  const Instruction* constant = nullptr;  // kConstant
  // Placement: a slice of an arena.
  int arena = -1;
  uint64_t offset = 0;
  // Live range over top-level step indices (inclusive); buffers that must
  // outlive a run (staging, constants, sizes) are live throughout.
  int first_step = -1, last_step = -1;
};

struct Arena {
  MemoryKind memory = MemoryKind::kDevice;
  uint64_t bytes = 0;
};

// One kernel of a group: its launch. Codegen writes its source from the
// group and its config; dispatch steps record it (with push constants).
struct KernelLaunch {
  std::string name;
  uint64_t invocations = 0;  // 0: nothing to run (an empty array)
  uint32_t local_size = 256;
};

// A value a group writes: `value` computed by `root` (an epilogue of the
// hero, the hero itself, or for multi-output reductions the operand it reads).
struct GroupOutput {
  ValueRef value;
  int buffer = -1;
  int sizes_buffer = -1;  // kResultSizes for a dynamic result
};

struct FusionGroup {
  int id = 0;
  KernelKind kind = KernelKind::kLoop;
  // The op the kernel is built around: reduce, sort, scan, ...; for loops
  // the first output's instruction.
  const Instruction* hero = nullptr;
  std::vector<GroupOutput> outputs;
  // Instructions computed inline (producers fused into the loads, the
  // epilogue), in definition order: for reading the plan.
  std::vector<const Instruction*> fused;
  // A row kernel's reduces, its stages (the other reduces it reads are in
  // `fused`, computed inline).
  std::vector<const Instruction*> row_stages;
  std::vector<int> inputs;   // buffers read
  // Working buffers besides the outputs: partial results, a selection, a
  // sort's permutation (which its results' readers read too).
  std::vector<int> scratch;
  // A result wanted in another layout than its value's buffer: the kernel
  // copies that buffer instead of computing the value.
  bool relayout = false;
  KernelConfig config;
  std::vector<KernelLaunch> kernels;
  // The output computing `v` (-1 if none).
  int OutputOf(const ValueRef& v) const;
};

struct Step;
using StepList = std::vector<Step>;

struct DispatchStep {
  int group = 0, kernel = 0;
  std::vector<uint32_t> push_constants;  // at most 4 words
  // A grid decided on the device: a buffer holding the group counts
  // (x, y, z as u32 at its start), or -1 for the launch's own grid.
  int indirect = -1;
};
struct CopyStep {
  int src = 0, dst = 0;
  uint64_t bytes = 0;
};
struct FillStep {
  int buffer = 0;
  uint32_t word = 0;
};
// A library records its own commands (VkFFT): `name` says which library
// (the runtime prepares it by name), `config` what for (sizes, kinds).
struct ExternalStep {
  std::string name;
  std::string config;
};
// Runs `condition`, reads the predicate (a pred in `predicate`, a host
// buffer) and runs `body` while it holds.
struct WhileStep {
  StepList condition, body;
  int predicate = -1;
  // Trips known before the run (the `i < N` counter pattern, or
  // known_trip_count in backend_config): the condition is never run and
  // the body is replayed without reading anything back; -1 when unknown.
  int64_t trip_count = -1;
  // Ping-pong: (body buffer, state buffer) pairs whose copy at the end of
  // the body (`alternates[i]` is body step `alternate_copies[i]`) may be
  // left out by swapping the two buffers' roles every other trip; after an
  // odd number of such trips the state is in the body buffers.
  std::vector<std::pair<int, int>> alternates;
  std::vector<size_t> alternate_copies;
};
// Reads the selector (an s32 branch index or a pred, in a host buffer) and
// runs one branch: a pred picks branch 0 when true; an index out of range
// takes the last, as the spec says.
struct ConditionalStep {
  int selector = -1;
  std::vector<StepList> branches;
};
// Work the host does between submissions, on host buffers: an infeed pops
// the device's next infeed value into `outputs`; an outfeed pushes the
// value `inputs` hold; a host custom call runs its registered callback on
// `inputs` and writes `outputs`; a send (recv) with a host transfer pushes
// to (pops from) the device's host channel of its channel_id. Copies to and from the device buffers are
// steps of their own around it.
struct HostStep {
  // kRngCounter: rng-get-and-update-state on the executable's counter.
  // kProcess: replica-id, partition-id or a collective (ops/collectives.h):
  // the host hands `inputs` to the run's rendezvous and writes what the
  // process gets; collectives are host-staged, but for the all-reduces
  // that fold on the device (device_inputs below).
  enum class Kind { kInfeed, kOutfeed, kCallback, kSend, kRecv, kRngCounter, kProcess };
  Kind kind = Kind::kInfeed;
  const Instruction* op = nullptr;  // the infeed, outfeed or custom-call
  std::vector<int> inputs, outputs;
  // A collective that may run on the device its group shares (an
  // all-reduce that CanFoldInPlace with each leaf's operand and result
  // laid out alike, or one that moves bytes: plan/collective_moves.h): its
  // leaves' device buffers. No step of the plan copies them to or from
  // `inputs` and `outputs`: where every member of the group shares this
  // device, they run there (runtime/device_collectives.h); otherwise the
  // runtime runs `stage_in`, the host's work, then `stage_out`.
  std::vector<int> device_inputs, device_outputs;
  StepList stage_in, stage_out;
};

struct Step {
  std::variant<DispatchStep, CopyStep, FillStep, ExternalStep, WhileStep, ConditionalStep, HostStep> op;
  std::vector<int> reads, writes;  // buffers
  // Derived (plan/barriers.h): a memory barrier before this step, because
  // it reads or overwrites bytes an earlier step wrote, or overwrites bytes
  // an earlier step read, since the last barrier.
  bool barrier_before = false;
  // Derived (plan/submission_split.h): this step starts a new submission,
  // so no submission's estimated time passes the target's watchdog budget.
  bool submit_before = false;
  // Whether this step needs the host in the middle of a run (a loop's
  // predicate, a branch index): recording splits there.
  bool NeedsHost() const;
};

// One leaf of the entry's result: its device buffer, staging and sizes.
struct ResultLeaf {
  ValueRef value;
  int device = -1, staging = -1, sizes = -1;
};

// "512 B", "4.0 KiB", "1.5 MiB": a size as people read it.
std::string ByteSizeText(uint64_t bytes);

struct Program {
  std::string module_name;
  TargetFeatures target;
  std::vector<BufferDecl> buffers;
  std::vector<Arena> arenas;
  std::vector<FusionGroup> groups;
  StepList steps;
  // Where each materialized value lives (its first buffer, which readers use).
  std::map<ValueRef, int> value_buffer;
  // A buffer holding an array with dynamic dims -> the host buffer of its
  // run-time sizes (a u32 per dim), written by the kernel that fills it.
  // Entry parameters' sizes are in parameter_sizes instead.
  std::map<int, int> dynamic_sizes;
  // A sort's permutation, read by every consumer of its results.
  std::map<const Instruction*, int> permutation_buffer;
  std::vector<int> parameter_device, parameter_staging;
  int parameter_sizes = -1;
  std::vector<ResultLeaf> results;
  // Copies of computations called from more than one site (each site's
  // values need buffers of their own); the plan's groups point into them.
  std::vector<std::shared_ptr<const Computation>> clones;
  // The module planned when it was not the one given: a copy with RFFT and
  // IRFFT expanded (plan/fft_expansion.h).
  std::shared_ptr<const Module> expanded_module;

  int AddBuffer(BufferDecl b);
  uint64_t PeakBytes(MemoryKind memory) const;
  int DispatchCount() const;  // dispatch steps, counted through loops and branches once
  int BarrierCount() const;
  // Everything above as text: groups with what they fuse, buffers with
  // their placement and live ranges, steps with their barriers, peak memory.
  std::string ToString() const;
};

}  // namespace vkxla
