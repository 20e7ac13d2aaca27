// Scan (plan/scan_config.h): one kernel writes every result of the scan,
// element by element (an invocation owns a line, not whole output vectors;
// atomics where elements share words). A scan that is one associative
// operator (inputs, carries and outputs pair up and output i is carry i)
// runs as a parallel prefix: each line's chunks of up to 256 elements are
// scanned in shared memory (Hillis-Steele, earlier elements on the left)
// and joined to the running carry. Any other scan is sequential along its
// dimension, one invocation per line. Long lines run in passes over
// segments (push constant `pass`); each pass starts from the carries the
// previous one stored in the carry results.
#include "codegen/element_emitter.h"
#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "codegen/kernel_builder.h"
#include "ir/layout_index.h"
#include "ops/op_traits.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

// Whether every instruction of `c` acts element by element, so that it can
// be applied to slices one element at a time.
bool IsElementwiseComputation(const Computation& c, const std::vector<int64_t>& slice) {
  for (const auto& inst : c.instructions()) {
    const Shape& s = inst->shape;
    if (s.IsArray() && s.rank() != 0 && s.dims() != slice) return false;
    if (inst->opcode == Opcode::kParameter || inst->opcode == Opcode::kTuple) continue;
    if (inst->opcode == Opcode::kConstant && s.IsArray() && s.element_count() == 1) continue;
    if (inst->opcode == Opcode::kBroadcast && inst->operands[0]->shape.rank() == 0) continue;
    if (!IsElementwise(inst->opcode)) return false;
  }
  return true;
}

class ScanKernelBuilder : public ElementEmitter {
 public:
  ScanKernelBuilder(const Program& program, const FusionGroup& group)
      : ElementEmitter(program, group), c_(std::get<ScanConfig>(group.config)), scan_(*group.hero) {}

  StatusOr<KernelSource> Build() {
    VKXLA_ASSIGN_OR_RETURN(plan_, PlanScan(scan_));
    f_ = scan_.called_computations[0].second;
    const Shape& xs = scan_.operands[0]->shape;
    slice_ = xs.dims();
    slice_.erase(slice_.begin() + c_.dim);
    if (!IsElementwiseComputation(*f_, slice_))
      return Unimplemented("scan " + scan_.Describe() + ": the scan computation %" + f_->name() +
                           " works on whole slices; on Vulkan it must act element by element");
    out_ = program_.buffers[group_.outputs[0].buffer].shape;
    out_layout_ = out_.layout_or_default();
    for (int64_t i = 0; i < plan_.carries; ++i) {
      const ElementType ci = scan_.operands[plan_.inputs + i]->shape.element_type();
      VKXLA_RETURN_IF_ERROR(Use(ci, scan_));
      VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(ci, target_, scan_.Describe()));
      carry_types_.push_back(g);
    }
    for (const GroupOutput& o : group_.outputs) VKXLA_RETURN_IF_ERROR(Use(program_.buffers[o.buffer].shape.element_type(), scan_));
    push_constants_ = "layout(push_constant) uniform Push { uint pass; } pc;\n";
    return c_.parallel ? Parallel() : Sequential();
  }

 private:
  // The line's index in the slice.
  std::vector<std::string> LineIndex(const std::string& line) const {
    GlslIndexArithmetic a;
    std::vector<std::string> idx(slice_.size());
    int64_t stride = 1;
    for (size_t d = slice_.size(); d-- > 0;) {
      idx[d] = a.ModConstant(a.DivConstant(line, stride), slice_[d]);
      stride *= slice_[d];
    }
    return idx;
  }
  std::vector<std::string> FullIndex(const std::vector<std::string>& l, const std::string& at) const {
    std::vector<std::string> idx = l;
    idx.insert(idx.begin() + c_.dim, at);
    return idx;
  }
  std::vector<std::string> CarryIndex(int64_t i, const std::vector<std::string>& l) const {
    return scan_.operands[plan_.inputs + i]->shape.rank() == 0 ? std::vector<std::string>{} : l;
  }
  // The group output holding scan result r, or -1.
  int OutputOfResult(int64_t r) const { return group_.OutputOf(ValueRef{&scan_, r}); }

  // Statements storing `v` as result r at logical `idx`, if the group writes it.
  StatusOr<std::string> StoreResult(int64_t r, const std::vector<std::string>& idx, const std::string& v) {
    const int k = OutputOfResult(r);
    if (k < 0) return std::string();
    return StoreOutputElement(k, idx, v);
  }

  // carry0.. from the init values on the first pass, else from the carry
  // results the previous pass stored.
  StatusOr<std::vector<std::string>> DeclareCarries(const std::vector<std::string>& l, std::string& main) {
    std::vector<std::string> carry;
    for (int64_t i = 0; i < plan_.carries; ++i) {
      VKXLA_ASSIGN_OR_RETURN(std::string init, Value(scan_.operands[plan_.inputs + i], CarryIndex(i, l)));
      std::string value = init;
      if (c_.passes > 1) {
        const int k = OutputOfResult(plan_.outputs + i);
        if (k < 0) return Internal(scan_.Describe() + ": a scan in passes needs its carries in buffers");
        VKXLA_ASSIGN_OR_RETURN(std::string previous, LoadOutputElement(k, CarryIndex(i, l)));
        value = "(pc.pass == 0u ? " + init + " : " + previous + ")";
      }
      carry.push_back("carry" + std::to_string(i));
      body_ += "  " + carry_types_[i].compute + " carry" + std::to_string(i) + " = " + value + ";\n";
    }
    main += body_;
    body_.clear();
    ClearMemo();
    return carry;
  }

  StatusOr<std::string> StoreCarries(const std::vector<std::string>& carry, const std::vector<std::string>& l) {
    std::string s;
    for (int64_t i = 0; i < plan_.carries; ++i) {
      VKXLA_ASSIGN_OR_RETURN(std::string store, StoreResult(plan_.outputs + i, CarryIndex(i, l), carry[i]));
      s += store;
    }
    return s;
  }

  std::string Segment() const {
    return "  uint t0 = pc.pass * " + U(c_.segment) + ", t1 = min(" + U(c_.length) + ", t0 + " + U(c_.segment) + ");\n";
  }
  std::string At() const { return plan_.reverse ? U(c_.length - 1) + " - t" : std::string("t"); }

  StatusOr<KernelSource> Sequential() {
    std::string main = "  if (inv >= " + U(c_.lines) + ") return;\n" + Segment();
    body_.clear();
    ClearMemo();
    const std::vector<std::string> l = LineIndex("inv");
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> carry, DeclareCarries(l, main));
    main += "  for (uint t = t0; t < t1; ++t) {\n    uint at = " + At() + ";\n";
    std::vector<std::string> args;
    for (int64_t i = 0; i < plan_.inputs; ++i) {
      VKXLA_ASSIGN_OR_RETURN(std::string v, Value(scan_.operands[i], FullIndex(l, "at")));
      args.push_back(v);
    }
    args.insert(args.end(), carry.begin(), carry.end());
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> r, Apply(*f_, args));
    for (int64_t o = 0; o < plan_.outputs; ++o) {
      VKXLA_ASSIGN_OR_RETURN(std::string store, StoreResult(o, FullIndex(l, "at"), r[o]));
      body_ += store;
    }
    std::vector<std::string> next(r.begin() + plan_.outputs, r.end());
    for (int64_t i = 0; i < plan_.carries; ++i) next[i] = Temp(carry_types_[i].compute, next[i]);
    for (int64_t i = 0; i < plan_.carries; ++i) body_ += "    " + carry[i] + " = " + next[i] + ";\n";
    main += body_ + "  }\n";
    body_.clear();
    VKXLA_ASSIGN_OR_RETURN(std::string carries, StoreCarries(carry, l));
    main += body_ + carries + "}\n";
    return Finish(group_.kernels[0].name, 256, main);
  }

  StatusOr<KernelSource> Parallel() {
    const int64_t L = c_.L, P = c_.P, m = plan_.carries;
    for (int64_t i = 0; i < m; ++i) shared_ += "shared " + carry_types_[i].compute + " part" + std::to_string(i) + "[256];\n";
    shared_ += "shared bool part_has[256];\n";
    // (a, b) for a earlier than b: the computation with b as the input and a as the carry.
    auto combine = [&](const std::vector<std::string>& earlier, const std::vector<std::string>& later)
        -> StatusOr<std::vector<std::string>> {
      std::vector<std::string> args = later;
      args.insert(args.end(), earlier.begin(), earlier.end());
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> r, Apply(*f_, args));
      std::vector<std::string> c(r.begin() + plan_.outputs, r.end());
      for (int64_t i = 0; i < m; ++i) c[i] = Temp(carry_types_[i].compute, c[i]);
      return c;
    };
    std::string main = "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
    main += "  if (wg >= " + U(c_.groups) + ") return;\n";
    main += "  uint slot = lid / " + U(L) + ", lane = lid % " + U(L) + ", line = min(wg * " + U(P) + " + slot, " +
            U(c_.lines - 1) + ");\n";
    main += "  bool live = wg * " + U(P) + " + slot < " + U(c_.lines) + ";\n" + Segment();
    body_.clear();
    ClearMemo();
    const std::vector<std::string> l = LineIndex("line");
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> carry, DeclareCarries(l, main));
    main += "  for (uint base = t0; base < t1; base += " + U(L) + ") {\n";
    main += "    uint t = min(base + lane, t1 - 1u);\n    uint at = " + At() + ";\n";
    main += "    bool has = base + lane < t1;\n";
    for (int64_t i = 0; i < m; ++i) {
      VKXLA_ASSIGN_OR_RETURN(std::string v, Value(scan_.operands[i], FullIndex(l, "at")));
      body_ += "    part" + std::to_string(i) + "[lid] = " + v + ";\n";
    }
    main += body_ + "    part_has[lid] = has;\n";
    body_.clear();
    ClearMemo();
    // Hillis-Steele: after step s each element holds the fold of its 2s predecessors.
    main += "    for (uint s = 1u; s < " + U(L) + "; s <<= 1u) {\n      barrier();\n";
    main += "      bool take = lane >= s && part_has[lid] && part_has[lid - s];\n";
    std::vector<std::string> earlier, later;
    for (int64_t i = 0; i < m; ++i) {
      earlier.push_back(Temp(carry_types_[i].compute, "part" + std::to_string(i) + "[lane >= s ? lid - s : lid]"));
      later.push_back(Temp(carry_types_[i].compute, "part" + std::to_string(i) + "[lid]"));
    }
    main += body_ + "      barrier();\n      if (take) {\n";
    body_.clear();
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> joined, combine(earlier, later));
    for (int64_t i = 0; i < m; ++i) body_ += "      part" + std::to_string(i) + "[lid] = " + joined[i] + ";\n";
    main += body_ + "      }\n    }\n    barrier();\n";
    body_.clear();
    ClearMemo();
    // This element's value, then the carry past the chunk's last element.
    std::vector<std::string> prefix, last;
    for (int64_t i = 0; i < m; ++i) prefix.push_back(Temp(carry_types_[i].compute, "part" + std::to_string(i) + "[lid]"));
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> value, combine(carry, prefix));
    std::string stores;
    for (int64_t o = 0; o < plan_.outputs; ++o) {
      VKXLA_ASSIGN_OR_RETURN(std::string store, StoreResult(o, FullIndex(l, "at"), value[o]));
      stores += store;
    }
    if (!stores.empty()) body_ += "    if (live && has) {\n" + stores + "    }\n";
    const std::string last_lane = Temp("uint", "slot * " + U(L) + " + min(t1 - base, " + U(L) + ") - 1u");
    for (int64_t i = 0; i < m; ++i) last.push_back(Temp(carry_types_[i].compute, "part" + std::to_string(i) + "[" + last_lane + "]"));
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> next, combine(carry, last));
    for (int64_t i = 0; i < m; ++i) body_ += "    " + carry[i] + " = " + next[i] + ";\n";
    main += body_ + "    barrier();\n  }\n";
    body_.clear();
    VKXLA_ASSIGN_OR_RETURN(std::string carries, StoreCarries(carry, l));
    if (!carries.empty()) main += "  if (live && lane == 0u) {\n" + body_ + carries + "  }\n";
    return Finish(group_.kernels[0].name, 256, main + "}\n");
  }

  const ScanConfig& c_;
  const Instruction& scan_;
  ScanPlan plan_;
  const Computation* f_ = nullptr;
  std::vector<int64_t> slice_;
  std::vector<GlslType> carry_types_;
};

}  // namespace

StatusOr<KernelSource> BuildScanKernel(const Program& program, const FusionGroup& group, int kernel) {
  return ScanKernelBuilder(program, group).Build();
}

}  // namespace vkxla
