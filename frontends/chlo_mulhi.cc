#include "frontends/chlo_mulhi.h"

namespace vkxla {

namespace {

ElementType Widened(ElementType t) {
  switch (t) {
    case ElementType::kS8: return ElementType::kS16;
    case ElementType::kS16: return ElementType::kS32;
    case ElementType::kS32: return ElementType::kS64;
    case ElementType::kU8: return ElementType::kU16;
    case ElementType::kU16: return ElementType::kU32;
    case ElementType::kU32: return ElementType::kU64;
    default: return ElementType::kInvalid;
  }
}

}  // namespace

StatusOr<Instruction*> LowerMulhi(Instruction* lhs, Instruction* rhs, const HloMaker& make, const ConstantMaker& constant) {
  const Shape& shape = lhs->shape;
  const ElementType t = shape.element_type();
  if (!shape.IsArray() || !rhs->shape.IsArray() || rhs->shape.element_type() != t || rhs->shape.dims() != shape.dims() ||
      (!IsSignedInt(t) && !IsUnsignedInt(t)))
    return InvalidArgument("chlo.mulhi takes two integer arrays of one shape, got " + shape.ToString() + " and " +
                           rhs->shape.ToString());
  const int bits = BitWidth(t);
  auto splat = [&](ElementType type, uint64_t v) {
    Instruction* c = constant(Literal::ScalarOf(IsSignedInt(type) ? Scalar::Int(type, static_cast<int64_t>(v))
                                                                  : Scalar::UInt(type, v)));
    Instruction* b = make(Opcode::kBroadcast, Shape(type, shape.dims()), {c});
    b->dimensions = std::vector<int64_t>{};
    return b;
  };
  if (bits < 64) {
    const Shape wide(Widened(t), shape.dims());
    Instruction* a = make(Opcode::kConvert, wide, {lhs});
    Instruction* b = make(Opcode::kConvert, wide, {rhs});
    Instruction* p = make(Opcode::kMultiply, wide, {a, b});
    Instruction* hi = make(IsSignedInt(t) ? Opcode::kShiftRightArithmetic : Opcode::kShiftRightLogical, wide,
                           {p, splat(wide.element_type(), bits)});
    return make(Opcode::kConvert, shape, {hi});
  }
  // 64 bits: a = a1·2^32 + a0, b likewise, each product of halves fits in
  // 64 bits; the unsigned high word gathers p11, the high halves of p01 and
  // p10, and the carry out of the middle word.
  const Shape u64(ElementType::kU64, shape.dims());
  Instruction* a = IsSignedInt(t) ? make(Opcode::kBitcastConvert, u64, {lhs}) : lhs;
  Instruction* b = IsSignedInt(t) ? make(Opcode::kBitcastConvert, u64, {rhs}) : rhs;
  Instruction* low_mask = splat(ElementType::kU64, 0xffffffffu);
  Instruction* thirty_two = splat(ElementType::kU64, 32);
  auto low = [&](Instruction* x) { return make(Opcode::kAnd, u64, {x, low_mask}); };
  auto high = [&](Instruction* x) { return make(Opcode::kShiftRightLogical, u64, {x, thirty_two}); };
  auto mul = [&](Instruction* x, Instruction* y) { return make(Opcode::kMultiply, u64, {x, y}); };
  auto add = [&](Instruction* x, Instruction* y) { return make(Opcode::kAdd, u64, {x, y}); };
  Instruction *a0 = low(a), *a1 = high(a), *b0 = low(b), *b1 = high(b);
  Instruction *p00 = mul(a0, b0), *p01 = mul(a0, b1), *p10 = mul(a1, b0), *p11 = mul(a1, b1);
  Instruction* middle = add(add(high(p00), low(p01)), low(p10));
  Instruction* hi = add(add(add(p11, high(p01)), high(p10)), high(middle));
  if (!IsSignedInt(t)) return hi;
  // Signed: subtract b where a < 0 and a where b < 0 (two's complement).
  Instruction* zero = splat(ElementType::kU64, 0);
  const Shape pred(ElementType::kPred, shape.dims());
  auto negative = [&](Instruction* x) {
    Instruction* sign = make(Opcode::kShiftRightLogical, u64, {x, splat(ElementType::kU64, 63)});
    Instruction* c = make(Opcode::kCompare, pred, {sign, zero});
    c->direction = ComparisonDirection::kNe;
    return c;
  };
  Instruction* fix_a = make(Opcode::kSelect, u64, {negative(a), b, zero});
  Instruction* fix_b = make(Opcode::kSelect, u64, {negative(b), a, zero});
  hi = make(Opcode::kSubtract, u64, {make(Opcode::kSubtract, u64, {hi, fix_a}), fix_b});
  return make(Opcode::kBitcastConvert, shape, {hi});
}

}  // namespace vkxla
