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

namespace {

// Elements one counter block fills.
int64_t ElementsPerBlock(const RngBitsPlan& p) {
  if (p.algorithm == RngAlgorithm::kThreeFry) return p.wide ? 1 : 2;
  return p.wide ? 2 : 4;
}

// GLSL statements setting uvec4 `c` to the 128-bit counter (low, high as
// uvec2 words) plus `block`, through the carries.
std::string CounterPlus(const std::string& c, const std::string& carry, const std::string& low, const std::string& high,
                        const std::string& block) {
  return "    " + c + ".x = uaddCarry(" + low + ".x, " + block + ", " + carry + ");\n" +  //
         "    " + c + ".y = uaddCarry(" + low + ".y, " + carry + ", " + carry + ");\n" +   //
         "    " + c + ".z = uaddCarry(" + high + ".x, " + carry + ", " + carry + ");\n" +  //
         "    " + c + ".w = " + high + ".y + " + carry + ";\n";
}

}  // namespace

StatusOr<std::string> ElementEmitter::RngBits(const Instruction* n, const std::vector<std::string>& idx) {
  VKXLA_ASSIGN_OR_RETURN(RngBitsPlan p, PlanRngBits(*n));
  if (n->shape.element_count() >= (int64_t{1} << 32))
    return Unimplemented("rng-bit-generator " + n->Describe() + " producing " + n->shape.ToString() +
                         ": more than 2^32 elements is not supported on Vulkan yet");
  VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(p.type, target_, n->Describe()));
  VKXLA_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> hoisted, HoistedRngWords(n, idx));
  // Narrower types keep the low bits: the word decoded as an element in slot 0.
  if (hoisted) return Temp(g.compute, DecodeWords(p.type, *hoisted, "0u"));

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
  VKXLA_ASSIGN_OR_RETURN(RngState state, RngStateWords(n, p));
  const std::string c = Temp("uvec4", "uvec4(0u)");
  const std::string carry = Temp("uint", "0u");
  body_ += CounterPlus(c, carry, state.low, state.high, block);
  std::vector<std::string> words;
  if (p.algorithm == RngAlgorithm::kThreeFry) {
    const std::string r = Temp("uvec2", Helper("threefry2x32", kThreeFry) + "(" + c + ".xy, " + state.key + ")");
    if (p.wide) words = {r + ".x", r + ".y"};
    else words = {Temp("uint", r + "[" + word + "]")};
  } else {
    const std::string r = Temp("uvec4", Helper("philox4x32", kPhilox) + "(" + c + ", " + state.key + ")");
    if (p.wide) words = {Temp("uint", r + "[2u * " + word + "]"), Temp("uint", r + "[2u * " + word + " + 1u]")};
    else words = {Temp("uint", r + "[" + word + "]")};
  }
  return Temp(g.compute, DecodeWords(p.type, words, "0u"));
}

StatusOr<ElementEmitter::RngState> ElementEmitter::RngStateWords(const Instruction* n, const RngBitsPlan& p) {
  const Instruction* state = n->operands[0];
  RngState s;
  // A state in memory (u64[2] or u64[3], dense) is read as whole vectors:
  // one load for the key and the counter's low half. Word by word, each
  // load costs lavapipe a gather per lane: 32M u32 of Philox took 160 ms
  // that way against 113 ms (and 44 ms with the state a constant).
  const std::optional<Layout> layout = state == root_ ? std::nullopt : materialized_(state);
  auto b = program_.value_buffer.find(ValueRef::Of(state));
  if (layout && layout->IsDescending() && layout->element_size_in_bits == 0 && b != program_.value_buffer.end() &&
      !bound_.count(state)) {
    const std::string name = BindBuffer(b->second, Access::kRead, "in" + std::to_string(bindings_.size()));
    const std::string first = Temp("uvec4", ReadVector(name, "0u"));
    s.key = first + ".xy";
    s.low = first + ".zw";
    s.high = p.state_size == 3 ? Temp("uvec4", ReadVector(name, "1u")) + ".xy" : s.key;
    return s;
  }
  auto word_pair = [&](int64_t i) -> StatusOr<std::string> {
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(state, {U(i)}));
    return Temp("uvec2", "unpackUint2x32(" + v + ")");
  };
  VKXLA_ASSIGN_OR_RETURN(s.key, word_pair(0));
  VKXLA_ASSIGN_OR_RETURN(s.low, word_pair(1));
  s.high = s.key;  // a u64[2] Philox state: the key is the counter's high word
  if (p.state_size == 3) {
    VKXLA_ASSIGN_OR_RETURN(s.high, word_pair(2));
  }
  return s;
}

StatusOr<std::optional<std::vector<std::string>>> ElementEmitter::HoistedRngWords(const Instruction* n,
                                                                                 const std::vector<std::string>& idx) {
  using Words = std::optional<std::vector<std::string>>;
  VKXLA_ASSIGN_OR_RETURN(RngBitsPlan p, PlanRngBits(*n));
  // Read at the invocation's own elements, which are row-major positions
  // vector * per + e: those are whole blocks, per / epb of them.
  const VectorContext* v = vector_context_ ? &*vector_context_ : nullptr;
  if (!v || v->per_vector == 0 || idx != v->index || p.dims != v->shape.dims() || !v->layout.IsDescending() ||
      p.dims.empty())
    return Words();
  // ThreeFry's halves are row-major pairs only when the split dim is the
  // innermost and even (or the only one).
  if (p.algorithm == RngAlgorithm::kThreeFry && !p.wide && p.dims.size() > 1 &&
      (p.split_dim != static_cast<int64_t>(p.dims.size()) - 1 || p.dims.back() % 2 != 0))
    return Words();
  const int64_t epb = ElementsPerBlock(p), per = v->per_vector;
  if (per % epb != 0) return Words();
  const int64_t blocks = per / epb;
  const bool threefry = p.algorithm == RngAlgorithm::kThreeFry;
  auto it = rng_blocks_.find({n, v->vector});
  if (it == rng_blocks_.end()) {
    // Emitted before the element loop, with values of their own.
    const Memo saved = SaveMemo();
    ClearMemo();
    std::string loop_body = std::move(body_);
    body_.clear();
    StatusOr<RngState> state = RngStateWords(n, p);
    if (state.ok()) {
      const std::string name = "rng_blocks" + std::to_string(next_temp_++);
      const std::string vec = threefry ? "uvec2" : "uvec4";
      const std::string rounds = threefry ? Helper("threefry2x32", kThreeFry) : Helper("philox4x32", kPhilox);
      // One variable per block (at most 8), picked below by comparisons.
      const std::string c = name + "_counter", carry = name + "_carry";
      body_ += "    uvec4 " + c + ";\n    uint " + carry + ";\n";
      for (int64_t k = 0; k < blocks; ++k) {
        body_ += CounterPlus(c, carry, state->low, state->high, "(" + v->vector + ") * " + U(blocks) + " + " + U(k));
        body_ += "    " + vec + " " + name + "_" + std::to_string(k) + " = " + rounds + "(" + c + (threefry ? ".xy" : "") +
                 ", " + state->key + ");\n";
      }
      it = rng_blocks_.emplace(std::make_pair(n, v->vector), name).first;
    }
    invocation_prelude_ += body_;
    body_ = std::move(loop_body);
    RestoreMemo(saved);
    VKXLA_RETURN_IF_ERROR(state.status());
  }
  // The element's block and word.
  const std::string& e = v->element;
  auto pick = [&](const std::string& type, const std::string& at, const std::vector<std::string>& options) {
    std::string x = options.back();
    for (size_t i = options.size() - 1; i-- > 0;) x = "(" + at + " == " + U(static_cast<int64_t>(i)) + " ? " + options[i] + " : " + x + ")";
    return Temp(type, x);
  };
  std::vector<std::string> block_names;
  for (int64_t k = 0; k < blocks; ++k) block_names.push_back(it->second + "_" + std::to_string(k));
  const std::string block = pick(threefry ? "uvec2" : "uvec4", Temp("uint", e + " / " + U(epb)), block_names);
  if (p.wide && threefry) return Words(std::vector<std::string>{block + ".x", block + ".y"});
  const std::string w = Temp("uint", e + " % " + U(epb));
  if (p.wide) return Words(std::vector<std::string>{pick("uint", w, {block + ".x", block + ".z"}), pick("uint", w, {block + ".y", block + ".w"})});
  if (threefry) return Words(std::vector<std::string>{pick("uint", w, {block + ".x", block + ".y"})});
  return Words(std::vector<std::string>{pick("uint", w, {block + ".x", block + ".y", block + ".z", block + ".w"})});
}

}  // namespace vkxla
