#include "plan/trip_count.h"

#include <cstdint>
#include <string>

#include "ir/module.h"
#include "ir/numbers.h"
#include "plan/value_ref.h"

namespace vkxla {
namespace {

// Trips are counted in int64; bounds beyond this are left to the condition.
constexpr int64_t kMaxCountedTrips = int64_t{1} << 40;

std::optional<int64_t> IntegerConstant(const Instruction* i) {
  if (i->opcode != Opcode::kConstant || !i->literal || !i->shape.IsArray() || i->shape.element_count() != 1) return std::nullopt;
  const ElementType t = i->shape.element_type();
  if (IsSignedInt(t)) return i->literal->Get(0).s;
  if (IsUnsignedInt(t) && i->literal->Get(0).u <= static_cast<uint64_t>(kMaxCountedTrips)) return static_cast<int64_t>(i->literal->Get(0).u);
  return std::nullopt;
}

std::optional<int64_t> FromBackendConfig(const Instruction& w) {
  for (const auto& [key, raw] : w.other_attributes) {
    if (key != "backend_config") continue;
    const size_t at = raw.find("known_trip_count");
    if (at == std::string::npos) continue;
    size_t n = raw.find("\"n\"", at);
    if (n == std::string::npos) continue;
    n = raw.find_first_of("0123456789", n + 3);
    if (n == std::string::npos) continue;
    const size_t end = raw.find_first_not_of("0123456789", n);
    const std::optional<int64_t> v = ParseInt64(std::string_view(raw).substr(n, end == std::string::npos ? std::string::npos : end - n));
    if (v && *v <= kMaxCountedTrips) return v;
  }
  return std::nullopt;
}

// Element k of a computation's (tuple) parameter, read directly.
bool IsParameterElement(const Instruction* i, int64_t k) {
  const ValueRef v = ValueRef::Of(i);
  return v.inst->opcode == Opcode::kParameter && v.index == k;
}

}  // namespace

std::optional<int64_t> KnownTripCount(const Instruction& w) {
  if (w.opcode != Opcode::kWhile || w.operands.size() != 1) return std::nullopt;
  const Computation *cond = nullptr, *body = nullptr;
  for (const auto& [key, c] : w.called_computations) {
    if (key == "condition") cond = c;
    if (key == "body") body = c;
  }
  if (!cond || !body) return std::nullopt;
  // A condition with side effects must run every trip.
  for (const auto& inst : cond->instructions())
    switch (inst->opcode) {
      case Opcode::kInfeed: case Opcode::kOutfeed: case Opcode::kSend: case Opcode::kRecv: case Opcode::kCustomCall:
      case Opcode::kWhile: case Opcode::kConditional: case Opcode::kCall:
        return std::nullopt;
      default:
        break;
    }
  if (std::optional<int64_t> n = FromBackendConfig(w)) return n;
  if (!w.shape.IsTuple()) return std::nullopt;
  // A counter in a nested state is left to the device (flat element
  // indices and tuple positions differ there).
  for (const Shape& e : w.shape.tuple_shapes())
    if (e.IsTuple()) return std::nullopt;
  // The whole condition: compare(element k, N) or compare(N, element k).
  const Instruction* cmp = ValueRef::Of(cond->root()).inst;
  if (cmp->opcode != Opcode::kCompare || cmp->operands.size() != 2) return std::nullopt;
  ComparisonDirection d = cmp->direction;
  const Instruction *counter = cmp->operands[0], *bound = cmp->operands[1];
  if (IntegerConstant(counter)) {
    std::swap(counter, bound);
    if (d == ComparisonDirection::kGt) d = ComparisonDirection::kLt;
    else if (d == ComparisonDirection::kGe) d = ComparisonDirection::kLe;
    else return std::nullopt;
  }
  if (d != ComparisonDirection::kLt && d != ComparisonDirection::kLe) return std::nullopt;
  const ValueRef cv = ValueRef::Of(counter);
  if (cv.inst->opcode != Opcode::kParameter || cv.index < 0) return std::nullopt;
  const int64_t k = cv.index;
  const std::optional<int64_t> n = IntegerConstant(bound);
  if (!n || (!IsSignedInt(counter->shape.element_type()) && !IsUnsignedInt(counter->shape.element_type()))) return std::nullopt;
  // The body: element k becomes add(element k, step) with a positive step.
  const Instruction* root = ValueRef::Of(body->root()).inst;
  if (root->opcode != Opcode::kTuple || k >= static_cast<int64_t>(root->operands.size())) return std::nullopt;
  const Instruction* next = ValueRef::Of(root->operands[k]).inst;
  if (next->opcode != Opcode::kAdd) return std::nullopt;
  std::optional<int64_t> step;
  if (IsParameterElement(next->operands[0], k)) step = IntegerConstant(next->operands[1]);
  else if (IsParameterElement(next->operands[1], k)) step = IntegerConstant(next->operands[0]);
  if (!step || *step <= 0) return std::nullopt;
  // The start: element k of the init is a constant.
  StatusOr<std::vector<ValueRef>> init = ValueLeaves(w.operands[0]);
  if (!init.ok()) return std::nullopt;
  // Leaves skip tokens, so find leaf k by counting array elements before it.
  int64_t leaf = 0;
  for (int64_t e = 0; e < k; ++e)
    if (w.shape.tuple_shapes()[e].IsArray()) ++leaf;
  if (leaf >= static_cast<int64_t>(init->size())) return std::nullopt;
  const ValueRef* start_value = &(*init)[leaf];
  if (start_value->index >= 0) return std::nullopt;
  const std::optional<int64_t> start = IntegerConstant(start_value->inst);
  if (!start) return std::nullopt;
  const std::optional<int64_t> span = CheckedAdd(*n, d == ComparisonDirection::kLe ? 1 : 0);
  if (!span) return std::nullopt;
  if (*span <= *start) return 0;
  const std::optional<int64_t> distance = CheckedAdd(*span, -*start);
  if (!distance) return std::nullopt;
  // The counter must not wrap on its way past the bound (the loop would
  // then run on), so bound + step fits its type.
  const ElementType t = counter->shape.element_type();
  const int bits = BitWidth(t);
  const int64_t max = bits >= 64 ? INT64_MAX : IsSignedInt(t) ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  const std::optional<int64_t> last = CheckedAdd(*n, *step);
  if (!last || *last > max) return std::nullopt;
  const int64_t trips = *distance / *step + (*distance % *step != 0 ? 1 : 0);
  if (trips > kMaxCountedTrips) return std::nullopt;
  return trips;
}

}  // namespace vkxla
