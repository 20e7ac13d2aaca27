// Loop kernels: elementwise fusions, data movement, gathers, a sort's
// results. Each invocation owns one uvec4 of the output (so sub-word types
// never race), or a strip of them (LoopConfig::strip, in rows:
// strip_rows), each maybe with its neighbour stored with it as one
// u64vec4 word (LoopConfig::pair), and computes its
// elements; operands placed like the output load as one vector, and so do
// values read through index maps whose vectors lie whole in a buffer
// (shifted, padded windows; broadcast weights), once per invocation, shared
// by the vectors of a strip that read the same one. In block mode (LoopConfig::block) each invocation
// owns a square block of two dims, loads it as rows along the operand's
// unit-stride dim, transposes in registers and stores rows along the
// output's, so every access stays a whole vector.
#include "codegen/element_emitter.h"
#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "codegen/kernel_builder.h"
#include "ir/layout_index.h"

namespace vkxla {
namespace {

class LoopKernelBuilder : public ElementEmitter {
 public:
  LoopKernelBuilder(const Program& program, const FusionGroup& group)
      : ElementEmitter(program, group), config_(std::get<LoopConfig>(group.config)) {}

  StatusOr<KernelSource> Build() {
    if (group_.outputs.size() != 1) return Internal("a loop kernel writes one output");
    const GroupOutput& output = group_.outputs[0];
    out_ = program_.buffers[output.buffer].shape;
    out_layout_ = out_.layout_or_default();
    const ElementType t = out_.element_type();
    VKXLA_RETURN_IF_ERROR(UseType(t, output.value.ToString() + " " + out_.ToString()));
    VKXLA_ASSIGN_OR_RETURN(out_bits_, ElementStorageBits(t, out_layout_));
    if (output.value.index < 0 && !group_.relayout) root_ = output.value.inst;
    if (config_.in_place_update) return BuildInPlaceUpdate();
    VKXLA_ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out_));
    if (config_.block) return BuildBlocked(out_map);
    return BuildVectors(out_map);
  }

 private:
  // The output's value at idx: computed, or for a relayout read from the
  // buffer that holds it.
  StatusOr<std::string> RootValue(const std::vector<std::string>& idx) {
    const ValueRef& v = group_.outputs[0].value;
    if (!group_.relayout) return ValueOf(v, idx);
    const int b = program_.value_buffer.at(v);
    return LoadBuffer(b, v.shape(), program_.buffers[b].shape.layout_or_default(), idx);
  }

  // One invocation per update element (row-major), written at the clamped
  // start plus its index; the rest of the buffer is left as it is. The
  // planner uses this for 32- and 64-bit elements only, which never share
  // a word.
  StatusOr<KernelSource> BuildInPlaceUpdate() {
    const Instruction* dus = group_.outputs[0].value.inst;
    const Instruction* update = dus->operands[1];
    const Shape& us = update->shape;
    std::string main = "  if (inv >= " + U(us.element_count()) + ") return;\n";
    GlslIndexArithmetic a;
    std::vector<std::string> j(us.rank()), at(us.rank());
    int64_t stride = 1;
    for (int64_t d = us.rank(); d-- > 0;) {
      std::string c = a.DivConstant("inv", stride);
      if (d > 0) c = a.ModConstant(c, us.dim(d));
      main += "  uint j" + std::to_string(d) + " = " + c + ";\n";
      j[d] = "j" + std::to_string(d);
      stride *= us.dim(d);
    }
    for (int64_t d = 0; d < us.rank(); ++d) {
      VKXLA_ASSIGN_OR_RETURN(std::string start, ClampedIndex(dus->operands[2 + d], {}, out_.dim(d) - us.dim(d)));
      at[d] = Temp("uint", start + " + " + j[d]);
    }
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(update, j));
    VKXLA_ASSIGN_OR_RETURN(std::string store, StoreOutputElement(0, at, v));
    return Finish(group_.kernels[0].name, 256, main + body_ + store + "}\n");
  }

  StatusOr<KernelSource> BuildVectors(const TiledIndexMap& out_map) {
    const ElementType t = out_.element_type();
    const int64_t physical = out_map.physical_element_count();
    const int per_vector = config_.per_vector;
    const std::string out = BindOutput(0);
    // A result with dynamic dims also reports their sizes (invocation 0
    // writes them); computed before the element loop so they are in scope
    // after it.
    std::string write_sizes;
    for (int64_t d = 0; d < out_.rank(); ++d) {
      if (!out_.is_dynamic_dim(d)) continue;
      VKXLA_ASSIGN_OR_RETURN(std::string size, root_ ? DynamicSize(root_, d) : DynamicSize(group_.outputs[0].value, d));
      if (group_.outputs[0].sizes_buffer < 0) return Internal("no sizes buffer for a dynamic result");
      const std::string dims = BindBuffer(group_.outputs[0].sizes_buffer, Access::kWrite, "dims_out");
      write_sizes += "    W(" + dims + ", " + U(d) + ") = " + size + ";\n";
    }
    const std::string prelude = body_;
    body_.clear();
    // The logical index of physical element p; padding elements have none.
    GlslIndexArithmetic a;
    std::string valid;
    std::vector<std::string> index = out_map.FromPhysical<GlslIndexArithmetic>("p", a, valid);
    std::string decompose;
    for (int64_t d = 0; d < out_.rank(); ++d) {
      if (index[d].find_first_not_of("0123456789u") == std::string::npos) continue;  // a constant
      decompose += "      uint i" + std::to_string(d) + " = " + index[d] + ";\n";
      index[d] = "i" + std::to_string(d);
    }
    std::string guard = physical % per_vector == 0 ? "" : "p < " + U(physical);
    if (valid != "true") guard += (guard.empty() ? "" : " && ") + valid;
    // The invocation's elements run along the output's unit-stride dim:
    // index maps may be read as whole vectors (LoadThroughIndexMaps).
    const bool along_unit = out_layout_.tiles.empty() && !out_layout_.minor_to_major.empty() && out_.is_static() &&
                            !group_.relayout && out_.dim(out_layout_.minor_to_major[0]) % per_vector == 0 &&
                            out_bits_ * per_vector == 128;
    // Each of the invocation's vectors (a strip of them, LoopConfig::strip)
    // in a block of its own; their index-map reads all come first, so the
    // driver's compiler can merge the ones they share.
    std::string blocks;
    // A strip's vectors step along strip_dim (and strip_row_dim) without
    // wrapping (plan/loop_config.cc), so each one's first index is the
    // strip's, declared once, plus constants: not the divisions of its own
    // linear index again for every read (llvmpipe's 8 lanes divide by
    // multiplying, some ten instructions a digit).
    std::vector<std::string> strip_first;
    const int64_t unit = out_layout_.minor_to_major.empty() ? -1 : out_layout_.minor_to_major[0];
    if (along_unit && config_.strip > 1) {
      std::string first_valid;
      strip_first = out_map.FromPhysical<GlslIndexArithmetic>("(" + StripVector(0, 0, 0) + " * " + U(per_vector) + ")", a, first_valid);
      for (size_t d = 0; d < strip_first.size(); ++d) {
        if (strip_first[d].find_first_not_of("0123456789u") == std::string::npos) continue;  // a constant
        invocation_prelude_ += "  uint strip_i" + std::to_string(d) + " = " + strip_first[d] + ";\n";
        strip_first[d] = "strip_i" + std::to_string(d);
      }
    }
    // With pairs (LoopConfig::pair) the first of two holds its vector
    // until the second stores both.
    if (config_.pair > 1) blocks += "  uvec4 outv_first;\n";
    const int pair = config_.pair;
    for (int j = 0; j < config_.strip * config_.strip_rows * pair; ++j) {
      pair_index_ = j % pair;
      strip_index_ = (j / pair) % config_.strip;
      strip_row_index_ = j / (pair * config_.strip);
      const std::string vector = StripVector(strip_index_, strip_row_index_, pair_index_);
      ClearMemo();
      vector_loads_.clear();
      vector_context_ = VectorContext{out_, out_layout_, out_bits_, index, per_vector, "e", vector};
      if (!strip_first.empty()) {
        first_index_ = strip_first;
        auto step = [&](int64_t dim, int64_t by) {
          if (by != 0) first_index_[static_cast<size_t>(dim)] = "(" + first_index_[static_cast<size_t>(dim)] + " + " + U(by) + ")";
        };
        step(config_.strip_dim, strip_index_);
        if (config_.strip_rows > 1) step(config_.strip_row_dim, strip_row_index_);
        step(unit, int64_t{pair_index_} * per_vector);
      } else if (along_unit) {
        std::string first_valid;
        first_index_ = out_map.FromPhysical<GlslIndexArithmetic>("(" + vector + " * " + U(per_vector) + ")", a, first_valid);
      }
      VKXLA_ASSIGN_OR_RETURN(std::string v, RootValue(index));
      std::string block = "  {\n  uint vector = " + vector + ";\n";
      for (const std::string& b : vector_loads_) block += "  uvec4 " + b + "_v = " + ReadVector(b, "vector") + ";\n";
      std::string element = "    uint p = vector * " + U(per_vector) + " + e;\n" + VectorSlot();
      if (!guard.empty()) element += "    if (" + guard + ") {\n";
      element += decompose + body_;
      element += StoreElement(t, v);
      if (!guard.empty()) element += "    }\n";
      block += "  uvec4 outv = uvec4(0u);\n";
      if (config_.written_out) {
        // A strip's narrow elements written out one by one (e a constant,
        // LoopConfig::written_out): their lanes of the shared vectors and
        // their bit offsets become constants, where llvmpipe kept an 8-trip
        // loop selecting lanes with blends and variable shifts (a bf16
        // depthwise 3x3 over 150x150x32 with bias and relu6: 3.4 -> 1.3 ms;
        // f32's 4-trip loop gains nothing; f16's decoding functions, 9 s to
        // compile for one such strip, keep the loop).
        for (int64_t e = 0; e < per_vector; ++e) block += "  {\n    const uint e = " + U(e) + ";\n" + element + "  }\n";
      } else {
        block += "  for (uint e = 0u; e < " + U(per_vector) + "; ++e) {\n" + element + "  }\n";
      }
      if (pair == 1) {
        block += "  " + WriteVector(out, "vector", "outv") + "\n";
      } else if (pair_index_ == 0) {
        block += "  outv_first = outv;\n";
      } else {
        UseQuadWords(out);
        block += "  " + out + "q.v[vector >> 1u] = u64vec4(narrow(outv_first), narrow(outv));\n";
      }
      block += "  }\n";
      body_.clear();
      blocks += block;
    }

    std::string src = "  if (inv >= " + U(config_.invocations()) + ") return;\n";
    src += prelude + invocation_prelude_;
    if (!write_sizes.empty()) src += "  if (inv == 0u) {\n" + write_sizes + "  }\n";
    return Finish(group_.kernels[0].name, config_.local_size, src + blocks + "}\n");
  }

  // The output vector an invocation holds at (column, row) of its strip,
  // the first or second of a pair: its id's digits are the pair along the
  // unit-stride dim, the strip along strip_dim, the rows' block along
  // strip_row_dim, and the dims outside.
  std::string StripVector(int column, int row, int half) const {
    const uint64_t pair = static_cast<uint64_t>(config_.pair);
    const std::string second = half ? " + " + U(half) : "";
    if (config_.strip == 1) return pair == 1 ? "inv" : "(inv * " + U(pair) + second + ")";
    const uint64_t st = static_cast<uint64_t>(config_.strip_stride), s = static_cast<uint64_t>(config_.strip);
    const uint64_t q = st / pair;  // pairs along the unit-stride dim
    const std::string own = pair == 1 ? "inv % " + U(q) : "(inv % " + U(q) + ") * " + U(pair) + second;
    if (config_.strip_rows == 1)
      return "((inv / " + U(q) + ") * " + U(st * s) + " + " + U(column * st) + " + " + own + ")";
    const uint64_t rs = static_cast<uint64_t>(config_.strip_row_stride), r = static_cast<uint64_t>(config_.strip_rows);
    const uint64_t across = rs / (st * s);                                                  // strips per row
    const uint64_t down = static_cast<uint64_t>(out_.dim(config_.strip_row_dim)) / r;      // row blocks
    return "(" + own + " + ((inv / " + U(q) + ") % " + U(across) + ") * " + U(st * s) + " + ((inv / " + U(q * across) +
           ") % " + U(down) + ") * " + U(rs * r) + " + (inv / " + U(q * across * down) + ") * " + U(rs * r * down) + " + " +
           U(column * st + row * rs) + ")";
  }

  // `n` at the invocation's own index, where its vectors along the
  // output's unit-stride dim lie whole in a buffer behind index maps
  // (plan/vector_source.h: a window position's shifted, padded input in a
  // depthwise convolution, a bias broadcast along the features): one
  // address and one vector read per invocation, before the element loop,
  // instead of an address and a load per element.
  StatusOr<std::optional<std::string>> LoadThroughIndexMaps(const Instruction* n) override {
    if (first_index_.empty() || group_.relayout) return std::optional<std::string>();
    const ElementType t = n->shape.element_type();
    if (BitWidth(t) != out_bits_) return std::optional<std::string>();
    const int64_t unit = out_layout_.minor_to_major[0];
    if (n->opcode == Opcode::kConcatenate) return LoadConcatenate(n, unit);
    const std::optional<VectorSource> source = FindVectorSource(
        n, unit, config_.per_vector, [&](const Instruction* x) { return x == root_ ? std::nullopt : Materialized(x); });
    if (!source || source->chain.empty()) return std::optional<std::string>();
    // Vectors of a strip that read the same one share it: a read that
    // ignores the strip's dim (a weight broadcast over the positions), or
    // a shifted read of the same value at the same shifted index (the
    // overlapping windows of neighbouring positions).
    std::string key = "own:" + std::to_string(hoisted_);
    if (config_.strip > 1) {
      const MaterializedLayoutFn materialized = [&](const Instruction* x) { return Materialized(x); };
      const bool same_column = ReadIgnoresDim(n, config_.strip_dim, materialized);
      const bool same_row = config_.strip_rows == 1 || ReadIgnoresDim(n, config_.strip_row_dim, materialized);
      std::optional<std::vector<int64_t>> shift;
      if (same_column && same_row) {
        key = "same:" + std::to_string(reinterpret_cast<uintptr_t>(n));
      } else if ((shift = ShiftOf(*source))) {
        (*shift)[config_.strip_dim] += strip_index_;
        if (config_.strip_rows > 1) (*shift)[config_.strip_row_dim] += strip_row_index_;
        key = "shift:" + std::to_string(reinterpret_cast<uintptr_t>(source->value)) + ":" +
              std::to_string(reinterpret_cast<uintptr_t>(source->pad ? source->pad->operands[1] : nullptr));
        for (int64_t o : *shift) key += "," + std::to_string(o);
      } else if (same_column || same_row) {
        key = "same:" + std::to_string(reinterpret_cast<uintptr_t>(n)) + ":" +
              std::to_string(same_column ? strip_row_index_ : strip_index_);
      }
    }
    if (config_.pair > 1) key += ":pair" + std::to_string(pair_index_);
    auto shared = hoisted_reads_.find(key);
    const std::string id = shared != hoisted_reads_.end() ? shared->second : std::to_string(hoisted_++);
    if (shared == hoisted_reads_.end()) {
      // Declared before the strip: n's vector at the current vector's first element.
      hoisted_reads_[key] = id;
      VKXLA_ASSIGN_OR_RETURN(std::string read, ReadHoistedVector(n, *source, id, first_index_, config_.per_vector));
      invocation_prelude_ += read;
    }
    VKXLA_ASSIGN_OR_RETURN(std::string lane, HoistedLane(n, *source, id, out_bits_));
    return std::optional<std::string>(lane);
  }

  // A concatenate each of whose output vectors lies in one operand (joined
  // along another dim than the unit-stride one, or along it at multiples
  // of the vector): every operand's vector at the clamped index, as
  // index_map_emitter reads its elements, then one chosen per vector.
  // llvmpipe pays a loop over the lanes for each element's load (the
  // blocked triangular solve's joins of its solved rows ran at 2 GB/s).
  StatusOr<std::optional<std::string>> LoadConcatenate(const Instruction* n, int64_t unit) {
    if (config_.strip != 1 || config_.strip_rows != 1) return std::optional<std::string>();
    const int64_t dim = (*n->dimensions)[0];
    const std::string at = first_index_[static_cast<size_t>(dim)];
    const MaterializedLayoutFn materialized = [&](const Instruction* x) { return x == root_ ? std::nullopt : Materialized(x); };
    struct Part {
      int64_t end;  // offset past the operand along dim
      const Instruction* operand;
      VectorSource source;
    };
    std::vector<Part> parts;
    int64_t offset = 0;
    for (const Instruction* o : n->operands) {
      const int64_t size = o->shape.dim(dim);
      if (size == 0) continue;
      std::optional<VectorSource> source = FindVectorSource(o, unit, config_.per_vector, materialized);
      if ((dim == unit && size % config_.per_vector != 0) || !source) return std::optional<std::string>();
      offset += size;
      parts.push_back({offset, o, std::move(*source)});
    }
    if (parts.empty()) return std::optional<std::string>();
    std::vector<std::pair<int64_t, std::string>> lanes;  // (end offset, the operand's element)
    int64_t start = 0;
    for (const auto& [end, o, source] : parts) {
      std::vector<std::string> first = first_index_;
      first[static_cast<size_t>(dim)] = ConcatenatePartIndex(at, start, end - start);
      const std::string id = std::to_string(hoisted_++);
      VKXLA_ASSIGN_OR_RETURN(std::string read, ReadHoistedVector(o, source, id, first, config_.per_vector));
      invocation_prelude_ += read;
      VKXLA_ASSIGN_OR_RETURN(std::string lane, HoistedLane(o, source, id, out_bits_));
      lanes.emplace_back(end, lane);
      start = end;
    }
    VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(n->shape.element_type(), target_, n->Describe()));
    return std::optional<std::string>(Temp(g.compute, PickConcatenatePart(at, lanes)));
  }

  StatusOr<KernelSource> BuildBlocked(const TiledIndexMap& out_map) {
    const ElementType t = out_.element_type();
    const int64_t e = config_.block, a_dim = config_.block_a, b_dim = config_.block_b;
    GlslIndexArithmetic a;
    std::vector<std::string> terms(out_.rank());
    int64_t stride = 1;
    for (const BlockDigit& g : config_.digits) {
      std::string c = a.DivConstant("inv", stride);
      // A top digit of power-of-two extent is masked too: the bound lets the
      // driver's compiler keep 32-bit addressing (8x8 relayout on lavapipe:
      // 0.84 of the stream kernel against 0.80).
      const bool power_of_two = (g.extent & (g.extent - 1)) == 0;
      if (power_of_two || stride * g.extent < out_.element_count() / (e * e)) c = a.ModConstant(c, g.extent);
      c = a.MulConstant(c, g.scale);
      terms[g.dim] = terms[g.dim].empty() ? c : a.Add(terms[g.dim], c);
      stride *= g.extent;
    }
    std::string decompose;
    block_base_.assign(out_.rank(), "0u");
    for (int64_t d = 0; d < out_.rank(); ++d) {
      decompose += "  uint b" + std::to_string(d) + " = " + (terms[d].empty() ? "0u" : terms[d]) + ";\n";
      block_base_[d] = "b" + std::to_string(d);
    }
    block_index_ = block_base_;
    block_index_[a_dim] = "(b" + std::to_string(a_dim) + " + ka)";
    block_index_[b_dim] = "(b" + std::to_string(b_dim) + " + kb)";
    VKXLA_ASSIGN_OR_RETURN(std::string v, RootValue(block_index_));
    const std::string out = BindOutput(0);

    std::string src = "  if (inv >= " + U(config_.blocks) + ") return;\n" + decompose;
    for (const auto& [array, rows] : block_rows_) src += rows.loads;
    for (const auto& [array, rows] : block_rows_) src += rows.unpacks;
    src += "  uvec4 outv[" + std::to_string(e * e / 4) + "];\n";
    // No [[unroll]]: spirv-opt's unrolling loses the NoContraction that the
    // math library's error-free transforms need (division stops being exact).
    // The driver unrolls a 16-step loop itself (unrolling 4x4 by hand gained
    // nothing on lavapipe); 64 steps it leaves as a loop that indexes the
    // block's arrays dynamically (0.24 of the stream kernel), so 8x8 blocks
    // repeat the body per element with constant ka, kb.
    const std::string store = "    " + BlockWord("outv", "kb", "ka") + " = " + EncodeToBits(t, v) + ";\n";
    if (e == 4) {
      src += "  for (uint e = 0u; e < 16u; ++e) {\n    uint ka = e & 3u, kb = e >> 2u;\n" + body_ + store + "  }\n";
    } else {
      for (int kb = 0; kb < e; ++kb)
        for (int ka = 0; ka < e; ++ka)
          src += "  {\n    const uint ka = " + U(ka) + ", kb = " + U(kb) + ";\n" + body_ + store + "  }\n";
    }
    for (int kb = 0; kb < e; ++kb) {
      std::vector<std::string> at = block_base_;
      at[b_dim] = a.Add(at[b_dim], a.Constant(kb));
      src += WriteBlockRow(out, out_map.ToPhysical(at, a), "outv", kb);
    }
    src += "}\n";
    return Finish(group_.kernels[0].name, 256, src);
  }

  // In block mode, a buffer read at a permutation of the block's index
  // whose unit-stride dim runs along the block is read as rows of it.
  StatusOr<std::optional<std::string>> LoadWhole(int buffer_index, const Shape& placed, int bits,
                                                 const std::vector<std::string>& idx) override {
    if (!config_.block || block_index_.empty()) return std::optional<std::string>();
    const ElementType t = placed.element_type();
    std::vector<int64_t> perm(idx.size(), -1);
    bool permuted = idx.size() == block_index_.size() && bits == 32 && WordsPerElement(t) == 1;
    for (size_t d = 0; permuted && d < idx.size(); ++d) {
      for (size_t k = 0; k < block_index_.size(); ++k)
        if (idx[d] == block_index_[k]) perm[d] = static_cast<int64_t>(k);
      permuted = perm[d] >= 0;
    }
    if (!permuted) return std::optional<std::string>();
    VKXLA_ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(placed));
    const int64_t unit = map.has_padding() ? -1 : map.UnitStrideDimension(config_.block);
    const int64_t along = unit < 0 ? -1 : perm[unit];
    if (along != config_.block_b && along != config_.block_a) return std::optional<std::string>();
    const std::string buffer = BindReads(buffer_index, "rows" + std::to_string(buffer_index));
    // block rows cover the block; the element is one word of them.
    const bool rows_along_b = along == config_.block_b;
    const std::string array = buffer + (rows_along_b ? "_r" : "_c");
    const int64_t step_out = rows_along_b ? config_.block_a : config_.block_b;
    int64_t step = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      if (perm[d] == step_out) step = static_cast<int64_t>(d);
    GlslIndexArithmetic a;
    BlockRows rows;
    rows.loads = "  uvec4 " + array + "[" + std::to_string(config_.block * config_.block / 4) + "];\n";
    for (int k = 0; k < config_.block; ++k) {
      std::vector<std::string> at(idx.size());
      for (size_t d = 0; d < idx.size(); ++d) at[d] = block_base_[perm[d]];
      at[step] = a.Add(at[step], a.Constant(k));
      ReadBlockRow(buffer, map.ToPhysical(at, a), array, k, rows);
    }
    block_rows_[array] = rows;
    const std::string word = rows_along_b ? BlockWord(array, "ka", "kb") : BlockWord(array, "kb", "ka");
    return std::optional<std::string>(DecodeWords(t, {word}, "0u", bits));
  }

  // The block's rows of each buffer read in block mode, by array name
  // (buffer + "_r": rows along b, one per ka; "_c": along a, one per kb).
  // All loads are emitted before any unpacking: llvmpipe keeps their order,
  // and issuing them together overlaps their latency (8x8 relayout: 0.86 of
  // the stream kernel against 0.79 interleaved).
  struct BlockRows {
    std::string loads, unpacks;
  };

  // Adds to `rows` the statements that load row `row` of a block (block /
  // 4 uvec4s from the block-aligned physical element `at`) into `array`.
  void ReadBlockRow(const std::string& buffer, const std::string& at, const std::string& array, int row, BlockRows& rows) {
    const std::string r = std::to_string(row);
    if (config_.block == 4) {
      rows.loads += "  " + array + "[" + r + "] = " + ReadVector(buffer, at + " >> 2u") + ";\n";
      return;
    }
    if (IsTexel(buffer)) {  // two texels a row
      for (int half = 0; half < 2; ++half)
        rows.loads += "  " + array + "[" + std::to_string(2 * row + half) + "] = " +
                      ReadVector(buffer, "(" + at + " >> 2u) + " + std::to_string(half) + "u") + ";\n";
      return;
    }
    UseQuadWords(buffer);
    const std::string word = array + "_w" + r;
    rows.loads += "  u64vec4 " + word + " = " + buffer + "q.v[" + at + " >> 3u];\n";
    rows.unpacks += "  " + array + "[" + std::to_string(2 * row) + "] = widen(" + word + ".xy); " + array + "[" +
                    std::to_string(2 * row + 1) + "] = widen(" + word + ".zw);\n";
  }

  std::string WriteBlockRow(const std::string& out, const std::string& at, const std::string& array, int row) {
    if (config_.block == 4) return "  " + WriteVector(out, at + " >> 2u", array + "[" + std::to_string(row) + "]") + "\n";
    UseQuadWords(out);
    return "  " + out + "q.v[" + at + " >> 3u] = u64vec4(narrow(" + array + "[" + std::to_string(2 * row) + "]), narrow(" +
           array + "[" + std::to_string(2 * row + 1) + "]));\n";
  }

  // Word (ka, kb) of a block held as rows along the second index.
  std::string BlockWord(const std::string& array, const std::string& row, const std::string& column) const {
    if (config_.block == 4) return array + "[" + row + "][" + column + "]";
    return array + "[" + row + " * 2u + (" + column + " >> 2u)][" + column + " & 3u]";
  }

  const LoopConfig& config_;
  // Vector mode: the logical index of the invocation's first element, where
  // its elements run along the output's unit-stride dim (else empty).
  std::vector<std::string> first_index_;
  int hoisted_ = 0;
  int strip_index_ = 0;                               // the vector of the strip being emitted
  int strip_row_index_ = 0;                           // and its row (LoopConfig::strip_rows)
  int pair_index_ = 0;                                // and which of a pair (LoopConfig::pair)
  std::map<std::string, std::string> hoisted_reads_;  // what a read loads -> its hoisted id
  std::vector<std::string> block_base_;   // the block's first logical index
  std::vector<std::string> block_index_;  // the output index of element (ka, kb)
  std::map<std::string, BlockRows> block_rows_;
};

}  // namespace

StatusOr<KernelSource> BuildLoopKernel(const Program& program, const FusionGroup& group, int kernel) {
  return LoopKernelBuilder(program, group).Build();
}

}  // namespace vkxla
