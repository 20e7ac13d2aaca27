// Collectives across the processes of a replicated run: StableHLO's process
// grid of replica_count × num_partitions processes, each named by its flat
// id replica * num_partitions + partition. This file holds what the ops
// mean: their attributes (replica_groups in every form, channel_id,
// use_global_device_ids, source_target_pairs), which processes meet in
// each op (the spec's cross_replica, cross_partition,
// cross_replica_and_partition and flattened_ids), their shape rules, and
// what each member of a group gets from all members' operands. Where the
// processes run and how they meet is ops/process_rendezvous.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

struct ProcessGrid {
  int64_t replicas = 1;
  int64_t partitions = 1;
  int64_t processes() const { return replicas * partitions; }
  std::string ToString() const;  // "2 replicas × 1 partition"
};

// The largest grid a run accepts: a thread and an executable per process.
constexpr int64_t kMaxProcesses = 1024;
Status CheckProcessGrid(const ProcessGrid& grid);

// Ops that exchange values between processes.
bool IsCollectiveOpcode(Opcode op);
// Those, replica-id and partition-id: ops whose value depends on the process.
bool IsProcessOpcode(Opcode op);

// replica_groups / source_target_pairs as HLO writes them: `{}`,
// `{{0,1},{2,3}}`, or the iota form `[2,4]<=[8]` / `[2,4]<=[4,2]T(1,0)`.
StatusOr<std::vector<std::vector<int64_t>>> ParseIdGroups(const std::string& text);
std::string IdGroupsText(const std::vector<std::vector<int64_t>>& groups);  // "{{0,1},{2,3}}"

enum class GroupMode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedIds };
std::string_view GroupModeName(GroupMode mode);
StatusOr<GroupMode> GroupModeOf(const Instruction& op);

// Every process group of `op` on `grid` as flat ids, each in the order its
// members' values are combined; checks the groups (ids in range, none in
// two groups, every id in one). For collective-permute: the lines of
// processes its pairs index (all replicas of a partition, or all
// partitions of a replica).
StatusOr<std::vector<std::vector<int64_t>>> ProcessGroups(const Instruction& op, const ProcessGrid& grid);
// The group holding process `self`.
StatusOr<std::vector<int64_t>> ProcessGroupOf(const Instruction& op, const ProcessGrid& grid, int64_t self);

// Shape rules; a rule that needs the group size reads it from explicit
// replica_groups, and CombineCollective checks it against the grid's.
StatusOr<Shape> InferCollectiveShape(const Instruction& op);

// A send's or recv's `_xla_send_recv_source_target_pairs` (its
// frontend_attributes: which process sends to which, as XLA's pipelined
// dumps write it), or nullopt when it names none: then any process that
// receives on the channel takes what any sent, in order.
StatusOr<std::optional<std::vector<std::vector<int64_t>>>> SendRecvPairs(const Instruction& op);

// Zeros of each result leaf of `op`: what a process in none of a
// collective-broadcast's groups gets.
std::vector<Literal> ZerosFor(const Instruction& op);

// What each member of `group` gets: `operands[m]` are member m's operand
// leaves (taken: a reduction folds into member 0's), the result is one
// list of result leaves per member.
StatusOr<std::vector<std::vector<Literal>>> CombineCollective(const Instruction& op, const std::vector<int64_t>& group,
                                                              std::vector<std::vector<Literal>> operands);

// The collectives that only move elements, whatever their values:
// all-gather, all-to-all, collective-permute, and collective-broadcast with
// a static root. Decided by the op alone, so every member agrees.
bool MovesElementsOnly(const Instruction& op);
// Where one result leaf of such a collective comes from, for one member of
// a group: zeros (a permutation's target nobody sends to), a whole operand
// leaf of one member, or `group size` blocks along result dimension
// `along`, block i from member i's operand leaf `leaf`: inside a block the
// operand's index is the result's with `along` made block-local and
// dimension `shift_dim` advanced by `shift` (all-to-all: the part this
// member takes).
struct LeafMove {
  enum class Kind { kZeros, kWhole, kBlocks };
  Kind kind = Kind::kZeros;
  int64_t member = 0;
  size_t leaf = 0;
  int64_t along = 0, shift_dim = 0, shift = 0;
};
// Member `position`'s result leaves of MovesElementsOnly `op` in a group of
// `group_size`, given the operand leaves' shapes; what CombineCollective
// computes, as a rule instead of values.
StatusOr<std::vector<LeafMove>> ResultMoves(const Instruction& op, int64_t group_size, int64_t position,
                                            const std::vector<Shape>& operand_leaves);

// An all-reduce whose members may fold straight from each other's bytes
// (ProcessTransport::AllReduceInPlace): a plain add or multiply of f16,
// bf16, f32, f64 or 32-/64-bit integers in every leaf, every member getting the
// result. Decided by the op alone, so every member of a group agrees.
bool CanFoldInPlace(const Instruction& op);
// A reduce-scatter of the same sums and products: each member's result
// is its block (along dimensions={d}) of every member's operand, folded.
bool ScattersFold(const Instruction& op);
// Such an all-reduce's or reduce-scatter's combiner: kAdd or kMultiply.
Opcode FoldCombiner(const Instruction& op);
// Elements [begin, end) of one leaf of such an all-reduce: the operands
// (dense, row-major, one per member in group order) folded in group order,
// as CombineCollective folds them, written to every member's result.
void FoldInPlace(const Instruction& op, ElementType type, const std::vector<const uint8_t*>& operands,
                 const std::vector<uint8_t*>& results, int64_t begin, int64_t end);

}  // namespace vkxla
