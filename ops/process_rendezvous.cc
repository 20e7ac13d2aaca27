#include "ops/process_rendezvous.h"

#include <algorithm>

#include "ops/control_flow.h"

namespace vkxla {

ProcessRendezvous::ProcessRendezvous(ProcessGrid grid)
    : grid_(grid),
      left_(static_cast<size_t>(std::max<int64_t>(1, grid.processes()))),
      waiting_at_(left_.size()),
      waits_(left_.size(), nullptr) {}

Status ProcessRendezvous::Wait(std::unique_lock<std::mutex>& lock, int64_t self, const std::string& where,
                               const std::vector<int64_t>& needed, const std::function<bool()>& ready) {
  waits_[self] = &ready;
  waiting_at_[self] = where;
  Status result = OkStatus();
  while (!ready()) {
    if (deadlock_) {
      result = *deadlock_;
      break;
    }
    bool gone = false;
    for (int64_t p : needed)
      if (left_[p]) {
        result = Aborted("process " + std::to_string(self) + " waits at " + where + " for process " + std::to_string(p) +
                         ", which ended " + (left_[p]->ok() ? "without reaching it" : "with an error: " + left_[p]->message()));
        gone = true;
        break;
      }
    if (gone) break;
    // A deadlock: every process has ended or waits for something that has
    // not come (a woken waiter whose wait is over still counts as running).
    bool stuck = true;
    for (size_t p = 0; p < waits_.size() && stuck; ++p) stuck = left_[p] || (waits_[p] && !(*waits_[p])());
    if (stuck) {
      std::string who;
      for (size_t p = 0; p < waiting_at_.size(); ++p)
        if (waits_[p]) who += (who.empty() ? "" : "; ") + ("process " + std::to_string(p) + " at " + waiting_at_[p]);
      deadlock_ = Aborted("the processes deadlocked: every one still running waits for another (" + who + ")");
      cv_.notify_all();
      result = *deadlock_;
      break;
    }
    cv_.wait(lock);
  }
  waits_[self] = nullptr;
  waiting_at_[self].clear();
  return result;
}

std::pair<ProcessRendezvous::Key, size_t> ProcessRendezvous::MeetingOf(int64_t self, const Instruction& op,
                                                                        const std::vector<int64_t>& group) {
  const int64_t channel = ChannelId(op);
  const int opcode = static_cast<int>(op.opcode);
  const int64_t occurrence = passed_[{self, opcode, channel, group}]++;
  return {Key{opcode, channel, group, occurrence},
          static_cast<size_t>(std::find(group.begin(), group.end(), self) - group.begin())};
}

StatusOr<std::vector<Literal>> ProcessRendezvous::Collective(int64_t self, const Instruction& op, std::vector<Literal> operands) {
  VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> group, ProcessGroupOf(op, grid_, self));
  if (group.empty()) return ZerosFor(op);
  std::unique_lock<std::mutex> lock(mu_);
  const auto [key, position] = MeetingOf(self, op, group);
  Meeting& m = meetings_[key];
  if (m.operands.empty()) m.operands.resize(group.size());
  m.operands[position] = std::move(operands);
  if (++m.arrived == group.size()) {
    std::vector<std::vector<Literal>> all;
    for (auto& o : m.operands)
      if (o) all.push_back(std::move(*o));
    // Members of one op meet by value or in place, all alike (modules run
    // in parallel may still disagree).
    StatusOr<std::vector<std::vector<Literal>>> r =
        all.size() == group.size() ? CombineCollective(op, group, std::move(all))
                                   : InvalidArgument(std::string(OpcodeName(op.opcode)) + " %" + op.name +
                                                     ": the members' operands differ (" + op.shape.ToString() + ")");
    if (r.ok()) {
      m.results = std::move(*r);
    } else {
      m.error = r.status();
    }
    m.done = true;
    cv_.notify_all();
  } else {
    const std::string where = std::string(OpcodeName(op.opcode)) + " %" + op.name;
    VKXLA_RETURN_IF_ERROR(Wait(lock, self, where, group, [&m] { return m.done; }));
  }
  Status error = m.error;
  std::vector<Literal> mine = error.ok() ? std::move(m.results[position]) : std::vector<Literal>{};
  if (++m.taken == group.size()) meetings_.erase(key);
  if (!error.ok()) return error;
  return mine;
}

StatusOr<bool> ProcessRendezvous::AllReduceInPlace(int64_t self, const Instruction& op, const std::vector<InPlaceLeaf>& leaves) {
  if (!CanFoldInPlace(op)) return false;
  VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> group, ProcessGroupOf(op, grid_, self));
  if (group.empty()) return false;
  // Each member folds its share of every leaf's elements.
  return Share(self, op, &leaves, [&](const std::vector<const void*>& all, size_t position) -> Status {
    std::vector<const std::vector<InPlaceLeaf>*> members;
    for (const void* m : all) members.push_back(static_cast<const std::vector<InPlaceLeaf>*>(m));
    // Every member's leaves must match the first's (one op: modules run in
    // parallel may still disagree); every member finds the same.
    for (const std::vector<InPlaceLeaf>* l : members) {
      bool same = l->size() == members[0]->size();
      for (size_t k = 0; same && k < l->size(); ++k) same = (*l)[k].bytes == (*members[0])[k].bytes;
      if (!same)
        return InvalidArgument(std::string(OpcodeName(op.opcode)) + " %" + op.name + ": the members' operands differ (" +
                               op.shape.ToString() + ")");
    }
    for (size_t k = 0; k < leaves.size(); ++k) {
      const ElementType type = op.operands[k]->shape.element_type();
      const int64_t n = leaves[k].bytes / (BitWidth(type) / 8), g = static_cast<int64_t>(members.size());
      const int64_t p = static_cast<int64_t>(position);
      std::vector<const uint8_t*> operands;
      std::vector<uint8_t*> results;
      for (const std::vector<InPlaceLeaf>* l : members) operands.push_back((*l)[k].operand), results.push_back((*l)[k].result);
      FoldInPlace(op, type, operands, results, n * p / g, n * (p + 1) / g);
    }
    return OkStatus();
  });
}

StatusOr<bool> ProcessRendezvous::Share(int64_t self, const Instruction& op, const void* mine, const ShareWork& work) {
  VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> group, ProcessGroupOf(op, grid_, self));
  if (group.empty()) return false;
  const std::string where = std::string(OpcodeName(op.opcode)) + " %" + op.name;
  std::unique_lock<std::mutex> lock(mu_);
  const auto [key, position] = MeetingOf(self, op, group);
  Meeting& m = meetings_[key];
  if (m.shared.empty()) m.shared.resize(group.size());
  m.shared[position] = mine;
  if (++m.arrived == group.size()) {
    // Members of one op meet by value or by sharing, all alike (modules run
    // in parallel may still disagree).
    if (!m.operands.empty()) {
      m.error = InvalidArgument(where + ": the members' operands differ (" + op.shape.ToString() + ")");
      m.done = true;  // nobody works
    }
    cv_.notify_all();
  } else {
    VKXLA_RETURN_IF_ERROR(Wait(lock, self, where, group, [&m, n = group.size()] { return m.arrived == n; }));
  }
  Status mine_worked = OkStatus();
  if (m.error.ok()) {
    const std::vector<const void*> all = m.shared;
    lock.unlock();
    mine_worked = work(all, position);
    lock.lock();
  }
  // Nobody leaves before every member's work is done: it may write what
  // the others hold.
  if (++m.worked == group.size() || m.done) {
    m.done = true;
    cv_.notify_all();
  } else {
    VKXLA_RETURN_IF_ERROR(Wait(lock, self, where, group, [&m] { return m.done; }));
  }
  const Status error = m.error;
  if (++m.taken == group.size()) meetings_.erase(key);
  if (!error.ok()) return error;
  if (!mine_worked.ok()) return mine_worked;
  return true;
}

Status ProcessRendezvous::Send(int64_t self, const Instruction& send, Literal value) {
  VKXLA_ASSIGN_OR_RETURN(auto pairs, SendRecvPairs(send));
  const int64_t channel = ChannelId(send);
  std::lock_guard<std::mutex> lock(mu_);
  if (!pairs) {
    mailboxes_[{channel, -1}].push_back(std::move(value));
  } else {
    for (const auto& p : *pairs)
      if (p[0] == self) mailboxes_[{channel, p[1]}].push_back(value);
  }
  cv_.notify_all();
  return OkStatus();
}

StatusOr<Literal> ProcessRendezvous::Receive(int64_t self, const Instruction& recv) {
  VKXLA_ASSIGN_OR_RETURN(auto pairs, SendRecvPairs(recv));
  int64_t target = -1;
  if (pairs) {
    const bool named = std::any_of(pairs->begin(), pairs->end(), [&](const auto& p) { return p[1] == self; });
    if (!named) return ZerosOfRecv(recv);
    target = self;
  }
  const int64_t channel = ChannelId(recv);
  std::unique_lock<std::mutex> lock(mu_);
  std::deque<Literal>& box = mailboxes_[{channel, target}];
  const std::string where = "recv %" + recv.name + " (channel " + std::to_string(channel) + ")";
  VKXLA_RETURN_IF_ERROR(Wait(lock, self, where, {}, [&box] { return !box.empty(); }));
  StatusOr<Literal> v(std::move(box.front()));
  box.pop_front();
  return v;
}

Literal ZerosOfRecv(const Instruction& recv) {
  const Shape& data = recv.shape.IsTuple() ? recv.shape.tuple_shapes()[0] : recv.shape;
  return Literal(Shape(data.element_type(), data.dims()));
}

void ProcessRendezvous::Leave(int64_t self, const Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (self < 0 || static_cast<size_t>(self) >= left_.size() || left_[self]) return;
  left_[self] = status;
  cv_.notify_all();
}

StatusOr<std::vector<Literal>> RunProcessOp(const Instruction& op, std::vector<Literal> operands, const ProcessContext& context) {
  if (op.opcode == Opcode::kReplicaId || op.opcode == Opcode::kPartitionId) {
    const int64_t id = op.opcode == Opcode::kReplicaId ? context.replica() : context.partition();
    return std::vector<Literal>{Literal::ScalarOf(Scalar::UInt(ElementType::kU32, static_cast<uint64_t>(id)))};
  }
  if (!IsCollectiveOpcode(op.opcode)) return Internal(std::string(OpcodeName(op.opcode)) + " is not a process op");
  if (context.transport) return context.transport->Collective(context.self, op, std::move(operands));
  // Alone: a group of one.
  VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> group, ProcessGroupOf(op, context.grid, context.self));
  if (group.empty()) return ZerosFor(op);
  if (group.size() != 1)
    return FailedPrecondition(std::string(OpcodeName(op.opcode)) + " " + op.Describe() + ": a group of " + std::to_string(group.size()) +
                              " processes in a run of one (run the module with its replicas)");
  VKXLA_ASSIGN_OR_RETURN(auto results, CombineCollective(op, group, {std::move(operands)}));
  return std::move(results[0]);
}

}  // namespace vkxla
