// Dot kernels (plan/matmul_config.h). The product kernel: each invocation
// keeps a thread_m x thread_n block of accumulators and walks its chunk of
// the contraction, loading operand elements through load_a(b, m, k) and
// load_b(b, k, n), GLSL functions holding each operand's fused producers
// (converts, transposes, broadcasts, elementwise ops), converted to the
// accumulator type and rounded as the dot's algorithm says. Unsplit, it
// applies the epilogue (the fused elementwise chain after the dot) and
// stores; split, it writes its partial sums, and the sum kernel adds the
// chunks in order, then applies the epilogue.
// RaggedDot (ops/ragged_dot.h) walks group sizes through group_of and
// group_range: a row finds its group once and reads that rhs matrix; a
// contracting group is a batch of its own whose steps are clipped to its
// range (or skipped one by one where the range moves with the step).
// ScaledDot's loads multiply each operand element by its block's scale.
#include <algorithm>

#include "codegen/element_emitter.h"
#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "codegen/kernel_builder.h"
#include "ir/layout_index.h"
#include "ops/dot.h"
#include "ops/ragged_dot.h"
#include "ops/scaled_dot.h"

namespace vkxla {
namespace {

class MatmulKernelBuilder : public ElementEmitter {
 public:
  MatmulKernelBuilder(const Program& program, const FusionGroup& group)
      : ElementEmitter(program, group), c_(std::get<MatmulConfig>(group.config)), dot_(*group.hero) {}

  StatusOr<KernelSource> Build(int kernel) {
    VKXLA_ASSIGN_OR_RETURN(plan_, PlanDot(dot_));
    if (dot_.opcode == Opcode::kRaggedDot) {
      VKXLA_ASSIGN_OR_RETURN(ragged_, PlanRaggedDot(dot_));
    } else if (dot_.opcode == Opcode::kScaledDot) {
      VKXLA_ASSIGN_OR_RETURN(scaled_, PlanScaledDot(dot_));
    }
    acc_ = MatmulAccumulator(dot_.shape.element_type());
    VKXLA_RETURN_IF_ERROR(Use(acc_, dot_));
    VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(acc_, target_, std::string(OpcodeName(dot_.opcode)) + " " + dot_.Describe()));
    acc_type_ = g.compute;
    out_ = program_.buffers[group_.outputs[0].buffer].shape;
    out_layout_ = out_.layout_or_default();
    if (kernel == 0) return Product();
    return Sum();
  }

 private:
  // `name(uint b, uint f, uint k)`: element (b, f, k) of operand `side` (0
  // lhs with f = m, 1 rhs with f = n) as an accumulator value.
  // Operand `side`'s index of canonical (b, f, k) (uint expressions).
  std::vector<std::string> OperandIndex(int side, const std::string& b, const std::string& f, const std::string& k) const {
    const Shape& xs = dot_.operands[side]->shape;
    std::vector<std::string> idx(xs.rank(), "0u");
    GlslIndexArithmetic a;
    auto spread = [&](const std::vector<int64_t>& dims, const std::string& linear) {
      int64_t stride = 1;
      for (size_t i = dims.size(); i-- > 0;) {
        std::string q = a.DivConstant(linear, stride);
        if (i > 0) q = a.ModConstant(q, xs.dim(dims[i]));
        idx[dims[i]] = q;
        stride *= xs.dim(dims[i]);
      }
    };
    spread(side == 0 ? plan_.dims.lhs_batch : plan_.dims.rhs_batch, b);
    spread(side == 0 ? plan_.lhs_free : plan_.rhs_free, f);
    spread(side == 0 ? plan_.dims.lhs_contracting : plan_.dims.rhs_contracting, k);
    return idx;
  }

  bool RowGroups() const { return ragged_ && ragged_->mode == RaggedMode::kNonContracting; }
  bool ContractingGroups() const { return ragged_ && ragged_->mode == RaggedMode::kContracting; }

  // `load_a(uint b, uint f, uint k)`, `load_b(...)` with `uint g` (the
  // rhs matrix) where rows have groups.
  Status LoadFunction(const std::string& name, int side) {
    const Instruction* x = dot_.operands[side];
    const Shape& xs = x->shape;
    std::vector<std::string> idx = OperandIndex(side, "b", "f", "k");
    const bool grouped = side == 1 && RowGroups();
    if (grouped) idx[ragged_->rhs_group] = "g";
    const ElementType precision = side == 0 ? plan_.algorithm.lhs_precision : plan_.algorithm.rhs_precision;
    return Function(name, std::string("uint b, uint f, uint k") + (grouped ? ", uint g" : ""), acc_type_,
                    [&]() -> StatusOr<std::string> {
      VKXLA_ASSIGN_OR_RETURN(std::string v, Value(x, idx));
      std::string rounded = v;
      const ElementType t = xs.element_type();
      if (IsFloat(t) && t != ElementType::kF64) {
        if (plan_.algorithm.tf32) {
          rounded = Temp("float", "uintBitsToFloat(reduce_precision_bits(floatBitsToUint(" + v + "), 8u, 23u, 8u, 10u))");
        } else if (precision != ElementType::kInvalid) {
          VKXLA_ASSIGN_OR_RETURN(std::string q, Convert(v, t, precision));
          VKXLA_ASSIGN_OR_RETURN(rounded, Convert(q, precision, ElementType::kF32));
        }
      }
      VKXLA_ASSIGN_OR_RETURN(std::string value, Convert(rounded, t, acc_));
      if (!scaled_ || scaled_->blocks[side].empty()) return value;
      const Instruction* scale = dot_.operands[2 + side];
      std::vector<std::string> at(idx.size());
      for (size_t d = 0; d < idx.size(); ++d) {
        const int64_t block = scaled_->blocks[side][d];
        at[d] = block == 1 ? idx[d] : "(" + idx[d] + ") / " + U(block);
      }
      VKXLA_ASSIGN_OR_RETURN(std::string s, Value(scale, at));
      VKXLA_ASSIGN_OR_RETURN(std::string factor, Convert(s, scale->shape.element_type(), acc_));
      return Temp(acc_type_, value + " * " + factor);
    });
  }

  // `uvec2 group_range(uint b, uint f, uint k, uint g)`: group g's range of
  // the ragged dim for lhs element (b, f, k) (its prefix picks the sizes),
  // sizes clamped to [0, extent], starts saturating at the extent;
  // `int group_of(uint b, uint f, uint k)`: the first group holding that
  // element's ragged coordinate, or -1.
  Status GroupFunctions() {
    const Instruction* sizes = dot_.operands[2];
    const std::vector<std::string> idx = OperandIndex(0, "b", "f", "k");
    const int64_t extent = dot_.operands[0]->shape.dim(ragged_->lhs_ragged);
    auto walk = [&](const std::string& limit, const std::string& each) -> StatusOr<std::string> {
      const Memo saved = SaveMemo();
      const std::string outer = body_;
      body_.clear();
      std::vector<std::string> at;
      for (int64_t d : ragged_->prefix) at.push_back(idx[d]);
      at.push_back("j");
      VKXLA_ASSIGN_OR_RETURN(std::string size, ClampedIndex(sizes, at, extent));
      std::string loop = "  uint start = 0u, end = 0u;\n  for (uint j = 0u; j < " + limit + "; ++j) {\n" + body_ +
                         "    start = end;\n    end = min(end + " + size + ", " + U(extent) + ");\n" + each + "  }\n";
      body_ = outer;
      RestoreMemo(saved);
      return loop;
    };
    VKXLA_RETURN_IF_ERROR(Function("group_range", "uint b, uint f, uint k, uint g", "uvec2", [&]() -> StatusOr<std::string> {
      VKXLA_ASSIGN_OR_RETURN(std::string loop, walk("g + 1u", ""));
      body_ += loop;
      return std::string("uvec2(start, end)");
    }));
    const std::string coord = idx[ragged_->lhs_ragged];
    return Function("group_of", "uint b, uint f, uint k", "int", [&]() -> StatusOr<std::string> {
      VKXLA_ASSIGN_OR_RETURN(std::string loop, walk(U(ragged_->groups), "    if (found < 0 && start <= " + coord + " && " + coord +
                                                                      " < end) found = int(j);\n"));
      body_ += "  int found = -1;\n" + loop;
      return std::string("found");
    });
  }

  // Statements declaring `names`, operand `side`'s elements at (b, f, k)
  // and the next ones along the dim it is read along (whole vectors of
  // them), read from the buffer behind its index maps from one address
  // (plan/vector_source.h) and converted to the accumulator type; padding
  // gives the pad's value.
  StatusOr<std::string> LoadVector(int side, const std::string& b, const std::string& f, const std::string& k,
                                   const std::vector<std::string>& names) {
    const Instruction* x = dot_.operands[side];
    const ElementType t = x->shape.element_type();
    const int64_t lanes = VectorLanes(t), per_word = lanes / 4, count = static_cast<int64_t>(names.size());
    const bool along_k = (side == 0 ? c_.lhs : c_.rhs) == MatmulConfig::Read::kAlongK;
    const std::vector<int64_t>& dims = along_k ? (side == 0 ? plan_.dims.lhs_contracting : plan_.dims.rhs_contracting)
                                               : (side == 0 ? plan_.lhs_free : plan_.rhs_free);
    const std::optional<VectorSource> source =
        FindVectorSource(x, dims.back(), count, [&](const Instruction* n) { return Materialized(n); });
    if (!source) return Internal(dot_.Describe() + ": operand " + std::to_string(side) + " has no buffer to read vectors from");
    const std::string s = std::to_string(side);
    if (!address_functions_[side]) {
      VKXLA_RETURN_IF_ERROR(AddressFunction("address" + s, "uint b, uint f, uint k", x, OperandIndex(side, "b", "f", "k"), *source));
      if (source->pad) {
        VKXLA_RETURN_IF_ERROR(Function("padding" + s, "", acc_type_, [&]() -> StatusOr<std::string> {
          VKXLA_ASSIGN_OR_RETURN(std::string v, Value(source->pad->operands[1], {}));
          return Convert(v, t, acc_);
        }));
      }
      address_functions_[side] = true;
    }
    const int buffer = program_.value_buffer.at(ValueRef::Of(source->value));
    const std::string name = BindReads(buffer, "vin" + s);
    const std::string v = "vec" + names[0];
    std::string code = ReadAddressedVectors(name, "address" + s + "(" + b + ", " + f + ", " + k + ")", v, source->pad != nullptr,
                                            lanes, count / lanes);
    for (int64_t e = 0; e < count; ++e) {
      const std::string word = v + "_" + std::to_string(e / lanes) + "[" + std::to_string(e % lanes / per_word) + "]";
      // An f16 operand is only multiplied: the driver's widening, where
      // exact, instead of decoding its bits (TargetFeatures::exact_half_widen).
      const bool widen = t == ElementType::kF16 && target_.exact_half_widen;
      VKXLA_ASSIGN_OR_RETURN(std::string converted,
                             widen ? Convert("unpackHalf2x16(" + DecodeWords(ElementType::kU16, {word}, U(e % per_word)) + ").x",
                                             ElementType::kF32, acc_)
                                   : Convert(DecodeWords(t, {word}, U(e % per_word)), t, acc_));
      if (source->pad) converted = v + "_ok ? " + converted + " : padding" + s + "()";
      code += "    " + acc_type_ + " " + names[e] + " = " + converted + ";\n";
    }
    return code;
  }

  // The result's index of (b, m, n): batch dims, then lhs's free dims,
  // then rhs's (uint temps).
  std::vector<std::string> ResultIndex(const std::string& b, const std::string& m, const std::string& n) {
    const Shape& rs = dot_.shape;
    std::vector<std::string> idx(rs.rank());
    GlslIndexArithmetic a;
    size_t d = 0;
    auto spread = [&](size_t count, const std::string& linear) {
      int64_t stride = 1;
      for (size_t i = count; i-- > 0;) {
        std::string q = a.DivConstant(linear, stride);
        if (i > 0) q = a.ModConstant(q, rs.dim(d + i));
        // In a flat epilogue each distinct index is one temp, so values of
        // the same index meet in the memo.
        if (flat_epilogue_) {
          auto [it, added] = epilogue_indices_.emplace(q, "");
          if (added) it->second = Temp("uint", q);
          idx[d + i] = it->second;
        } else {
          idx[d + i] = Temp("uint", q);
        }
        stride *= rs.dim(d + i);
      }
      d += count;
    };
    spread(plan_.dims.lhs_batch.size() + (ContractingGroups() ? 1 : 0), b);  // a contracting group's dim leads
    spread(plan_.lhs_free.size(), m);
    spread(plan_.rhs_free.size(), n);
    return idx;
  }

  // Accumulator `acc` through the epilogue: the output's value at idx.
  StatusOr<std::string> ResultValue(const std::string& acc, const std::vector<std::string>& idx) {
    VKXLA_ASSIGN_OR_RETURN(std::string result, Convert(acc, acc_, dot_.shape.element_type()));
    result = Temp(GlslTypeFor(dot_.shape.element_type(), target_, "dot").value().compute, result);
    const GroupOutput& out = group_.outputs[0];
    if (out.value.inst != &dot_) {
      Bind(&dot_, result);
      VKXLA_ASSIGN_OR_RETURN(result, ValueOf(out.value, idx));
    }
    return result;
  }

  // The statements storing accumulator `acc` as result element (b, m, n),
  // through the epilogue.
  // Where `guard` is given, the value is computed in the enclosing scope
  // at (b, m, n), clamped indices whose values later stores may reuse, and
  // stored where `guard` holds (see EpilogueIndices).
  StatusOr<std::string> Store(const std::string& acc, const std::string& b, const std::string& m, const std::string& n,
                              const std::string& guard = "") {
    const Memo saved = SaveMemo();
    const std::string saved_body = body_;
    body_.clear();
    const std::vector<std::string> idx = ResultIndex(b, m, n);
    VKXLA_ASSIGN_OR_RETURN(std::string result, ResultValue(acc, idx));
    VKXLA_ASSIGN_OR_RETURN(std::string store, StoreOutputElement(0, idx, result));
    std::string code = guard.empty() ? "    {\n" + body_ + store + "    }\n" : body_ + "    if (" + guard + ") {\n" + store + "    }\n";
    body_ = saved_body;
    if (guard.empty()) RestoreMemo(saved);
    return code;
  }

  // Elements of the output one 32-bit word holds (1 for wider ones).
  int64_t PerWord() const { return std::max(1, 32 / std::max(8, BitWidth(out_.element_type()))); }
  // Columns one vector of the output holds: 4 words of 32-, 16- or 8-bit
  // elements.
  int64_t VectorColumns() const { return 4 * PerWord(); }

  // Whether the columns of a row of the output run unit-stride in whole
  // words of 32-, 16- or 8-bit elements stored at their own width.
  bool PackedRows() const {
    if (c_.split() || c_.k_lanes > 1 || plan_.rhs_free.size() != 1) return false;
    const ElementType t = out_.element_type();
    const int bits = BitWidth(t);
    if ((bits != 32 && bits != 16 && bits != 8) || IsComplex(t) || !out_layout_.tiles.empty() || out_.dims() != dot_.shape.dims())
      return false;
    const StatusOr<int> storage = ElementStorageBits(t, out_layout_);
    if (!storage.ok() || *storage != bits) return false;
    const int64_t n_dim = out_.rank() - 1;  // the rhs free dim comes last
    return !out_layout_.minor_to_major.empty() && out_layout_.minor_to_major[0] == n_dim && out_.is_static();
  }

  // Whether every PerWord() columns of an invocation's block from an even
  // start make a word of the output that no other invocation writes into:
  // narrow results with rows of whole words. They are stored a word at a
  // time; an element store shares its word with neighbours and sets its
  // slot with two atomics (a bf16 1x1 convolution 10x10x1024->546:
  // 10.7 ms with element stores).
  bool WordStores() const {
    return PerWord() > 1 && !c_.quads && c_.thread_n % PerWord() == 0 && PackedRows() &&
           out_.dim(out_.rank() - 1) % PerWord() == 0;
  }

  // Whether VectorColumns() neighbouring columns of an invocation's block
  // lie together in the output, starting on a vector: a result of 32, 16 or
  // 8 bits whose unit-stride dim is the one rhs free dim, the vector's
  // columns dividing its size and the block's width. They are then stored
  // as one vector instead of scattered elements (llvmpipe's stores cost a
  // loop over the lanes each: f32 [12544,16]x[16,96] 10.2 ms with element
  // stores; narrower elements share words with their neighbours, which an
  // element store sets with two atomics: a bf16 1x1 convolution
  // 150x150x32->64 with bias and relu6, 11.5 ms against 4.4 for its f32
  // result).
  bool VectorStores() const {
    if (!PackedRows() || c_.thread_n % VectorColumns() != 0 || (c_.quads && VectorColumns() > 4)) return false;  // quads' columns run in fours
    return out_.dim(out_.rank() - 1) % VectorColumns() == 0;
  }

  // Accumulators `accs` (neighbouring columns from n: VectorColumns() of
  // them, or PerWord()) stored as one vector, or one word, each word's
  // elements from its low bits up.
  // `columns`: where not empty, the block's clamped column indices
  // (EpilogueColumns), which the elements' values are computed at in the
  // enclosing scope, keeping what depends on the column alone for the
  // block's other rows; the store then runs where `guard` holds.
  StatusOr<std::string> StorePacked(const std::vector<std::string>& accs, const std::string& b, const std::string& m,
                                    const std::string& n, const std::vector<std::string>& columns = {},
                                    const std::string& guard = "") {
    const std::string saved_body = body_;
    body_.clear();
    const int bits = BitWidth(out_.element_type());
    const size_t per_word = static_cast<size_t>(PerWord());
    std::vector<std::string> words(accs.size() / per_word), first;
    for (size_t e = 0; e < accs.size(); ++e) {
      const Memo saved = SaveMemo();
      const std::vector<std::string> idx = ResultIndex(b, m, columns.empty() ? "(" + n + " + " + U(e) + ")" : columns[e]);
      if (e == 0) first = idx;
      VKXLA_ASSIGN_OR_RETURN(std::string result, ResultValue(accs[e], idx));
      const std::string encoded = Temp("uint", EncodeToBits(out_.element_type(), result));
      std::string& word = words[e / per_word];
      word += (word.empty() ? "" : " | ") + (e % per_word ? "(" + encoded + " << " + U(e % per_word * bits) + ")" : encoded);
      if (columns.empty()) RestoreMemo(saved);
    }
    VKXLA_ASSIGN_OR_RETURN(std::string p, PhysicalIndex(out_, out_layout_, first));
    const std::string out = BindOutput(0, Access::kReadWrite);
    std::string store;
    if (words.size() == 1) {
      store = "W(" + out + ", (" + p + ") / " + U(per_word) + ") = " + words[0] + ";";
    } else {
      std::string value = "uvec4(";
      for (size_t w = 0; w < words.size(); ++w) value += (w ? ", " : "") + words[w];
      store = WriteVector(out, "(" + p + ") / " + U(VectorColumns()), value + ")");
    }
    const std::string code =
        columns.empty() ? "    {\n" + body_ + "    " + store + "\n    }\n" : body_ + "    if (" + guard + ") " + store + "\n";
    body_ = saved_body;
    return code;
  }

  // The epilogue's row and column indices of an invocation's block,
  // clamped into the result (`erow<r>`, `ecol<c>`): its values are
  // computed at them in one scope and stored where the unclamped ones lie
  // inside, so a value of the column alone (a bias, a batch norm's
  // statistics) is read and computed once per column, not once per element
  // (llvmpipe, a 1x1 convolution 112x112x16->96 with batch norm and relu6:
  // 3.0 -> 1.8 ms).
  std::string EpilogueIndices(int64_t tm, int64_t tn) const {
    std::string s;
    for (int64_t r = 0; r < tm; ++r) s += "  uint erow" + std::to_string(r) + " = min(row + " + U(BlockRow(r)) + ", " + U(c_.m - 1) + ");\n";
    for (int64_t c = 0; c < tn; ++c)
      s += "  uint ecol" + std::to_string(c) + " = min(col + " + U(BlockColumn(c)) + ", " + U(c_.n - 1) + ");\n";
    return s;
  }

  // The accumulator's 32-bit words, low first.
  std::vector<std::string> Words(const std::string& v) const {
    switch (acc_) {
      case ElementType::kF64: return {"unpackDouble2x32(" + v + ").x", "unpackDouble2x32(" + v + ").y"};
      case ElementType::kS64: case ElementType::kU64:
        return {"unpackUint2x32(uint64_t(" + v + ")).x", "unpackUint2x32(uint64_t(" + v + ")).y"};
      case ElementType::kC64: return {"floatBitsToUint(" + v + ".x)", "floatBitsToUint(" + v + ".y)"};
      case ElementType::kC128:
        return {"unpackDouble2x32(" + v + ".x).x", "unpackDouble2x32(" + v + ".x).y", "unpackDouble2x32(" + v + ".y).x",
                "unpackDouble2x32(" + v + ".y).y"};
      case ElementType::kF32: return {"floatBitsToUint(" + v + ")"};
      case ElementType::kPred: return {"uint(" + v + ")"};
      default: return {"uint(" + v + ")"};
    }
  }

  std::string Fma(const std::string& a, const std::string& b, const std::string& acc) const {
    switch (acc_) {
      case ElementType::kPred: return acc + " = " + acc + " || (" + a + " && " + b + ");";
      case ElementType::kF32: case ElementType::kF64: return acc + " = fma(" + a + ", " + b + ", " + acc + ");";
      case ElementType::kC64: case ElementType::kC128:
        return acc + " += " + acc_type_ + "(" + a + ".x * " + b + ".x - " + a + ".y * " + b + ".y, " + a + ".x * " + b +
               ".y + " + a + ".y * " + b + ".x);";
      default: return acc + " += " + a + " * " + b + ";";
    }
  }

  StatusOr<KernelSource> Product() {
    VKXLA_RETURN_IF_ERROR(LoadFunction("load_a", 0));
    VKXLA_RETURN_IF_ERROR(LoadFunction("load_b", 1));
    if (ragged_) VKXLA_RETURN_IF_ERROR(GroupFunctions());
    const int64_t tm = c_.thread_m, tn = c_.thread_n;
    std::string main = "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
    main += "  if (wg >= " + U(c_.workgroups) + ") return;\n";
    main += "  uint tn = wg % " + U(c_.tiles_n) + ", t = wg / " + U(c_.tiles_n) + ";\n";
    main += "  uint tm = t % " + U(c_.tiles_m) + ";\n  t /= " + U(c_.tiles_m) + ";\n";
    // bo: the result's batch (a contracting group's, then the dot's).
    main += "  uint split = t % " + U(c_.splits) + ", bo = t / " + U(c_.splits) + ";\n";
    main += ContractingGroups() ? "  uint b = bo % " + U(plan_.batch) + ", grp = bo / " + U(plan_.batch) + ";\n"
                                : "  uint b = bo;\n";
    const bool lanes = c_.k_lanes > 1;
    if (lanes) {  // a team of k_lanes lanes per row
      main += "  uint lane = lid % " + U(c_.k_lanes) + ", row = tm * " + U(c_.tile_m) + " + lid / " + U(c_.k_lanes) + ", col = tn;\n";
    } else if (c_.share_lhs) {  // a subgroup's lanes along n share its rows
      UseSubgroupBroadcast();
      main += "  uint sl = gl_SubgroupInvocationID;\n";
      main += "  uint row = tm * " + U(c_.tile_m) + " + gl_SubgroupID * " + U(tm) + ";\n";
      main += "  uint col = tn * " + U(c_.tile_n) + " + sl * " + U(tn) + ";\n";
    } else if (c_.flat_blocks) {  // the blocks in order, n fastest
      main += "  uint blk = tn * " + U(c_.local_size) + " + lid;\n";
      main += "  uint row = (blk / " + U(c_.blocks_n) + ") * " + U(tm) + ", col = (blk % " + U(c_.blocks_n) + ") * " + U(tn) + ";\n";
    } else if (c_.quads) {  // the first rows and columns of the block's quads
      main += "  uint row = tm * " + U(c_.tile_m) + " + (lid / " + U(c_.threads_n) + ") * 4u;\n";
      main += "  uint col = tn * " + U(c_.tile_n) + " + (lid % " + U(c_.threads_n) + ") * 4u;\n";
    } else {
      main += "  uint row = tm * " + U(c_.tile_m) + " + (lid / " + U(c_.threads_n) + ") * " + U(tm) + ";\n";
      main += "  uint col = tn * " + U(c_.tile_n) + " + (lid % " + U(c_.threads_n) + ") * " + U(tn) + ";\n";
    }
    const std::string zero = acc_ == ElementType::kPred ? "false" : acc_type_ + "(0)";
    for (int64_t r = 0; r < tm; ++r)
      for (int64_t c = 0; c < tn; ++c) main += "  " + acc_type_ + " acc" + Acc(r, c) + " = " + zero + ";\n";
    // Rows and columns past the end read the last one (in bounds); their
    // sums are never stored.
    for (int64_t r = 0; r < tm; ++r) main += "  uint m" + std::to_string(r) + " = min(row + " + U(BlockRow(r)) + ", " + U(c_.m - 1) + ");\n";
    // Shared rows: lane sl loads rows sl * rows_per_lane + j.
    for (int64_t j = 0; c_.share_lhs && j < tm / c_.threads_n; ++j)
      main += "  uint ms" + std::to_string(j) + " = min(row + sl * " + U(tm / c_.threads_n) + " + " + U(j) + ", " + U(c_.m - 1) + ");\n";
    for (int64_t c = 0; c < tn; ++c) main += "  uint n" + std::to_string(c) + " = min(col + " + U(BlockColumn(c)) + ", " + U(c_.n - 1) + ");\n";
    main += "  uint k0 = split * " + U(c_.k_chunk) + ", k1 = min(" + U(c_.k) + ", k0 + " + U(c_.k_chunk) + ");\n";
    // A row in no group sums nothing; a contracting group whose ragged dim
    // leads the contraction covers one run of steps.
    std::string step_guard;
    if (RowGroups()) {
      main += "  int grp = group_of(b, m0, 0u);\n  if (grp < 0) k1 = k0;\n";
    } else if (ContractingGroups()) {
      const Shape& ls = dot_.operands[0]->shape;
      int64_t inner = 1;
      for (size_t i = 1; i < plan_.dims.lhs_contracting.size(); ++i) inner *= ls.dim(plan_.dims.lhs_contracting[i]);
      if (plan_.dims.lhs_contracting[0] == ragged_->lhs_ragged) {
        main += "  uvec2 range = group_range(b, 0u, 0u, grp);\n";
        main += "  k0 = max(k0, range.x * " + U(inner) + ");\n  k1 = min(k1, range.y * " + U(inner) + ");\n";
      } else {
        // `bool ragged_step(b, k, g)`: whether step k is in group g.
        const std::string coord = OperandIndex(0, "b", "0u", "k")[ragged_->lhs_ragged];
        VKXLA_RETURN_IF_ERROR(Function("ragged_step", "uint b, uint k, uint g", "bool", [&]() -> StatusOr<std::string> {
          body_ += "  uvec2 range = group_range(b, 0u, k, g);\n";
          return "(" + coord + " >= range.x && " + coord + " < range.y)";
        }));
        step_guard = "ragged_step(b, k, grp)";
      }
    }
    if (c_.quads) {
      main += QuadLoop(step_guard, zero);
    } else if (c_.tile_k > 0) {
      main += StagedLoop(step_guard, zero);
    } else {
      VKXLA_ASSIGN_OR_RETURN(std::string loop, RegisterLoop(step_guard));
      main += loop;
    }
    if (lanes) main += LaneSum();
    // Columns a store takes: a vector, a word of narrow elements, or one.
    const int64_t packed = VectorStores() ? VectorColumns() : WordStores() ? PerWord() : 1;
    const bool vectors = packed > 1;
    // An epilogue computed in one scope (EpilogueIndices), except where a
    // team's lanes would all compute what lane 0 stores.
    const bool flat = !c_.split() && !lanes && group_.outputs[0].value.inst != &dot_;
    if (flat) {
      ClearMemo();
      flat_epilogue_ = true;
      main += EpilogueIndices(tm, tn);
    }
    auto guard = [&](int64_t r, int64_t c) {
      return "(row + " + U(BlockRow(r)) + ") < " + U(c_.m) + " && (col + " + U(BlockColumn(c)) + ") < " + U(c_.n);
    };
    for (int64_t r = 0; r < tm && vectors; ++r)
      for (int64_t c = 0; c < tn; c += packed) {
        const std::string m = "(row + " + U(BlockRow(r)) + ")", n = "(col + " + U(BlockColumn(c)) + ")";
        std::vector<std::string> accs, columns;
        for (int64_t e = 0; e < packed; ++e) {
          accs.push_back("acc" + Acc(r, c + e));
          columns.push_back("ecol" + std::to_string(c + e));
        }
        if (flat) {
          VKXLA_ASSIGN_OR_RETURN(std::string store,
                                 StorePacked(accs, "bo", "erow" + std::to_string(r), n, columns, guard(r, c)));
          main += store;
          continue;
        }
        main += "  if (" + guard(r, c) + ") {\n";
        VKXLA_ASSIGN_OR_RETURN(std::string store, StorePacked(accs, "bo", m, n));
        main += store + "  }\n";
      }
    for (int64_t r = 0; r < tm && !vectors; ++r)
      for (int64_t c = 0; c < tn; ++c) {
        const std::string m = "(row + " + U(BlockRow(r)) + ")", n = "(col + " + U(BlockColumn(c)) + ")";
        if (flat) {
          VKXLA_ASSIGN_OR_RETURN(std::string store,
                                 Store("acc" + Acc(r, c), "bo", "erow" + std::to_string(r), "ecol" + std::to_string(c), guard(r, c)));
          main += store;
          continue;
        }
        main += "  if (" + std::string(lanes ? "lane == 0u && " : "") + m + " < " + U(c_.m) + " && " + n + " < " + U(c_.n) + ") {\n";
        if (c_.split()) {
          // Partial sums: chunk-major, then (b, m, n).
          const std::string at = "(split * " + U(c_.batch * c_.m * c_.n) + " + (bo * " + U(c_.m) + " + " + m + ") * " +
                                 U(c_.n) + " + " + n + ")";
          const std::vector<std::string> words = Words("acc" + Acc(r, c));
          const std::string partials = BindBuffer(group_.scratch[0], Access::kWrite, "partials");
          for (size_t w = 0; w < words.size(); ++w)
            main += "    W(" + partials + ", " + at + " * " + U(words.size()) + " + " + U(w) + ") = " + words[w] + ";\n";
        } else {
          VKXLA_ASSIGN_OR_RETURN(std::string store, Store("acc" + Acc(r, c), "bo", m, n));
          main += store;
        }
        main += "  }\n";
      }
    return Finish(group_.kernels[0].name, c_.local_size, main + "}\n");
  }

  // Each staged slice: the workgroup's invocations load tile_k steps of
  // both operands' tiles into shared memory (zero past the chunk or
  // outside the step's group), then each walks them for its block.
  std::string StagedLoop(const std::string& guard, const std::string& zero_acc) {
    const int64_t tk = c_.tile_k, tile_m = c_.tile_m, tile_n = c_.tile_n, l = c_.local_size;
    // Cooperative tiles stage f16 (exact: the operands are f16).
    const std::string staged = c_.cooperative ? "float16_t" : acc_type_;
    const std::string zero = c_.cooperative ? "float16_t(0)" : zero_acc;
    const std::string load_a = c_.cooperative ? "float16_t(load_a" : "(load_a", load_b = c_.cooperative ? "float16_t(load_b" : "(load_b";
    shared_ += "shared " + staged + " tile_a[" + U(tk * tile_m) + "];\nshared " + staged + " tile_b[" + U(tk * tile_n) + "];\n";
    const std::string take = "k < k1" + (guard.empty() ? "" : " && " + guard);
    std::string loop = "  uint row0 = tm * " + U(tile_m) + ", col0 = tn * " + U(tile_n) + ";\n";
    loop += "  for (uint kt = k0; kt < k1; kt += " + U(tk) + ") {\n";
    for (int64_t j = 0; j < tk * tile_m / l; ++j)
      loop += "    { uint e = lid + " + U(j * l) + ", mm = e / " + U(tk) + ", k = kt + e % " + U(tk) + ";\n      tile_a[(e % " +
              U(tk) + ") * " + U(tile_m) + " + mm] = " + take + " ? " + load_a + "(b, min(row0 + mm, " + U(c_.m - 1) + "), k)) : " + zero +
              "; }\n";
    for (int64_t j = 0; j < tk * tile_n / l; ++j)
      loop += "    { uint e = lid + " + U(j * l) + ", nn = e % " + U(tile_n) + ", k = kt + e / " + U(tile_n) + ";\n      tile_b[(e / " +
              U(tile_n) + ") * " + U(tile_n) + " + nn] = " + take + " ? " + load_b + "(b, min(col0 + nn, " + U(c_.n - 1) + "), k)) : " + zero +
              "; }\n";
    if (c_.cooperative) return CooperativeProducts(loop);
    loop += "    memoryBarrierShared();\n    barrier();\n    for (uint kk = 0u; kk < " + U(tk) + "; ++kk) {\n";
    for (int64_t r = 0; r < c_.thread_m; ++r)
      loop += "      " + acc_type_ + " a" + std::to_string(r) + " = tile_a[kk * " + U(tile_m) + " + (lid / " + U(c_.threads_n) +
              ") * " + U(c_.thread_m) + " + " + U(r) + "];\n";
    for (int64_t c = 0; c < c_.thread_n; ++c)
      loop += "      " + acc_type_ + " b" + std::to_string(c) + " = tile_b[kk * " + U(tile_n) + " + (lid % " + U(c_.threads_n) +
              ") * " + U(c_.thread_n) + " + " + U(c) + "];\n";
    for (int64_t r = 0; r < c_.thread_m; ++r)
      for (int64_t c = 0; c < c_.thread_n; ++c)
        loop += "      " + Fma("a" + std::to_string(r), "b" + std::to_string(c), "acc" + Acc(r, c)) + "\n";
    return loop + "    }\n    barrier();\n  }\n";
  }

  // Offsets of a block's row r and column c from its first (quads: four
  // 4 x 4 blocks half a tile apart).
  int64_t BlockRow(int64_t r) const { return c_.quads ? r % 4 + (r / 4) * (c_.tile_m / 2) : r; }
  int64_t BlockColumn(int64_t c) const { return c_.quads ? c % 4 + (c / 4) * (c_.tile_n / 2) : c; }

  // MatmulConfig::quads: the slices are arrays of 4-vectors, a step's
  // tile_m (tile_n) values and one padding vector; each invocation loads
  // its share of the next slice into registers while the products of the
  // current one run, and stores them after a barrier. Every store is a
  // whole vector: NVIDIA's compiler writes a vector back whole when one
  // lane stores into it (a store into one element of a shared vec4 raced
  // with its neighbours' on the H200).
  std::string QuadLoop(const std::string& guard, const std::string& zero) {
    const int64_t tk = c_.tile_k, tile_m = c_.tile_m, tile_n = c_.tile_n, l = c_.local_size;
    const int64_t stride_a = tile_m / 4 + 1, stride_b = tile_n / 4 + 1;  // vectors a step
    const std::string vec = acc_type_ == "float" ? "vec4" : acc_type_ == "int" ? "ivec4" : "uvec4";
    shared_ += "shared " + vec + " tile_a[" + U(tk * stride_a) + "];\nshared " + vec + " tile_b[" + U(tk * stride_b) + "];\n";
    const std::string take = "k < k1" + (guard.empty() ? "" : " && " + guard);
    // Vector v of an invocation's share: lhs rows 4 mq .. 4 mq + 3 of step
    // e % tile_k (lanes take consecutive steps of the same rows), rhs
    // columns 4 nq .. 4 nq + 3 of step e / (tile_n / 4) (lanes take
    // consecutive columns).
    const int64_t vectors_a = tk * tile_m / 4 / l, vectors_b = tk * tile_n / 4 / l;
    auto loads = [&](const std::string& kt) {
      std::string code;
      for (int64_t v = 0; v < vectors_a; ++v) {
        code += "    { uint e = lid + " + U(v * l) + ", k = " + kt + " + e % " + U(tk) + ", m4 = row0 + (e / " + U(tk) + ") * 4u;\n";
        for (int64_t i = 0; i < 4; ++i)
          code += "      pa" + std::to_string(v) + "[" + std::to_string(i) + "] = " + take + " ? load_a(b, min(m4 + " + U(i) + ", " +
                  U(c_.m - 1) + "), k) : " + zero + ";\n";
        code += "    }\n";
      }
      for (int64_t v = 0; v < vectors_b; ++v) {
        code += "    { uint e = lid + " + U(v * l) + ", k = " + kt + " + e / " + U(tile_n / 4) + ", n4 = col0 + (e % " +
                U(tile_n / 4) + ") * 4u;\n";
        for (int64_t i = 0; i < 4; ++i)
          code += "      pb" + std::to_string(v) + "[" + std::to_string(i) + "] = " + take + " ? load_b(b, min(n4 + " + U(i) + ", " +
                  U(c_.n - 1) + "), k) : " + zero + ";\n";
        code += "    }\n";
      }
      return code;
    };
    std::string loop = "  uint row0 = tm * " + U(tile_m) + ", col0 = tn * " + U(tile_n) + ";\n";
    loop += "  uint qa = lid / " + U(c_.threads_n) + ", qb = lid % " + U(c_.threads_n) + ";\n";
    for (int64_t v = 0; v < vectors_a; ++v) loop += "  " + vec + " pa" + std::to_string(v) + ";\n";
    for (int64_t v = 0; v < vectors_b; ++v) loop += "  " + vec + " pb" + std::to_string(v) + ";\n";
    loop += "  {\n" + loads("k0") + "  }\n";
    loop += "  for (uint kt = k0; kt < k1; kt += " + U(tk) + ") {\n    barrier();\n";
    for (int64_t v = 0; v < vectors_a; ++v)
      loop += "    { uint e = lid + " + U(v * l) + ";\n      tile_a[(e % " + U(tk) + ") * " + U(stride_a) + " + e / " + U(tk) +
              "] = pa" + std::to_string(v) + "; }\n";
    for (int64_t v = 0; v < vectors_b; ++v)
      loop += "    { uint e = lid + " + U(v * l) + ";\n      tile_b[(e / " + U(tile_n / 4) + ") * " + U(stride_b) + " + e % " +
              U(tile_n / 4) + "] = pb" + std::to_string(v) + "; }\n";
    loop += "    memoryBarrierShared();\n    barrier();\n    if (kt + " + U(tk) + " < k1) {\n" + loads("(kt + " + U(tk) + ")") + "    }\n";
    for (int64_t kk = 0; kk < tk; ++kk) {
      const std::string at_a = U(kk * stride_a), at_b = U(kk * stride_b);
      loop += "    {\n      " + vec + " a0 = tile_a[" + at_a + " + qa], a1 = tile_a[" + at_a + " + qa + " + U(tile_m / 8) + "];\n";
      loop += "      " + vec + " b0 = tile_b[" + at_b + " + qb], b1 = tile_b[" + at_b + " + qb + " + U(tile_n / 8) + "];\n";
      for (int64_t r = 0; r < 8; ++r)
        for (int64_t c = 0; c < 8; ++c)
          loop += "      " + Fma("a" + std::to_string(r / 4) + "[" + std::to_string(r % 4) + "]",
                             "b" + std::to_string(c / 4) + "[" + std::to_string(c % 4) + "]", "acc" + Acc(r, c)) + "\n";
      loop += "    }\n";
    }
    return loop + "  }\n";
  }

  // The staged f16 slices on the matrix units (MatmulConfig::cooperative):
  // subgroup s takes rows 16 (s % 4) and columns 32 (s / 4) of the 64 x 64
  // tile as two 16 x 16 accumulators. tile_a holds the slice k-major (a
  // column-major 16-row block with stride tile_m), tile_b n-fastest (a
  // row-major block with stride tile_n). After the contraction the tile
  // meets in shared memory, and each invocation takes its 4 x 4 block.
  std::string CooperativeProducts(std::string loop) {
    UseCooperativeMatrix();
    const std::string f16m = "fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>", f32m = "fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>";
    const std::string tm = U(c_.tile_m), tn = U(c_.tile_n);
    shared_ += "shared float tile_c[" + U(c_.tile_m * c_.tile_n) + "];\n";
    std::string head = "  uint sm = (gl_SubgroupID % 4u) * 16u, sn = (gl_SubgroupID / 4u) * 32u;\n";
    head += "  " + f32m + " c0 = " + f32m + "(0.0), c1 = " + f32m + "(0.0);\n  " + f16m + " fa, fb0, fb1;\n";
    loop += "    memoryBarrierShared();\n    barrier();\n";
    loop += "    coopMatLoadNV(fa, tile_a, sm, " + tm + ", true);\n";
    loop += "    coopMatLoadNV(fb0, tile_b, sn, " + tn + ", false);\n    coopMatLoadNV(fb1, tile_b, sn + 16u, " + tn + ", false);\n";
    loop += "    c0 = coopMatMulAddNV(fa, fb0, c0);\n    c1 = coopMatMulAddNV(fa, fb1, c1);\n";
    loop += "    barrier();\n  }\n";
    loop += "  coopMatStoreNV(c0, tile_c, sm * " + tn + " + sn, " + tn + ", false);\n";
    loop += "  coopMatStoreNV(c1, tile_c, sm * " + tn + " + sn + 16u, " + tn + ", false);\n";
    loop += "  memoryBarrierShared();\n  barrier();\n";
    loop += "  uint rl = (lid / " + U(c_.threads_n) + ") * " + U(c_.thread_m) + ", cl = (lid % " + U(c_.threads_n) + ") * " +
            U(c_.thread_n) + ";\n";
    for (int64_t r = 0; r < c_.thread_m; ++r)
      for (int64_t c = 0; c < c_.thread_n; ++c)
        loop += "  acc" + Acc(r, c) + " = tile_c[(rl + " + U(r) + ") * " + tn + " + cl + " + U(c) + "];\n";
    return head + loop;
  }

  // A row's team adds its lanes' sums in shared memory, halving each time.
  std::string LaneSum() {
    shared_ += "shared " + acc_type_ + " lane_sums[" + U(c_.local_size) + "];\n";
    std::string code = "  lane_sums[lid] = acc0_0;\n  memoryBarrierShared();\n  barrier();\n";
    for (int64_t s = c_.k_lanes / 2; s > 0; s /= 2) {
      const std::string other = "lane_sums[lid + " + U(s) + "]";
      code += "  if (lane < " + U(s) + ") lane_sums[lid] = " +
              (acc_ == ElementType::kPred ? "lane_sums[lid] || " + other : "lane_sums[lid] + " + other) +
              ";\n  memoryBarrierShared();\n  barrier();\n";
    }
    return code + "  acc0_0 = lane_sums[lid];\n";
  }

  // Operands straight into registers: per step, the lhs (as vectors or
  // elements), then the rhs and its products (a team's lane: one step in
  // every k_lanes).
  StatusOr<std::string> RegisterLoop(const std::string& guard) {
    using Read = MatmulConfig::Read;
    const int64_t tm = c_.thread_m, tn = c_.thread_n, ks = c_.k_lanes > 1 ? 1 : c_.k_step;
    const int64_t sub_rows = c_.sub_m, sub_cols = c_.sub_n;
    std::string main = "  for (uint k = k0" + std::string(c_.k_lanes > 1 ? " + lane" : "") + "; k < k1; k += " + U(c_.k_step) + ") {\n";
    if (!guard.empty()) main += "    if (" + guard + ") {\n";
    // a<r>_<kk>, b<kk>_<c>: the operands at k + kk. The lhs first, then
    // each step's rhs and its products, so few of them are live at once
    // (llvmpipe: 0.6 of the time of loading everything first).
    auto name = [](const char* p, int64_t x, int64_t y) { return std::string(p) + std::to_string(x) + "_" + std::to_string(y); };
    auto at = [](const std::string& base, int64_t plus) { return plus ? "(" + base + " + " + U(plus) + ")" : base; };
    const int64_t lanes[2] = {VectorLanes(dot_.operands[0]->shape.element_type()),
                              VectorLanes(dot_.operands[1]->shape.element_type())};
    // Shared lhs rows (MatmulConfig::share_lhs): this lane loads its rows
    // as s<j>_<kk> from ms<j>; a<r>_<kk> comes from the lane holding row r.
    const int64_t lhs_rows = c_.share_lhs ? tm / c_.threads_n : tm;
    const char* lhs_name = c_.share_lhs ? "s" : "a";
    const std::string lhs_row = c_.share_lhs ? "ms" : "m";
    // Vectors along k: the iteration's steps, a vector's lanes at a time.
    for (int side = 0; side < 2; ++side) {
      if ((side == 0 ? c_.lhs : c_.rhs) != Read::kAlongK) continue;
      for (int64_t f = 0; f < (side == 0 ? lhs_rows : tn); ++f)
        for (int64_t k0 = 0; k0 < ks; k0 += c_.k_block[side]) {
          std::vector<std::string> names;
          for (int64_t e = 0; e < c_.k_block[side]; ++e) names.push_back(side == 0 ? name(lhs_name, f, k0 + e) : name("b", k0 + e, f));
          VKXLA_ASSIGN_OR_RETURN(std::string load,
                           LoadVector(side, "b", (side == 0 ? lhs_row : "n") + std::to_string(f), at("k", k0), names));
          main += load;
        }
    }
    for (int64_t kk = 0; kk < ks; ++kk) {
      const std::string k = at("k", kk);
      if (c_.lhs == Read::kAlongFree) {
        for (int64_t r = 0; r < tm; r += lanes[0]) {
          std::vector<std::string> names;
          for (int64_t e = 0; e < lanes[0]; ++e) names.push_back(name("a", r + e, kk));
          VKXLA_ASSIGN_OR_RETURN(std::string load, LoadVector(0, "b", "m" + std::to_string(r), k, names));
          main += load;
        }
      } else if (c_.lhs == Read::kElements) {
        for (int64_t r = 0; r < lhs_rows; ++r)
          main += "    " + acc_type_ + " " + name(lhs_name, r, kk) + " = load_a(b, " + lhs_row + std::to_string(r) + ", " + k + ");\n";
      }
      for (int64_t r = 0; c_.share_lhs && r < tm; ++r)
        main += "    " + acc_type_ + " " + name("a", r, kk) + " = subgroupBroadcast(" + name("s", r % lhs_rows, kk) + ", " +
                U(r / lhs_rows) + ");\n";
      if (c_.rhs == Read::kAlongFree) {
        for (int64_t c = 0; c < tn; c += lanes[1]) {
          std::vector<std::string> names;
          for (int64_t e = 0; e < lanes[1]; ++e) names.push_back(name("b", kk, c + e));
          VKXLA_ASSIGN_OR_RETURN(std::string load, LoadVector(1, "b", "n" + std::to_string(c), k, names));
          main += load;
        }
      } else if (c_.rhs == Read::kElements) {
        for (int64_t c = 0; c < tn; ++c)
          main += "    " + acc_type_ + " " + name("b", kk, c) + " = load_b(b, n" + std::to_string(c) + ", " + k +
                  (RowGroups() ? ", uint(grp)" : "") + ");\n";
      }
      if (sub_rows == 0)
        for (int64_t r = 0; r < tm; ++r)
          for (int64_t c = 0; c < tn; ++c) main += "    " + Fma(name("a", r, kk), name("b", kk, c), "acc" + Acc(r, c)) + "\n";
    }
    // Sub-blocks (MatmulConfig::sub_m): each keeps its accumulators over the steps.
    for (int64_t r0 = 0; sub_rows > 0 && r0 < tm; r0 += sub_rows)
      for (int64_t c0 = 0; c0 < tn; c0 += sub_cols)
        for (int64_t kk = 0; kk < ks; ++kk)
          for (int64_t r = r0; r < std::min(tm, r0 + sub_rows); ++r)
            for (int64_t c = c0; c < std::min(tn, c0 + sub_cols); ++c)
              main += "    " + Fma(name("a", r, kk), name("b", kk, c), "acc" + Acc(r, c)) + "\n";
    main += guard.empty() ? "  }\n" : "    }\n  }\n";
    return main;
  }

  // One invocation per result element: the chunks' partial sums in order.
  StatusOr<KernelSource> Sum() {
    const std::string partials = BindBuffer(group_.scratch[0], Access::kRead, "partials");
    const int64_t count = c_.batch * c_.m * c_.n;
    const size_t words = Words("x").size();
    std::string main = "  if (inv >= " + U(count) + ") return;\n";
    main += "  uint n = inv % " + U(c_.n) + ", m = (inv / " + U(c_.n) + ") % " + U(c_.m) + ", b = inv / " + U(c_.m * c_.n) + ";\n";
    std::vector<std::string> at;
    for (size_t w = 0; w < words; ++w) at.push_back("W(" + partials + ", (s * " + U(count) + " + inv) * " + U(words) + " + " + U(w) + ")");
    main += "  " + acc_type_ + " acc = " + (acc_ == ElementType::kPred ? std::string("false") : acc_type_ + "(0)") + ";\n";
    main += "  for (uint s = 0u; s < " + U(c_.splits) + "; ++s) {\n";
    const std::string part = DecodeWords(acc_, at, "0u");
    main += acc_ == ElementType::kPred ? "    acc = acc || (" + part + ");\n" : "    acc += " + part + ";\n";
    main += "  }\n";
    VKXLA_ASSIGN_OR_RETURN(std::string store, Store("acc", "b", "m", "n"));
    return Finish(group_.kernels[1].name, 256, main + store + "}\n");
  }

  static std::string Acc(int64_t r, int64_t c) { return std::to_string(r) + "_" + std::to_string(c); }

  // Set while the epilogue is emitted in one scope (EpilogueIndices): its
  // result-index temps, by expression.
  bool flat_epilogue_ = false;
  std::map<std::string, std::string> epilogue_indices_;
  const MatmulConfig& c_;
  const Instruction& dot_;
  DotPlan plan_;
  std::optional<RaggedDotPlan> ragged_;
  std::optional<ScaledDotPlan> scaled_;
  bool address_functions_[2] = {false, false};
  ElementType acc_ = ElementType::kF32;
  std::string acc_type_;
};

}  // namespace

StatusOr<KernelSource> BuildMatmulKernel(const Program& program, const FusionGroup& group, int kernel) {
  return MatmulKernelBuilder(program, group).Build(kernel);
}

}  // namespace vkxla
