// RngBitGenerator (operation_semantics: RngBitGenerator; stablehlo_spec.md:
// rng_bit_generator): `rng-bit-generator(state), algorithm=rng_default|
// rng_three_fry|rng_philox` returns (new state, random bits of the result
// shape). The bits are XLA's (its CPU and GPU backends expand the op with
// xla/hlo/builder/lib/prng.cc), so a program gives the same numbers here:
//  - The state is u64[n]; state[0] is the key. ThreeFry takes n = 2 and
//    counts from state[1]. Philox takes n = 3 (a 128-bit counter, low word
//    state[1]) or n = 2 (the counter is (low state[1], high state[0]), and
//    the new state keeps only its low word). rng_default is Philox, as on
//    XLA's CPU and GPU.
//  - ThreeFry-2x32 (20 rounds) makes 2 words per counter. 32-bit and
//    narrower results split one dim in halves (the first even dim, else the
//    largest): element 2j + w along it is word w of the block counted at j
//    in the halved shape. 64-bit results take one block per element (low
//    word first).
//  - Philox-4x32 (10 rounds) makes 4 words per counter: element i of a
//    32-bit result is word i % 4 of block i / 4 (row-major i); of a 64-bit
//    result, words 2w and 2w+1 of block i / 2, w = i % 2.
//  - Narrower types keep the low bits of a 32-bit result; floats and
//    signed types take the bits as they are. The counter advances by the
//    blocks used.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

enum class RngAlgorithm { kDefault, kThreeFry, kPhilox };
std::string_view RngAlgorithmName(RngAlgorithm a);  // "rng_three_fry"

// How the bits of one result fill its elements.
struct RngBitsPlan {
  RngAlgorithm algorithm = RngAlgorithm::kPhilox;  // never kDefault here
  ElementType type = ElementType::kU32;
  bool wide = false;                // 64-bit elements
  int64_t state_size = 2;           // 2 or 3
  int64_t split_dim = -1;           // ThreeFry, 32-bit and narrower: the halved dim (-1: a scalar)
  std::vector<int64_t> dims;        // the result's dims
  std::vector<int64_t> block_dims;  // ThreeFry: the dims blocks are counted over
  uint64_t blocks = 0;              // counters used (the state advances by this)

  // Block and word of the element at `index` (word: which 32-bit output
  // word, or for wide Philox which pair).
  void Locate(const std::vector<int64_t>& index, uint64_t& block, int& word) const;
};

// XLA's SplitShapeIntoHalves: the dim halved for pairs of outputs (the
// first even dim, else the first largest; -1 for a scalar).
int64_t HalvedDim(const std::vector<int64_t>& dims);

StatusOr<RngAlgorithm> ReadRngAlgorithm(const Instruction& inst);
StatusOr<RngBitsPlan> PlanRngBits(const Instruction& inst);
StatusOr<Shape> InferRngBitGeneratorShape(const Instruction& inst);
// The reference: the same counters and rounds on the host.
StatusOr<Literal> EvaluateRngBitGenerator(const Instruction& inst, const Literal& state);

void SetRngAlgorithm(Instruction& inst, RngAlgorithm a);

// The generators' rounds (Salmon et al., SC 2011), for the reference and
// the known-answer tests.
std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> counter, std::array<uint32_t, 2> key);
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

}  // namespace vkxla
