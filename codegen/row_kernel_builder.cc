// Row kernels (plan/row_config.h): workgroup `wg` owns row `wg`, the
// kept dims' index in row-major order (or, a lane a row on a CPU device,
// rows_per_group rows, one an invocation, with L = 1 and no shared memory
// or barriers, each lane's trips turned by a cache line of its own). On
// trip t of a walk, invocation
// `lid` owns the per_trip consecutive row elements from (lid + t * L) *
// per_trip: consecutive invocations read consecutive elements, a vector of
// each buffer placed like the row's operand at a time where rows are
// unit-stride. Reduces fold in stages: a stage is a walk over the row in
// which every invocation folds its elements of each of the stage's
// reduces' operands (computed inline, reading the stages before through
// their bound results); the partial folds meet in shared memory in log2(L)
// steps, and the init value joins on the left; each result is then a
// variable every invocation holds. Consecutive reduces that do not read
// one another share a stage (mean and mean of squares: one walk). The
// folds are commutative (the fusion pass checks), so the order is free.
// Row values that read only row results are computed once, after their
// stage. A last walk computes and stores every output, reading the last
// reduce's costly operand from the private array its stage filled where
// the config says so.
#include <functional>

#include "codegen/element_emitter.h"
#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "codegen/kernel_builder.h"
#include "ops/op_traits.h"
#include "plan/vector_source.h"

namespace vkxla {
namespace {

class RowKernelBuilder : public ElementEmitter {
 public:
  RowKernelBuilder(const Program& program, const FusionGroup& group)
      : ElementEmitter(program, group), c_(std::get<RowConfig>(group.config)) {}

  StatusOr<KernelSource> Build() {
    out_ = program_.buffers[group_.outputs[0].buffer].shape;
    out_layout_ = out_.layout_or_default();
    for (const GroupOutput& o : group_.outputs)
      VKXLA_RETURN_IF_ERROR(Use(program_.buffers[o.buffer].shape.element_type(), *o.value.inst));
    std::string main = "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
    if (c_.rows_per_group > 1) {
      // A lane a row: no barriers, so lanes past the last row may leave.
      main += "  uint row = wg * " + U(c_.rows_per_group) + " + lid, lane = 0u;\n  if (row >= " + U(c_.rows) + ") return;\n";
      // Each lane starts its walks a cache line further along its row and
      // wraps around: rows a power of two apart would otherwise put every
      // lane's line, read and written, in one set of the L1 cache, more
      // lines than its ways (llvmpipe, over f32[4096,4096]: a row sum then
      // a subtraction stored 8.9 -> 7.3 ms, layer norm 12.8 -> 10.8 ms).
      const int64_t line_trips = std::max<int64_t>(1, 512 / (c_.per_trip * c_.vector_bits));  // 64 bytes
      if (c_.trips > 1) main += "  uint skew = (lid * " + U(line_trips) + ") % " + U(c_.trips) + ";\n";
    } else {
      main += "  uint row = wg, lane = lid;\n  if (wg >= " + U(c_.rows) + ") return;\n";  // whole workgroups: the barriers stay uniform
    }
    GlslIndexArithmetic a;
    int64_t stride = 1;
    row_index_.assign(c_.row_shape.size(), "0u");
    for (size_t k = c_.batch_dims.size(); k-- > 0;) {
      const int64_t d = c_.batch_dims[k];
      std::string q = a.DivConstant("row", stride);
      if (k > 0) q = a.ModConstant(q, c_.row_shape[d]);
      main += "  uint r" + std::to_string(d) + " = " + q + ";\n";
      row_index_[d] = "r" + std::to_string(d);
      stride *= c_.row_shape[d];
    }
    FindRowValues();
    if (c_.cached) {
      VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(c_.cached->shape.element_type(), target_, c_.cached->Describe()));
      cached_type_ = g.compute;
      main += "  " + cached_type_ + " cache[" + U(c_.trips * c_.per_trip) + "];\n";
    }
    for (const std::vector<size_t>& members : StageMembers()) {
      VKXLA_ASSIGN_OR_RETURN(std::string stage, Stage(members));
      main += stage;
      VKXLA_ASSIGN_OR_RETURN(std::string values, HoistRowValues());
      main += values;
    }
    // The outputs, each element computed once for all of them.
    std::vector<int> whole(group_.outputs.size(), 0);  // outputs stored a vector at a time
    for (size_t k = 0; k < group_.outputs.size(); ++k) {
      const Shape& b = program_.buffers[group_.outputs[k].buffer].shape;
      whole[k] = c_.per_trip > 1 && b.dims() == c_.row_shape && b.layout_or_default() == c_.x_layout &&
                 BitWidth(b.element_type()) == c_.vector_bits;
    }
    auto store = [&](const std::vector<std::string>& idx, int64_t e) -> Status {
      if (c_.cached) Bind(c_.cached, Temp(cached_type_, CacheSlot(e)));
      for (size_t k = 0; k < group_.outputs.size(); ++k) {
        VKXLA_ASSIGN_OR_RETURN(std::string v, ValueOf(group_.outputs[k].value, idx));
        const ElementType t = program_.buffers[group_.outputs[k].buffer].shape.element_type();
        if (whole[k]) {
          // Element e's bits in its word, the word's lower elements first.
          const int64_t per_word = 32 / c_.vector_bits, slot = e % per_word;
          body_ += "        outv" + std::to_string(k) + "[" + U(e / per_word) + "] " + (slot ? "|" : "") + "= " +
                   (slot ? "(" + EncodeToBits(t, v) + " << " + U(slot * c_.vector_bits) + ")" : EncodeToBits(t, v)) + ";\n";
        } else {
          VKXLA_ASSIGN_OR_RETURN(std::string s, StoreOutputElement(k, idx, v));
          body_ += s;
        }
      }
      return OkStatus();
    };
    std::string declare, write;
    for (size_t k = 0; k < group_.outputs.size(); ++k)
      if (whole[k]) {
        declare += "        uvec4 outv" + std::to_string(k) + ";\n";
        write += "        " + WriteVector(BindOutput(k), "vec", "outv" + std::to_string(k)) + "\n";
      }
    VKXLA_ASSIGN_OR_RETURN(std::string trip, Trip(store, declare, write));
    main += Walk(0, trip) + "}\n";
    return Finish(group_.kernels[0].name, c_.WorkgroupSize(), main);
  }

 private:
  // One trip of a walk at trip `t` (a GLSL variable): the invocation's
  // per_trip consecutive elements from jb, `each` emitting each element's
  // statements into body_ at its logical index. Buffers placed like the
  // row's operand are read a vector at a time (`vec`, their vector's index,
  // for `write`). Past the row's end (only where trips are not uniform),
  // nothing runs.
  StatusOr<std::string> Trip(const std::function<Status(const std::vector<std::string>&, int64_t)>& each,
                             const std::string& declare = "", const std::string& write = "") {
    body_.clear();
    ClearMemo();
    vector_loads_.clear();
    const int64_t per = c_.per_trip;
    const bool skewed = c_.rows_per_group > 1 && c_.trips > 1;
    std::string code = skewed ? "    uint ts = t + skew;\n    if (ts >= " + U(c_.trips) + ") ts -= " + U(c_.trips) + ";\n" : "";
    code += "    uint jb = (lane + " + std::string(skewed ? "ts" : "t") + " * " + U(c_.local_size) + ")" + (per > 1 ? " * " + U(per) : "") + ";\n";
    if (!c_.uniform()) code += "    if (jb < " + U(c_.length) + ") {\n";
    std::vector<std::vector<std::string>> idx;
    for (int64_t e = 0; e < per; ++e) idx.push_back(ElementIndex(e == 0 ? std::string("jb") : "jb + " + U(e)));
    trip_first_ = idx[0];
    trip_prelude_.clear();
    trip_hoisted_.clear();
    if (per > 1) {
      VKXLA_ASSIGN_OR_RETURN(std::string p, PhysicalIndex(Shape(ElementType::kF32, c_.row_shape), c_.x_layout, idx[0]));
      body_ += "    uint vec = (" + p + ") / " + U(per) + ";\n";
    }
    const std::string prelude = body_;
    body_.clear();
    for (int64_t e = 0; e < per; ++e) {
      if (per > 1) {
        vector_context_ = VectorContext{Shape(ElementType::kF32, c_.row_shape), c_.x_layout, c_.vector_bits, idx[e]};
        const int64_t per_word = 32 / c_.vector_bits;
        body_ += "        ew = " + U(e / per_word) + ";\n";
        if (per_word > 1) body_ += "        es = " + U(e % per_word) + ";\n";
      }
      VKXLA_RETURN_IF_ERROR(each(idx[e], e));
    }
    vector_context_.reset();
    std::string loads = trip_prelude_;
    trip_first_.clear();
    for (const std::string& b : vector_loads_) loads += "        uvec4 " + b + "_v = " + ReadVector(b, "vec") + ";\n";
    vector_loads_.clear();
    code += prelude + "      {\n" + loads + declare + "        uint ew = 0u, es = 0u;\n" + body_ + write + "      }\n";
    if (!c_.uniform()) code += "    }\n";
    body_.clear();
    ClearMemo();
    return code;
  }

  // Trips `from` to the last of a walk. A GPU keeps the cached value in
  // registers only where every index into it is a constant: there the
  // trips (at most kMaxCachedRowElementsGpu) are written out one by one
  // with t a constant, not left to the driver's unrolling (a loop it keeps
  // puts the array in local memory).
  std::string Walk(int64_t from, const std::string& trip) const {
    if (target_.cpu || !c_.cached)
      return "  for (uint t = " + U(from) + "; t < " + U(c_.trips) + "; ++t) {\n" + trip + "  }\n";
    std::string code;
    for (int64_t t = from; t < c_.trips; ++t) code += "  {\n    const uint t = " + U(t) + ";\n" + trip + "  }\n";
    return code;
  }

  // The row results that are not reduces (layer norm's mean and
  // rsqrt(var + eps)): elementwise ops of the reduces' result shape that
  // read a row result. Computed once per row (HoistRowValues), not per element.
  void FindRowValues() {
    std::set<const Instruction*> results(c_.reduces.begin(), c_.reduces.end());
    const std::vector<int64_t> dims = c_.reduces[0]->shape.dims();
    for (const Instruction* n : group_.fused) {
      if (results.count(n) || !IsElementwise(n->opcode) || !n->shape.IsArray() || n->shape.dims() != dims) continue;
      bool reads_result = false;
      for (const Instruction* o : n->operands) reads_result = reads_result || results.count(o) > 0;
      if (!reads_result) continue;
      results.insert(n);
      row_values_.push_back(n);
    }
    row_results_ = std::move(results);
  }

  // Declares and binds every row value whose row results are all known.
  StatusOr<std::string> HoistRowValues() {
    std::vector<std::string> at;
    for (int64_t d : c_.batch_dims) at.push_back(row_index_[d]);
    std::string code;
    for (const Instruction* n : row_values_) {
      if (hoisted_values_.count(n)) continue;
      bool ready = true;
      for (const Instruction* o : n->operands)
        ready = ready && (!row_results_.count(o) || hoisted_values_.count(o) || IsStageDone(o));
      if (!ready) continue;
      VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(n->shape.element_type(), target_, n->Describe()));
      body_.clear();
      ClearMemo();
      VKXLA_ASSIGN_OR_RETURN(std::string v, Value(n, at));
      const std::string name = "rowv" + std::to_string(hoisted_values_.size());
      code += body_ + "  " + g.compute + " " + name + " = " + v + ";\n";
      body_.clear();
      ClearMemo();
      Bind(n, name);
      hoisted_values_.insert(n);
    }
    return code;
  }
  bool IsStageDone(const Instruction* n) const { return stages_done_.count(n) > 0; }
  // Element e of trip t's slot in the cache (the same in every walk).
  std::string CacheSlot(int64_t e) const { return "cache[t * " + U(c_.per_trip) + " + " + U(e) + "]"; }

  // Reads a value that is not in a buffer but whose index maps land 4
  // consecutive row elements in one aligned vector of a buffer (layer
  // norm's scale and offset broadcast along the rows): one vector read per
  // trip, before the trip's elements.
  StatusOr<std::optional<std::string>> LoadThroughIndexMaps(const Instruction* n) override {
    if (c_.per_trip != 4 || trip_first_.empty()) return std::optional<std::string>();
    const ElementType t = n->shape.element_type();
    if (BitWidth(t) != 32) return std::optional<std::string>();
    const std::optional<VectorSource> source = FindVectorSource(
        n, c_.row_dims.back(), 4, [&](const Instruction* x) { return Materialized(x); });
    if (!source || source->chain.empty()) return std::optional<std::string>();
    auto it = trip_hoisted_.find(n);
    if (it == trip_hoisted_.end()) {
      it = trip_hoisted_.emplace(n, std::to_string(hoisted_++)).first;
      VKXLA_ASSIGN_OR_RETURN(std::string read, ReadHoistedVector(n, *source, it->second, trip_first_, 4));
      trip_prelude_ += read;
    }
    VKXLA_ASSIGN_OR_RETURN(std::string lane, HoistedLane(n, *source, it->second, 32));
    return std::optional<std::string>(lane);
  }

  // The logical index of row element `j` (an expression): the row's kept
  // index and j unflattened over the reduced dims (the last fastest).
  std::vector<std::string> ElementIndex(const std::string& j) {
    GlslIndexArithmetic a;
    std::vector<std::string> idx = row_index_;
    const std::string at = Temp("uint", j);
    int64_t stride = 1;
    for (size_t k = c_.row_dims.size(); k-- > 0;) {
      const int64_t d = c_.row_dims[k];
      std::string q = a.DivConstant(at, stride);
      if (k > 0) q = a.ModConstant(q, c_.row_shape[d]);
      idx[d] = Temp("uint", q);
      stride *= c_.row_shape[d];
    }
    return idx;
  }

  // The reduces in stages: consecutive reduces join a stage while their
  // operands read no row result of it (through the values computed inline).
  std::vector<std::vector<size_t>> StageMembers() const {
    std::vector<std::vector<size_t>> stages;
    std::set<const Instruction*> open;  // the current stage's reduces and the row values reading them
    for (size_t s = 0; s < c_.reduces.size(); ++s) {
      if (stages.empty() || ReadsAny(c_.reduces[s]->operands[0], open)) {
        stages.emplace_back();
        open.clear();
      }
      stages.back().push_back(s);
      open.insert(c_.reduces[s]);
      for (const Instruction* v : row_values_) {
        bool reads = false;
        for (const Instruction* o : v->operands) reads = reads || open.count(o) > 0;
        if (reads) open.insert(v);
      }
    }
    return stages;
  }

  // Whether computing `v` inline reads any of `results` (a value in a
  // buffer is read, not computed).
  bool ReadsAny(const Instruction* v, const std::set<const Instruction*>& results) const {
    if (Materialized(v)) return results.count(v) > 0;
    return !VisitInline(v, materialized_, [&](const Instruction* n) { return !results.count(n); });
  }

  // A stage: red<s>, reduce s's result for this row, for each member s, in
  // every invocation.
  StatusOr<std::string> Stage(const std::vector<size_t>& members) {
    struct Fold {
      const Instruction* r;
      const Computation* f;
      std::string type, red, acc, part;
      bool keep;  // stores its operand in the private array for the outputs' walk
    };
    std::vector<Fold> folds;
    // Several invocations a row meet in a tree; one holds its row's fold.
    const bool tree = c_.local_size > 1;
    // One shared array per compute type and place in the stage serves every
    // stage (a phone's 16 KiB would not hold 8 stages' own); a barrier
    // before each later stage's writes keeps the last stage's results
    // readable until all read them.
    std::map<std::string, int> of_type;
    for (size_t s : members) {
      const Instruction& r = *c_.reduces[s];
      VKXLA_RETURN_IF_ERROR(Use(r.shape.element_type(), r));
      VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(r.shape.element_type(), target_, r.Describe()));
      const std::string key = g.compute + "#" + std::to_string(of_type[g.compute]++);
      auto [slot, fresh] = part_arrays_.emplace(key, "part" + std::to_string(part_arrays_.size()));
      if (fresh && tree) shared_ += "shared " + g.compute + " " + slot->second + "[" + U(c_.local_size) + "];\n";
      folds.push_back({&r, r.called_computations[0].second, g.compute, "red" + std::to_string(s), "acc" + std::to_string(s),
                       slot->second, c_.cached == r.operands[0] && s + 1 == c_.reduces.size()});
    }
    const std::string has = "part_has";
    const bool first_stage = members.front() == 0;
    if (first_stage && tree) shared_ += "shared bool " + has + "[" + U(c_.local_size) + "];\n";
    // Each invocation's folds; uniform trips take the first element as it is.
    bool first = c_.uniform();
    auto fold = [&](const std::vector<std::string>& idx, int64_t e) -> Status {
      std::vector<std::string> xs;
      for (const Fold& k : folds) {
        VKXLA_ASSIGN_OR_RETURN(std::string x, Value(k.r->operands[0], idx));
        if (k.keep) body_ += "        " + CacheSlot(e) + " = " + x + ";\n";
        xs.push_back(x);
      }
      if (first && e == 0) {
        for (size_t i = 0; i < folds.size(); ++i) body_ += "        " + folds[i].acc + " = " + xs[i] + ";\n";
        return OkStatus();
      }
      if (!first) body_ += "        if (has) {\n";
      for (size_t i = 0; i < folds.size(); ++i) {
        VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> folded, Apply(*folds[i].f, {folds[i].acc, xs[i]}));
        VKXLA_RETURN_IF_ERROR(Assign(folds[i].r, {folds[i].acc}, folded));
      }
      if (!first) {
        body_ += "        } else {\n";
        for (size_t i = 0; i < folds.size(); ++i) body_ += "          " + folds[i].acc + " = " + xs[i] + ";\n";
        body_ += "        }\n        has = true;\n";
      }
      return OkStatus();
    };
    std::string code;
    for (const Fold& k : folds) code += "  " + k.type + " " + k.red + ";\n";
    code += "  {\n";
    for (const Fold& k : folds) code += "    " + k.type + " " + k.acc + ";\n";
    code += "    bool has = " + std::string(c_.uniform() ? "true" : "false") + ";\n";
    if (c_.uniform()) {
      VKXLA_ASSIGN_OR_RETURN(std::string peeled, Trip(fold));
      code += "  {\n    const uint t = 0u;\n" + peeled + "  }\n";
      first = false;
      // Later trips fold every element.
      auto fold_all = [&](const std::vector<std::string>& idx, int64_t e) -> Status {
        for (const Fold& k : folds) {
          VKXLA_ASSIGN_OR_RETURN(std::string x, Value(k.r->operands[0], idx));
          if (k.keep) body_ += "        " + CacheSlot(e) + " = " + x + ";\n";
          VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> folded, Apply(*k.f, {k.acc, x}));
          VKXLA_RETURN_IF_ERROR(Assign(k.r, {k.acc}, folded));
        }
        return OkStatus();
      };
      VKXLA_ASSIGN_OR_RETURN(std::string trip, Trip(fold_all));
      code += Walk(1, trip);
    } else {
      VKXLA_ASSIGN_OR_RETURN(std::string trip, Trip(fold));
      code += Walk(0, trip);
    }
    // The tree: at step h, invocation lid < h takes in lid + h. (A lane a
    // row: its fold is the row's.)
    if (tree) {
      code += std::string(first_stage ? "" : "    barrier();\n");
      for (const Fold& k : folds) code += "    " + k.part + "[lid] = " + k.acc + ";\n";
      code += "    " + has + "[lid] = has;\n";
      code += "    for (uint h = " + U(c_.local_size / 2) + "; h > 0u; h >>= 1u) {\n      barrier();\n";
      code += "      if (lid < h && " + has + "[lid + h]) {\n        if (" + has + "[lid]) {\n";
      body_.clear();
      ClearMemo();
      for (const Fold& k : folds) {
        const std::string mine = Temp(k.type, k.part + "[lid]"), other = Temp(k.type, k.part + "[lid + h]");
        VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> joined, Apply(*k.f, {mine, other}));
        VKXLA_RETURN_IF_ERROR(Assign(k.r, {k.part + "[lid]"}, joined));
      }
      code += body_ + "        } else {\n";
      for (const Fold& k : folds) code += "          " + k.part + "[lid] = " + k.part + "[lid + h];\n";
      code += "        }\n        " + has + "[lid] = true;\n      }\n    }\n    barrier();\n";
    }
    // The init values on the left, once.
    for (const Fold& k : folds) {
      body_.clear();
      ClearMemo();
      VKXLA_ASSIGN_OR_RETURN(std::string init, Value(k.r->operands[1], {}));
      code += body_ + "    " + k.red + " = " + init + ";\n    if (" + (tree ? has + "[0]" : "has") + ") {\n";
      body_.clear();
      const std::string total = tree ? Temp(k.type, k.part + "[0]") : k.acc;
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> joined, Apply(*k.f, {k.red, total}));
      VKXLA_RETURN_IF_ERROR(Assign(k.r, {k.red}, joined));
      code += body_ + "    }\n";
    }
    code += "  }\n";
    body_.clear();
    ClearMemo();
    for (const Fold& k : folds) {
      Bind(k.r, k.red);
      stages_done_.insert(k.r);
    }
    return code;
  }

  const RowConfig& c_;
  std::vector<std::string> row_index_;
  std::vector<const Instruction*> row_values_;
  std::set<const Instruction*> row_results_, hoisted_values_, stages_done_;
  // The current trip's first element, its hoisted vector reads.
  std::vector<std::string> trip_first_;
  std::string trip_prelude_;
  std::map<const Instruction*, std::string> trip_hoisted_;
  int hoisted_ = 0;
  std::string cached_type_;
  std::map<std::string, std::string> part_arrays_;  // compute type and place in a stage -> its shared array
};

}  // namespace

StatusOr<KernelSource> BuildRowKernel(const Program& program, const FusionGroup& group, int kernel) {
  return RowKernelBuilder(program, group).Build();
}

}  // namespace vkxla
