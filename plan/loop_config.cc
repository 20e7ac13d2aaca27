#include "plan/loop_config.h"

#include <functional>
#include <map>
#include <set>

#include "ir/layout_index.h"
#include "ir/tiled_index.h"
#include "ops/op_traits.h"
#include "plan/cost_model.h"
#include "plan/vector_source.h"

namespace vkxla {
namespace {

struct BlockSearch {
  const Instruction* root;
  const Shape& out;
  const MaterializedLayoutFn& materialized;
  bool operand_tiled = false;
  std::set<const Instruction*> seen;

  // The unit-stride dim b (as an output dim) of a buffer read at a
  // permutation of the root index whose unit-stride dim differs from a;
  // -1 if none. perm maps n's dims to output dims (transposes on the way
  // permute it). Iterative over the operands, so long chains cannot
  // exhaust the stack.
  int64_t Find(int64_t a) {
    std::vector<int64_t> identity(out.rank());
    for (int64_t d = 0; d < out.rank(); ++d) identity[d] = d;
    std::vector<std::pair<const Instruction*, std::vector<int64_t>>> stack = {{root, identity}};
    while (!stack.empty()) {
      auto [n, perm] = std::move(stack.back());
      stack.pop_back();
      if (!seen.insert(n).second || !n->shape.IsArray() || n->shape.rank() != out.rank()) continue;
      bool same = true;
      for (int64_t d = 0; d < n->shape.rank(); ++d) same = same && n->shape.dim(d) == out.dim(perm[d]);
      if (!same) continue;
      std::optional<Layout> buffer = n == root ? std::nullopt : materialized(n);
      if (buffer && n->shape.element_count() > 1) {
        Shape placed = n->shape;
        placed.set_layout(*buffer);
        auto map = TiledIndexMap::Create(placed);
        auto bits = ElementStorageBits(n->shape.element_type(), placed.layout_or_default());
        if (!map.ok() || !bits.ok() || *bits != 32 || map->has_padding()) continue;
        const int64_t unit = map->UnitStrideDimension(4);
        if (unit < 0 || perm[unit] == a) continue;
        operand_tiled = map->is_tiled();
        return perm[unit];
      }
      if (n->opcode == Opcode::kTranspose) {
        // Result dim i is operand dim dimensions[i].
        std::vector<int64_t> inner(perm.size());
        for (size_t i = 0; i < perm.size(); ++i) inner[(*n->dimensions)[i]] = perm[i];
        stack.emplace_back(n->operands[0], std::move(inner));
        continue;
      }
      // Only ops that read their operands at the same index pass the block on.
      if (!IsElementwise(n->opcode) && n->opcode != Opcode::kCopy) continue;
      if (n->opcode == Opcode::kBitcastConvert &&
          BitWidth(n->shape.element_type()) != BitWidth(n->operands[0]->shape.element_type()))
        continue;
      for (size_t k = n->operands.size(); k-- > 0;) stack.emplace_back(n->operands[k], perm);
    }
    return -1;
  }
};

// Whether the fused computation under `root` is a few cheap ops (moves,
// integer and sign ops, add/subtract/multiply, selects), so 8x8 blocks may
// repeat it for each of their 64 elements: 64 copies of a math-library
// chain (tanh, exp, atan2) take llvmpipe minutes to compile, and such
// kernels are bound by arithmetic, not memory.
bool CheapToRepeat(const Instruction* root, const MaterializedLayoutFn& materialized) {
  int budget = 16;
  std::vector<const Instruction*> stack = {root};
  while (!stack.empty()) {
    const Instruction* n = stack.back();
    stack.pop_back();
    if (n != root && materialized(n)) continue;  // read from its own buffer
    if (--budget < 0) return false;
    switch (n->opcode) {
      case Opcode::kParameter: case Opcode::kConstant: case Opcode::kIota: case Opcode::kBroadcast:
      case Opcode::kCopy: case Opcode::kTranspose: case Opcode::kReshape: case Opcode::kBitcast:
      case Opcode::kBitcastConvert: case Opcode::kConvert: case Opcode::kAdd: case Opcode::kSubtract:
      case Opcode::kMultiply: case Opcode::kNegate: case Opcode::kAbs: case Opcode::kMaximum: case Opcode::kMinimum:
      case Opcode::kSelect: case Opcode::kCompare: case Opcode::kClamp: case Opcode::kAnd: case Opcode::kOr:
      case Opcode::kXor: case Opcode::kNot: case Opcode::kShiftLeft: case Opcode::kShiftRightLogical:
      case Opcode::kShiftRightArithmetic:
        break;
      default:
        return false;
    }
    for (const Instruction* o : n->operands) stack.push_back(o);
  }
  return true;
}

// The digits that place blocks over the output (see LoopConfig).
std::vector<BlockDigit> BlockDigits(const Shape& out, const LoopConfig& c, const TiledIndexMap& out_map,
                                    const TargetFeatures& target) {
  const int64_t e = c.block, a_dim = c.block_a, b_dim = c.block_b;
  // a goes fastest (consecutive invocations store consecutive output
  // vectors), except on a CPU driver reading a tiled operand into an untiled
  // output: there b, the tiled array's unit-stride dim, so the loads step
  // through a tile in order (0.56 against 0.45 of the stream kernel with 4x4
  // blocks).
  const bool b_fastest = target.cpu && c.transposed_operand_tiled && !out_map.is_tiled();
  const int64_t fast = b_fastest ? b_dim : a_dim, slow = b_fastest ? a_dim : b_dim;
  std::vector<BlockDigit> digits;
  if (e == 8) {
    // 8 blocks of the fast dim (half a T(8,128) tile row), 8 of the slow
    // one (256 bytes of each untiled row), 4 more of the fast; the
    // workgroups then walk the slow dim. Best of about 20 orders tried.
    if (out.dim(fast) % (e * 32) == 0 && out.dim(slow) % (e * 8) == 0)
      digits = {{fast, 8, e}, {slow, 8, e}, {fast, 4, e * 8}, {slow, out.dim(slow) / (e * 8), e * 8},
                {fast, out.dim(fast) / (e * 32), e * 32}};
  } else {
    // A workgroup's 256 invocations cover ta x (256 / ta) blocks, so the
    // strided side reuses what it brings into cache: on a CPU driver ta = 4
    // (one 64-byte line of output per row; best of 2..256 on lavapipe, 0.97
    // of the stream kernel against 0.5 at 16), on a GPU 16 (256 contiguous
    // bytes per row for coalescing).
    const int64_t ta = target.cpu ? 4 : 16, tb = 256 / ta;
    if (out.dim(fast) % (e * ta) == 0 && out.dim(slow) % (e * tb) == 0)
      digits = {{fast, ta, e}, {slow, tb, e}, {fast, out.dim(fast) / (e * ta), e * ta},
                {slow, out.dim(slow) / (e * tb), e * tb}};
  }
  if (digits.empty()) digits = {{fast, out.dim(fast) / e, e}, {slow, out.dim(slow) / e, e}};
  for (int64_t d = out.rank() - 1; d >= 0; --d)
    if (d != a_dim && d != b_dim) digits.push_back({d, out.dim(d), 1});
  return digits;
}

// Whether computing `root` inline reads, computes or writes an array of
// an element type `of` picks (walks past 4096 nodes count as yes).
bool ComputesWith(const Instruction* root, const Shape& out, const MaterializedLayoutFn& materialized,
                  const std::function<bool(ElementType)>& of) {
  auto picked = [&](const Shape& s) { return s.IsArray() && of(s.element_type()); };
  if (picked(out)) return true;
  constexpr size_t kMaxWalk = 4096;
  std::set<const Instruction*> seen;
  std::vector<const Instruction*> stack = {root};
  while (!stack.empty()) {
    const Instruction* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (seen.size() > kMaxWalk) return true;
    if (picked(n->shape)) return true;
    if (n != root && materialized(n)) continue;
    for (const Instruction* o : n->operands) stack.push_back(o);
  }
  return false;
}

// Floats of 8 bits or fewer: their conversions are long functions, too
// long to copy per element (LoopConfig::written_out).
bool DecodesCostlyFloats(const Instruction* root, const Shape& out, const MaterializedLayoutFn& materialized) {
  return ComputesWith(root, out, materialized, [](ElementType t) { return IsFloat(t) && BitWidth(t) <= 8; });
}

// Whether vector-mode kernels store pairs of vectors on the target
// (LoopConfig::pair): CPU drivers, as u64vec4 words.
bool PairsStored(const TargetFeatures& target) { return target.cpu && target.int64; }

// Strips (LoopConfig::strip) on a CPU driver, for a stencil: where the
// output's elements are read through index maps from the output index
// (elementwise ops between) as shifted windows of one value, at least two
// of them apart along the dim after the unit-stride one, each invocation
// takes up to 16 vectors along it, which then share their windows' and
// weights' vector reads (llvmpipe, depthwise 3x3 over f32[1,112,112,32]:
// 15.3 ms with one vector per invocation, 6.6 with 4, 5.0 with 8, 4.3
// with 16, before 2-D strips). Not where random bits are fused: their
// blocks follow the invocation. `pairs`: whether the target stores pairs
// of vectors (ChoosePair), which count against the 16.
void ChooseStrip(const Instruction* root, const Shape& out, const MaterializedLayoutFn& materialized, bool pairs,
                 LoopConfig& c) {
  const Layout layout = out.layout_or_default();
  if (layout.minor_to_major.size() < 2) return;
  const int64_t unit = layout.minor_to_major[0], along = layout.minor_to_major[1];
  const int64_t row = layout.minor_to_major.size() > 2 ? layout.minor_to_major[2] : -1;
  if (out.dim(unit) % c.per_vector != 0 || BitWidth(out.element_type()) * c.per_vector != 128) return;
  // Windows read from the output index, and whether random bits are fused.
  constexpr size_t kMaxWalk = 4096;
  std::map<const Instruction*, std::set<int64_t>> shifts_along, shifts_down;  // value -> shifts along `along`, `row`
  std::set<const Instruction*> seen;
  std::vector<std::pair<const Instruction*, bool>> stack = {{root, true}};  // (node, read at the output index)
  while (!stack.empty()) {
    auto [n, at_output] = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (seen.size() > kMaxWalk || n->opcode == Opcode::kRngBitGenerator || n->opcode == Opcode::kRng) return;
    if (n != root && materialized(n)) continue;
    bool elementwise_here = at_output && IsElementwise(n->opcode) && n->shape.IsArray() && n->shape.dims() == out.dims();
    if (at_output && !elementwise_here && n->shape.IsArray() && n->shape.dims() == out.dims()) {
      const std::optional<VectorSource> source =
          FindVectorSource(n, unit, c.per_vector, [&](const Instruction* x) { return x == root ? std::nullopt : materialized(x); });
      if (source && !source->chain.empty())
        if (std::optional<std::vector<int64_t>> shift = ShiftOf(*source)) {
          shifts_along[source->value].insert((*shift)[along]);
          if (row >= 0) shifts_down[source->value].insert((*shift)[row]);
        }
    }
    for (const Instruction* o : n->operands) stack.push_back({o, elementwise_here && o->shape.IsArray() && o->shape.dims() == out.dims()});
  }
  bool windows = false, rows = false;
  for (const auto& [value, shifts] : shifts_along) windows = windows || shifts.size() >= 2;
  for (const auto& [value, shifts] : shifts_down) rows = rows || shifts.size() >= 2;
  if (!windows) return;
  const int64_t stride = out.dim(unit) / c.per_vector, row_stride = stride * out.dim(along);
  // A 2-D window: strips in rows share the rows of windows between them
  // too. At most 16 vectors an invocation, pairs (LoopConfig::pair)
  // counted, where llvmpipe's registers still hold the window (depthwise
  // 3x3 over f32[1,112,112,32]: 0.27 ms with 4x4 strips or 4x2 of pairs,
  // 0.31 with 8x4, 0.30 with 8x4 of pairs, 0.36 with 2x2; a third of the
  // compile time of 16x4).
  // Narrow elements' strips are written out (LoopConfig::written_out) and
  // take no pairs, which would double the copies (llvmpipe, depthwise 3x3
  // over 112x112x32 with bias and relu6: bf16 0.75 -> 0.38 ms with 4
  // vectors written out against 4x2 pairs in a loop, s8 0.58 -> 0.35 with
  // 2).
  const bool write_out = c.per_vector > 4 && !DecodesCostlyFloats(root, out, materialized);
  const int max_vectors = write_out ? static_cast<int>(kMaxWrittenOutStripElements / c.per_vector)
                          : pairs && stride % 2 == 0 ? 8 : 16;  // besides the pair
  int strip_rows = 1;
  if (rows)
    for (const int r : {4, 2})
      if (r <= max_vectors / 4 && out.dim(row) % r == 0 && c.vectors % static_cast<uint64_t>(row_stride * r) == 0) {
        strip_rows = r;
        break;
      }
  const int max_strip = max_vectors / strip_rows;
  for (const int strip : {16, 8, 4, 2})
    if (strip <= max_strip && out.dim(along) % strip == 0 && c.vectors % static_cast<uint64_t>(stride * strip) == 0) {
      c.strip = strip;
      c.strip_stride = stride;
      c.strip_dim = along;
      break;
    }
  c.written_out = write_out && c.strip > 1;
  if (c.strip == 1 || strip_rows == 1) return;
  c.strip_rows = strip_rows;
  c.strip_row_stride = row_stride;
  c.strip_row_dim = row;
  c.local_size = 64;
}

// Pairs of vectors (LoopConfig::pair) where both are whole and every
// invocation's strip holds whole pairs: the unit-stride dim's vectors an
// even count when strips step over it, the output's physical elements a
// multiple of two vectors (no u64vec4 word reaches past its end).
void ChoosePair(int64_t physical, const TargetFeatures& target, LoopConfig& c) {
  if (!PairsStored(target) || c.block || c.in_place_update || c.written_out) return;
  const uint64_t strips = static_cast<uint64_t>(c.strip * c.strip_rows);
  if (physical % (2 * c.per_vector) != 0 || c.vectors % (2 * strips) != 0) return;
  if (c.strip > 1 && c.strip_stride % 2 != 0) return;
  c.pair = 2;
}

StatusOr<LoopConfig> ChooseLoopShape(const Instruction* root, const Shape& out, const MaterializedLayoutFn& materialized,
                                     const TargetFeatures& target) {
  LoopConfig c;
  const ElementType t = out.element_type();
  const Layout layout = out.layout_or_default();
  VKXLA_ASSIGN_OR_RETURN(const int bits, ElementStorageBits(t, layout));
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out));
  const int64_t physical = out_map.physical_element_count();
  if (physical >= (int64_t{1} << 32))
    return Unimplemented("arrays of 2^32 elements or more are not supported (" + out.ToString() + ")");
  const int per_word = bits >= 32 ? 1 : 32 / bits;
  const int words_per_element = std::max(1, BitWidth(t) / 32);
  c.per_vector = per_word * 4 / words_per_element;
  c.vectors = static_cast<uint64_t>((physical + c.per_vector - 1) / c.per_vector);
  if (target.cpu && root && !out_map.is_tiled() && out.is_static()) ChooseStrip(root, out, materialized, PairsStored(target), c);
  if (!root || per_word != 1 || words_per_element != 1 || out_map.has_padding() || !out.is_static()) return c;
  const int64_t a = out_map.UnitStrideDimension(4);
  if (a < 0) return c;
  BlockSearch search{root, out, materialized};
  const int64_t b = search.Find(a);
  if (b < 0 || out.dim(a) % 4 != 0 || out.dim(b) % 4 != 0) return c;
  c.block = 4;
  c.block_a = a;
  c.block_b = b;
  c.transposed_operand_tiled = search.operand_tiled;
  // On a CPU driver, a transpose into or out of a tiled layout moves 8x8
  // blocks as 32-byte u64vec4 words, both sides in runs of 256 bytes
  // (llvmpipe: 0.89-0.92 of the stream kernel for f32[4096,4096] {1,0} <->
  // {0,1:T(8,128)}, against 0.67-0.70 with 4x4 blocks, whose 16-byte pieces
  // of many tile rows defeat the CPU's prefetch). Plain transposes keep 4x4
  // blocks (1.1-1.2 there, 0.73 with 8x8).
  const bool tiled = c.transposed_operand_tiled || out_map.is_tiled();
  if (target.cpu && target.int64 && tiled && out_map.UnitStrideDimension(8) == a && out.dim(a) % 8 == 0 &&
      out.dim(b) % 8 == 0 && CheapToRepeat(root, materialized))
    c.block = 8;
  c.digits = BlockDigits(out, c, out_map, target);
  c.blocks = 1;
  for (const BlockDigit& d : c.digits) c.blocks *= static_cast<uint64_t>(d.extent);
  return c;
}

}  // namespace

StatusOr<LoopConfig> ChooseLoopConfig(const Instruction* root, const Shape& out, const MaterializedLayoutFn& materialized,
                                      const TargetFeatures& target) {
  VKXLA_ASSIGN_OR_RETURN(LoopConfig c, ChooseLoopShape(root, out, materialized, target));
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out));
  ChoosePair(out_map.physical_element_count(), target, c);
  // Without a strip, f16 elements of cheap code are written out too
  // (llvmpipe, f16 add over 16M: 22 -> 13 ms; bf16 and small integers run
  // the same either way, and compile for longer written out).
  if (target.cpu && root && c.strip == 1 && !c.block && !c.in_place_update && c.per_vector > 4 &&
      c.pair * c.per_vector <= kMaxWrittenOutStripElements && InlineElementCost(root, materialized) < kMaxWrittenOutElementCost &&
      ComputesWith(root, out, materialized, [](ElementType t) { return t == ElementType::kF16; }) &&
      !DecodesCostlyFloats(root, out, materialized))
    c.written_out = true;
  return c;
}

}  // namespace vkxla
