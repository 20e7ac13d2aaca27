#include "plan/cost_model.h"

#include <algorithm>
#include <set>
#include <vector>

#include "ir/module.h"
#include "ops/op_traits.h"

namespace vkxla {
namespace {

bool Is64(ElementType t) { return t == ElementType::kF64 || t == ElementType::kC128; }

// The type an op computes in: its first operand's for compares and
// converts, else its own.
ElementType ComputeType(const Instruction& inst) {
  if ((inst.opcode == Opcode::kCompare || inst.opcode == Opcode::kConvert || inst.opcode == Opcode::kIsFinite) &&
      !inst.operands.empty() && inst.operands[0]->shape.IsArray())
    return inst.operands[0]->shape.element_type();
  return inst.shape.IsArray() ? inst.shape.element_type() : ElementType::kF32;
}

int64_t ArithmeticCost(Opcode op) {
  switch (op) {
    case Opcode::kDivide: return 8;
    case Opcode::kSqrt: return 10;
    case Opcode::kRsqrt: return 18;
    case Opcode::kCbrt: return 30;
    case Opcode::kRemainder: return 40;
    case Opcode::kExp: case Opcode::kExpm1: case Opcode::kLog: case Opcode::kLog1p: case Opcode::kLogistic:
    case Opcode::kTanh: case Opcode::kSin: case Opcode::kCos: case Opcode::kTan: case Opcode::kAtan2:
    case Opcode::kCosh:
      return 40;
    case Opcode::kErf: case Opcode::kPower: return 80;
    default: return 1;
  }
}

}  // namespace

int64_t ElementCost(const Instruction& inst) {
  switch (inst.opcode) {
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kTuple: case Opcode::kGetTupleElement:
    case Opcode::kBroadcast: case Opcode::kTranspose: case Opcode::kCopy: case Opcode::kBitcast:
    case Opcode::kSetDimensionSize: case Opcode::kGetDimensionSize:
      return 0;
    case Opcode::kReshape: case Opcode::kReverse: case Opcode::kSlice: case Opcode::kIota:
    case Opcode::kBitcastConvert:
      return 1;
    case Opcode::kConcatenate: case Opcode::kPad: case Opcode::kDynamicReshape: return 2;
    case Opcode::kDynamicSlice: case Opcode::kDynamicUpdateSlice: case Opcode::kGather: return 4;
    case Opcode::kRngBitGenerator: return 80;  // 10 Philox or 20 ThreeFry rounds per element
    case Opcode::kMap: {
      int64_t cost = 0;
      for (const auto& [key, c] : inst.called_computations)
        for (const auto& i : c->instructions()) cost += ElementCost(*i);
      return cost;
    }
    default: break;
  }
  if (!IsElementwise(inst.opcode)) return 1;
  const ElementType t = ComputeType(inst);
  int64_t cost = ArithmeticCost(inst.opcode);
  if (IsComplex(t)) cost *= 4;
  if (Is64(t)) cost *= 2;
  // Narrow floats round after every op.
  if (t == ElementType::kF16 || t == ElementType::kBF16 || BitWidth(t) == 8) cost += 4;
  return cost;
}

int64_t ElementLoopTrips(const Instruction& inst) {
  const ElementType t = ComputeType(inst);
  const bool wide = Is64(t);
  int64_t trips = 0;
  switch (inst.opcode) {
    // f32 erf is two polynomials; the wider one sums a series.
    case Opcode::kErf: trips = wide ? 200 : 0; break;
    case Opcode::kRemainder: trips = IsFloat(t) ? (wide ? 2100 : 280) : 0; break;
    case Opcode::kPower: trips = 32; break;
    // Real exp and its kin are straight-line code (shaders/real_math.glsl);
    // a complex one takes sin and cos too.
    case Opcode::kExp: case Opcode::kExpm1: case Opcode::kLogistic: case Opcode::kTanh: case Opcode::kCosh:
      trips = IsComplex(t) ? 16 : 0;
      break;
    // log's scalings of subnormal arguments (scale_FLOAT: a few trips);
    // the wider sin, cos and tan reduce huge arguments in limb loops.
    case Opcode::kLog: case Opcode::kLog1p: case Opcode::kAtan2: trips = 4; break;
    case Opcode::kSin: case Opcode::kCos: case Opcode::kTan: trips = wide ? 40 : 4; break;
    case Opcode::kCbrt: trips = 16; break;
    case Opcode::kMap:
      for (const auto& [key, c] : inst.called_computations)
        for (const auto& i : c->instructions()) trips += ElementLoopTrips(*i);
      return trips;
    default: return 0;
  }
  return IsComplex(t) ? trips * 3 : trips;
}

}  // namespace vkxla

namespace vkxla {

namespace {

// The sum of `per_element` over `v` and everything computed inline under it.
template <typename PerElement>
int64_t SumInline(const Instruction* v, const MaterializedLayoutFn& materialized, PerElement per_element) {
  int64_t sum = 0;
  VisitInline(v, materialized, [&](const Instruction* n) {
    sum = std::min<int64_t>(sum + per_element(*n), int64_t{1} << 40);
    return true;
  });
  return sum;
}

}  // namespace

int64_t InlineLoopTrips(const Instruction* v, const MaterializedLayoutFn& materialized) {
  return SumInline(v, materialized, [](const Instruction& n) { return ElementLoopTrips(n); });
}

int64_t InlineElementCost(const Instruction* v, const MaterializedLayoutFn& materialized) {
  return SumInline(v, materialized, [](const Instruction& n) { return ElementCost(n); });
}

int64_t ComputationLoopTrips(const Computation& c) {
  int64_t trips = 0;
  for (const auto& i : c.instructions()) trips += ElementLoopTrips(*i);
  return trips;
}

}  // namespace vkxla
