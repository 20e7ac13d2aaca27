#include "frontends/stablehlo_quantized.h"

namespace vkxla {
namespace {

// The per-tensor or per-axis values of type t broadcast to `dims`: floats
// rounded to t, integers exact (a 64-bit zero point would not survive a
// double).
Instruction* Spread(const std::vector<double>& floats, const std::vector<int64_t>& ints, ElementType t, const QuantizedType& q,
                    const std::vector<int64_t>& dims, const HloMaker& make, const ConstantMaker& constant) {
  const bool per_axis = q.axis >= 0;
  const size_t n = IsFloat(t) ? floats.size() : ints.size();
  Literal values(Shape(t, per_axis ? std::vector<int64_t>{static_cast<int64_t>(n)} : std::vector<int64_t>{}));
  for (size_t i = 0; i < n; ++i)
    values.Set(static_cast<int64_t>(i), IsFloat(t)          ? Scalar::Float(t, floats[i])
                                        : IsUnsignedInt(t) ? Scalar::UInt(t, static_cast<uint64_t>(ints[i]))
                                                           : Scalar::Int(t, ints[i]));
  Instruction* c = constant(std::move(values));
  Instruction* b = make(Opcode::kBroadcast, Shape(t, dims), {c});
  b->dimensions = per_axis ? std::vector<int64_t>{q.axis} : std::vector<int64_t>{};
  return b;
}

// The zero points in the expressed type, as the spec converts them.
std::vector<double> ZeroPoints(const QuantizedType& q) { return std::vector<double>(q.zero_points.begin(), q.zero_points.end()); }

Status CheckFits(const Instruction* x, ElementType want, const QuantizedType& q, const char* what) {
  if (!x->shape.IsArray() || x->shape.element_type() != want)
    return InvalidArgument(std::string(what) + " " + q.ToString() + " applies to " + std::string(ElementTypeName(want)) + " arrays, not " +
                           x->shape.ToString());
  if (q.axis >= x->shape.rank() || (q.axis >= 0 && x->shape.dim(q.axis) != static_cast<int64_t>(q.scales.size())))
    return InvalidArgument(std::string(what) + " " + q.ToString() + ": its axis does not fit " + x->shape.ToString());
  return OkStatus();
}

}  // namespace

StatusOr<Instruction*> Dequantize(Instruction* x, const QuantizedType& q, const HloMaker& make, const ConstantMaker& constant) {
  VKXLA_RETURN_IF_ERROR(CheckFits(x, q.storage, q, "dequantizing"));
  const std::vector<int64_t>& dims = x->shape.dims();
  Instruction* sub = make(Opcode::kSubtract, x->shape, {x, Spread({}, q.zero_points, q.storage, q, dims, make, constant)});
  Instruction* wide = make(Opcode::kConvert, Shape(q.expressed, dims), {sub});
  return make(Opcode::kMultiply, wide->shape, {wide, Spread(q.scales, {}, q.expressed, q, dims, make, constant)});
}

StatusOr<Instruction*> Quantize(Instruction* x, const QuantizedType& q, const HloMaker& make, const ConstantMaker& constant) {
  VKXLA_RETURN_IF_ERROR(CheckFits(x, q.expressed, q, "quantizing to"));
  const std::vector<int64_t>& dims = x->shape.dims();
  const Shape& e = x->shape;
  Instruction* scaled = make(Opcode::kDivide, e, {x, Spread(q.scales, {}, q.expressed, q, dims, make, constant)});
  Instruction* shifted = make(Opcode::kAdd, e, {scaled, Spread(ZeroPoints(q), {}, q.expressed, q, dims, make, constant)});
  QuantizedType whole = q;
  whole.axis = -1;  // the storage range is one pair for the tensor
  Instruction* lo = Spread({static_cast<double>(q.storage_min)}, {}, q.expressed, whole, dims, make, constant);
  Instruction* hi = Spread({static_cast<double>(q.storage_max)}, {}, q.expressed, whole, dims, make, constant);
  Instruction* clamped = make(Opcode::kClamp, e, {lo, shifted, hi});
  Instruction* rounded = make(Opcode::kRoundNearestEven, e, {clamped});
  return make(Opcode::kConvert, Shape(q.storage, dims), {rounded});
}

}  // namespace vkxla
