#include "plan/rng_expansion.h"

#include <cmath>
#include <numbers>

#include "ops/rng.h"
#include "ops/rng_bit_generator.h"
#include "ops/slice_and_padding.h"
#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

bool IsTupleRng(const Instruction& i) { return i.opcode == Opcode::kRngBitGenerator && i.shape.IsTuple(); }
// Valid ones only: a bad one stays for the planner to report.
bool IsRng(const Instruction& i) { return i.opcode == Opcode::kRng && InferRngShape(i).ok(); }

StatusOr<Instruction*> Split(Computation& c, const Instruction& rng, const std::vector<Instruction*>& operands) {
  VKXLA_ASSIGN_OR_RETURN(RngBitsPlan plan, PlanRngBits(rng));
  int next = 0;
  auto add = [&](Opcode op, Shape shape, std::vector<Instruction*> ops) {
    return AddDerived(c, rng, "rng", next, op, std::move(shape), std::move(ops));
  };
  Instruction* state = operands.at(0);
  const Shape word(ElementType::kU64, {1});
  auto element = [&](int64_t i) {
    Instruction* s = add(Opcode::kSlice, word, {state});
    s->other_attributes.emplace_back("slice", SliceText({SliceDimension{i, i + 1, 1}}));
    return s;
  };
  Instruction* blocks = add(Opcode::kConstant, word, {});
  blocks->literal = Literal(word);
  blocks->literal->Set(0, Scalar::UInt(ElementType::kU64, plan.blocks));
  Instruction* low = element(1);
  Instruction* advanced = add(Opcode::kAdd, word, {low, blocks});
  std::vector<Instruction*> parts = {element(0), advanced};
  if (plan.state_size == 3) {
    Instruction* wrapped = add(Opcode::kCompare, Shape(ElementType::kPred, {1}), {advanced, low});
    wrapped->direction = ComparisonDirection::kLt;
    wrapped->comparison_type = ComparisonType::kUnsigned;
    parts.push_back(add(Opcode::kAdd, word, {element(2), add(Opcode::kConvert, word, {wrapped})}));
  }
  Instruction* next_state = add(Opcode::kConcatenate, rng.shape.tuple_shapes()[0], std::move(parts));
  next_state->dimensions = std::vector<int64_t>{0};
  Instruction* bits = add(Opcode::kRngBitGenerator, rng.shape.tuple_shapes()[1], {state});
  bits->other_attributes = rng.other_attributes;
  return add(Opcode::kTuple, rng.shape, {next_state, bits});
}

// rng as ops/rng.h describes it, in the compute type (f32 for f16 and
// bf16), converted at the end.
class RngExpander {
 public:
  RngExpander(Computation& c, const Instruction& rng) : w_(c, rng, "rng"), rng_(rng) {}

  StatusOr<Instruction*> Expand(Instruction* a, Instruction* b) {
    VKXLA_ASSIGN_OR_RETURN(RngDistribution dist, ReadRngDistribution(rng_));
    const ElementType t = rng_.shape.element_type();
    ct_ = RngComputeType(t);
    if (ct_ != t) {
      a = w_.Add(Opcode::kConvert, Shape::Scalar(ct_), {a});
      b = w_.Add(Opcode::kConvert, Shape::Scalar(ct_), {b});
    }
    const std::vector<int64_t>& dims = rng_.shape.dims();
    Instruction* counter = w_.Add(Opcode::kRngGetAndUpdateState, Shape(ElementType::kU64, {2}), {});
    counter->other_attributes.emplace_back("delta", std::to_string(RngCounterDelta(rng_.shape)));
    Instruction* key = w_.Add(Opcode::kConstant, Shape(ElementType::kU64, {1}), {});
    key->literal = Literal(key->shape);
    key->literal->Set(0, Scalar::UInt(ElementType::kU64, kRngKey));
    state_ = w_.Concatenate({key, counter}, 0);
    Instruction* result = nullptr;
    if (dist == RngDistribution::kNormal) {
      result = Normal(dims, a, b);
    } else if (IsFloat(ct_)) {
      Instruction* unit = UnitInterval(dims);
      result = Binary(Opcode::kAdd, Binary(Opcode::kMultiply, unit, Broadcast(Binary(Opcode::kSubtract, a, b, true), dims)),
                      Broadcast(a, dims));
    } else {
      result = UniformInt(dims, a, b);
    }
    if (ct_ != t) result = w_.Add(Opcode::kConvert, Shape(t, dims), {result});
    result->shape = rng_.shape;  // the layout it was asked in
    return result;
  }

 private:
  ElementType BitType() const { return BitWidth(ct_) == 64 ? ElementType::kU64 : ElementType::kU32; }
  Instruction* Bits(const std::vector<int64_t>& dims) {
    Instruction* bits = w_.Add(Opcode::kRngBitGenerator, Shape(BitType(), dims), {state_});
    SetRngAlgorithm(*bits, RngAlgorithm::kPhilox);
    return bits;
  }
  Instruction* Constant(double v) { return w_.Constant(Scalar::Float(ct_, v)); }
  Instruction* Broadcast(Instruction* scalar, const std::vector<int64_t>& dims) {
    Instruction* b = w_.Add(Opcode::kBroadcast, Shape(scalar->shape.element_type(), dims), {scalar});
    b->dimensions = std::vector<int64_t>{};
    return b;
  }
  // x op y; `swap` writes y op x (b - a from a, b).
  Instruction* Binary(Opcode op, Instruction* x, Instruction* y, bool swap = false) {
    if (swap) std::swap(x, y);
    return w_.Add(op, Shape(x->shape.element_type(), x->shape.dims()), {x, y});
  }
  Instruction* WithScalar(Opcode op, Instruction* x, double v) { return Binary(op, x, Broadcast(Constant(v), x->shape.dims())); }

  // (bits >> (width - mantissa)) * 2^-mantissa, in [0, 1).
  Instruction* UnitInterval(const std::vector<int64_t>& dims) {
    const int width = BitWidth(ct_), mantissa = ct_ == ElementType::kF64 ? 52 : 23;
    Instruction* bits = Bits(dims);
    Instruction* shift = w_.Constant(Scalar::UInt(BitType(), static_cast<uint64_t>(width - mantissa)));
    Instruction* top = Binary(Opcode::kShiftRightLogical, bits, Broadcast(shift, dims));
    Instruction* value = w_.Add(Opcode::kConvert, Shape(ct_, dims), {top});
    return WithScalar(Opcode::kMultiply, value, std::ldexp(1.0, -mantissa));
  }

  // a + d / 2 + (d - d / 2), d = bits % (b - a), unsigned and wrapping.
  Instruction* UniformInt(const std::vector<int64_t>& dims, Instruction* a, Instruction* b) {
    const ElementType u = BitType();
    auto as_unsigned = [&](Instruction* x) { return w_.Add(Opcode::kBitcastConvert, Shape::Scalar(u), {x}); };
    Instruction* range = Binary(Opcode::kSubtract, as_unsigned(b), as_unsigned(a));
    Instruction* d = Binary(Opcode::kRemainder, Bits(dims), Broadcast(range, dims));
    Instruction* one = w_.Constant(Scalar::UInt(u, 1));
    Instruction* half = Binary(Opcode::kShiftRightLogical, d, Broadcast(one, dims));
    Instruction* rest = Binary(Opcode::kSubtract, d, half);
    auto as_result = [&](Instruction* x) { return w_.Add(Opcode::kBitcastConvert, Shape(ct_, dims), {x}); };
    return Binary(Opcode::kAdd, Binary(Opcode::kAdd, Broadcast(a, dims), as_result(half)), as_result(rest));
  }

  // Box-Muller on pairs along the split dim (ops/rng.h), then a + b * x.
  Instruction* Normal(const std::vector<int64_t>& dims, Instruction* a, Instruction* b) {
    // The uniforms with the split dim as (pairs, 2): [pairs, 2] for a scalar.
    int64_t split = 0;
    std::vector<int64_t> pair_dims = {1, 2};
    if (!dims.empty()) {
      split = HalvedDim(dims);
      pair_dims = dims;
      pair_dims[split] = (dims[split] + 1) / 2;
      pair_dims.insert(pair_dims.begin() + split + 1, 2);
    }
    Instruction* unit = UnitInterval(pair_dims);
    Instruction* u0 = w_.Slice(unit, split + 1, 0, 1);
    Instruction* u1 = w_.Slice(unit, split + 1, 1, 2);
    Instruction* floor = Broadcast(Constant(static_cast<double>(1.0e-7f)), u0->shape.dims());
    Instruction* log = w_.Add(Opcode::kLog, u0->shape, {Binary(Opcode::kMaximum, u0, floor)});
    Instruction* r = w_.Add(Opcode::kSqrt, u0->shape, {WithScalar(Opcode::kMultiply, log, -2.0)});
    Instruction* angle = WithScalar(Opcode::kMultiply, u1, 2.0f * std::numbers::pi);
    Instruction* sin = Binary(Opcode::kMultiply, w_.Add(Opcode::kSin, u1->shape, {angle}), r);
    Instruction* cos = Binary(Opcode::kMultiply, w_.Add(Opcode::kCos, u1->shape, {angle}), r);
    Instruction* x = w_.Concatenate({sin, cos}, split + 1);
    std::vector<int64_t> even = dims.empty() ? std::vector<int64_t>{2} : dims;
    if (!dims.empty()) even[split] = pair_dims[split] * 2;
    x = w_.Add(Opcode::kReshape, Shape(ct_, even), {x});
    if (dims.empty()) x = w_.Add(Opcode::kReshape, Shape(ct_, {}), {w_.Slice(x, 0, 0, 1)});
    else if (even[split] != dims[split]) x = w_.Slice(x, split, 0, dims[split]);
    return Binary(Opcode::kAdd, Broadcast(a, dims), Binary(Opcode::kMultiply, Broadcast(b, dims), x));
  }

  ExpansionWriter w_;
  const Instruction& rng_;
  ElementType ct_ = ElementType::kF32;
  Instruction* state_ = nullptr;
};

}  // namespace

StatusOr<std::shared_ptr<const Module>> ExpandRngBitGenerators(const Module& module) {
  return RewriteModule(
      module, [](const Instruction& i) { return IsTupleRng(i) || IsRng(i); },
      [](Computation& c, const Instruction& inst, const std::vector<Instruction*>& operands) -> StatusOr<Instruction*> {
        if (inst.opcode == Opcode::kRng) return RngExpander(c, inst).Expand(operands.at(0), operands.at(1));
        return Split(c, inst, operands);
      });
}

}  // namespace vkxla
