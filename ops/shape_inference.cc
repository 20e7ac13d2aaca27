#include "ops/shape_inference.h"

#include "ir/layout_index.h"
#include "ir/tiled_index.h"

#include <algorithm>
#include <set>

#include "ops/attributes.h"
#include "ops/control_flow.h"
#include "ops/gather_scatter_plan.h"
#include "ops/batch_norm.h"
#include "ops/convolution.h"
#include "ops/dot.h"
#include "ops/ragged_dot.h"
#include "ops/cholesky.h"
#include "ops/fft.h"
#include "ops/collectives.h"
#include "ops/rng.h"
#include "ops/rng_bit_generator.h"
#include "ops/triangular_solve.h"
#include "ops/scaled_dot.h"
#include "ops/op_traits.h"
#include "ops/reduction_shapes.h"
#include "ops/slice_and_padding.h"

namespace vkxla {
namespace {

std::string Quote(const Shape& s) { return s.ToString(); }

Status OpError(const Instruction& inst, const std::string& message) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": " + message);
}

Status UnsupportedType(const Instruction& inst, const Shape& s, const char* accepted) {
  return OpError(inst, "element type " + std::string(ElementTypeName(s.element_type())) + " of " + Quote(s) +
                           " is not accepted; expected " + accepted);
}

enum TypeClass : unsigned {
  kPredT = 1, kSignedT = 2, kUnsignedT = 4, kFloatT = 8, kComplexT = 16,
  kIntT = kSignedT | kUnsignedT, kNumericT = kIntT | kFloatT | kComplexT,
};

bool InClass(ElementType t, unsigned cls) {
  return ((cls & kPredT) && t == ElementType::kPred) || ((cls & kSignedT) && IsSignedInt(t)) ||
         ((cls & kUnsignedT) && IsUnsignedInt(t)) || ((cls & kFloatT) && IsFloat(t)) ||
         ((cls & kComplexT) && IsComplex(t));
}

const char* ClassName(unsigned cls) {
  switch (cls) {
    case kFloatT: return "a floating-point type";
    case kFloatT | kComplexT: return "a floating-point or complex type";
    case kIntT: return "an integer type";
    case kPredT | kIntT: return "pred or an integer type";
    case kSignedT | kFloatT | kComplexT: return "a signed integer, floating-point or complex type";
    case kNumericT: return "an integer, floating-point or complex type";
    case kIntT | kFloatT: return "an integer or floating-point type";
    case kNumericT | kPredT: return "any array type";
    case kPredT | kIntT | kFloatT: return "pred, an integer or a floating-point type";
    default: return "another element type";
  }
}

unsigned UnaryClass(Opcode op) {
  switch (op) {
    case Opcode::kAbs: case Opcode::kSign: return kSignedT | kFloatT | kComplexT;
    case Opcode::kNegate: return kNumericT;
    case Opcode::kNot: return kPredT | kIntT;
    case Opcode::kClz: case Opcode::kPopulationCount: return kIntT;
    case Opcode::kCeil: case Opcode::kFloor: case Opcode::kRoundNearestAfz: case Opcode::kRoundNearestEven:
    case Opcode::kIsFinite: case Opcode::kReducePrecision: case Opcode::kErf: case Opcode::kCbrt:
      return kFloatT;
    case Opcode::kReal: case Opcode::kImag: return kFloatT | kComplexT;
    case Opcode::kConvert: return kNumericT | kPredT;
    case Opcode::kBitcastConvert: return kNumericT | kPredT;
    default: return kFloatT | kComplexT;  // transcendentals
  }
}

unsigned BinaryClass(Opcode op) {
  switch (op) {
    case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor: return kPredT | kIntT;
    case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic: case Opcode::kShiftRightLogical: return kIntT;
    case Opcode::kAtan2: return kFloatT | kComplexT;
    case Opcode::kComplex: return kFloatT;
    case Opcode::kRemainder: return kIntT | kFloatT;
    case Opcode::kAdd: case Opcode::kMultiply: case Opcode::kMaximum: case Opcode::kMinimum:
    case Opcode::kCompare:
      return kNumericT | kPredT;
    default: return kNumericT;  // subtract, divide, power
  }
}

Status ExpectOperands(const Instruction& inst, size_t n) {
  if (inst.operands.size() != n)
    return OpError(inst, "expects " + std::to_string(n) + " operand" + (n == 1 ? "" : "s") + ", got " +
                             std::to_string(inst.operands.size()));
  return OkStatus();
}

Status ExpectArray(const Instruction& inst, const Shape& s) {
  if (!s.IsArray()) return OpError(inst, "operand must be an array, got " + Quote(s));
  return OkStatus();
}

StatusOr<Shape> InferUnary(const Instruction& inst) {
  VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 1));
  const Shape& x = inst.operands[0]->shape;
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
  const ElementType t = x.element_type();
  if (!InClass(t, UnaryClass(inst.opcode))) return UnsupportedType(inst, x, ClassName(UnaryClass(inst.opcode)));
  Shape result(t, x.dims());
  for (int64_t d = 0; d < x.rank(); ++d)
    if (x.is_dynamic_dim(d)) result.set_dynamic_dim(d, true);
  switch (inst.opcode) {
    case Opcode::kAbs:
    case Opcode::kReal:
    case Opcode::kImag:
      return result.WithElementType(ComplexComponentType(t));
    case Opcode::kIsFinite:
      return result.WithElementType(ElementType::kPred);
    case Opcode::kConvert: {
      ElementType to = inst.shape.element_type();
      if (!IsArrayType(to)) return OpError(inst, "converts to " + Quote(inst.shape) + ", which is not an array type");
      if (IsComplex(t) && !IsComplex(to))
        return OpError(inst, "conversion from complex " + Quote(x) + " to real type " +
                                 std::string(ElementTypeName(to)) + " is not defined; use real() or imag()");
      return result.WithElementType(to);
    }
    case Opcode::kBitcastConvert: {
      ElementType to = inst.shape.element_type();
      if (!IsArrayType(to)) return OpError(inst, "bitcasts to " + Quote(inst.shape) + ", which is not an array type");
      int from_bits = BitWidth(t), to_bits = BitWidth(to);
      if (from_bits == to_bits) return result.WithElementType(to);
      std::vector<int64_t> dims = x.dims();
      if (from_bits > to_bits) {
        if (from_bits % to_bits) return OpError(inst, "bit widths of " + Quote(x) + " and " + std::string(ElementTypeName(to)) + " do not divide");
        dims.push_back(from_bits / to_bits);
      } else {
        if (to_bits % from_bits || dims.empty() || dims.back() != to_bits / from_bits)
          return OpError(inst, "bitcast from " + Quote(x) + " to " + std::string(ElementTypeName(to)) +
                                   " needs a minor-most dimension of size " + std::to_string(to_bits / std::max(from_bits, 1)));
        dims.pop_back();
      }
      return Shape(to, dims);
    }
    case Opcode::kReducePrecision:
      if (inst.exponent_bits < 1 || inst.mantissa_bits < 0)
        return OpError(inst, "needs exponent_bits >= 1 and mantissa_bits >= 0, got exponent_bits=" +
                                 std::to_string(inst.exponent_bits) + " mantissa_bits=" + std::to_string(inst.mantissa_bits));
      return result;
    default:
      return result;
  }
}

Status CheckSameDims(const Instruction& inst, const Shape& a, const Shape& b) {
  if (a.dims() != b.dims())
    return OpError(inst, "operands must have the same dimensions, got " + Quote(a) + " and " + Quote(b));
  return OkStatus();
}

StatusOr<Shape> InferBinary(const Instruction& inst) {
  VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 2));
  const Shape& a = inst.operands[0]->shape;
  const Shape& b = inst.operands[1]->shape;
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, a));
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, b));
  VKXLA_RETURN_IF_ERROR(CheckSameDims(inst, a, b));
  if (a.element_type() != b.element_type())
    return OpError(inst, "operands must have the same element type, got " + Quote(a) + " and " + Quote(b));
  const ElementType t = a.element_type();
  unsigned cls = BinaryClass(inst.opcode);
  if (!InClass(t, cls)) return UnsupportedType(inst, a, ClassName(cls));
  Shape result(t, a.dims());
  if (inst.opcode == Opcode::kComplex) {
    if (t != ElementType::kF32 && t != ElementType::kF64)
      return UnsupportedType(inst, a, "f32 or f64 (the parts of c64 and c128)");
    return result.WithElementType(t == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128);
  }
  if (inst.opcode == Opcode::kCompare) {
    const ComparisonType ct = inst.comparison_type;
    bool ok = ct == ComparisonType::kDefault ||
              (IsFloat(t) && (ct == ComparisonType::kFloat || ct == ComparisonType::kTotalOrder)) ||
              (IsComplex(t) && ct == ComparisonType::kFloat) ||
              (IsSignedInt(t) && ct == ComparisonType::kSigned) ||
              ((IsUnsignedInt(t) || t == ElementType::kPred) && ct == ComparisonType::kUnsigned);
    if (!ok)
      return OpError(inst, "comparison type " + std::string(ComparisonTypeName(ct)) + " does not apply to " + Quote(a));
    if (IsComplex(t) && inst.direction != ComparisonDirection::kEq && inst.direction != ComparisonDirection::kNe)
      return OpError(inst, "complex operands " + Quote(a) + " only compare with EQ or NE, not " +
                               std::string(ComparisonDirectionName(inst.direction)));
    return result.WithElementType(ElementType::kPred);
  }
  if ((inst.opcode == Opcode::kMaximum || inst.opcode == Opcode::kMinimum) && IsComplex(t))
    return UnsupportedType(inst, a, "an integer, pred or floating-point type");
  return result;
}

StatusOr<Shape> InferTernary(const Instruction& inst) {
  VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 3));
  for (Instruction* o : inst.operands) VKXLA_RETURN_IF_ERROR(ExpectArray(inst, o->shape));
  const Shape& s0 = inst.operands[0]->shape;
  const Shape& s1 = inst.operands[1]->shape;
  const Shape& s2 = inst.operands[2]->shape;
  if (inst.opcode == Opcode::kSelect) {
    if (s0.element_type() != ElementType::kPred) return OpError(inst, "the predicate must be pred, got " + Quote(s0));
    if (!s1.Compatible(s2) && !(s1.element_type() == s2.element_type() && s1.dims() == s2.dims()))
      return OpError(inst, "on_true and on_false must have the same shape, got " + Quote(s1) + " and " + Quote(s2));
    if (s0.rank() != 0 && s0.dims() != s1.dims())
      return OpError(inst, "the predicate " + Quote(s0) + " must be a scalar or match " + Quote(s1));
    return Shape(s1.element_type(), s1.dims());
  }
  // clamp(min, operand, max): min and max are scalars or operand-shaped.
  for (const Shape* bound : {&s0, &s2}) {
    if (bound->element_type() != s1.element_type())
      return OpError(inst, "bounds must have the operand's element type, got " + Quote(*bound) + " for " + Quote(s1));
    if (bound->rank() != 0 && bound->dims() != s1.dims())
      return OpError(inst, "bound " + Quote(*bound) + " must be a scalar or match the operand " + Quote(s1));
  }
  if (IsComplex(s1.element_type())) return UnsupportedType(inst, s1, "an integer, pred or floating-point type");
  return Shape(s1.element_type(), s1.dims());
}

StatusOr<Shape> InferBroadcast(const Instruction& inst) {
  VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 1));
  const Shape& x = inst.operands[0]->shape;
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
  const Shape& out = inst.shape;
  if (!inst.dimensions) return OpError(inst, "needs dimensions={...}");
  const auto& dims = *inst.dimensions;
  if (static_cast<int64_t>(dims.size()) != x.rank())
    return OpError(inst, "dimensions has " + std::to_string(dims.size()) + " entries for operand " + Quote(x) +
                             " of rank " + std::to_string(x.rank()));
  std::set<int64_t> seen;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= out.rank())
      return OpError(inst, "dimension " + std::to_string(dims[i]) + " is out of range for result " + Quote(out));
    if (!seen.insert(dims[i]).second) return OpError(inst, "dimension " + std::to_string(dims[i]) + " appears twice");
    if (x.dim(i) != 1 && x.dim(i) != out.dim(dims[i]))
      return OpError(inst, "operand " + Quote(x) + " dimension " + std::to_string(i) + " (size " +
                               std::to_string(x.dim(i)) + ") cannot broadcast to dimension " + std::to_string(dims[i]) +
                               " of " + Quote(out));
  }
  return Shape(x.element_type(), out.dims());
}

// The same physical bytes seen as another shape and layout.
StatusOr<Shape> InferBitcast(const Instruction& inst) {
  VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 1));
  const Shape& x = inst.operands[0]->shape;
  const Shape& out = inst.shape;
  if (!x.IsArray() || !out.IsArray()) return OpError(inst, "operand and result must be arrays, got " + Quote(x));
  if (x.element_type() != out.element_type())
    return Unimplemented("bitcast " + inst.Describe() + " from " + Quote(x) + " to " + Quote(out) +
                         " changes the element type, which is not supported; use bitcast-convert");
  VKXLA_ASSIGN_OR_RETURN(int64_t from_bytes, PhysicalByteSize(x));
  VKXLA_ASSIGN_OR_RETURN(int64_t to_bytes, PhysicalByteSize(out));
  Shape x_placed = x, out_placed = out;
  x_placed.set_layout(x.layout_or_default());
  out_placed.set_layout(out.layout_or_default());
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap from, TiledIndexMap::Create(x_placed));
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap to, TiledIndexMap::Create(out_placed));
  if (from.physical_element_count() != to.physical_element_count() || from_bytes != to_bytes)
    return OpError(inst, "operand " + Quote(x_placed) + " occupies " + std::to_string(from.physical_element_count()) +
                             " physical elements but the result " + Quote(out_placed) + " occupies " +
                             std::to_string(to.physical_element_count()) + "; a bitcast keeps the physical size");
  return Shape(out.element_type(), out.dims());
}

// ---- data movement: each result element is one operand element (or pad) ----

StatusOr<Shape> InferReshape(const Instruction& inst) {
  VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 1));
  const Shape& x = inst.operands[0]->shape;
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
  if (!inst.shape.IsArray()) return OpError(inst, "result must be an array, got " + Quote(inst.shape));
  if (inst.shape.element_count() != x.element_count())
    return OpError(inst, "cannot reshape " + Quote(x) + " (" + std::to_string(x.element_count()) + " elements) to " +
                             Quote(inst.shape) + " (" + std::to_string(inst.shape.element_count()) + " elements)");
  return Shape(x.element_type(), inst.shape.dims());
}

Status ExpectDimensionList(const Instruction& inst, const Shape& x, bool permutation) {
  if (!inst.dimensions) return OpError(inst, "needs dimensions={...}");
  std::vector<bool> seen(x.rank(), false);
  for (int64_t d : *inst.dimensions) {
    if (d < 0 || d >= x.rank() || seen[d])
      return OpError(inst, "dimensions " + IntListText(*inst.dimensions) + " must be distinct dimensions of " + Quote(x));
    seen[d] = true;
  }
  if (permutation && static_cast<int64_t>(inst.dimensions->size()) != x.rank())
    return OpError(inst, "dimensions " + IntListText(*inst.dimensions) + " is not a permutation of the " +
                             std::to_string(x.rank()) + " dimensions of " + Quote(x));
  return OkStatus();
}

StatusOr<Shape> InferTranspose(const Instruction& inst) {
  VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 1));
  const Shape& x = inst.operands[0]->shape;
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
  VKXLA_RETURN_IF_ERROR(ExpectDimensionList(inst, x, true));
  std::vector<int64_t> dims;
  for (int64_t d : *inst.dimensions) dims.push_back(x.dim(d));
  return Shape(x.element_type(), dims);
}

StatusOr<Shape> InferReverse(const Instruction& inst) {
  VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 1));
  const Shape& x = inst.operands[0]->shape;
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
  VKXLA_RETURN_IF_ERROR(ExpectDimensionList(inst, x, false));
  return Shape(x.element_type(), x.dims());
}

StatusOr<Shape> InferSlice(const Instruction& inst) {
  VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 1));
  const Shape& x = inst.operands[0]->shape;
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
  VKXLA_ASSIGN_OR_RETURN(std::vector<SliceDimension> slice, SliceOf(inst));
  if (static_cast<int64_t>(slice.size()) != x.rank())
    return OpError(inst, "slice has " + std::to_string(slice.size()) + " ranges for operand " + Quote(x) + " of rank " +
                             std::to_string(x.rank()));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < x.rank(); ++d) {
    const SliceDimension& r = slice[d];
    if (r.start < 0 || r.start > r.limit || r.limit > x.dim(d) || r.stride < 1)
      return OpError(inst, "slice [" + std::to_string(r.start) + ":" + std::to_string(r.limit) + ":" +
                               std::to_string(r.stride) + "] of dimension " + std::to_string(d) + " is out of bounds for " +
                               Quote(x) + " (needs 0 <= start <= limit <= " + std::to_string(x.dim(d)) + ", stride >= 1)");
    dims.push_back((r.limit - r.start + r.stride - 1) / r.stride);
  }
  return Shape(x.element_type(), dims);
}

StatusOr<Shape> InferConcatenate(const Instruction& inst) {
  if (inst.operands.empty()) return OpError(inst, "needs at least one operand");
  const Shape& first = inst.operands[0]->shape;
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, first));
  if (!inst.dimensions || inst.dimensions->size() != 1) return OpError(inst, "needs dimensions={d} (one dimension)");
  const int64_t dim = (*inst.dimensions)[0];
  if (dim < 0 || dim >= first.rank()) return OpError(inst, "dimension " + std::to_string(dim) + " is out of range for " + Quote(first));
  std::vector<int64_t> dims = first.dims();
  for (size_t i = 1; i < inst.operands.size(); ++i) {
    const Shape& o = inst.operands[i]->shape;
    VKXLA_RETURN_IF_ERROR(ExpectArray(inst, o));
    bool same = o.element_type() == first.element_type() && o.rank() == first.rank();
    for (int64_t d = 0; same && d < o.rank(); ++d) same = d == dim || o.dim(d) == first.dim(d);
    if (!same)
      return OpError(inst, "operand " + std::to_string(i) + " " + Quote(o) + " does not match " + Quote(first) +
                               " outside dimension " + std::to_string(dim));
    dims[dim] += o.dim(dim);
  }
  return Shape(first.element_type(), dims);
}

StatusOr<Shape> InferPad(const Instruction& inst) {
  VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 2));
  const Shape& x = inst.operands[0]->shape;
  const Shape& v = inst.operands[1]->shape;
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
  if (!v.IsArray() || v.rank() != 0 || v.element_type() != x.element_type())
    return OpError(inst, "padding value must be a " + std::string(ElementTypeName(x.element_type())) +
                             " scalar, got " + Quote(v));
  VKXLA_ASSIGN_OR_RETURN(std::vector<PaddingDimension> padding, PaddingOf(inst));
  if (static_cast<int64_t>(padding.size()) != x.rank())
    return OpError(inst, "padding has " + std::to_string(padding.size()) + " dimensions for operand " + Quote(x));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < x.rank(); ++d) {
    const PaddingDimension& p = padding[d];
    if (p.interior < 0)
      return OpError(inst, "interior padding " + std::to_string(p.interior) + " of dimension " + std::to_string(d) +
                               " is negative (operand " + Quote(x) + ")");
    const int64_t size = p.low + p.high + x.dim(d) + std::max<int64_t>(x.dim(d) - 1, 0) * p.interior;
    if (size < 0)
      return OpError(inst, "padding " + std::to_string(p.low) + "_" + std::to_string(p.high) + "_" +
                               std::to_string(p.interior) + " leaves dimension " + std::to_string(d) + " of " + Quote(x) +
                               " with negative size " + std::to_string(size));
    dims.push_back(size);
  }
  return Shape(x.element_type(), dims);
}

// ---- indexing: start indices read at run time, always clamped in bounds ----

// The scalar start indices of dynamic-slice and dynamic-update-slice: one
// per operand dimension, all of one integer type.
Status ExpectStartIndices(const Instruction& inst, const Shape& x, size_t first) {
  const size_t count = inst.operands.size() - first;
  if (static_cast<int64_t>(count) != x.rank())
    return OpError(inst, "needs " + std::to_string(x.rank()) + " scalar start indices for " + Quote(x) + ", got " +
                             std::to_string(count));
  for (size_t i = first; i < inst.operands.size(); ++i) {
    const Shape& s = inst.operands[i]->shape;
    if (!s.IsArray() || s.rank() != 0 || !IsInteger(s.element_type()) ||
        s.element_type() != inst.operands[first]->shape.element_type())
      return OpError(inst, "start index " + std::to_string(i - first) + " is " + Quote(s) +
                               "; start indices must be integer scalars of one type");
  }
  return OkStatus();
}

StatusOr<Shape> InferDynamicSlice(const Instruction& inst) {
  if (inst.operands.empty()) return OpError(inst, "needs an operand");
  const Shape& x = inst.operands[0]->shape;
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
  VKXLA_RETURN_IF_ERROR(ExpectStartIndices(inst, x, 1));
  VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, IntListAttribute(inst, "dynamic_slice_sizes", true));
  if (static_cast<int64_t>(sizes.size()) != x.rank())
    return OpError(inst, "dynamic_slice_sizes=" + IntListText(sizes) + " needs one size per dimension of " + Quote(x));
  for (int64_t d = 0; d < x.rank(); ++d)
    if (sizes[d] < 0 || sizes[d] > x.dim(d))
      return OpError(inst, "slice size " + std::to_string(sizes[d]) + " of dimension " + std::to_string(d) +
                               " is out of bounds for " + Quote(x));
  return Shape(x.element_type(), sizes);
}

StatusOr<Shape> InferDynamicUpdateSlice(const Instruction& inst) {
  if (inst.operands.size() < 2) return OpError(inst, "needs an operand and an update");
  const Shape& x = inst.operands[0]->shape;
  const Shape& u = inst.operands[1]->shape;
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
  VKXLA_RETURN_IF_ERROR(ExpectArray(inst, u));
  if (u.element_type() != x.element_type() || u.rank() != x.rank())
    return OpError(inst, "update " + Quote(u) + " must have the element type and rank of operand " + Quote(x));
  for (int64_t d = 0; d < x.rank(); ++d)
    if (u.dim(d) > x.dim(d))
      return OpError(inst, "update " + Quote(u) + " is larger than operand " + Quote(x) + " in dimension " + std::to_string(d));
  VKXLA_RETURN_IF_ERROR(ExpectStartIndices(inst, x, 2));
  return Shape(x.element_type(), x.dims());
}

StatusOr<Shape> InferGather(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(GatherPlan plan, PlanGather(inst));
  return Shape(inst.operands[0]->shape.element_type(), plan.result_dims);
}

StatusOr<Shape> InferScatter(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(ScatterPlan plan, PlanScatter(inst));
  if (plan.arity == 1) return Shape(inst.operands[0]->shape.element_type(), inst.operands[0]->shape.dims());
  std::vector<Shape> elements;
  for (int64_t i = 0; i < plan.arity; ++i)
    elements.push_back(Shape(inst.operands[i]->shape.element_type(), inst.operands[i]->shape.dims()));
  return Shape::Tuple(std::move(elements));
}

// The result shape, with every dimension static.
StatusOr<Shape> InferStaticShape(const Instruction& inst) {
  if (inst.result_accuracy && !AcceptsResultAccuracy(inst.opcode))
    return OpError(inst, "result_accuracy applies only to transcendental ops");
  if (IsElementwiseUnary(inst.opcode)) return InferUnary(inst);
  if (IsElementwiseBinary(inst.opcode)) return InferBinary(inst);
  if (IsElementwiseTernary(inst.opcode)) return InferTernary(inst);
  switch (inst.opcode) {
    case Opcode::kParameter:
      VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 0));
      return inst.shape;
    case Opcode::kConstant:
      if (!inst.literal) return OpError(inst, "has no value");
      return inst.literal->shape();
    case Opcode::kIota: {
      VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 0));
      const Shape& s = inst.shape;
      if (!s.IsArray() || s.element_type() == ElementType::kPred)
        return OpError(inst, "result must be a numeric array, got " + Quote(s));
      if (inst.iota_dimension < 0 || inst.iota_dimension >= s.rank())
        return OpError(inst, "iota_dimension=" + std::to_string(inst.iota_dimension) + " is out of range for " + Quote(s));
      return Shape(s.element_type(), s.dims());
    }
    case Opcode::kBroadcast:
      return InferBroadcast(inst);
    case Opcode::kCopy: {
      // Same values; the result's layout (its declared shape) may differ.
      VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 1));
      const Shape& x = inst.operands[0]->shape;
      if (!x.IsArray()) return OpError(inst, "operand must be an array, got " + Quote(x));
      return Shape(x.element_type(), x.dims());
    }
    case Opcode::kBitcast:
      return InferBitcast(inst);
    case Opcode::kReshape: return InferReshape(inst);
    case Opcode::kTranspose: return InferTranspose(inst);
    case Opcode::kReverse: return InferReverse(inst);
    case Opcode::kSlice: return InferSlice(inst);
    case Opcode::kConcatenate: return InferConcatenate(inst);
    case Opcode::kPad: return InferPad(inst);
    case Opcode::kDynamicSlice: return InferDynamicSlice(inst);
    case Opcode::kDynamicUpdateSlice: return InferDynamicUpdateSlice(inst);
    case Opcode::kGather: return InferGather(inst);
    case Opcode::kScatter: return InferScatter(inst);
    case Opcode::kDot: return InferDotShape(inst);
    case Opcode::kConvolution: return InferConvolutionShape(inst);
    case Opcode::kBatchNormTraining: case Opcode::kBatchNormInference: case Opcode::kBatchNormGrad:
      return InferBatchNormShape(inst);
    case Opcode::kRaggedDot: return InferRaggedDotShape(inst);
    case Opcode::kScaledDot: return InferScaledDotShape(inst);
    case Opcode::kFft: return InferFftShape(inst);
    case Opcode::kAllReduce: case Opcode::kAllGather: case Opcode::kReduceScatter: case Opcode::kAllToAll:
    case Opcode::kCollectivePermute: case Opcode::kCollectiveBroadcast: case Opcode::kReplicaId: case Opcode::kPartitionId:
    case Opcode::kRaggedAllToAll:
      return InferCollectiveShape(inst);
    case Opcode::kRngBitGenerator: return InferRngBitGeneratorShape(inst);
    case Opcode::kCholesky: return InferCholeskyShape(inst);
    case Opcode::kRng: return InferRngShape(inst);
    case Opcode::kRngGetAndUpdateState: return InferRngGetAndUpdateStateShape(inst);
    case Opcode::kTriangularSolve: return InferTriangularSolveShape(inst);
    case Opcode::kSetDimensionSize: {
      VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 2));
      const Shape& x = inst.operands[0]->shape;
      const Shape& v = inst.operands[1]->shape;
      VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
      if (!inst.dimensions || inst.dimensions->size() != 1 || (*inst.dimensions)[0] < 0 || (*inst.dimensions)[0] >= x.rank())
        return OpError(inst, "needs dimensions={d} naming one dimension of " + Quote(x));
      if (v.element_type() != ElementType::kS32 || v.rank() != 0)
        return OpError(inst, "the size must be an s32 scalar, got " + Quote(v));
      return Shape(x.element_type(), x.dims());
    }
    case Opcode::kDynamicReshape: {
      if (inst.operands.empty()) return OpError(inst, "needs an operand");
      const Shape& x = inst.operands[0]->shape;
      VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
      if (!inst.shape.IsArray() || inst.shape.element_type() != x.element_type())
        return OpError(inst, "result " + Quote(inst.shape) + " must be an array of the operand's element type");
      if (static_cast<int64_t>(inst.operands.size()) != inst.shape.rank() + 1)
        return OpError(inst, "needs one s32 size per result dimension of " + Quote(inst.shape) + ", got " +
                                 std::to_string(inst.operands.size() - 1));
      for (size_t i = 1; i < inst.operands.size(); ++i)
        if (inst.operands[i]->shape.element_type() != ElementType::kS32 || inst.operands[i]->shape.rank() != 0)
          return OpError(inst, "size " + std::to_string(i - 1) + " must be an s32 scalar, got " + Quote(inst.operands[i]->shape));
      return Shape(x.element_type(), inst.shape.dims());
    }
    case Opcode::kGetDimensionSize: {
      VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 1));
      const Shape& x = inst.operands[0]->shape;
      VKXLA_RETURN_IF_ERROR(ExpectArray(inst, x));
      if (!inst.dimensions || inst.dimensions->size() != 1 || (*inst.dimensions)[0] < 0 || (*inst.dimensions)[0] >= x.rank())
        return OpError(inst, "needs dimensions={d} naming one dimension of " + Quote(x));
      return Shape::Scalar(ElementType::kS32);
    }
    case Opcode::kTuple: {
      std::vector<Shape> elements;
      for (Instruction* o : inst.operands) elements.push_back(o->shape);
      return Shape::Tuple(std::move(elements));
    }
    case Opcode::kGetTupleElement: {
      VKXLA_RETURN_IF_ERROR(ExpectOperands(inst, 1));
      const Shape& t = inst.operands[0]->shape;
      if (!t.IsTuple()) return OpError(inst, "operand must be a tuple, got " + Quote(t));
      if (inst.tuple_index < 0 || inst.tuple_index >= static_cast<int64_t>(t.tuple_shapes().size()))
        return OpError(inst, "index=" + std::to_string(inst.tuple_index) + " is out of range for " + Quote(t));
      return t.tuple_shapes()[inst.tuple_index];
    }
    default:
      if (std::optional<StatusOr<Shape>> s = InferReductionShape(inst)) return *s;
      if (std::optional<StatusOr<Shape>> s = InferControlFlowShape(inst)) return *s;
      return Unimplemented(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() +
                           ": op is not implemented yet");
  }
}

}  // namespace

StatusOr<Shape> InferShape(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(Shape shape, InferStaticShape(inst));
  // Control flow passes arrays to computations and takes their results,
  // dynamic dims and all (the called computations' shapes say which).
  const bool calls = inst.opcode == Opcode::kWhile || inst.opcode == Opcode::kConditional || inst.opcode == Opcode::kCall;
  if (calls) return shape;
  if (IsDynamicDot(inst)) {
    MarkDynamicDotResult(inst, shape);
    return shape;
  }
  if (IsDynamicReduce(inst)) {
    // The dims it keeps carry their run-time sizes into the results (a
    // reduce-window keeps every dim).
    const Shape& x = inst.operands[0]->shape;
    const bool windows = inst.opcode == Opcode::kReduceWindow;
    auto mark = [&](Shape& r) {
      int64_t at = 0;
      for (int64_t d = 0; d < x.rank(); ++d) {
        if (!windows && std::find(inst.dimensions->begin(), inst.dimensions->end(), d) != inst.dimensions->end()) continue;
        if (x.is_dynamic_dim(d) && at < r.rank()) r.set_dynamic_dim(at, true);
        ++at;
      }
    };
    if (shape.IsArray()) {
      mark(shape);
      return shape;
    }
    std::vector<Shape> elements = shape.tuple_shapes();
    for (Shape& e : elements) mark(e);
    return Shape::Tuple(std::move(elements));
  }
  if (!shape.IsArray()) {
    if (inst.opcode != Opcode::kTuple)
      for (const Instruction* o : inst.operands)
        if (o->shape.IsArray() && !o->shape.is_static())
          return Unimplemented(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": operand " +
                               Quote(o->shape) + " has a dynamic dimension, which this op does not support yet");
    return shape;
  }
  // Bounded dynamic dimensions: which result dims carry a run-time size.
  const Instruction* dynamic_operand = nullptr;
  for (const Instruction* o : inst.operands)
    if (o->shape.IsArray() && !o->shape.is_static()) dynamic_operand = o;
  const bool keeps_positions = IsElementwise(inst.opcode) || inst.opcode == Opcode::kCopy;
  switch (inst.opcode) {
    case Opcode::kParameter:
      return inst.shape;
    case Opcode::kSetDimensionSize:
      for (int64_t d = 0; d < shape.rank(); ++d) shape.set_dynamic_dim(d, inst.operands[0]->shape.is_dynamic_dim(d));
      shape.set_dynamic_dim((*inst.dimensions)[0], true);
      return shape;
    case Opcode::kDynamicReshape:
      for (int64_t d = 0; d < shape.rank(); ++d) shape.set_dynamic_dim(d, inst.shape.is_dynamic_dim(d));
      return shape;
    case Opcode::kTranspose:
      for (int64_t d = 0; d < shape.rank(); ++d)
        shape.set_dynamic_dim(d, inst.operands[0]->shape.is_dynamic_dim((*inst.dimensions)[d]));
      return shape;
    case Opcode::kBroadcast:
      for (size_t k = 0; k < inst.dimensions->size(); ++k)
        if (inst.operands[0]->shape.is_dynamic_dim(static_cast<int64_t>(k))) shape.set_dynamic_dim((*inst.dimensions)[k], true);
      return shape;
    default:
      break;
  }
  if (!dynamic_operand || inst.opcode == Opcode::kGetDimensionSize) return shape;
  if (!keeps_positions || (inst.opcode == Opcode::kBitcastConvert &&
                           BitWidth(inst.shape.element_type()) != BitWidth(inst.operands[0]->shape.element_type())))
    return Unimplemented(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": operand " +
                         Quote(dynamic_operand->shape) + " has a dynamic dimension, which this op does not support yet");
  for (const Instruction* o : inst.operands)
    if (o->shape.rank() == shape.rank())
      for (int64_t d = 0; d < shape.rank(); ++d)
        if (o->shape.is_dynamic_dim(d)) shape.set_dynamic_dim(d, true);
  return shape;
}

bool ShapeFollowsFromOperands(Opcode op) {
  if (op == Opcode::kConvert || op == Opcode::kBitcastConvert) return false;
  if (IsElementwise(op)) return true;
  switch (op) {
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kConcatenate:
    case Opcode::kDot:
    case Opcode::kReduce:
    case Opcode::kMap:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
    case Opcode::kSort:
    case Opcode::kTranspose:
    case Opcode::kPad:
    case Opcode::kSlice:
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kGather:
    case Opcode::kScatter:
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter:
    case Opcode::kCopy:
    case Opcode::kReverse:
    case Opcode::kConvolution: return true;
    default: return false;
  }
}

}  // namespace vkxla
