// The bits of an rng-bit-generator (ops/rng_bit_generator.h) at one
// index: the element finds its counter block and word, runs the block's
// rounds and keeps its word. Every element computes on its own, so the
// bits fuse into their readers like an iota (counter-based: no element
// waits on another).
#include "codegen/element_emitter.h"

#include "codegen/glsl_types.h"
#include "ops/rng_bit_generator.h"

namespace vkxla {
namespace {

constexpr const char* kThreeFry = R"(uvec2 threefry_rounds(uvec2 x, uint r0, uint r1, uint r2, uint r3) {
    x.x += x.y; x.y = ((x.y << r0) | (x.y >> (32u - r0))) ^ x.x;
    x.x += x.y; x.y = ((x.y << r1) | (x.y >> (32u - r1))) ^ x.x;
    x.x += x.y; x.y = ((x.y << r2) | (x.y >> (32u - r2))) ^ x.x;
    x.x += x.y; x.y = ((x.y << r3) | (x.y >> (32u - r3))) ^ x.x;
    return x;
}
// Threefry-2x32, 20 rounds (XLA's ThreeFry2x32).
uvec2 threefry2x32(uvec2 x, uvec2 key) {
    const uint k2 = 0x1BD11BDAu ^ key.x ^ key.y;
    x += key;
    x = threefry_rounds(x, 13u, 15u, 26u, 6u) + uvec2(key.y, k2 + 1u);
    x = threefry_rounds(x, 17u, 29u, 16u, 24u) + uvec2(k2, key.x + 2u);
    x = threefry_rounds(x, 13u, 15u, 26u, 6u) + uvec2(key.x, key.y + 3u);
    x = threefry_rounds(x, 17u, 29u, 16u, 24u) + uvec2(key.y, k2 + 4u);
    x = threefry_rounds(x, 13u, 15u, 26u, 6u) + uvec2(k2, key.x + 5u);
    return x;
}
)";

constexpr const char* kPhilox = R"(// Philox-4x32, 10 rounds (XLA's Philox4x32).
uvec4 philox4x32(uvec4 x, uvec2 key) {
    for (int r = 0; r < 10; ++r) {
        uint hi0, lo0, hi1, lo1;
        umulExtended(0xD2511F53u, x.x, hi0, lo0);
        umulExtended(0xCD9E8D57u, x.z, hi1, lo1);
        x = uvec4(hi1 ^ x.y ^ key.x, lo1, hi0 ^ x.w ^ key.y, lo0);
        key += uvec2(0x9E3779B9u, 0xBB67AE85u);
    }
    return x;
}
)";

}  // namespace

StatusOr<std::string> ElementEmitter::RngBits(const Instruction* n, const std::vector<std::string>& idx) {
  ASSIGN_OR_RETURN(RngBitsPlan p, PlanRngBits(*n));
  if (n->shape.element_count() >= (int64_t{1} << 32))
    return Unimplemented("rng-bit-generator " + n->Describe() + " producing " + n->shape.ToString() +
                         ": more than 2^32 elements is not supported on Vulkan yet");
  const Instruction* state = n->operands[0];
  auto word_pair = [&](int64_t i) -> StatusOr<std::string> {
    ASSIGN_OR_RETURN(std::string v, Value(state, {U(i)}));
    return Temp("uvec2", "unpackUint2x32(" + v + ")");
  };
  ASSIGN_OR_RETURN(std::string key, word_pair(0));
  ASSIGN_OR_RETURN(std::string low, word_pair(1));
  std::string high = key;
  if (p.state_size == 3) {
    ASSIGN_OR_RETURN(high, word_pair(2));
  }

  // The element's block (a uint: at most 2^32 elements) and word.
  auto row_major = [&](const std::vector<std::string>& at, const std::vector<int64_t>& dims) {
    std::string l = "0u";
    for (size_t d = 0; d < dims.size(); ++d) l = d == 0 ? at[d] : "(" + l + ") * " + U(dims[d]) + " + " + at[d];
    return Temp("uint", l);
  };
  std::string block = "0u", word = "0u";
  if (p.algorithm == RngAlgorithm::kThreeFry && !p.wide) {
    if (p.split_dim >= 0) {
      std::vector<std::string> half = idx;
      half[p.split_dim] = "(" + idx[p.split_dim] + " >> 1u)";
      block = row_major(half, p.block_dims);
      word = Temp("uint", idx[p.split_dim] + " & 1u");
    }
  } else if (p.algorithm == RngAlgorithm::kThreeFry) {
    block = row_major(idx, p.dims);
  } else {
    const std::string l = row_major(idx, p.dims);
    block = Temp("uint", l + (p.wide ? " >> 1u" : " >> 2u"));
    word = Temp("uint", l + (p.wide ? " & 1u" : " & 3u"));
  }
  // counter + block, carried through the four words of a 128-bit counter.
  const std::string c = Temp("uvec4", "uvec4(0u)");
  const std::string carry = Temp("uint", "0u");
  body_ += "    " + c + ".x = uaddCarry(" + low + ".x, " + block + ", " + carry + ");\n";
  body_ += "    " + c + ".y = uaddCarry(" + low + ".y, " + carry + ", " + carry + ");\n";
  body_ += "    " + c + ".z = uaddCarry(" + high + ".x, " + carry + ", " + carry + ");\n";
  body_ += "    " + c + ".w = " + high + ".y + " + carry + ";\n";

  std::vector<std::string> words;
  if (p.algorithm == RngAlgorithm::kThreeFry) {
    const std::string r = Temp("uvec2", Helper("threefry2x32", kThreeFry) + "(" + c + ".xy, " + key + ")");
    if (p.wide) words = {r + ".x", r + ".y"};
    else words = {Temp("uint", r + "[" + word + "]")};
  } else {
    const std::string r = Temp("uvec4", Helper("philox4x32", kPhilox) + "(" + c + ", " + key + ")");
    if (p.wide) words = {Temp("uint", r + "[2u * " + word + "]"), Temp("uint", r + "[2u * " + word + " + 1u]")};
    else words = {Temp("uint", r + "[" + word + "]")};
  }
  ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(p.type, target_, n->Describe()));
  // Narrower types keep the low bits: the word decoded as an element in slot 0.
  return Temp(g.compute, DecodeWords(p.type, words, "0u"));
}

}  // namespace vkxla
