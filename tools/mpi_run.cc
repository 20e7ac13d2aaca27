#include "tools/mpi_run.h"

#include "ops/collectives.h"
#include "ops/control_flow.h"

#include <cstdlib>

#ifdef VKXLA_WITH_MPI
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#endif

namespace vkxla {

bool LaunchedByMpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr; }

#ifndef VKXLA_WITH_MPI

StatusOr<std::vector<Literal>> RunMpiRanks(ProcessGrid, const std::vector<ElementType>&,
                                           const std::function<StatusOr<std::vector<std::vector<Literal>>>()>&, const ProcessRunner&) {
  return Unimplemented("this vkxla was built without Open MPI (install libopenmpi-dev and rebuild): mpirun cannot run its processes");
}
int MpiRank() { return 0; }
void FinishMpi(bool) {}

#else

namespace {

constexpr int kValueTag = 1;       // arguments and results
constexpr int kCollectiveTag = 2;  // a collective's operands, in program order
int rank_ = 0;

// Sends `bytes` in pieces MPI's int counts can hold.
void SendBytes(const std::vector<uint8_t>& bytes, int dest, int tag) {
  const uint64_t size = bytes.size();
  MPI_Send(&size, 1, MPI_UINT64_T, dest, tag, MPI_COMM_WORLD);
  for (uint64_t at = 0; at < size; at += INT_MAX)
    MPI_Send(bytes.data() + at, static_cast<int>(std::min<uint64_t>(INT_MAX, size - at)), MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}

StatusOr<std::vector<uint8_t>> ReceiveBytes(int source, int tag, uint64_t limit) {
  uint64_t size = 0;
  MPI_Recv(&size, 1, MPI_UINT64_T, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (size > limit)
    return InvalidArgument("rank " + std::to_string(source) + " sent " + std::to_string(size) + " bytes where at most " +
                           std::to_string(limit) + " fit");
  std::vector<uint8_t> bytes(size);
  for (uint64_t at = 0; at < size; at += INT_MAX)
    MPI_Recv(bytes.data() + at, static_cast<int>(std::min<uint64_t>(INT_MAX, size - at)), MPI_BYTE, source, tag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  return bytes;
}

// A literal as its dims, then its bytes (the receiver knows the type).
void SendLiteral(const Literal& l, int dest) {
  const std::vector<int64_t>& dims = l.shape().dims();
  std::vector<uint8_t> header(sizeof(int64_t) * (dims.size() + 1));
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::memcpy(header.data(), &rank, sizeof rank);
  if (!dims.empty()) std::memcpy(header.data() + sizeof rank, dims.data(), sizeof(int64_t) * dims.size());
  SendBytes(header, dest, kValueTag);
  SendBytes(l.bytes(), dest, kValueTag);
}

StatusOr<Literal> ReceiveLiteral(ElementType type, int source) {
  VKXLA_ASSIGN_OR_RETURN(std::vector<uint8_t> header, ReceiveBytes(source, kValueTag, sizeof(int64_t) * 65));
  int64_t rank = 0;
  if (header.size() < sizeof rank) return InvalidArgument("a malformed value from rank " + std::to_string(source));
  std::memcpy(&rank, header.data(), sizeof rank);
  if (rank < 0 || header.size() != sizeof(int64_t) * (rank + 1)) return InvalidArgument("a malformed value from rank " + std::to_string(source));
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  if (rank) std::memcpy(dims.data(), header.data() + sizeof rank, sizeof(int64_t) * rank);
  for (int64_t d : dims)
    if (d < 0) return InvalidArgument("a malformed value from rank " + std::to_string(source));
  VKXLA_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReceiveBytes(source, kValueTag, uint64_t{1} << 40));
  Literal l(Shape(type, dims));
  if (bytes.size() != l.bytes().size())
    return InvalidArgument("rank " + std::to_string(source) + " sent " + std::to_string(bytes.size()) + " bytes for " +
                           l.shape().ToString());
  l.bytes() = std::move(bytes);
  return l;
}

// Collectives across ranks: each member sends its operands to every other
// member and combines all of them itself. Messages between two ranks keep
// their order, and every rank meets its collectives in program order, so
// the n-th message from a rank is its operand of the n-th collective the
// two share.
class MpiTransport : public ProcessTransport {
 public:
  explicit MpiTransport(ProcessGrid grid) : grid_(grid) {}

  StatusOr<std::vector<Literal>> Collective(int64_t self, const Instruction& op, std::vector<Literal> operands) override {
    VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> group, ProcessGroupOf(op, grid_, self));
    if (group.empty()) return ZerosFor(op);
    std::vector<uint8_t> mine;
    for (const Literal& l : operands) mine.insert(mine.end(), l.bytes().begin(), l.bytes().end());
    const uint64_t size = mine.size();
    if (size > INT_MAX) return Unimplemented(std::string(OpcodeName(op.opcode)) + " over MPI of more than 2 GiB per process");
    std::vector<MPI_Request> requests;
    for (int64_t q : group)
      if (q != self) {
        requests.emplace_back();
        MPI_Isend(&size, 1, MPI_UINT64_T, static_cast<int>(q), kCollectiveTag, MPI_COMM_WORLD, &requests.back());
        requests.emplace_back();
        MPI_Isend(mine.data(), static_cast<int>(size), MPI_BYTE, static_cast<int>(q), kCollectiveTag, MPI_COMM_WORLD,
                  &requests.back());
      }
    std::vector<std::vector<Literal>> all;
    Status status = OkStatus();
    for (int64_t q : group) {
      if (q == self) {
        all.push_back(operands);
        continue;
      }
      uint64_t theirs = 0;
      MPI_Recv(&theirs, 1, MPI_UINT64_T, static_cast<int>(q), kCollectiveTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      // Received whole even when it differs (a sender refuses over INT_MAX),
      // so a mismatch is our error below, not MPI's truncation abort.
      std::vector<uint8_t> bytes(std::min<uint64_t>(theirs, INT_MAX));
      MPI_Recv(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, static_cast<int>(q), kCollectiveTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      if (theirs != size && status.ok())
        status = InvalidArgument(std::string(OpcodeName(op.opcode)) + " " + op.Describe() + ": process " + std::to_string(q) + " gave " +
                                 std::to_string(theirs) + " bytes of operands, process " + std::to_string(self) + " " +
                                 std::to_string(size));
      std::vector<Literal> leaves;
      size_t at = 0;
      for (const Literal& l : operands) {
        Literal copy(l.shape());
        if (theirs == size) std::memcpy(copy.bytes().data(), bytes.data() + at, copy.bytes().size());
        at += copy.bytes().size();
        leaves.push_back(std::move(copy));
      }
      all.push_back(std::move(leaves));
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    VKXLA_RETURN_IF_ERROR(status);
    VKXLA_ASSIGN_OR_RETURN(auto results, CombineCollective(op, group, std::move(all)));
    const size_t position = static_cast<size_t>(std::find(group.begin(), group.end(), self) - group.begin());
    return std::move(results[position]);
  }

  // Sums and products (CanFoldInPlace) as a reduce-scatter then an
  // all-gather of the members' bytes: each member folds its share of the
  // elements from every member's share, in group order as Collective
  // folds, and sends the folded share to the others. A rank sends and
  // receives 2(G-1)/G of its operands, where Collective moves G-1 times
  // them. Every rank runs the same module, so all agree on this path.
  StatusOr<bool> AllReduceInPlace(int64_t self, const Instruction& op, const std::vector<InPlaceLeaf>& leaves) override {
    if (!CanFoldInPlace(op) || leaves.size() != op.operands.size()) return false;
    VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> group, ProcessGroupOf(op, grid_, self));
    if (group.empty()) return false;
    const int64_t g = static_cast<int64_t>(group.size());
    const int64_t me = std::find(group.begin(), group.end(), self) - group.begin();
    // Member j's share of leaf k, in bytes: [first, second).
    const auto share = [&](size_t k, int64_t j) {
      const int64_t size = BitWidth(op.operands[k]->shape.element_type()) / 8, n = leaves[k].bytes / size;
      return std::pair<int64_t, int64_t>{n * j / g * size, n * (j + 1) / g * size};
    };
    for (size_t k = 0; k < leaves.size(); ++k)
      if (share(k, g - 1).second - share(k, g - 1).first > INT_MAX) return false;  // Collective says why
    const auto send = [&](const uint8_t* data, int64_t bytes, int64_t j, std::vector<MPI_Request>& requests) {
      requests.emplace_back();
      MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, static_cast<int>(group[j]), kCollectiveTag, MPI_COMM_WORLD, &requests.back());
    };
    const auto receive = [&](uint8_t* data, int64_t bytes, int64_t j) {
      MPI_Recv(data, static_cast<int>(bytes), MPI_BYTE, static_cast<int>(group[j]), kCollectiveTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    };
    // Reduce-scatter: my share of every member's operand, folded into my result.
    std::vector<MPI_Request> requests;
    for (size_t k = 0; k < leaves.size(); ++k)
      for (int64_t j = 0; j < g; ++j)
        if (j != me) send(leaves[k].operand + share(k, j).first, share(k, j).second - share(k, j).first, j, requests);
    for (size_t k = 0; k < leaves.size(); ++k) {
      const auto [first, last] = share(k, me);
      std::vector<std::vector<uint8_t>> theirs(static_cast<size_t>(g));
      std::vector<const uint8_t*> operands;
      for (int64_t j = 0; j < g; ++j) {
        if (j == me) {
          operands.push_back(leaves[k].operand + first);
          continue;
        }
        theirs[j].resize(static_cast<size_t>(last - first));
        receive(theirs[j].data(), last - first, j);
        operands.push_back(theirs[j].data());
      }
      const int64_t size = BitWidth(op.operands[k]->shape.element_type()) / 8;
      FoldInPlace(op, op.operands[k]->shape.element_type(), operands, {leaves[k].result + first}, 0, (last - first) / size);
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    // All-gather: my folded share to the others, theirs into my result.
    requests.clear();
    for (size_t k = 0; k < leaves.size(); ++k)
      for (int64_t j = 0; j < g; ++j)
        if (j != me) send(leaves[k].result + share(k, me).first, share(k, me).second - share(k, me).first, j, requests);
    for (size_t k = 0; k < leaves.size(); ++k)
      for (int64_t j = 0; j < g; ++j)
        if (j != me) receive(leaves[k].result + share(k, j).first, share(k, j).second - share(k, j).first, j);
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    return true;
  }

  // Sends go straight to the ranks the op's source-target pairs name
  // (without pairs the receiver is unknown across ranks: an error); each is
  // in flight until the run ends, so two ranks sending to each other first
  // cannot block.
  Status Send(int64_t self, const Instruction& send, Literal value) override {
    VKXLA_ASSIGN_OR_RETURN(auto pairs, SendRecvPairs(send));
    if (!pairs) return UnpairedError(send);
    for (const auto& p : *pairs) {
      if (p[0] != self) continue;
      if (p[1] >= grid_.processes())
        return InvalidArgument("send %" + send.name + " to process " + std::to_string(p[1]) + " of " + grid_.ToString());
      pending_.push_back(std::make_unique<Message>());
      Message& m = *pending_.back();
      m.bytes = std::move(value.bytes());
      m.size = m.bytes.size();
      if (m.size > INT_MAX) return Unimplemented("send %" + send.name + " over MPI of more than 2 GiB");
      const int tag = ChannelTag(send);
      MPI_Isend(&m.size, 1, MPI_UINT64_T, static_cast<int>(p[1]), tag, MPI_COMM_WORLD, &m.requests[0]);
      MPI_Isend(m.bytes.data(), static_cast<int>(m.size), MPI_BYTE, static_cast<int>(p[1]), tag, MPI_COMM_WORLD, &m.requests[1]);
      break;  // a source sends once; the first pair naming it
    }
    return OkStatus();
  }

  StatusOr<Literal> Receive(int64_t self, const Instruction& recv) override {
    VKXLA_ASSIGN_OR_RETURN(auto pairs, SendRecvPairs(recv));
    if (!pairs) return UnpairedError(recv);
    int64_t source = -1;
    for (const auto& p : *pairs)
      if (p[1] == self) source = p[0];
    Literal out = ZerosOfRecv(recv);
    if (source < 0) return out;
    if (source >= grid_.processes())
      return InvalidArgument("recv %" + recv.name + " from process " + std::to_string(source) + " of " + grid_.ToString());
    const int tag = ChannelTag(recv);
    uint64_t size = 0;
    MPI_Recv(&size, 1, MPI_UINT64_T, static_cast<int>(source), tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (size != out.bytes().size()) {
      std::vector<uint8_t> drain(std::min<uint64_t>(size, INT_MAX));
      MPI_Recv(drain.data(), static_cast<int>(drain.size()), MPI_BYTE, static_cast<int>(source), tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      return InvalidArgument("recv %" + recv.name + " expects " + out.shape().ToString() + " (" + std::to_string(out.bytes().size()) +
                             " bytes), process " + std::to_string(source) + " sent " + std::to_string(size));
    }
    MPI_Recv(out.bytes().data(), static_cast<int>(size), MPI_BYTE, static_cast<int>(source), tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return out;
  }

  ~MpiTransport() override {
    for (auto& m : pending_) MPI_Waitall(2, m->requests, MPI_STATUSES_IGNORE);
  }

 private:
  struct Message {
    uint64_t size = 0;
    std::vector<uint8_t> bytes;
    MPI_Request requests[2];
  };
  static Status UnpairedError(const Instruction& op) {
    return Unimplemented(std::string(OpcodeName(op.opcode)) + " %" + op.name + " on channel " + std::to_string(ChannelId(op)) +
                         " between MPI ranks needs frontend_attributes={_xla_send_recv_source_target_pairs=\"{{source,target}}\"} "
                         "(without them only processes of one vkxla run, --replicas, share channels)");
  }
  // Sends and receives of one channel match in order between two ranks.
  static int ChannelTag(const Instruction& op) { return 3 + static_cast<int>(ChannelId(op) % 30000); }

  ProcessGrid grid_;
  std::vector<std::unique_ptr<Message>> pending_;
};

}  // namespace

int MpiRank() { return rank_; }

void FinishMpi(bool failed) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return;
  if (failed) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
}

StatusOr<std::vector<Literal>> RunMpiRanks(ProcessGrid grid, const std::vector<ElementType>& parameter_types,
                                           const std::function<StatusOr<std::vector<std::vector<Literal>>>()>& read_arguments,
                                           const ProcessRunner& run) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  VKXLA_RETURN_IF_ERROR(CheckProcessGrid(grid));
  if (size != grid.processes())
    return InvalidArgument("mpirun started " + std::to_string(size) + " ranks for a run of " + grid.ToString() +
                           ": one rank per process (mpirun -n " + std::to_string(grid.processes()) + ")");
  std::vector<Literal> mine;
  if (rank_ == 0) {
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> all, read_arguments());
    for (int r = 1; r < size; ++r)
      for (const Literal& l : all[r]) SendLiteral(l, r);
    mine = std::move(all[0]);
  }
  if (rank_ != 0)
    for (ElementType t : parameter_types) {
      VKXLA_ASSIGN_OR_RETURN(Literal l, ReceiveLiteral(t, 0));
      mine.push_back(std::move(l));
    }
  MpiTransport transport(grid);
  VKXLA_ASSIGN_OR_RETURN(Literal result, run(mine, ProcessContext{grid, rank_, &transport}));
  // Results travel as their arrays (a token holds no data) and are rebuilt.
  std::vector<const Literal*> arrays;
  for (const Literal* l : result.Leaves())
    if (l->shape().IsArray()) arrays.push_back(l);
  if (rank_ != 0) {
    for (const Literal* l : arrays) SendLiteral(*l, 0);
    return std::vector<Literal>{};
  }
  std::vector<Literal> results;
  results.push_back(std::move(result));
  for (int r = 1; r < size; ++r) {
    std::vector<Literal> theirs;
    for (const Literal* l : arrays) {
      VKXLA_ASSIGN_OR_RETURN(Literal v, ReceiveLiteral(l->shape().element_type(), r));
      theirs.push_back(std::move(v));
    }
    size_t next = 0;
    VKXLA_ASSIGN_OR_RETURN(Literal rebuilt, LiteralFromArrayLeaves(results[0].shape(), theirs, next));
    results.push_back(std::move(rebuilt));
  }
  return results;
}

#endif

}  // namespace vkxla
