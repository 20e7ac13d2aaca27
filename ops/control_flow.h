// Ops that call whole computations (while, conditional, call) or only
// order and pass values along (after-all, add-dependency, opt-barrier and
// the custom calls real exports carry that compute nothing): their shape
// rules, the computations they call, and their reference semantics.
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"
#include "vkxla/status.h"
#include "ops/custom_call_registry.h"
#include "ops/process_rendezvous.h"

namespace vkxla {

// The shape of a control-flow or ordering op, or nullopt for other ops.
std::optional<StatusOr<Shape>> InferControlFlowShape(const Instruction& inst);

// A conditional's branches in branch order: true_computation and
// false_computation for a pred selector, branch_computations otherwise.
StatusOr<std::vector<const Computation*>> ConditionalBranches(const Instruction& inst);

// The branch a selector value picks: a pred picks branch 0 when true; an
// index out of range takes the last branch, as the spec says.
int64_t BranchIndex(const Literal& selector, int64_t branches);

// custom_call_target of a custom-call, unquoted ("" when absent).
std::string CustomCallTarget(const Instruction& inst);

// Ops whose result is their first operand: add-dependency, opt-barrier and
// the no-op custom calls (Sharding, SPMDFullToShardShape, MoveToHost, ...).
bool ForwardsOperand(const Instruction& inst);

// custom-call api_version numbers (StableHLO writes the number) and their
// HLO spellings ("API_VERSION_TYPED_FFI" is 4); "" out of range.
constexpr int kApiVersions = 5;
std::string_view ApiVersionName(int version);

// Whether a custom-call runs a function registered with
// RegisterHostCustomCall (ops/custom_call_registry.h).
bool IsHostCustomCall(const Instruction& inst);
// Whether a custom-call runs an elementwise GLSL function registered with
// RegisterGlslCustomCall.
bool IsGlslCustomCall(const Instruction& inst);
// The custom call's backend_config and api_version.
CustomCallContext CustomCallContextOf(const Instruction& inst);
// Runs a host custom call's function on operand leaves, checking that it
// gave one literal of the declared shape per result leaf.
StatusOr<std::vector<Literal>> RunHostCustomCall(const Instruction& inst, const std::vector<Literal>& operand_leaves);

// What infeed reads and outfeed writes when the reference evaluator runs a
// module (the device's queues play this part on Vulkan).
struct EvaluationFeeds {
  std::deque<Literal> infeed;
  std::vector<Literal> outfeed;
  // Host transfers by channel_id: what recv reads, what send writes.
  std::map<int64_t, std::deque<Literal>> to_device;
  std::map<int64_t, std::vector<Literal>> from_device;
  // The 128-bit counter rng-get-and-update-state reads and advances (low
  // word first; ops/rng.h). An executable keeps its own.
  std::array<uint64_t, 2> rng_counter{};
  // The process this run is (replicas and partitions); with a transport,
  // sends and receives go between processes instead of to the host.
  ProcessContext process;
};

// channel_id of a send or recv (0 when absent).
int64_t ChannelId(const Instruction& inst);

// Evaluates a control-flow, ordering, feed or host custom-call op on the
// host; `evaluate` runs a called computation, `feeds` may be null (then
// infeed and outfeed are errors).
using ComputationEvaluator =
    std::function<StatusOr<Literal>(const Computation&, const std::vector<Literal>&)>;
std::optional<StatusOr<Literal>> EvaluateControlFlow(const Instruction& inst, const std::vector<const Literal*>& operands,
                                                    const ComputationEvaluator& evaluate, EvaluationFeeds* feeds);

}  // namespace vkxla
