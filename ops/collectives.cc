#include "ops/collectives.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <optional>
#include <set>
#include <numeric>

#include "ir/float_formats.h"

#include "ir/element_type.h"
#include "ir/numbers.h"
#include "ops/attributes.h"
#include "ops/computation_signature.h"
#include "ops/control_flow.h"
#include "ops/elementwise_reference.h"
#include "ops/evaluator.h"
#include "ops/op_traits.h"

namespace vkxla {
namespace {

// Bounds the ids a group list may name before anything is allocated.
constexpr int64_t kMaxGroupIds = int64_t{1} << 20;

Status OpError(const Instruction& op, const std::string& m) {
  return InvalidArgument(std::string(OpcodeName(op.opcode)) + " " + op.Describe() + ": " + m);
}

std::vector<Shape> LeafShapes(const Shape& s) {
  if (!s.IsTuple()) return {s};
  return s.tuple_shapes();
}

Shape ShapeOfLeaves(const std::vector<Shape>& leaves) { return leaves.size() == 1 ? leaves[0] : Shape::Tuple(leaves); }

bool HasUseGlobalDeviceIds(Opcode op) {
  return op == Opcode::kAllReduce || op == Opcode::kAllGather || op == Opcode::kReduceScatter;
}

// A dimension attribute `dimensions={d}` (HLO) of an op that needs one.
StatusOr<int64_t> OneDimension(const Instruction& op, int64_t rank) {
  if (!op.dimensions || op.dimensions->size() != 1)
    return OpError(op, "needs dimensions={d} naming one dimension");
  const int64_t d = (*op.dimensions)[0];
  if (d < 0 || d >= rank) return OpError(op, "dimension " + std::to_string(d) + " is out of range for rank " + std::to_string(rank));
  return d;
}

// all-to-all's split and concat dimensions and split count: StableHLO's
// three attributes, or HLO's dimensions={d} (split and concat on d, one
// part per group member: count 0 here, the group's size at run time).
struct AllToAllDims {
  int64_t split = 0, concat = 0, count = 0;
};

StatusOr<std::optional<AllToAllDims>> ReadAllToAll(const Instruction& op, int64_t rank) {
  if (FindAttribute(op, "split_dimension")) {
    AllToAllDims a;
    VKXLA_ASSIGN_OR_RETURN(a.split, IntAttribute(op, "split_dimension"));
    VKXLA_ASSIGN_OR_RETURN(a.concat, IntAttribute(op, "concat_dimension"));
    VKXLA_ASSIGN_OR_RETURN(a.count, IntAttribute(op, "split_count"));
    if (a.split < 0 || a.split >= rank || a.concat < 0 || a.concat >= rank)
      return OpError(op, "split_dimension " + std::to_string(a.split) + " and concat_dimension " + std::to_string(a.concat) +
                             " must be dimensions of rank " + std::to_string(rank));
    if (a.count <= 0) return OpError(op, "split_count must be positive, got " + std::to_string(a.count));
    return std::optional<AllToAllDims>(a);
  }
  if (!op.dimensions) return std::optional<AllToAllDims>();  // the tuple form
  VKXLA_ASSIGN_OR_RETURN(int64_t d, OneDimension(op, rank));
  return std::optional<AllToAllDims>(AllToAllDims{d, d, 0});
}

// The explicit groups' common size, or 0 when the groups are implicit (all).
StatusOr<int64_t> ExplicitGroupSize(const Instruction& op) {
  const std::string* text = FindAttribute(op, "replica_groups");
  VKXLA_ASSIGN_OR_RETURN(GroupMode mode, GroupModeOf(op));
  const bool sized = op.opcode == Opcode::kAllGather || op.opcode == Opcode::kReduceScatter || op.opcode == Opcode::kAllToAll;
  if (!text || !sized || mode == GroupMode::kCrossReplicaAndPartition) return 0;  // times the partitions: known at run time
  VKXLA_ASSIGN_OR_RETURN(auto groups, ParseIdGroups(*text));
  if (groups.empty()) return 0;
  for (const auto& g : groups)
    if (g.size() != groups[0].size())
      return OpError(op, "replica_groups " + *text + " have different sizes; this op needs groups of one size");
  return static_cast<int64_t>(groups[0].size());
}

// Row-major helpers over a dimension d: `outer` blocks of dims[d] * inner.
struct Along {
  int64_t outer = 1, length = 1, inner = 1;
};
Along AlongDim(const std::vector<int64_t>& dims, int64_t d) {
  Along a;
  for (int64_t i = 0; i < d; ++i) a.outer *= dims[i];
  a.length = dims[d];
  for (size_t i = d + 1; i < dims.size(); ++i) a.inner *= dims[i];
  return a;
}

Literal Concatenate(const std::vector<const Literal*>& parts, int64_t d) {
  std::vector<int64_t> dims = parts[0]->shape().dims();
  dims[d] = 0;
  for (const Literal* p : parts) dims[d] += p->shape().dim(d);
  Literal out(Shape(parts[0]->shape().element_type(), dims));
  const Along o = AlongDim(dims, d);
  int64_t offset = 0;
  for (const Literal* p : parts) {
    const Along a = AlongDim(p->shape().dims(), d);
    for (int64_t b = 0; b < a.outer; ++b)
      for (int64_t k = 0; k < a.length * a.inner; ++k) out.Set((b * o.length + offset) * o.inner + k, p->Get(b * a.length * a.inner + k));
    offset += a.length;
  }
  return out;
}

// Part `index` of `parts` equal parts of x along d.
Literal Part(const Literal& x, int64_t d, int64_t parts, int64_t index) {
  std::vector<int64_t> dims = x.shape().dims();
  const Along a = AlongDim(dims, d);
  dims[d] /= parts;
  Literal out(Shape(x.shape().element_type(), dims));
  const int64_t length = dims[d];
  for (int64_t b = 0; b < a.outer; ++b)
    for (int64_t k = 0; k < length * a.inner; ++k) out.Set(b * length * a.inner + k, x.Get((b * a.length + index * length) * a.inner + k));
  return out;
}

// (a, b) -> to_apply(a, b) on scalars; a root that is one elementwise op of
// the two parameters is evaluated directly (the common sum, max, ...).
using Combiner = std::function<StatusOr<Scalar>(const Scalar&, const Scalar&)>;
StatusOr<Combiner> ScalarCombinerOf(const Instruction& op) {
  VKXLA_ASSIGN_OR_RETURN(const Computation* c, CalledComputation(op, "to_apply", "the reduction computation"));
  const Instruction* root = c->root();
  const std::vector<Instruction*> params = c->parameters();
  if (params.size() != 2 || !root || root->shape.IsTuple())
    return OpError(op, "the reduction computation must take two scalars and give one");
  if (IsElementwiseBinary(root->opcode) && root->operands.size() == 2 && root->operands[0]->opcode == Opcode::kParameter &&
      root->operands[1]->opcode == Opcode::kParameter && root->operands[0] != root->operands[1]) {
    const bool swapped = root->operands[0] == params[1];
    const ElementType t = root->shape.element_type();
    return Combiner([root, swapped, t](const Scalar& a, const Scalar& b) -> StatusOr<Scalar> {
      const Scalar v[2] = {swapped ? b : a, swapped ? a : b};
      return EvaluateElementwise(*root, v, t);
    });
  }
  return Combiner([c](const Scalar& a, const Scalar& b) -> StatusOr<Scalar> {
    VKXLA_ASSIGN_OR_RETURN(Literal r, EvaluateComputation(*c, {Literal::ScalarOf(a), Literal::ScalarOf(b)}));
    return r.Get(0);
  });
}

// The opcode of a reduction whose root is that one op of its two
// parameters (in order), else nullopt.
std::optional<Opcode> PlainRoot(const Instruction& op) {
  StatusOr<const Computation*> c = CalledComputation(op, "to_apply", "the reduction computation");
  if (!c.ok()) return std::nullopt;
  const Instruction* root = (*c)->root();
  const std::vector<Instruction*> params = (*c)->parameters();
  if (!root || params.size() != 2 || root->operands.size() != 2 || root->operands[0] != params[0] || root->operands[1] != params[1])
    return std::nullopt;
  return root->opcode;
}

// acc op= x on the host's own numbers, for the common sums and products:
// the same IEEE and wrapping results as the element-by-element evaluator,
// hundreds of times faster (a 64 MiB all-reduce).
template <typename T, typename Wide>
bool FoldNative(Opcode opcode, Literal& acc, const Literal& x) {
  if (opcode != Opcode::kAdd && opcode != Opcode::kMultiply) return false;
  uint8_t* a = acc.bytes().data();
  const uint8_t* b = x.bytes().data();
  const int64_t n = acc.element_count();
  for (int64_t i = 0; i < n; ++i) {
    T u, v;
    std::memcpy(&u, a + i * sizeof(T), sizeof(T));
    std::memcpy(&v, b + i * sizeof(T), sizeof(T));
    const T r = opcode == Opcode::kAdd ? static_cast<T>(static_cast<Wide>(u) + static_cast<Wide>(v))
                                       : static_cast<T>(static_cast<Wide>(u) * static_cast<Wide>(v));
    std::memcpy(a + i * sizeof(T), &r, sizeof(T));
  }
  return true;
}

// FoldInPlace for one type: ((x0 op x1) op x2) ... per element, as
// FoldNative folds whole operands.
template <typename T, typename Wide>
void FoldElements(Opcode opcode, const std::vector<const uint8_t*>& operands, const std::vector<uint8_t*>& results, int64_t begin,
                  int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    T acc;
    std::memcpy(&acc, operands[0] + i * sizeof(T), sizeof(T));
    for (size_t m = 1; m < operands.size(); ++m) {
      T v;
      std::memcpy(&v, operands[m] + i * sizeof(T), sizeof(T));
      acc = opcode == Opcode::kAdd ? static_cast<T>(static_cast<Wide>(acc) + static_cast<Wide>(v))
                                   : static_cast<T>(static_cast<Wide>(acc) * static_cast<Wide>(v));
    }
    for (uint8_t* r : results) std::memcpy(r + i * sizeof(T), &acc, sizeof(T));
  }
}

// 16-bit floats: each step computed exactly in double and rounded to the
// type, as the evaluator's Scalar::Float does.
void FoldNarrowFloats(Opcode opcode, ElementType t, const std::vector<const uint8_t*>& operands,
                      const std::vector<uint8_t*>& results, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    uint16_t bits;
    std::memcpy(&bits, operands[0] + i * 2, 2);
    for (size_t m = 1; m < operands.size(); ++m) {
      uint16_t v;
      std::memcpy(&v, operands[m] + i * 2, 2);
      const double a = DecodeNarrowFloat(bits, t), b = DecodeNarrowFloat(v, t);
      bits = static_cast<uint16_t>(EncodeNarrowFloat(RoundToFloatType(opcode == Opcode::kAdd ? a + b : a * b, t), t));
    }
    for (uint8_t* r : results) std::memcpy(r + i * 2, &bits, 2);
  }
}

bool FoldsNatively(ElementType t) {
  switch (t) {
    case ElementType::kF32: case ElementType::kF64: case ElementType::kS32: case ElementType::kU32: case ElementType::kS64:
    case ElementType::kU64: case ElementType::kF16: case ElementType::kBF16:
      return true;
    default:
      return false;
  }
}

bool FoldFast(Opcode opcode, Literal& acc, const Literal& x) {
  if (acc.bytes().size() != x.bytes().size()) return false;
  switch (acc.shape().element_type()) {
    case ElementType::kF32: return FoldNative<float, float>(opcode, acc, x);
    case ElementType::kF64: return FoldNative<double, double>(opcode, acc, x);
    // Integers wrap: computed unsigned, stored back in the signed type.
    case ElementType::kS32: return FoldNative<int32_t, uint32_t>(opcode, acc, x);
    case ElementType::kU32: return FoldNative<uint32_t, uint32_t>(opcode, acc, x);
    case ElementType::kS64: return FoldNative<int64_t, uint64_t>(opcode, acc, x);
    case ElementType::kU64: return FoldNative<uint64_t, uint64_t>(opcode, acc, x);
    default: return false;
  }
}

// Each leaf folded over the members in group order: ((x0 op x1) op x2) ...
StatusOr<std::vector<Literal>> Reduce(const Instruction& op, std::vector<std::vector<Literal>>& operands) {
  VKXLA_ASSIGN_OR_RETURN(Combiner combine, ScalarCombinerOf(op));
  const std::optional<Opcode> plain = PlainRoot(op);
  std::vector<Literal> out;
  for (size_t leaf = 0; leaf < operands[0].size(); ++leaf) {
    Literal acc = std::move(operands[0][leaf]);  // folded in place: member 0's operand is not read again
    for (size_t m = 1; m < operands.size(); ++m) {
      const Literal& x = operands[m][leaf];
      if (plain && acc.shape().element_type() == x.shape().element_type() && FoldFast(*plain, acc, x)) continue;
      for (int64_t i = 0; i < acc.element_count(); ++i) {
        VKXLA_ASSIGN_OR_RETURN(Scalar v, combine(acc.Get(i), x.Get(i)));
        acc.Set(i, v);
      }
    }
    out.push_back(std::move(acc));
  }
  return out;
}

Status CheckLeaves(const Instruction& op, const std::vector<std::vector<Literal>>& results, int64_t group_size) {
  const std::vector<Shape> declared = LeafShapes(op.shape);
  for (const std::vector<Literal>& r : results) {
    if (r.size() != declared.size())
      return OpError(op, "gives " + std::to_string(r.size()) + " values, the op declares " + op.shape.ToString());
    for (size_t k = 0; k < r.size(); ++k)
      if (r[k].shape().dims() != declared[k].dims() || r[k].shape().element_type() != declared[k].element_type())
        return OpError(op, "with a group of " + std::to_string(group_size) + " processes the result is " + r[k].shape().ToString() +
                               ", the op declares " + declared[k].ToString());
  }
  return OkStatus();
}

// A sum or product of natively folded arrays, every member getting a result.
bool FoldsPlainly(const Instruction& op) {
  const std::optional<Opcode> plain = PlainRoot(op);
  if (!plain || (*plain != Opcode::kAdd && *plain != Opcode::kMultiply)) return false;
  StatusOr<bool> to_root = BoolAttribute(op, "vkxla_reduce_to_root");
  if (!to_root.ok() || *to_root) return false;
  for (const Instruction* o : op.operands)
    if (!o->shape.IsArray() || !FoldsNatively(o->shape.element_type())) return false;
  return !op.operands.empty();
}

}  // namespace

bool CanFoldInPlace(const Instruction& op) { return op.opcode == Opcode::kAllReduce && FoldsPlainly(op); }

bool ScattersFold(const Instruction& op) {
  return op.opcode == Opcode::kReduceScatter && FoldsPlainly(op) && op.dimensions && op.dimensions->size() == 1;
}

bool MovesElementsOnly(const Instruction& op) {
  switch (op.opcode) {
    case Opcode::kAllGather: case Opcode::kAllToAll: case Opcode::kCollectivePermute: return true;
    case Opcode::kCollectiveBroadcast: {
      StatusOr<bool> dynamic_root = BoolAttribute(op, "has_dynamic_root");
      return dynamic_root.ok() && !*dynamic_root;
    }
    default: return false;
  }
}

StatusOr<std::vector<LeafMove>> ResultMoves(const Instruction& op, int64_t group_size, int64_t position,
                                            const std::vector<Shape>& operand_leaves) {
  if (!MovesElementsOnly(op)) return OpError(op, "moves values it computes, not only elements");
  if (group_size <= 0 || position < 0 || position >= group_size || operand_leaves.empty())
    return Internal("a member's moves need its position in a group and the operands");
  const size_t leaves = operand_leaves.size();
  std::vector<LeafMove> moves;
  switch (op.opcode) {
    case Opcode::kCollectiveBroadcast:  // every member gets the group's first's values
      for (size_t k = 0; k < leaves; ++k) moves.push_back({LeafMove::Kind::kWhole, 0, k});
      return moves;
    case Opcode::kCollectivePermute: {
      const std::string* text = FindAttribute(op, "source_target_pairs");
      if (!text) return OpError(op, "needs source_target_pairs");
      VKXLA_ASSIGN_OR_RETURN(auto pairs, ParseIdGroups(*text));
      LeafMove m;  // zeros unless someone sends here; the last pair naming this target wins, as in CombineCollective
      for (const auto& p : pairs) {
        if (p.size() != 2 || p[0] < 0 || p[1] < 0 || p[0] >= group_size || p[1] >= group_size)
          return OpError(op, "source_target_pairs " + *text + " name an id outside 0.." + std::to_string(group_size - 1));
        if (p[1] == position) m = {LeafMove::Kind::kWhole, p[0], 0};
      }
      moves.push_back(m);
      return moves;
    }
    case Opcode::kAllGather:
      for (size_t k = 0; k < leaves; ++k) {
        VKXLA_ASSIGN_OR_RETURN(int64_t d, OneDimension(op, operand_leaves[k].rank()));
        moves.push_back({LeafMove::Kind::kBlocks, 0, k, d, d, 0});
      }
      return moves;
    default: {  // all-to-all
      VKXLA_ASSIGN_OR_RETURN(std::optional<AllToAllDims> a, ReadAllToAll(op, operand_leaves[0].rank()));
      if (!a) {  // the tuple form: result leaf i is member i's operand `position`
        if (static_cast<int64_t>(leaves) != group_size)
          return OpError(op, "the tuple form takes one operand per group member");
        for (size_t i = 0; i < leaves; ++i) moves.push_back({LeafMove::Kind::kWhole, static_cast<int64_t>(i), static_cast<size_t>(position)});
        return moves;
      }
      if (a->count && a->count != group_size) return OpError(op, "split_count differs from its group's size");
      for (size_t k = 0; k < leaves; ++k) {
        const int64_t n = operand_leaves[k].dim(a->split);
        if (n % group_size != 0) return OpError(op, "its split dimension does not split over the group");
        moves.push_back({LeafMove::Kind::kBlocks, 0, k, a->concat, a->split, position * (n / group_size)});
      }
      return moves;
    }
  }
}

Opcode FoldCombiner(const Instruction& op) { return PlainRoot(op).value_or(Opcode::kAdd); }

void FoldInPlace(const Instruction& op, ElementType type, const std::vector<const uint8_t*>& operands,
                 const std::vector<uint8_t*>& results, int64_t begin, int64_t end) {
  const Opcode o = FoldCombiner(op);
  switch (type) {
    case ElementType::kF32: return FoldElements<float, float>(o, operands, results, begin, end);
    case ElementType::kF64: return FoldElements<double, double>(o, operands, results, begin, end);
    // Integers wrap: computed unsigned, stored back in the signed type.
    case ElementType::kS32: return FoldElements<int32_t, uint32_t>(o, operands, results, begin, end);
    case ElementType::kU32: return FoldElements<uint32_t, uint32_t>(o, operands, results, begin, end);
    case ElementType::kS64: return FoldElements<int64_t, uint64_t>(o, operands, results, begin, end);
    case ElementType::kU64: return FoldElements<uint64_t, uint64_t>(o, operands, results, begin, end);
    case ElementType::kF16: case ElementType::kBF16: return FoldNarrowFloats(o, type, operands, results, begin, end);
    default: return;
  }
}

StatusOr<std::optional<std::vector<std::vector<int64_t>>>> SendRecvPairs(const Instruction& op) {
  const std::string* attributes = FindAttribute(op, "frontend_attributes");
  const std::string key = "_xla_send_recv_source_target_pairs=";
  const size_t at = attributes ? attributes->find(key) : std::string::npos;
  if (at == std::string::npos) return std::optional<std::vector<std::vector<int64_t>>>();
  // The value is a quoted string: "{{0,1},{1,2}}".
  const size_t open = attributes->find('"', at + key.size());
  const size_t close = open == std::string::npos ? open : attributes->find('"', open + 1);
  if (open == std::string::npos || close == std::string::npos)
    return OpError(op, "_xla_send_recv_source_target_pairs needs a quoted value like \"{{0,1}}\"");
  VKXLA_ASSIGN_OR_RETURN(auto pairs, ParseIdGroups(attributes->substr(open + 1, close - open - 1)));
  for (const auto& p : pairs)
    if (p.size() != 2 || p[0] < 0 || p[1] < 0) return OpError(op, "_xla_send_recv_source_target_pairs must be pairs of ids ≥ 0");
  return std::optional<std::vector<std::vector<int64_t>>>(std::move(pairs));
}

std::vector<Literal> ZerosFor(const Instruction& op) {
  std::vector<Literal> out;
  for (const Shape& s : LeafShapes(op.shape)) out.emplace_back(Shape(s.element_type(), s.dims()));
  return out;
}

std::string ProcessGrid::ToString() const {
  return std::to_string(replicas) + (replicas == 1 ? " replica" : " replicas") + " × " + std::to_string(partitions) +
         (partitions == 1 ? " partition" : " partitions");
}

Status CheckProcessGrid(const ProcessGrid& grid) {
  if (grid.replicas < 1 || grid.partitions < 1 || grid.replicas > kMaxProcesses || grid.partitions > kMaxProcesses ||
      grid.replicas * grid.partitions > kMaxProcesses)
    return InvalidArgument("a run of " + grid.ToString() + " is outside 1 to " + std::to_string(kMaxProcesses) + " processes");
  return OkStatus();
}

bool IsCollectiveOpcode(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce: case Opcode::kAllGather: case Opcode::kReduceScatter: case Opcode::kAllToAll:
    case Opcode::kCollectivePermute: case Opcode::kCollectiveBroadcast: case Opcode::kRaggedAllToAll:
      return true;
    default:
      return false;
  }
}

bool IsProcessOpcode(Opcode op) { return IsCollectiveOpcode(op) || op == Opcode::kReplicaId || op == Opcode::kPartitionId; }

StatusOr<std::vector<std::vector<int64_t>>> ParseIdGroups(const std::string& raw) {
  std::string text;
  for (char ch : raw)
    if (!std::isspace(static_cast<unsigned char>(ch))) text += ch;
  auto bad = [&](const std::string& why) {
    return InvalidArgument("replica groups \"" + raw + "\": " + why +
                           " (expected {{0,1},{2,3}}, {} or the iota form [2,4]<=[8] / [2,4]<=[4,2]T(1,0))");
  };
  size_t pos = 0;
  auto consume = [&](char ch) {
    if (pos < text.size() && text[pos] == ch) return ++pos, true;
    return false;
  };
  auto int_list = [&](char open, char close, std::vector<int64_t>& out) -> bool {
    if (!consume(open)) return false;
    if (consume(close)) return true;
    do {
      int64_t v;
      if (!ReadIntAt(text, pos, v)) return false;
      out.push_back(v);
      if (static_cast<int64_t>(out.size()) > kMaxGroupIds) return false;
    } while (consume(','));
    return consume(close);
  };
  std::vector<std::vector<int64_t>> groups;
  if (!text.empty() && text[0] == '[') {
    std::vector<int64_t> shape, dims, perm;
    if (!int_list('[', ']', shape) || shape.size() != 2 || !consume('<') || !consume('=') || !int_list('[', ']', dims) || dims.empty())
      return bad("malformed iota form");
    if (pos < text.size()) {
      if (!consume('T') || !int_list('(', ')', perm)) return bad("malformed transpose T(...)");
    } else {
      perm.resize(dims.size());
      std::iota(perm.begin(), perm.end(), 0);
    }
    if (pos != text.size()) return bad("unexpected text after the iota form");
    int64_t total = 1;
    for (int64_t d : dims) {
      std::optional<int64_t> t = d >= 0 ? CheckedMul(total, d) : std::nullopt;
      if (!t || *t > kMaxGroupIds) return bad("the iota's size is out of range");
      total = *t;
    }
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted.size() != dims.size() || sorted[i] != static_cast<int64_t>(i)) return bad("T(...) is not a permutation of the iota's dimensions");
    if (shape[0] < 0 || shape[1] < 0 || !CheckedMul(shape[0], shape[1]) || shape[0] * shape[1] != total)
      return bad("[" + std::to_string(shape[0]) + "," + std::to_string(shape[1]) + "] does not hold the iota's " + std::to_string(total) + " ids");
    // Element j of the transposed iota, in row-major order over the permuted dims.
    std::vector<int64_t> permuted(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) permuted[i] = dims[perm[i]];
    std::vector<int64_t> flat(static_cast<size_t>(total));
    std::vector<int64_t> original(dims.size());
    for (int64_t j = 0; j < total; ++j) {
      const std::vector<int64_t> index = MultiIndex(permuted, j);
      for (size_t i = 0; i < dims.size(); ++i) original[perm[i]] = index[i];
      flat[j] = LinearIndex(dims, original);
    }
    for (int64_t g = 0; g < shape[0]; ++g) groups.emplace_back(flat.begin() + g * shape[1], flat.begin() + (g + 1) * shape[1]);
    return groups;
  }
  if (!consume('{')) return bad("expected '{' or '['");
  if (consume('}')) {
    if (pos != text.size()) return bad("unexpected text after {}");
    return groups;
  }
  int64_t ids = 0;
  do {
    std::vector<int64_t> g;
    if (!int_list('{', '}', g)) return bad("malformed group");
    ids += static_cast<int64_t>(g.size());
    if (ids > kMaxGroupIds) return bad("too many ids");
    groups.push_back(std::move(g));
  } while (consume(','));
  if (!consume('}') || pos != text.size()) return bad("expected '}' closing the groups");
  return groups;
}

std::string IdGroupsText(const std::vector<std::vector<int64_t>>& groups) {
  std::string s = "{";
  for (size_t g = 0; g < groups.size(); ++g) s += (g ? "," : "") + IntListText(groups[g]);
  return s + "}";
}

std::string_view GroupModeName(GroupMode mode) {
  switch (mode) {
    case GroupMode::kCrossReplica: return "cross_replica";
    case GroupMode::kCrossPartition: return "cross_partition";
    case GroupMode::kCrossReplicaAndPartition: return "cross_replica_and_partition";
    case GroupMode::kFlattenedIds: return "flattened_ids";
  }
  return "?";
}

StatusOr<GroupMode> GroupModeOf(const Instruction& op) {
  const bool channel = ChannelId(op) > 0;
  VKXLA_ASSIGN_OR_RETURN(bool global, BoolAttribute(op, "use_global_device_ids"));
  if (global && !(channel && HasUseGlobalDeviceIds(op.opcode)))
    return OpError(op, "use_global_device_ids=true needs a channel_id > 0 (and an all-reduce, all-gather or reduce-scatter)");
  if (!channel) return GroupMode::kCrossReplica;
  if (!HasUseGlobalDeviceIds(op.opcode)) return GroupMode::kCrossPartition;
  return global ? GroupMode::kFlattenedIds : GroupMode::kCrossReplicaAndPartition;
}

StatusOr<std::vector<std::vector<int64_t>>> ProcessGroups(const Instruction& op, const ProcessGrid& grid) {
  VKXLA_RETURN_IF_ERROR(CheckProcessGrid(grid));
  VKXLA_ASSIGN_OR_RETURN(GroupMode mode, GroupModeOf(op));
  const int64_t R = grid.replicas, P = grid.partitions;
  auto flat = [P](int64_t r, int64_t p) { return r * P + p; };
  std::vector<std::vector<int64_t>> out;
  if (op.opcode == Opcode::kCollectivePermute) {
    // Lines of processes; source_target_pairs index within a line.
    if (mode == GroupMode::kCrossReplica) {
      for (int64_t p = 0; p < P; ++p) {
        out.emplace_back();
        for (int64_t r = 0; r < R; ++r) out.back().push_back(flat(r, p));
      }
    } else {
      for (int64_t r = 0; r < R; ++r) {
        out.emplace_back();
        for (int64_t p = 0; p < P; ++p) out.back().push_back(flat(r, p));
      }
    }
    return out;
  }
  const int64_t space = mode == GroupMode::kCrossPartition ? P : mode == GroupMode::kFlattenedIds ? R * P : R;
  const char* what = mode == GroupMode::kCrossPartition ? "partition" : mode == GroupMode::kFlattenedIds ? "process" : "replica";
  std::vector<std::vector<int64_t>> groups;
  if (const std::string* text = FindAttribute(op, "replica_groups")) {
    VKXLA_ASSIGN_OR_RETURN(groups, ParseIdGroups(*text));
  }
  if (groups.empty()) {
    groups.emplace_back(static_cast<size_t>(space));
    std::iota(groups[0].begin(), groups[0].end(), 0);
  }
  std::vector<int> seen(static_cast<size_t>(space), 0);
  for (const auto& g : groups)
    for (int64_t id : g) {
      if (id < 0 || id >= space)
        return OpError(op, std::string(what) + " id " + std::to_string(id) + " in replica_groups " + IdGroupsText(groups) +
                               " is outside 0.." + std::to_string(space - 1) + " (" + grid.ToString() + ", " +
                               std::string(GroupModeName(mode)) + ")");
      if (seen[id]++)
        return OpError(op, std::string(what) + " " + std::to_string(id) + " is in two groups of replica_groups " + IdGroupsText(groups));
    }
  // collective-broadcast leaves processes out (they get zeros); others cover all.
  for (int64_t id = 0; id < space && op.opcode != Opcode::kCollectiveBroadcast; ++id)
    if (!seen[id])
      return OpError(op, std::string(what) + " " + std::to_string(id) + " is in no group of replica_groups " + IdGroupsText(groups) +
                             " (" + grid.ToString() + ")");
  for (const auto& g : groups) {
    switch (mode) {
      case GroupMode::kCrossReplica:
        for (int64_t p = 0; p < P; ++p) {
          out.emplace_back();
          for (int64_t r : g) out.back().push_back(flat(r, p));
        }
        break;
      case GroupMode::kCrossPartition:
        for (int64_t r = 0; r < R; ++r) {
          out.emplace_back();
          for (int64_t p : g) out.back().push_back(flat(r, p));
        }
        break;
      case GroupMode::kCrossReplicaAndPartition:
        out.emplace_back();
        for (int64_t p = 0; p < P; ++p)
          for (int64_t r : g) out.back().push_back(flat(r, p));
        break;
      case GroupMode::kFlattenedIds:
        out.push_back(g);
        break;
    }
  }
  return out;
}

StatusOr<std::vector<int64_t>> ProcessGroupOf(const Instruction& op, const ProcessGrid& grid, int64_t self) {
  VKXLA_ASSIGN_OR_RETURN(auto groups, ProcessGroups(op, grid));
  for (auto& g : groups)
    if (std::find(g.begin(), g.end(), self) != g.end()) return std::move(g);
  if (op.opcode == Opcode::kCollectiveBroadcast) return std::vector<int64_t>{};  // in no group
  return OpError(op, "process " + std::to_string(self) + " is in none of its groups (" + grid.ToString() + ")");
}

StatusOr<Shape> InferCollectiveShape(const Instruction& op) {
  if (op.opcode == Opcode::kReplicaId || op.opcode == Opcode::kPartitionId) {
    if (!op.operands.empty()) return OpError(op, "takes no operands");
    return Shape::Scalar(ElementType::kU32);
  }
  if (op.operands.empty()) return OpError(op, "needs an operand");
  for (const Instruction* o : op.operands)
    if (!o->shape.IsArray()) return OpError(op, "operands must be arrays, got " + o->shape.ToString());
  VKXLA_RETURN_IF_ERROR(GroupModeOf(op).status());
  if (const std::string* text = FindAttribute(op, "replica_groups")) VKXLA_RETURN_IF_ERROR(ParseIdGroups(*text).status());
  std::vector<Shape> in;
  for (const Instruction* o : op.operands) in.push_back(Shape(o->shape.element_type(), o->shape.dims()));
  const std::vector<Shape> declared = LeafShapes(op.shape);
  auto declared_leaf = [&](size_t k) -> StatusOr<Shape> {
    if (declared.size() != in.size() || !declared[k].IsArray())
      return OpError(op, "declares " + op.shape.ToString() + " for " + std::to_string(in.size()) + " operands");
    return declared[k];
  };
  VKXLA_ASSIGN_OR_RETURN(const int64_t group, ExplicitGroupSize(op));
  switch (op.opcode) {
    case Opcode::kAllReduce: {
      VKXLA_ASSIGN_OR_RETURN(const Computation* c, CalledComputation(op, "to_apply", "the reduction computation"));
      for (const Shape& s : in)
        VKXLA_RETURN_IF_ERROR(CheckSignature(op, *c, "the reduction computation", {Shape::Scalar(s.element_type()), Shape::Scalar(s.element_type())},
                                             {Shape::Scalar(s.element_type())}));
      return ShapeOfLeaves(in);
    }
    case Opcode::kCollectiveBroadcast: {
      VKXLA_ASSIGN_OR_RETURN(bool dynamic_root, BoolAttribute(op, "has_dynamic_root"));
      if (!dynamic_root) return ShapeOfLeaves(in);
      // The last operand: each result's source, a position in its group.
      const Shape& root = in.back();
      if (in.size() < 2 || root.element_type() != ElementType::kS32 || root.rank() != 1 ||
          root.dim(0) != static_cast<int64_t>(in.size()) - 1)
        return OpError(op, "with has_dynamic_root the last operand must be s32[" + std::to_string(in.size() - 1) +
                               "] (a root per value), got " + root.ToString());
      in.pop_back();
      return ShapeOfLeaves(in);
    }
    case Opcode::kCollectivePermute: {
      if (op.operands.size() != 1) return OpError(op, "takes one operand");
      const std::string* pairs = FindAttribute(op, "source_target_pairs");
      if (!pairs) return OpError(op, "needs source_target_pairs={{source,target},...}");
      VKXLA_ASSIGN_OR_RETURN(auto parsed, ParseIdGroups(*pairs));
      std::set<int64_t> sources, targets;  // a million pairs check in n log n
      for (const auto& p : parsed) {
        if (p.size() != 2 || p[0] < 0 || p[1] < 0) return OpError(op, "source_target_pairs " + *pairs + " must be pairs of ids ≥ 0");
        if (!sources.insert(p[0]).second || !targets.insert(p[1]).second)
          return OpError(op, "source_target_pairs " + *pairs + " name a source or a target twice");
      }
      return in[0];
    }
    case Opcode::kAllGather: case Opcode::kReduceScatter: {
      if (op.opcode == Opcode::kReduceScatter) {
        VKXLA_ASSIGN_OR_RETURN(const Computation* c, CalledComputation(op, "to_apply", "the reduction computation"));
        (void)c;
      }
      std::vector<Shape> out;
      for (size_t k = 0; k < in.size(); ++k) {
        VKXLA_ASSIGN_OR_RETURN(int64_t d, OneDimension(op, in[k].rank()));
        VKXLA_ASSIGN_OR_RETURN(Shape want, declared_leaf(k));
        std::vector<int64_t> dims = in[k].dims();
        bool fits = want.rank() == in[k].rank() && want.element_type() == in[k].element_type();
        for (int64_t i = 0; fits && i < in[k].rank(); ++i)
          if (i != d && want.dim(i) != dims[i]) fits = false;
        if (fits && op.opcode == Opcode::kAllGather) {
          fits = group ? want.dim(d) == dims[d] * group : (dims[d] == 0 ? want.dim(d) == 0 : want.dim(d) % dims[d] == 0);
        } else if (fits) {
          fits = group ? dims[d] % group == 0 && want.dim(d) * group == dims[d] : (want.dim(d) == 0 ? dims[d] == 0 : dims[d] % want.dim(d) == 0);
        }
        if (!fits)
          return OpError(op, "result " + want.ToString() + " does not " +
                                 (op.opcode == Opcode::kAllGather ? "gather " : "scatter ") + in[k].ToString() + " along dimension " +
                                 std::to_string(d) + (group ? " over groups of " + std::to_string(group) : ""));
        out.push_back(Shape(want.element_type(), want.dims()));
      }
      return ShapeOfLeaves(out);
    }
    case Opcode::kRaggedAllToAll: {
      // (input, output, input_offsets, send_sizes, output_offsets, recv_sizes)
      if (in.size() != 6) return OpError(op, "takes input, output, input_offsets, send_sizes, output_offsets and recv_sizes");
      const Shape& input = in[0];
      const Shape& output = in[1];
      if (input.rank() < 1 || output.rank() != input.rank() || output.element_type() != input.element_type() ||
          !std::equal(input.dims().begin() + 1, input.dims().end(), output.dims().begin() + 1))
        return OpError(op, "input " + input.ToString() + " and output " + output.ToString() +
                               " must be ragged along dimension 0 with the same element type and the same other dimensions");
      for (size_t k = 2; k < 6; ++k)
        if (!IsInteger(in[k].element_type()) || in[k].dims() != in[2].dims() || in[k].element_type() != in[2].element_type() ||
            in[k].rank() < 1 || in[k].rank() > 2)
          return OpError(op, "offsets and sizes must be integer arrays of one shape, [group] or [group, updates]; got " +
                                 in[2].ToString() + " and " + in[k].ToString());
      return output;
    }
    case Opcode::kAllToAll: {
      std::vector<Shape> out;
      for (size_t k = 0; k < in.size(); ++k) {
        VKXLA_ASSIGN_OR_RETURN(std::optional<AllToAllDims> a, ReadAllToAll(op, in[k].rank()));
        if (!a || a->count == 0) {
          out.push_back(in[k]);  // the tuple form, or HLO's split and concat on one dimension
          continue;
        }
        const int64_t count = a->count;
        if (in[k].dim(a->split) % count != 0)
          return OpError(op, "dimension " + std::to_string(a->split) + " of " + in[k].ToString() + " does not split into " +
                                 std::to_string(count) + " parts");
        std::vector<int64_t> dims = in[k].dims();
        dims[a->split] /= count;
        dims[a->concat] *= count;
        out.push_back(Shape(in[k].element_type(), dims));
      }
      return ShapeOfLeaves(out);
    }
    default:
      return OpError(op, "is not a collective");
  }
}

StatusOr<std::vector<std::vector<Literal>>> CombineCollective(const Instruction& op, const std::vector<int64_t>& group,
                                                              std::vector<std::vector<Literal>> operands) {
  const size_t G = group.size();
  if (G == 0 || operands.size() != G) return Internal("a collective combines one operand list per group member");
  for (size_t m = 1; m < G; ++m) {
    if (operands[m].size() != operands[0].size()) return OpError(op, "processes give different numbers of operands");
    for (size_t k = 0; k < operands[0].size(); ++k)
      if (!operands[m][k].shape().Compatible(operands[0][k].shape()))
        return OpError(op, "process " + std::to_string(group[m]) + "'s operand " + operands[m][k].shape().ToString() +
                               " differs from process " + std::to_string(group[0]) + "'s " + operands[0][k].shape().ToString());
  }
  const int64_t size = static_cast<int64_t>(G);
  std::vector<std::vector<Literal>> results(G);
  switch (op.opcode) {
    case Opcode::kAllReduce: {
      VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> reduced, Reduce(op, operands));
      VKXLA_ASSIGN_OR_RETURN(bool to_root, BoolAttribute(op, "vkxla_reduce_to_root"));
      for (size_t m = 1; m < G; ++m) results[m] = to_root ? ZerosFor(op) : reduced;
      results[0] = std::move(reduced);
      break;
    }
    case Opcode::kCollectiveBroadcast: {
      VKXLA_ASSIGN_OR_RETURN(bool dynamic_root, BoolAttribute(op, "has_dynamic_root"));
      const size_t values = operands[0].size() - (dynamic_root ? 1 : 0);
      for (size_t m = 0; m < G; ++m)
        for (size_t j = 0; j < values; ++j) {
          // The source: the group's first, or the position the receiver's root operand names.
          const int64_t source = dynamic_root ? operands[m].back().Get(static_cast<int64_t>(j)).s : 0;
          if (source < 0 || source >= size)
            return OpError(op, "root " + std::to_string(source) + " of value " + std::to_string(j) + " is outside its group of " +
                                   std::to_string(size));
          results[m].push_back(operands[source][j]);
        }
      break;
    }
    case Opcode::kAllGather: {
      for (size_t k = 0; k < operands[0].size(); ++k) {
        VKXLA_ASSIGN_OR_RETURN(int64_t d, OneDimension(op, operands[0][k].shape().rank()));
        std::vector<const Literal*> parts;
        for (size_t m = 0; m < G; ++m) parts.push_back(&operands[m][k]);
        const Literal gathered = Concatenate(parts, d);
        for (size_t m = 0; m < G; ++m) results[m].push_back(gathered);
      }
      break;
    }
    case Opcode::kReduceScatter: {
      VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> reduced, Reduce(op, operands));
      for (size_t k = 0; k < reduced.size(); ++k) {
        VKXLA_ASSIGN_OR_RETURN(int64_t d, OneDimension(op, reduced[k].shape().rank()));
        if (reduced[k].shape().dim(d) % size != 0)
          return OpError(op, "dimension " + std::to_string(d) + " of " + reduced[k].shape().ToString() + " does not split over a group of " +
                                 std::to_string(size));
        for (size_t m = 0; m < G; ++m) results[m].push_back(Part(reduced[k], d, size, static_cast<int64_t>(m)));
      }
      break;
    }
    case Opcode::kAllToAll: {
      const size_t leaves = operands[0].size();
      VKXLA_ASSIGN_OR_RETURN(std::optional<AllToAllDims> a, ReadAllToAll(op, operands[0][0].shape().rank()));
      if (!a) {
        // The tuple form: member j's result i is member i's operand j.
        if (leaves != G)
          return OpError(op, "the tuple form takes one operand per group member: " + std::to_string(leaves) + " operands, " +
                                 std::to_string(G) + " members");
        for (size_t j = 0; j < G; ++j)
          for (size_t i = 0; i < G; ++i) results[j].push_back(operands[i][j]);
        break;
      }
      if (a->count && a->count != size)
        return OpError(op, "split_count " + std::to_string(a->count) + " differs from its group's " + std::to_string(size) + " processes");
      for (size_t k = 0; k < leaves; ++k) {
        if (operands[0][k].shape().dim(a->split) % size != 0)
          return OpError(op, "dimension " + std::to_string(a->split) + " of " + operands[0][k].shape().ToString() +
                                 " does not split into " + std::to_string(size) + " parts");
        for (size_t j = 0; j < G; ++j) {
          std::vector<Literal> pieces;
          for (size_t i = 0; i < G; ++i) pieces.push_back(Part(operands[i][k], a->split, size, static_cast<int64_t>(j)));
          std::vector<const Literal*> parts;
          for (const Literal& p : pieces) parts.push_back(&p);
          results[j].push_back(Concatenate(parts, a->concat));
        }
      }
      break;
    }
    case Opcode::kRaggedAllToAll: {
      // Member i sends rows input_i[input_offsets_i[j][u] +: send_sizes_i[j][u]]
      // to member j, which finds them at output_offsets_i[j][u] of its output.
      const std::vector<int64_t>& dims = operands[0][0].shape().dims();
      int64_t row = 1;
      for (size_t d = 1; d < dims.size(); ++d) row *= dims[d];
      const int64_t updates = operands[0][2].element_count() / size;
      if (operands[0][2].shape().dim(0) != size)
        return OpError(op, "offsets and sizes " + operands[0][2].shape().ToString() + " need one row per member of its group of " +
                               std::to_string(size));
      for (size_t j = 0; j < G; ++j) results[j].push_back(operands[j][1]);
      for (size_t i = 0; i < G; ++i) {
        const std::vector<Literal>& mine = operands[i];
        const int64_t in_rows = mine[0].shape().dim(0);
        for (size_t j = 0; j < G; ++j) {
          Literal& out = results[j][0];
          const int64_t out_rows = out.shape().dim(0);
          for (int64_t u = 0; u < updates; ++u) {
            const int64_t at = static_cast<int64_t>(j) * updates + u;
            auto index = [&](int k) {
              const Scalar v = mine[k].Get(at);
              return IsUnsignedInt(v.type) ? static_cast<int64_t>(std::min<uint64_t>(v.u, INT64_MAX)) : v.s;
            };
            const int64_t from = index(2), count = index(3), to = index(4);
            if (count < 0 || from < 0 || to < 0 || from > in_rows - count || to > out_rows - count)
              return OpError(op, "process " + std::to_string(group[i]) + " sends rows [" + std::to_string(from) + ", " +
                                     std::to_string(from) + "+" + std::to_string(count) + ") of " + mine[0].shape().ToString() +
                                     " to rows from " + std::to_string(to) + " of " + out.shape().ToString() + ": out of range");
            for (int64_t e = 0; e < count * row; ++e) out.Set(to * row + e, mine[0].Get(from * row + e));
          }
        }
      }
      break;
    }
    case Opcode::kCollectivePermute: {
      const std::string* text = FindAttribute(op, "source_target_pairs");
      if (!text) return OpError(op, "needs source_target_pairs");
      VKXLA_ASSIGN_OR_RETURN(auto pairs, ParseIdGroups(*text));
      // A target nobody sends to gets zeros, as the spec says.
      for (size_t m = 0; m < G; ++m) results[m].push_back(Literal(operands[0][0].shape()));
      for (const auto& p : pairs) {
        if (p.size() != 2 || p[0] < 0 || p[1] < 0 || p[0] >= size || p[1] >= size)
          return OpError(op, "source_target_pairs " + *text + " name an id outside 0.." + std::to_string(size - 1));
        results[p[1]][0] = operands[p[0]][0];
      }
      break;
    }
    default:
      return OpError(op, "is not a collective");
  }
  VKXLA_RETURN_IF_ERROR(CheckLeaves(op, results, size));
  return results;
}

}  // namespace vkxla
