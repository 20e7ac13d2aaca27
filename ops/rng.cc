#include "ops/rng.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "ops/attributes.h"
#include "ops/rng_bit_generator.h"

namespace vkxla {
namespace {

Status RngOpError(const Instruction& inst, const std::string& message) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": " + message);
}

bool UniformType(ElementType t) {
  switch (t) {
    case ElementType::kF16: case ElementType::kBF16: case ElementType::kF32: case ElementType::kF64:
    case ElementType::kS32: case ElementType::kU32: case ElementType::kS64: case ElementType::kU64:
      return true;
    default:
      return false;
  }
}

// Normal's uniforms: the result's dims with the split dim rounded up to
// even (its pairs 2j, 2j + 1), or [2] for a scalar.
std::vector<int64_t> PairedDims(const std::vector<int64_t>& dims, int64_t& split) {
  if (dims.empty()) {
    split = 0;
    return {2};
  }
  split = HalvedDim(dims);
  std::vector<int64_t> paired = dims;
  paired[split] = (dims[split] + 1) / 2 * 2;
  return paired;
}

// Uniform [0, 1) from bits as XLA forms it, in T.
template <typename T>
T UnitInterval(uint64_t bits) {
  constexpr int width = sizeof(T) * 8, mantissa = std::numeric_limits<T>::digits - 1;
  return static_cast<T>(bits >> (width - mantissa)) * static_cast<T>(std::ldexp(1.0, -mantissa));
}

template <typename T>
void ConvertFloats(const Literal& bits, RngDistribution dist, T a, T b, const std::vector<int64_t>& dims, int64_t split,
                   ElementType out_type, Literal& out) {
  if (dist == RngDistribution::kUniform) {
    for (int64_t i = 0; i < out.element_count(); ++i)
      out.Set(i, Scalar::Float(out_type, UnitInterval<T>(bits.Get(i).Bits()) * (b - a) + a));
    return;
  }
  // Pairs along the split dim: element k of it reads uniforms 2(k/2) and 2(k/2) + 1.
  const std::vector<int64_t> paired = dims.empty() ? std::vector<int64_t>{2} : [&] {
    std::vector<int64_t> p = dims;
    p[split] = (dims[split] + 1) / 2 * 2;
    return p;
  }();
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(split) + 1; d < paired.size(); ++d) inner *= paired[d];
  const int64_t outer_dim = dims.empty() ? 1 : dims[split];
  for (int64_t i = 0; i < out.element_count(); ++i) {
    // i's place: outer block, position k along the split dim, inner offset.
    const int64_t rest = i % inner, k = (i / inner) % outer_dim, outer = i / inner / outer_dim;
    auto u = [&](int64_t at) { return UnitInterval<T>(bits.Get((outer * paired[split] + at) * inner + rest).Bits()); };
    const int64_t j = k / 2 * 2;
    const T r = std::sqrt(static_cast<T>(-2) * std::log(std::max(u(j), static_cast<T>(1.0e-7f))));
    const T angle = static_cast<T>(2.0f * std::numbers::pi) * u(j + 1);
    const T x = (k % 2 == 0 ? std::sin(angle) : std::cos(angle)) * r;
    out.Set(i, Scalar::Float(out_type, a + b * x));
  }
}

}  // namespace

StatusOr<RngDistribution> ReadRngDistribution(const Instruction& inst) {
  const std::string* d = FindAttribute(inst, "distribution");
  if (!d) return RngOpError(inst, "needs distribution=rng_uniform or rng_normal");
  if (*d == "rng_uniform") return RngDistribution::kUniform;
  if (*d == "rng_normal") return RngDistribution::kNormal;
  return BadAttribute(inst, "distribution", *d, "rng_uniform or rng_normal");
}

void SetRngDistribution(Instruction& inst, RngDistribution d) {
  SetAttribute(inst, "distribution", d == RngDistribution::kUniform ? "rng_uniform" : "rng_normal");
}

ElementType RngComputeType(ElementType result) { return BitWidth(result) < 32 ? ElementType::kF32 : result; }

int64_t RngCounterDelta(const Shape& result) {
  return result.element_count() * (BitWidth(RngComputeType(result.element_type())) / 32);
}

StatusOr<Shape> InferRngShape(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(RngDistribution dist, ReadRngDistribution(inst));
  if (inst.operands.size() != 2) return RngOpError(inst, "takes two scalars (a, b), got " + std::to_string(inst.operands.size()) + " operands");
  const Shape& s = inst.shape;
  if (!s.IsArray() || !s.is_static()) return RngOpError(inst, "result must be a static array, got " + s.ToString());
  const ElementType t = s.element_type();
  for (const Instruction* o : inst.operands)
    if (!o->shape.IsArray() || o->shape.rank() != 0 || o->shape.element_type() != t)
      return RngOpError(inst, "a and b must be " + std::string(ElementTypeName(t)) + " scalars, got " + o->shape.ToString());
  if (dist == RngDistribution::kNormal && !(IsFloat(t) && UniformType(t)))
    return RngOpError(inst, "rng_normal makes f16, bf16, f32 or f64, not " + s.ToString());
  if (!UniformType(t)) return RngOpError(inst, "rng_uniform makes f16, bf16, f32, f64, s32, u32, s64 or u64, not " + s.ToString());
  return Shape(t, s.dims());
}

StatusOr<int64_t> ReadRngDelta(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(int64_t delta, IntAttribute(inst, "delta"));
  if (delta < 0) return RngOpError(inst, "delta must not be negative, got " + std::to_string(delta));
  return delta;
}

StatusOr<Shape> InferRngGetAndUpdateStateShape(const Instruction& inst) {
  if (!inst.operands.empty()) return RngOpError(inst, "takes no operands");
  VKXLA_RETURN_IF_ERROR(ReadRngDelta(inst).status());
  return Shape(ElementType::kU64, {2});
}

Literal TakeRngCounter(RngCounter& counter, uint64_t delta) {
  Literal now(Shape(ElementType::kU64, {2}));
  now.Set(0, Scalar::UInt(ElementType::kU64, counter[0]));
  now.Set(1, Scalar::UInt(ElementType::kU64, counter[1]));
  const uint64_t low = counter[0] + delta;
  counter[1] += low < counter[0] ? 1 : 0;
  counter[0] = low;
  return now;
}

StatusOr<Literal> EvaluateRng(const Instruction& inst, const Literal& a, const Literal& b, const Literal& counter) {
  VKXLA_ASSIGN_OR_RETURN(Shape shape, InferRngShape(inst));
  VKXLA_ASSIGN_OR_RETURN(RngDistribution dist, ReadRngDistribution(inst));
  const ElementType t = shape.element_type(), ct = RngComputeType(t);
  int64_t split = -1;
  const std::vector<int64_t> dims =
      dist == RngDistribution::kNormal ? PairedDims(shape.dims(), split) : std::vector<int64_t>(shape.dims());
  // Philox bits from the state [key, counter low, counter high].
  Instruction state;
  state.shape = Shape(ElementType::kU64, {3});
  Instruction generator;
  generator.opcode = Opcode::kRngBitGenerator;
  generator.operands = {&state};
  const ElementType bit_type = BitWidth(ct) == 64 ? ElementType::kU64 : ElementType::kU32;
  generator.shape = Shape::Tuple({state.shape, Shape(bit_type, dims)});
  SetRngAlgorithm(generator, RngAlgorithm::kPhilox);
  Literal s(state.shape);
  s.Set(0, Scalar::UInt(ElementType::kU64, kRngKey));
  s.Set(1, counter.Get(0));
  s.Set(2, counter.Get(1));
  VKXLA_ASSIGN_OR_RETURN(Literal generated, EvaluateRngBitGenerator(generator, s));
  const Literal& bits = generated.tuple_elements()[1];
  Literal out(shape);
  if (ct == ElementType::kF32) {
    ConvertFloats<float>(bits, dist, static_cast<float>(a.Get(0).re), static_cast<float>(b.Get(0).re), shape.dims(), split, t, out);
  } else if (ct == ElementType::kF64) {
    ConvertFloats<double>(bits, dist, a.Get(0).re, b.Get(0).re, shape.dims(), split, t, out);
  } else {
    // Integers, wrapping at the type's width.
    const int width = BitWidth(t);
    const uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
    const uint64_t lo = a.Get(0).Bits() & mask, range = (b.Get(0).Bits() - lo) & mask;
    for (int64_t i = 0; i < out.element_count(); ++i) {
      const uint64_t bit = bits.Get(i).Bits();
      const uint64_t d = range == 0 ? bit : bit % range;
      out.Set(i, Scalar::FromBits(t, (lo + d / 2 + (d - d / 2)) & mask));
    }
  }
  return out;
}

}  // namespace vkxla
