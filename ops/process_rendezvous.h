// Where the processes of a replicated run meet: each process runs on its own
// host thread (the reference evaluator's, or the one driving its Vulkan
// executable); at a collective it hands in its operands and sleeps on a
// condition variable until every member of its group has arrived, and the
// last to arrive computes every member's result (ops/collectives.h).
// Collectives match by (op, channel, group) and by how many such
// collectives the process has passed, so loops pair up trip by trip. Sends
// and receives between processes go through channel mailboxes. A process
// that ends, or a state where every live process waits, fails the waiters
// with an error naming who waits where: a bad program cannot hang the run.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ops/collectives.h"

namespace vkxla {

// One leaf of an all-reduce folded in place: a member's operand and result
// bytes in host memory (dense, row-major), `bytes` long.
struct InPlaceLeaf {
  const uint8_t* operand = nullptr;
  uint8_t* result = nullptr;
  int64_t bytes = 0;
};

// How the processes of a run meet: in one OS process (ProcessRendezvous),
// or across MPI ranks (tools/mpi_run.h).
class ProcessTransport {
 public:
  virtual ~ProcessTransport() = default;
  // Process `self` reaches collective `op` with its operand leaves; returns
  // its result leaves once its whole group is there.
  virtual StatusOr<std::vector<Literal>> Collective(int64_t self, const Instruction& op, std::vector<Literal> operands) = 0;
  // An all-reduce that CanFoldInPlace (ops/collectives.h) accepts, its
  // leaves in this process's memory: the members fold a share of the
  // elements each, from every member's operand into every member's result,
  // with no copies (a 64 MiB all-reduce over 4 replicas made 7 copies of
  // 64 MiB as literals). False where the transport cannot (ranks that share
  // no memory): the caller takes Collective, as every member then does.
  virtual StatusOr<bool> AllReduceInPlace(int64_t self, const Instruction& op, const std::vector<InPlaceLeaf>& leaves) {
    (void)self, (void)op, (void)leaves;
    return false;
  }
  // Members that share memory meet at `op` with what each holds (`mine`,
  // opaque to the transport: a member's device buffers); once the whole
  // group is there, every member's `work(all, position)` runs on its own
  // thread, unlocked, with every member's `mine` in group order, and no
  // member returns before every member's work has. False where the
  // members share no memory (MPI ranks): then no work ran.
  using ShareWork = std::function<Status(const std::vector<const void*>& all, size_t position)>;
  virtual StatusOr<bool> Share(int64_t self, const Instruction& op, const void* mine, const ShareWork& work) {
    (void)self, (void)op, (void)mine, (void)work;
    return false;
  }
  // send and recv between processes on their channel_id, FIFO; with
  // source-target pairs (SendRecvPairs) from each source to its targets, and
  // a process that is no target receives zeros.
  virtual Status Send(int64_t self, const Instruction& send, Literal value) = 0;
  virtual StatusOr<Literal> Receive(int64_t self, const Instruction& recv) = 0;
};

class ProcessRendezvous : public ProcessTransport {
 public:
  explicit ProcessRendezvous(ProcessGrid grid);

  const ProcessGrid& grid() const { return grid_; }

  StatusOr<std::vector<Literal>> Collective(int64_t self, const Instruction& op, std::vector<Literal> operands) override;
  StatusOr<bool> AllReduceInPlace(int64_t self, const Instruction& op, const std::vector<InPlaceLeaf>& leaves) override;
  StatusOr<bool> Share(int64_t self, const Instruction& op, const void* mine, const ShareWork& work) override;
  Status Send(int64_t self, const Instruction& send, Literal value) override;
  StatusOr<Literal> Receive(int64_t self, const Instruction& recv) override;
  // Process `self` is done (its status says how): nobody waits for it any more.
  void Leave(int64_t self, const Status& status);

 private:
  using Key = std::tuple<int, int64_t, std::vector<int64_t>, int64_t>;  // opcode, channel, group, occurrence
  struct Meeting {
    std::vector<std::optional<std::vector<Literal>>> operands;  // by group position
    std::vector<std::vector<Literal>> results;
    // Share: what each member holds; `worked` members have done their work.
    std::vector<const void*> shared;
    size_t worked = 0;
    size_t arrived = 0, taken = 0;
    bool done = false;
    Status error;
  };
  // The meeting of process `self` at `op` (its `group`): the next one of
  // its kind for `self`, and `self`'s position in the group.
  std::pair<Key, size_t> MeetingOf(int64_t self, const Instruction& op, const std::vector<int64_t>& group);
  // Waits on `lock` until `ready()`; an error when a process it needs left or
  // every live process waits.
  Status Wait(std::unique_lock<std::mutex>& lock, int64_t self, const std::string& where,
              const std::vector<int64_t>& needed, const std::function<bool()>& ready);

  ProcessGrid grid_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<Key, Meeting> meetings_;
  std::map<std::tuple<int64_t, int, int64_t, std::vector<int64_t>>, int64_t> passed_;  // per process
  std::map<std::pair<int64_t, int64_t>, std::deque<Literal>> mailboxes_;  // (channel, target or -1)
  std::vector<std::optional<Status>> left_;   // by process: how it ended
  std::vector<std::string> waiting_at_;       // by process: where it waits ("" when running)
  std::vector<const std::function<bool()>*> waits_;  // by process: what ends its wait (null when running)
  std::optional<Status> deadlock_;
};

// Where a process stands in a run, for ops whose value depends on it. With
// no transport the process is alone (a 1×1 grid).
struct ProcessContext {
  ProcessGrid grid;
  int64_t self = 0;
  ProcessTransport* transport = nullptr;
  int64_t replica() const { return self / grid.partitions; }
  int64_t partition() const { return self % grid.partitions; }
};

// The data a recv gives: its result's first element.
Literal ZerosOfRecv(const Instruction& recv);

// replica-id, partition-id or a collective (IsProcessOpcode) for process
// `context.self`: its result leaves from its operand leaves.
StatusOr<std::vector<Literal>> RunProcessOp(const Instruction& op, std::vector<Literal> operands, const ProcessContext& context);

}  // namespace vkxla
