#include "ops/rng_bit_generator.h"

#include <map>

#include "ops/attributes.h"

namespace vkxla {
namespace {

Status RngError(const Instruction& inst, const std::string& message) {
  return InvalidArgument("rng-bit-generator " + inst.Describe() + ": " + message);
}

uint32_t RotateLeft(uint32_t v, int distance) { return (v << distance) | (v >> (32 - distance)); }

// Row-major linear position of `index` in `dims`.
uint64_t Linear(const std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  uint64_t l = 0;
  for (size_t d = 0; d < dims.size(); ++d) l = l * static_cast<uint64_t>(dims[d]) + static_cast<uint64_t>(index[d]);
  return l;
}

}  // namespace

std::string_view RngAlgorithmName(RngAlgorithm a) {
  switch (a) {
    case RngAlgorithm::kDefault: return "rng_default";
    case RngAlgorithm::kThreeFry: return "rng_three_fry";
    case RngAlgorithm::kPhilox: return "rng_philox";
  }
  return "?";
}

void SetRngAlgorithm(Instruction& inst, RngAlgorithm a) { SetAttribute(inst, "algorithm", std::string(RngAlgorithmName(a))); }

int64_t HalvedDim(const std::vector<int64_t>& dims) {
  int64_t split = -1;
  for (size_t d = 0; d < dims.size() && split < 0; ++d)
    if (dims[d] % 2 == 0) split = static_cast<int64_t>(d);
  if (split < 0)
    for (size_t d = 0; d < dims.size(); ++d)
      if (split < 0 || dims[d] > dims[split]) split = static_cast<int64_t>(d);
  return split;
}

StatusOr<RngAlgorithm> ReadRngAlgorithm(const Instruction& inst) {
  const std::string* text = FindAttribute(inst, "algorithm");
  if (!text || *text == "rng_default") return RngAlgorithm::kDefault;
  if (*text == "rng_three_fry") return RngAlgorithm::kThreeFry;
  if (*text == "rng_philox") return RngAlgorithm::kPhilox;
  return BadAttribute(inst, "algorithm", *text, "rng_default, rng_three_fry or rng_philox");
}

std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> x, std::array<uint32_t, 2> key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  // Five groups of four rounds, the key injected after each.
  for (uint32_t group = 0; group < 5; ++group) {
    for (int r = 0; r < 4; ++r) {
      x[0] += x[1];
      x[1] = RotateLeft(x[1], kRotations[(group % 2) * 4 + r]);
      x[1] ^= x[0];
    }
    x[0] += ks[(group + 1) % 3];
    x[1] += ks[(group + 2) % 3] + group + 1;
  }
  return x;
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> x, std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(x[0]) * 0xD2511F53u;
    const uint64_t p1 = static_cast<uint64_t>(x[2]) * 0xCD9E8D57u;
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1], static_cast<uint32_t>(p0)};
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return x;
}

void RngBitsPlan::Locate(const std::vector<int64_t>& index, uint64_t& block, int& word) const {
  if (algorithm == RngAlgorithm::kThreeFry) {
    if (wide) {
      block = Linear(index, dims);
      word = 0;
      return;
    }
    if (split_dim < 0) {  // a scalar: word 0 of block 0
      block = 0;
      word = 0;
      return;
    }
    std::vector<int64_t> half = index;
    half[split_dim] = index[split_dim] / 2;
    block = Linear(half, block_dims);
    word = static_cast<int>(index[split_dim] % 2);
    return;
  }
  const uint64_t l = Linear(index, dims);
  const uint64_t per = wide ? 2 : 4;
  block = l / per;
  word = static_cast<int>(l % per);
}

StatusOr<RngBitsPlan> PlanRngBits(const Instruction& inst) {
  if (inst.operands.size() != 1) return RngError(inst, "takes one operand (the state), got " + std::to_string(inst.operands.size()));
  VKXLA_ASSIGN_OR_RETURN(RngAlgorithm algorithm, ReadRngAlgorithm(inst));
  const Shape& state = inst.operands[0]->shape;
  if (!state.IsArray() || state.element_type() != ElementType::kU64 || state.rank() != 1 || !state.is_static())
    return RngError(inst, "the state must be a static u64 vector, got " + state.ToString());
  RngBitsPlan p;
  p.algorithm = algorithm == RngAlgorithm::kDefault ? RngAlgorithm::kPhilox : algorithm;
  p.state_size = state.dim(0);
  if (p.algorithm == RngAlgorithm::kThreeFry && p.state_size != 2)
    return RngError(inst, "rng_three_fry takes a u64[2] state, got " + state.ToString());
  if (p.algorithm == RngAlgorithm::kPhilox && p.state_size != 2 && p.state_size != 3)
    return RngError(inst, std::string(RngAlgorithmName(algorithm)) + " takes a u64[2] or u64[3] state, got " +
                              state.ToString());
  // The bits: the array the result tuple holds besides the state (or the
  // result itself, once the planner has split the two).
  const Shape* bits = &inst.shape;
  if (inst.shape.IsTuple()) {
    if (inst.shape.tuple_shapes().size() != 2)
      return RngError(inst, "result must be (state, bits), got " + inst.shape.ToString());
    bits = &inst.shape.tuple_shapes()[1];
  }
  const ElementType t = bits->IsArray() ? bits->element_type() : ElementType::kInvalid;
  if (!bits->IsArray() || t == ElementType::kPred || IsComplex(t))
    return RngError(inst, "bits must be an integer or floating-point array, got " + bits->ToString());
  if (!bits->is_static()) return RngError(inst, "bits " + bits->ToString() + " must have static dims");
  p.type = t;
  p.wide = BitWidth(t) == 64;
  p.dims = bits->dims();
  const uint64_t n = static_cast<uint64_t>(bits->element_count());
  if (p.algorithm == RngAlgorithm::kPhilox) {
    p.blocks = p.wide ? (n + 1) / 2 : (n + 3) / 4;
    return p;
  }
  if (p.wide) {
    p.blocks = n;
    return p;
  }
  p.block_dims = p.dims;
  if (p.dims.empty()) {
    p.blocks = 1;
    return p;
  }
  p.split_dim = HalvedDim(p.dims);
  p.block_dims[p.split_dim] = (p.dims[p.split_dim] + 1) / 2;
  p.blocks = 1;
  for (int64_t d : p.block_dims) p.blocks *= static_cast<uint64_t>(d);
  return p;
}

StatusOr<Shape> InferRngBitGeneratorShape(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(RngBitsPlan p, PlanRngBits(inst));
  if (!inst.shape.IsTuple()) return RngError(inst, "result must be a (state, bits) tuple, got " + inst.shape.ToString());
  return Shape::Tuple({Shape(ElementType::kU64, {p.state_size}), Shape(p.type, p.dims)});
}

StatusOr<Literal> EvaluateRngBitGenerator(const Instruction& inst, const Literal& state) {
  VKXLA_ASSIGN_OR_RETURN(RngBitsPlan p, PlanRngBits(inst));
  std::vector<uint64_t> s;
  for (int64_t i = 0; i < state.element_count(); ++i) s.push_back(state.Get(i).Bits());
  const uint64_t key = s[0];
  const std::array<uint32_t, 2> key_words = {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
  // The 128-bit counter (ThreeFry uses its low 64 bits).
  uint64_t counter_low = s[1], counter_high = p.state_size == 3 ? s[2] : s[0];
  auto block_words = [&](uint64_t b) -> std::array<uint32_t, 4> {
    uint64_t low = counter_low + b;
    uint64_t high = counter_high + (low < counter_low ? 1 : 0);
    if (p.algorithm == RngAlgorithm::kThreeFry) {
      std::array<uint32_t, 2> w = ThreeFry2x32({static_cast<uint32_t>(low), static_cast<uint32_t>(low >> 32)}, key_words);
      return {w[0], w[1], 0, 0};
    }
    return Philox4x32({static_cast<uint32_t>(low), static_cast<uint32_t>(low >> 32), static_cast<uint32_t>(high),
                       static_cast<uint32_t>(high >> 32)},
                      key_words);
  };
  Literal bits(Shape(p.type, p.dims));
  std::map<uint64_t, std::array<uint32_t, 4>> cache;  // the blocks of the last few elements
  std::vector<int64_t> index(p.dims.size(), 0);
  const int width = BitWidth(p.type);
  for (int64_t i = 0; i < bits.element_count(); ++i) {
    uint64_t block = 0;
    int word = 0;
    p.Locate(index, block, word);
    auto it = cache.find(block);
    if (it == cache.end()) {
      if (cache.size() > 64) cache.clear();
      it = cache.emplace(block, block_words(block)).first;
    }
    const std::array<uint32_t, 4>& w = it->second;
    uint64_t v = 0;
    if (p.wide) v = p.algorithm == RngAlgorithm::kThreeFry ? (w[0] | static_cast<uint64_t>(w[1]) << 32)
                                                          : (w[2 * word] | static_cast<uint64_t>(w[2 * word + 1]) << 32);
    else v = w[word] & (width >= 32 ? 0xFFFFFFFFull : (1ull << width) - 1);
    bits.Set(i, Scalar::FromBits(p.type, v));
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < p.dims[d]) break;
      index[d] = 0;
    }
  }
  // The new state: the key, then the counter advanced by the blocks used
  // (a u64[2] Philox state keeps only the counter's low word).
  Literal next(state.shape());
  const uint64_t low = counter_low + p.blocks;
  next.Set(0, Scalar::UInt(ElementType::kU64, key));
  next.Set(1, Scalar::UInt(ElementType::kU64, low));
  if (p.state_size == 3) next.Set(2, Scalar::UInt(ElementType::kU64, counter_high + (low < counter_low ? 1 : 0)));
  std::vector<Literal> out;
  out.push_back(std::move(next));
  out.push_back(std::move(bits));
  return Literal::Tuple(std::move(out));
}

}  // namespace vkxla
