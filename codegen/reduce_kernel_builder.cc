// Reduce kernels (plan/reduce_config.h says which and how wide).
//
// First pass: a workgroup of 256 invocations owns P result slots (whole
// output vectors) and gives each L lanes. Each lane folds its share of the
// slot's chunk of the reduced elements, the partials meet in shared memory
// in log2(L) steps, neighbour by neighbour, so the order of the elements is
// kept: any associative computation gives the sequential answer,
// commutative or not. Only a known commutative op reading along its rows
// strides its lanes. Where the operand's unit-stride dim is reduced, the
// lanes of one slot are consecutive ("rows"); otherwise consecutive
// invocations take consecutive results ("columns"). 32-bit operands are
// read a vector at a time. With one chunk, the init value is applied once,
// on the left, the epilogue computed and the results stored; with several,
// each slot writes its partial result instead. Column blocks: one
// invocation folds 16 rows of 4 results into partials.
// Later passes fold 16 partials at a time; the final pass applies the init
// value and the epilogue to the last few.
// The reduce also writes operands the plan materializes through it
// (softmax's exp(x - max)) as it reads them.
#include <algorithm>

#include "codegen/element_emitter.h"
#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "codegen/kernel_builder.h"
#include "ir/layout_index.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

class ReduceKernelBuilder : public ElementEmitter {
 public:
  ReduceKernelBuilder(const Program& program, const FusionGroup& group)
      : ElementEmitter(program, group), c_(std::get<ReduceConfig>(group.config)), h_(*group.hero) {}

  StatusOr<KernelSource> Build(int kernel) {
    VKXLA_ASSIGN_OR_RETURN(plan_, PlanReduce(h_));
    n_ = plan_.arity;
    f_ = h_.called_computations[0].second;
    for (int64_t i = 0; i < n_; ++i) {
      const ElementType ti = h_.operands[i]->shape.element_type();
      VKXLA_RETURN_IF_ERROR(Use(ti, h_));
      VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(ti, target_, h_.Describe()));
      types_.push_back(g);
    }
    for (size_t k = 0; k < group_.outputs.size(); ++k) {
      const ValueRef& v = group_.outputs[k].value;
      auto operand = std::find(h_.operands.begin(), h_.operands.begin() + n_, v.inst);
      if (v.inst != &h_ && operand != h_.operands.begin() + n_) {
        operand_outputs_.emplace_back(k, operand - h_.operands.begin());
      } else {
        results_.emplace_back(k, v.inst == &h_ ? std::max<int64_t>(v.index, 0) : 0);
        epilogue_ = epilogue_ || v.inst != &h_;
      }
    }
    if (results_.empty()) return Internal(h_.Describe() + ": a reduce kernel without results");
    out_ = program_.buffers[group_.outputs[results_[0].first].buffer].shape;
    out_layout_ = out_.layout_or_default();
    for (const auto& [k, r] : results_) VKXLA_RETURN_IF_ERROR(Use(program_.buffers[group_.outputs[k].buffer].shape.element_type(), h_));
    VKXLA_ASSIGN_OR_RETURN(out_bits_, ElementStorageBits(out_.element_type(), out_layout_));
    const std::string& name = group_.kernels[kernel].name;
    if (!c_.split()) return FirstPass(name);
    if (kernel == 0) return c_.mode == ReduceConfig::Mode::kColumnBlocks ? ColumnBlocksPass(name) : FirstPass(name);
    if (kernel < static_cast<int>(c_.parts.size())) return FoldPass(name, kernel);
    return FinalPass(name);
  }

 private:
  std::string Partials(int64_t i, Access access) {
    return BindBuffer(group_.scratch[i], access, "partials" + std::to_string(i));
  }
  int Words(int64_t i) const { return WordsPerElement(h_.operands[i]->shape.element_type()); }
  // Partial element `index` (a uint expression) of operand i's partials.
  std::string ReadPartial(int64_t i, const std::string& index) {
    const std::string b = Partials(i, Access::kReadWrite);
    std::vector<std::string> words;
    for (int w = 0; w < Words(i); ++w) words.push_back("W(" + b + ", (" + index + ") * " + U(Words(i)) + " + " + U(w) + ")");
    return Temp(types_[i].compute, DecodeWords(h_.operands[i]->shape.element_type(), words, "0u"));
  }
  std::string WritePartial(int64_t i, const std::string& index, const std::string& value) {
    const std::string b = Partials(i, Access::kReadWrite);
    const ElementType t = h_.operands[i]->shape.element_type();
    const std::string at = "(" + index + ") * " + U(Words(i));
    if (t == ElementType::kC128)
      return "    { uint w = " + at + "; " + b + ".v[w >> 2u] = uvec4(unpackDouble2x32(" + value + ".x), unpackDouble2x32(" +
             value + ".y)); }\n";
    if (Words(i) == 2)
      return "    { uint w = " + at + "; uvec2 bits = " + Bits64(t, value) + "; W(" + b + ", w) = bits.x; W(" + b +
             ", w + 1u) = bits.y; }\n";
    return "    W(" + b + ", " + at + ") = " + EncodeToBits(t, value) + ";\n";
  }

  // Statements storing the results (and their epilogue) of the output
  // element at physical `pp` into outv<k>, from the folded values `res`.
  StatusOr<std::string> StoreResults(const std::string& pp, const std::vector<std::string>& res) {
    std::vector<std::string> idx;
    if (epilogue_) {
      // The epilogue reads the reduce's value at the result's logical index.
      VKXLA_ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out_));
      GlslIndexArithmetic a;
      std::string valid;
      idx = out_map.FromPhysical<GlslIndexArithmetic>(pp, a, valid);
      for (std::string& i : idx) i = Temp("uint", i);
      Bind(&h_, res[0]);
    }
    std::string code;
    for (const auto& [k, r] : results_) {
      const GroupOutput& o = group_.outputs[k];
      std::string v = res[r];
      if (o.value.inst != &h_) {
        VKXLA_ASSIGN_OR_RETURN(v, ValueOf(o.value, idx));
      }
      code += StoreInto("outv" + std::to_string(k), program_.buffers[o.buffer].shape.element_type(), v);
    }
    return code;
  }
  std::string StoreInto(const std::string& vector, ElementType t, const std::string& v) {
    std::string s = StoreElement(t, v);
    size_t pos = 0;
    while ((pos = s.find("outv", pos)) != std::string::npos) {
      s.replace(pos, 4, vector);
      pos += vector.size();
    }
    return s;
  }
  std::string DeclareOutputVectors() const {
    std::string s;
    for (const auto& [k, r] : results_) s += "  uvec4 outv" + std::to_string(k) + " = uvec4(0u);\n";
    return s;
  }
  std::string WriteOutputVectors(const std::string& vec) {
    std::string s;
    for (const auto& [k, r] : results_) s += "  " + WriteVector(BindOutput(k), vec, "outv" + std::to_string(k)) + "\n";
    return s;
  }

  std::string Acc(int64_t i, int64_t g) const { return "acc" + std::to_string(i) + "_" + std::to_string(g); }

  // One fold step at reduced position `k` (a GLSL variable) for the slot
  // whose kept indices are `base_at`; `first` assigns instead of folding.
  StatusOr<std::string> Step(const std::string& k, bool first, const std::vector<std::string>& base_at) {
    GlslIndexArithmetic a;
    const Shape& xs = h_.operands[0]->shape;
    body_.clear();
    ClearMemo();
    vector_loads_.clear();
    std::vector<std::string> at = base_at;
    std::string vector_index;
    if (!c_.row_vectors) {
      int64_t stride = 1;
      for (size_t r = plan_.reduced.size(); r-- > 0;) {
        const int64_t d = plan_.reduced[r];
        std::string q = a.DivConstant(k, stride);
        if (r > 0) q = a.ModConstant(q, xs.dim(d));
        at[d] = Temp("uint", q);
        stride *= xs.dim(d);
      }
    }
    if (c_.row_vectors) {
      std::vector<std::string> start = at;
      start[c_.unit] = "0u";
      VKXLA_ASSIGN_OR_RETURN(std::string base, PhysicalIndex(xs, c_.x_layout, start));
      vector_index = "((" + base + ") >> 2u) + " + k;
    } else if (c_.column_vectors) {
      VKXLA_ASSIGN_OR_RETURN(std::string first_element, PhysicalIndex(xs, c_.x_layout, at));
      vector_index = "(" + first_element + ") >> 2u";
    }
    const std::string prelude = body_;
    body_.clear();
    ClearMemo();
    vector_loads_.clear();
    // Four elements (one vector along the row, or across 4 results) or one.
    const int64_t elements = c_.row_vectors || c_.column_vectors ? 4 : 1;
    for (int64_t e = 0; e < elements; ++e) {
      std::vector<std::string> idx = at;
      if (c_.row_vectors) idx[c_.unit] = Temp("uint", k + " * 4u + " + U(e));
      if (c_.column_vectors) idx[c_.unit] = Temp("uint", base_at[c_.unit] + " + " + U(e));
      if (elements == 4) {
        // Buffers placed like the operand are word e of this step's vector.
        vector_context_ = VectorContext{Shape(xs.element_type(), xs.dims()), c_.x_layout, 32, idx};
        body_ += "    ew = " + U(e) + ";\n";
      }
      std::vector<std::string> x;
      for (int64_t i = 0; i < n_; ++i) {
        VKXLA_ASSIGN_OR_RETURN(std::string v, Value(h_.operands[i], idx));
        x.push_back(v);
      }
      // Operands this kernel also writes, as it reads them.
      for (const auto& [o, i] : operand_outputs_) {
        const BufferDecl& b = program_.buffers[group_.outputs[o].buffer];
        VKXLA_ASSIGN_OR_RETURN(std::string p, PhysicalIndex(b.shape, b.shape.layout_or_default(), idx));
        VKXLA_ASSIGN_OR_RETURN(const int bits, ElementStorageBits(b.shape.element_type(), b.shape.layout_or_default()));
        VKXLA_ASSIGN_OR_RETURN(std::string store,
                         StoreScattered(BindOutput(o), bits, b.shape.element_type(), Temp("uint", p), x[i]));
        body_ += store;
      }
      const int64_t g = c_.column_vectors ? e : 0;
      std::vector<std::string> accs;
      for (int64_t i = 0; i < n_; ++i) accs.push_back(Acc(i, g));
      if (first && (c_.column_vectors || e == 0)) {
        for (int64_t i = 0; i < n_; ++i) body_ += "    " + accs[i] + " = " + x[i] + ";\n";
      } else {
        std::vector<std::string> args = accs;
        args.insert(args.end(), x.begin(), x.end());
        VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f_, args));
        VKXLA_RETURN_IF_ERROR(Assign(&h_, accs, next));
      }
    }
    vector_context_.reset();
    std::string loads;
    for (const std::string& b : vector_loads_) loads += "    uvec4 " + b + "_v = " + ReadVector(b, vector_index) + ";\n";
    vector_loads_.clear();
    return prelude + "    {\n" + loads + "    uint ew = 0u, es = 0u;\n" + body_ + "    }\n";
  }

  StatusOr<KernelSource> FirstPass(const std::string& name) {
    const int64_t L = c_.L, P = c_.P, G = c_.G, E = c_.E;
    const bool rows = c_.mode == ReduceConfig::Mode::kRows;
    VKXLA_ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out_));
    GlslIndexArithmetic a;
    std::string valid;
    const std::vector<std::string> out_index =
        out_map.FromPhysical<GlslIndexArithmetic>(c_.column_vectors ? "(p * 4u)" : "p", a, valid);

    std::string fold = "  uint s = wg * " + U(P) + " + slot;\n";
    fold += c_.chunks == 1 ? "  uint p = s, chunk = 0u;\n" : "  uint p = s % " + U(c_.slots) + ", chunk = s / " + U(c_.slots) + ";\n";
    fold += "  bool live = s < " + U(c_.slots * c_.chunks) + (valid == "true" ? "" : " && (" + valid + ")") + ";\n";
    if (c_.lockstep) fold += "  p = min(p, " + U(c_.slots - 1) + ");\n";  // every lane loads something in bounds
    std::vector<std::string> base_at(h_.operands[0]->shape.rank());
    for (size_t k = 0; k < plan_.kept.size(); ++k) {
      fold += "  uint i" + std::to_string(k) + " = " + out_index[k] + ";\n";
      base_at[plan_.kept[k]] = "i" + std::to_string(k);
    }
    for (int64_t g = 0; g < G; ++g)
      for (int64_t i = 0; i < n_; ++i) fold += "  " + types_[i].compute + " " + Acc(i, g) + ";\n";
    const int64_t lane_chunk = (c_.chunk_steps + L - 1) / L;
    fold += "  uint c0 = chunk * " + U(c_.chunk_steps) + ", c1 = min(" + U(c_.steps) + ", c0 + " + U(c_.chunk_steps) + ");\n";
    fold += c_.strided ? "  uint k0 = c0 + lane, k1 = c1, dk = " + U(L) + ";\n"
                       : "  uint k0 = c0 + lane * " + U(lane_chunk) + ", k1 = min(c1, k0 + " + U(lane_chunk) + "), dk = 1u;\n";
    fold += "  bool has = live && k0 < k1;\n";
    VKXLA_ASSIGN_OR_RETURN(std::string first_step, Step("k0", true, base_at));
    VKXLA_ASSIGN_OR_RETURN(std::string next_step, Step("k", false, base_at));
    if (c_.lockstep) {
      // The workgroup walks the rows in step (a barrier every 16 rows), so
      // its invocations read each row as one contiguous run.
      fold += "  {\n" + first_step + "  }\n  for (uint k = 1u; k < " + U(c_.steps) +
              "; ++k) {\n    if ((k & 15u) == 0u) barrier();\n" + next_step + "  }\n";
    } else {
      fold += "  if (has) {\n  {\n" + first_step + "  }\n  for (uint k = k0 + dk; k < k1; k += dk) {\n" + next_step + "  }\n  }\n";
    }
    // The tree: at step s, lane l (a multiple of 2s) takes in lane l + s.
    const std::string me = "lid * " + U(G) + " + g", other = "other * " + U(G) + " + g";
    std::string tree;
    for (int64_t g = 0; g < G; ++g) {
      const std::string at = "lid * " + U(G) + " + " + U(g);
      for (int64_t i = 0; i < n_; ++i) tree += "  part" + std::to_string(i) + "[" + at + "] = " + Acc(i, g) + ";\n";
      tree += "  part_has[" + at + "] = has;\n";
    }
    tree += "  for (uint s = 1u; s < " + U(L) + "; s <<= 1u) {\n    barrier();\n";
    tree += "    if ((lane & (2u * s - 1u)) == 0u && lane + s < " + U(L) + ") {\n";
    tree += "    uint other = " + std::string(rows ? "lid + s" : "lid + s * " + U(P)) + ";\n";
    tree += "    for (uint g = 0u; g < " + U(G) + "; ++g) {\n";
    tree += "    if (part_has[" + other + "]) {\n    if (part_has[" + me + "]) {\n";
    body_.clear();
    ClearMemo();
    {
      std::vector<std::string> args, mine;
      for (int64_t i = 0; i < n_; ++i) args.push_back(Temp(types_[i].compute, "part" + std::to_string(i) + "[" + me + "]"));
      for (int64_t i = 0; i < n_; ++i) args.push_back(Temp(types_[i].compute, "part" + std::to_string(i) + "[" + other + "]"));
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f_, args));
      for (int64_t i = 0; i < n_; ++i) mine.push_back("part" + std::to_string(i) + "[" + me + "]");
      VKXLA_RETURN_IF_ERROR(Assign(&h_, mine, next));
    }
    tree += body_ + "    } else {\n";
    for (int64_t i = 0; i < n_; ++i)
      tree += "    part" + std::to_string(i) + "[" + me + "] = part" + std::to_string(i) + "[" + other + "];\n";
    tree += "    }\n    part_has[" + me + "] = true;\n    }\n    }\n    }\n  }\n  barrier();\n";

    std::string store;
    if (c_.split()) {
      // Each slot's first lane writes its partial results: partial `chunk`
      // of physical result q at chunk * O + q.
      const std::string slot_lid = rows ? "slot * " + U(L) : "slot";
      store = "  if (lane == 0u && live) {\n";
      body_.clear();
      ClearMemo();
      for (int64_t g = 0; g < G; ++g) {
        const std::string q = c_.column_vectors ? "p * 4u + " + U(g) : "p";
        const std::string at = "chunk * " + U(c_.physical) + " + " + q;
        for (int64_t i = 0; i < n_; ++i)
          body_ += WritePartial(i, at, "part" + std::to_string(i) + "[" + slot_lid + " * " + U(G) + " + " + U(g) + "]");
      }
      store += body_ + "  }\n";
    } else {
      // The stores: each of the first P * G / E invocations writes one
      // vector of every result, the init value on the left.
      body_.clear();
      ClearMemo();
      std::vector<std::string> res;
      for (int64_t i = 0; i < n_; ++i) {
        VKXLA_ASSIGN_OR_RETURN(std::string init, Value(h_.operands[n_ + i], {}));
        res.push_back(Temp(types_[i].compute, init));
      }
      body_ += "    if (part_has[src]) {\n";
      {
        std::vector<std::string> args = res;
        for (int64_t i = 0; i < n_; ++i) args.push_back(Temp(types_[i].compute, "part" + std::to_string(i) + "[src]"));
        VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f_, args));
        VKXLA_RETURN_IF_ERROR(Assign(&h_, res, next));
      }
      body_ += "    }\n";
      const int64_t writers = P * G / E;
      store = "  if (lid < " + U(writers) + ") {\n  uint vec = wg * " + U(writers) + " + lid;\n";
      store += "  if (vec < " + U(c_.vectors) + ") {\n" + DeclareOutputVectors();
      store += "  for (uint e = 0u; e < " + U(E) + "; ++e) {\n" + VectorSlot();
      // The partial of result element e of this vector: slot-major, G per slot.
      const std::string element = "(lid * " + U(E) + " + e)";
      const std::string src = c_.column_vectors ? "lid * 4u + e" : rows ? element + " * " + U(L) : element;
      store += "    uint src = " + src + ";\n";
      VKXLA_ASSIGN_OR_RETURN(std::string results, StoreResults("(vec * " + U(E) + " + e)", res));
      store += body_ + results + "  }\n" + WriteOutputVectors("vec") + "  }\n  }\n";
    }
    for (int64_t i = 0; i < n_; ++i)
      shared_ += "shared " + types_[i].compute + " part" + std::to_string(i) + "[" + U(256 * G) + "];\n";
    shared_ += "shared bool part_has[" + U(256 * G) + "];\n";
    std::string main = "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
    main += "  if (wg >= " + U(c_.groups) + ") return;\n";
    main += rows ? "  uint slot = lid / " + U(L) + ", lane = lid % " + U(L) + ";\n"
                 : "  uint slot = lid % " + U(P) + ", lane = lid / " + U(P) + ";\n";
    return Finish(name, 256, main + fold + tree + store + "}\n");
  }

  // Column vectors in blocks of 16 rows: an invocation per (block, result
  // vector) folds its rows in a loop of constant length (which drivers
  // unroll: each load then walks memory at a fixed stride across
  // invocations) and writes 4 partials per operand.
  StatusOr<KernelSource> ColumnBlocksPass(const std::string& name) {
    VKXLA_ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out_));
    GlslIndexArithmetic a;
    std::string valid;
    const std::vector<std::string> out_index = out_map.FromPhysical<GlslIndexArithmetic>("(p * 4u)", a, valid);
    std::string fold = "  uint p = inv % " + U(c_.slots) + ", block = inv / " + U(c_.slots) + ";\n";
    fold += "  if (block >= " + U(c_.chunks) + ") return;\n";
    std::vector<std::string> base_at(h_.operands[0]->shape.rank());
    for (size_t k = 0; k < plan_.kept.size(); ++k) {
      fold += "  uint i" + std::to_string(k) + " = " + out_index[k] + ";\n";
      base_at[plan_.kept[k]] = "i" + std::to_string(k);
    }
    for (int64_t g = 0; g < 4; ++g)
      for (int64_t i = 0; i < n_; ++i) fold += "  " + types_[i].compute + " " + Acc(i, g) + ";\n";
    fold += "  uint k0 = block * " + U(kPartialsPerFold) + ", k1 = min(" + U(c_.steps) + ", k0 + " + U(kPartialsPerFold) + ");\n";
    VKXLA_ASSIGN_OR_RETURN(std::string first_step, Step("k0", true, base_at));
    VKXLA_ASSIGN_OR_RETURN(std::string next_step, Step("k", false, base_at));
    fold += "  {\n" + first_step + "  }\n  for (uint r = 1u; r < " + U(kPartialsPerFold) + "; ++r) {\n    uint k = k0 + r;\n";
    fold += (c_.steps % kPartialsPerFold == 0 ? "    {\n" : "    if (k < k1) {\n") + next_step + "    }\n  }\n";
    for (int64_t i = 0; i < n_; ++i) {
      std::string words;
      for (int64_t g = 0; g < 4; ++g)
        words += (g ? ", " : "") + EncodeToBits(h_.operands[i]->shape.element_type(), Acc(i, g));
      fold += "  " + WriteVector(Partials(i, Access::kWrite), "block * " + U(c_.slots) + " + p", "uvec4(" + words + ")") + "\n";
    }
    return Finish(name, 256, "  if (inv >= " + U(c_.slots * c_.chunks) + ") return;\n" + fold + "}\n");
  }

  // Pass `pass` folds blocks of 16 of the previous pass's partials, from
  // one region of the partials buffers into the other.
  StatusOr<KernelSource> FoldPass(const std::string& name, int pass) {
    const int64_t O = c_.physical, blocks = c_.parts[pass], in_parts = c_.parts[pass - 1];
    const int64_t from = c_.RegionOffset(pass - 1), to = c_.RegionOffset(pass);
    const int64_t per = c_.fold_vectors ? 4 : 1, units = O / per;
    std::string main = "  uint q = inv % " + U(units) + ", block = inv / " + U(units) + ";\n";
    main += "  if (block >= " + U(blocks) + ") return;\n  uint first = block * " + U(kPartialsPerFold) + ";\n";
    // acc<i>_<e>: operand i, result q * per + e.
    body_.clear();
    ClearMemo();
    auto load = [&](const std::string& row, bool first) -> Status {
      for (int64_t i = 0; i < n_; ++i) {
        const ElementType t = h_.operands[i]->shape.element_type();
        std::vector<std::string> values;
        if (c_.fold_vectors) {
          const std::string w = Temp("uvec4", ReadVector(Partials(i, Access::kReadWrite),
                                                         "(" + U(from) + " + (" + row + ") * " + U(O) + ") / 4u + q"));
          for (int e = 0; e < 4; ++e) values.push_back(Temp(types_[i].compute, DecodeWords(t, {w + "[" + U(e) + "]"}, "0u")));
        } else {
          values.push_back(ReadPartial(i, U(from) + " + (" + row + ") * " + U(O) + " + q"));
        }
        for (int64_t e = 0; e < per; ++e) {
          if (first) {
            body_ += "    " + types_[i].compute + " " + Acc(i, e) + " = " + values[e] + ";\n";
          } else {
            folded_[i * per + e] = values[e];
          }
        }
      }
      if (first) return OkStatus();
      for (int64_t e = 0; e < per; ++e) {
        std::vector<std::string> args, accs;
        for (int64_t i = 0; i < n_; ++i) accs.push_back(Acc(i, e));
        args = accs;
        for (int64_t i = 0; i < n_; ++i) args.push_back(folded_[i * per + e]);
        VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f_, args));
        VKXLA_RETURN_IF_ERROR(Assign(&h_, accs, next));
      }
      return OkStatus();
    };
    folded_.assign(n_ * per, "");
    VKXLA_RETURN_IF_ERROR(load("first", true));
    main += body_;
    body_.clear();
    main += "  for (uint r = 1u; r < " + U(kPartialsPerFold) + "; ++r) {\n";
    main += std::string(in_parts % kPartialsPerFold == 0 ? "  {\n" : "  if (first + r < " + U(in_parts) + ") {\n");
    VKXLA_RETURN_IF_ERROR(load("first + r", false));
    main += body_ + "  }\n  }\n";
    body_.clear();
    for (int64_t i = 0; i < n_; ++i) {
      if (c_.fold_vectors) {
        std::string words;
        for (int64_t e = 0; e < 4; ++e) words += (e ? ", " : "") + EncodeToBits(h_.operands[i]->shape.element_type(), Acc(i, e));
        body_ += "  " + WriteVector(Partials(i, Access::kReadWrite), "(" + U(to) + " + block * " + U(O) + ") / 4u + q",
                                    "uvec4(" + words + ")") + "\n";
      } else {
        body_ += WritePartial(i, U(to) + " + block * " + U(O) + " + q", Acc(i, 0));
      }
    }
    main += body_ + "}\n";
    return Finish(name, 256, main);
  }

  // The init value on the left, then the last partials in order, the
  // epilogue, and the stores: an invocation per output vector.
  StatusOr<KernelSource> FinalPass(const std::string& name) {
    const int64_t O = c_.physical, parts = c_.parts.back(), E = c_.E;
    const int64_t region = c_.RegionOffset(c_.parts.size() - 1);
    body_.clear();
    ClearMemo();
    std::vector<std::string> inits;
    for (int64_t i = 0; i < n_; ++i) {
      VKXLA_ASSIGN_OR_RETURN(std::string init, Value(h_.operands[n_ + i], {}));
      inits.push_back(init);
    }
    const std::string prelude = body_;
    std::string main = "  if (inv >= " + U(c_.vectors) + ") return;\n" + prelude + DeclareOutputVectors();
    main += "  for (uint e = 0u; e < " + U(E) + "; ++e) {\n";
    body_ = VectorSlot() + "    uint pp = inv * " + U(E) + " + e;\n";
    ClearMemo();
    std::vector<std::string> acc;
    for (int64_t i = 0; i < n_; ++i) acc.push_back(Temp(types_[i].compute, inits[i]));
    body_ += "    for (uint j = 0u; j < " + U(parts) + "; ++j) {\n";
    const Memo outside = SaveMemo();
    std::vector<std::string> args = acc;
    for (int64_t i = 0; i < n_; ++i) args.push_back(ReadPartial(i, U(region) + " + j * " + U(O) + " + pp"));
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f_, args));
    VKXLA_RETURN_IF_ERROR(Assign(&h_, acc, next));
    body_ += "    }\n";
    RestoreMemo(outside);
    VKXLA_ASSIGN_OR_RETURN(std::string results, StoreResults("pp", acc));
    main += body_ + results + "  }\n" + WriteOutputVectors("inv") + "}\n";
    return Finish(name, 256, main);
  }

  const ReduceConfig& c_;
  const Instruction& h_;
  ReducePlan plan_;
  int64_t n_ = 1;
  const Computation* f_ = nullptr;
  std::vector<GlslType> types_;
  std::vector<std::pair<size_t, int64_t>> results_;          // (output, result index of the reduce)
  std::vector<std::pair<size_t, int64_t>> operand_outputs_;  // (output, operand index)
  bool epilogue_ = false;
  std::vector<std::string> folded_;
};

}  // namespace

StatusOr<KernelSource> BuildReduceKernel(const Program& program, const FusionGroup& group, int kernel) {
  return ReduceKernelBuilder(program, group).Build(kernel);
}

}  // namespace vkxla
