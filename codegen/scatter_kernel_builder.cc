// Scatter (plan/scatter_config.h). kOwner: each invocation owns one result
// element, starts from the operand's value and combines in every update
// whose window covers it, in row-major order of the update scatter index.
// No two invocations write one element, so any update computation and any
// collisions give the same, deterministic answer, without atomics. The
// updates run in passes of a bounded count (push constant `pass`), the
// partial result kept in the results between them. kAtomic and kUnique:
// kernel 0 copies the operand into the result, kernel 1 runs one invocation
// per update element and combines it into its result element, with one
// atomic, in a compare-and-swap loop on its word, or (unique indices) with
// a plain read and write. kLastWins: kernel 1 clears a winner word per
// result element, kernel 2 claims each update's elements for its scatter
// index, kernel 3 stores the updates that won.
#include "codegen/element_emitter.h"
#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "codegen/kernel_builder.h"
#include "ir/layout_index.h"
#include "ops/gather_scatter_plan.h"

namespace vkxla {
namespace {

class ScatterKernelBuilder : public ElementEmitter {
 public:
  ScatterKernelBuilder(const Program& program, const FusionGroup& group)
      : ElementEmitter(program, group), c_(std::get<ScatterConfig>(group.config)), op_(*group.hero) {}

  StatusOr<KernelSource> Build(int kernel) {
    VKXLA_ASSIGN_OR_RETURN(ScatterPlan plan, PlanScatter(op_));
    if (c_.mode == ScatterConfig::Mode::kLastWins && kernel == 1) return ClearWinners();
    if (c_.one_pass() && kernel >= 1) return BuildUpdates(plan, kernel);
    const int64_t arity = plan.arity;
    const Shape& operand = op_.operands[0]->shape;
    const Shape& updates = op_.operands[arity + 1]->shape;
    const Computation* combine = Combiner();
    const OperandIndexWiring& w = plan.operand;
    out_ = program_.buffers[group_.outputs[0].buffer].shape;
    out_layout_ = out_.layout_or_default();
    push_constants_ = "layout(push_constant) uniform Push { uint pass; } pc;\n";

    std::string main;
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> idx, OwnOutputElement(main));
    // Accumulators, one per result: the operands' values, or on later
    // passes the results so far.
    std::vector<std::string> acc;
    for (int64_t k = 0; k < arity; ++k) {
      const ElementType t = op_.operands[k]->shape.element_type();
      VKXLA_RETURN_IF_ERROR(Use(t, op_));
      VKXLA_ASSIGN_OR_RETURN(std::string v, Value(op_.operands[k], idx));
      VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, op_.Describe()));
      std::string value = v;
      if (c_.passes > 1) {
        const int out = group_.OutputOf(ValueRef{&op_, op_.shape.IsTuple() ? k : -1});
        if (out < 0) return Internal(op_.Describe() + ": a scatter in passes needs every result in a buffer");
        VKXLA_ASSIGN_OR_RETURN(std::string previous, LoadOutputElement(out, idx));
        value = "(pc.pass == 0u ? " + v + " : " + previous + ")";
      }
      // Ordered-integer atomics for f32 min and max need one NaN, of the
      // sign that wins (see AtomicCombine).
      if (FloatMinMaxAtomics()) value = "(isnan(" + value + ") ? " + CanonicalNan() + " : " + value + ")";
      acc.push_back(Temp(g.compute, value));
    }
    if (c_.updates > 0 && !c_.one_pass()) {
      body_ += "    uint s0 = pc.pass * " + U(c_.chunk) + ", s1 = min(" + U(c_.updates) + ", s0 + " + U(c_.chunk) + ");\n";
      body_ += "    for (uint s = s0; s < s1; ++s) {\n";
      const Memo outside = SaveMemo();
      // The scatter part of the update index, row-major over update_scatter_dims.
      GlslIndexArithmetic a;
      std::vector<std::string> u(updates.rank(), "0u");
      int64_t stride = 1;
      for (size_t k = plan.update_scatter_dims.size(); k-- > 0;) {
        const int64_t dim = plan.update_scatter_dims[k], extent = updates.dim(dim);
        std::string c = a.DivConstant("s", stride);
        if (k > 0) c = a.ModConstant(c, extent);
        u[dim] = Temp("uint", c);
        stride *= extent;
      }
      // The window's start in each operand dim; whether it fits; whether it
      // covers this element, and where in the window.
      std::string fits = "true", covers = "true";
      for (int64_t d = 0; d < operand.rank(); ++d) {
        VKXLA_ASSIGN_OR_RETURN(const std::string start, WindowStart(plan, u, d, fits));
        const std::string offset = Temp("int", "int(" + idx[d] + ") - " + start);
        if (w.window_from[d] >= 0) {
          covers += " && " + offset + " >= 0 && " + offset + " < " + std::to_string(w.window_size[d]);
          u[w.window_from[d]] = "uint(" + offset + ")";
        } else {
          covers += " && " + offset + " == 0";
        }
      }
      body_ += "    if (" + fits + " && " + covers + ") {\n";
      std::vector<std::string> args = acc;
      for (int64_t k = 0; k < arity; ++k) {
        VKXLA_ASSIGN_OR_RETURN(std::string v, Value(op_.operands[arity + 1 + k], u));
        args.push_back(v);
      }
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*combine, args));
      VKXLA_RETURN_IF_ERROR(Assign(&op_, acc, next));
      body_ += "    }\n    }\n";
      RestoreMemo(outside);
    }
    std::string stores;
    for (size_t k = 0; k < group_.outputs.size(); ++k) {
      const int64_t r = std::max<int64_t>(group_.outputs[k].value.index, 0);
      VKXLA_ASSIGN_OR_RETURN(std::string store, StoreOutputElement(k, idx, acc[r]));
      stores += store;
    }
    return Finish(group_.kernels[0].name, 256, main + body_ + stores + "}\n");
  }

 private:
  const Computation* Combiner() const {
    for (const auto& [key, c] : op_.called_computations)
      if (key == "to_apply") return c;
    return nullptr;
  }

  bool FloatMinMaxAtomics() const {
    return c_.mode == ScatterConfig::Mode::kAtomic && op_.shape.element_type() == ElementType::kF32 &&
           (c_.atomic_op == Opcode::kMaximum || c_.atomic_op == Opcode::kMinimum);
  }

  // max keeps a positive NaN, min a negative one: each sorts past every
  // number in the integer order AtomicCombine uses for that sign.
  std::string CanonicalNan() const {
    return c_.atomic_op == Opcode::kMaximum ? "uintBitsToFloat(0x7fc00000u)" : "uintBitsToFloat(0xffc00000u)";
  }

  // Where the window of update index `u` starts in operand dim d: its
  // scatter index component, its batch position, or 0. Adds to `fits` the
  // check that the whole window fits from a scatter index.
  StatusOr<std::string> WindowStart(const ScatterPlan& plan, const std::vector<std::string>& u, int64_t d, std::string& fits) {
    const OperandIndexWiring& w = plan.operand;
    if (w.start_component[d] >= 0) {
      std::vector<std::string> at;
      for (int64_t from : plan.indices.from_outer) at.push_back(from < 0 ? U(w.start_component[d]) : u[from]);
      VKXLA_ASSIGN_OR_RETURN(std::string start, IndexAsInt(op_.operands[plan.arity], at));
      fits += " && " + start + " >= 0 && " + start + " <= " +
              std::to_string(op_.operands[0]->shape.dim(d) - w.window_size[d]);
      return start;
    }
    if (w.batch_from[d] >= 0) return "int(" + u[w.batch_from[d]] + ")";
    return std::string("0");
  }

  // kLastWins kernel 1: every winner word starts at 0 (no update).
  StatusOr<KernelSource> ClearWinners() {
    const std::string winners = BindBuffer(group_.scratch[0], Access::kWrite, "winners");
    const std::string main = "  if (inv < " + U(static_cast<int64_t>(c_.invocations)) + ") W(" + winners + ", inv) = 0u;\n}\n";
    return Finish(group_.kernels[1].name, 256, main);
  }

  // One invocation per update element: where it lands, whether its window
  // fits, and the combine into the result (kLastWins: kernel 2 claims the
  // element for the highest scatter index, kernel 3 stores the winners).
  StatusOr<KernelSource> BuildUpdates(const ScatterPlan& plan, int kernel) {
    const Shape& operand = op_.operands[0]->shape;
    const Instruction* updates = op_.operands[2];
    const OperandIndexWiring& w = plan.operand;
    if (group_.outputs.size() != 1) return Internal(op_.Describe() + ": a one-pass scatter writes one result");
    out_ = program_.buffers[group_.outputs[0].buffer].shape;
    out_layout_ = out_.layout_or_default();
    std::string main = "  if (inv >= " + U(c_.update_invocations) + ") return;\n";
    GlslIndexArithmetic a;
    std::vector<std::string> u(updates->shape.rank());
    int64_t stride = 1;
    for (int64_t d = updates->shape.rank(); d-- > 0;) {
      std::string c = a.DivConstant("inv", stride);
      if (d > 0) c = a.ModConstant(c, updates->shape.dim(d));
      main += "  uint u" + std::to_string(d) + " = " + c + ";\n";
      u[d] = "u" + std::to_string(d);
      stride *= updates->shape.dim(d);
    }
    std::string fits = "true";
    std::vector<std::string> idx(operand.rank());
    for (int64_t d = 0; d < operand.rank(); ++d) {
      VKXLA_ASSIGN_OR_RETURN(std::string start, WindowStart(plan, u, d, fits));
      if (w.window_from[d] >= 0) start = "(" + start + " + int(" + u[w.window_from[d]] + "))";
      idx[d] = Temp("uint", "uint(" + start + ")");
    }
    body_ += "  if (!(" + fits + ")) return;\n";
    const ElementType t = op_.shape.element_type();
    VKXLA_RETURN_IF_ERROR(Use(t, op_));
    // (A claim needs where the update lands, not its value.)
    std::string v;
    if (c_.mode != ScatterConfig::Mode::kLastWins || kernel != 2) {
      VKXLA_ASSIGN_OR_RETURN(v, Value(updates, u));
    }
    std::string combine;
    if (c_.mode == ScatterConfig::Mode::kLastWins) {
      // The scatter index, row-major over the update scatter dims (the
      // owner kernel's order), plus one: 0 is "no update".
      std::string s = "0u";
      for (int64_t d : plan.update_scatter_dims) s = "(" + s + ") * " + U(updates->shape.dim(d)) + " + " + u[d];
      const std::string claim = Temp("uint", s + " + 1u");
      VKXLA_ASSIGN_OR_RETURN(std::string p, PhysicalIndex(out_, out_layout_, idx));
      const std::string at = Temp("uint", p);
      const std::string winners = BindBuffer(group_.scratch[0], Access::kReadWrite, "winners");
      if (kernel == 2) {
        combine = "  atomicMax(" + ScalarAlias(winners, "uint") + ".v[" + at + "], " + claim + ");\n";
      } else {
        VKXLA_ASSIGN_OR_RETURN(std::string store, StoreOutputElement(0, idx, v));
        combine = "  if (W(" + winners + ", " + at + ") == " + claim + ") {\n" + store + "  }\n";
      }
    } else if (c_.mode == ScatterConfig::Mode::kUnique) {
      VKXLA_ASSIGN_OR_RETURN(std::string current, LoadOutputElement(0, idx));
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*Combiner(), {current, v}));
      VKXLA_ASSIGN_OR_RETURN(combine, StoreOutputElement(0, idx, next[0]));
    } else if (c_.mode == ScatterConfig::Mode::kCompareSwap) {
      VKXLA_ASSIGN_OR_RETURN(std::string p, PhysicalIndex(out_, out_layout_, idx));
      VKXLA_RETURN_IF_ERROR(CompareSwapCombine(BindOutput(0, Access::kReadWrite), t, Temp("uint", p), v));
    } else {
      VKXLA_ASSIGN_OR_RETURN(std::string p, PhysicalIndex(out_, out_layout_, idx));
      VKXLA_ASSIGN_OR_RETURN(combine, AtomicCombine(BindOutput(0, Access::kReadWrite), t, Temp("uint", p), v));
    }
    return Finish(group_.kernels[kernel].name, 256, main + body_ + combine + "}\n");
  }

  // Combines `v` into element `p` of `buffer` by compare-and-swap on the
  // 32-bit word holding it (64-bit elements: their own word): decode the
  // element from the word last seen, apply the combiner, swap the word if
  // no one changed it meanwhile, else go again with what was there. Each
  // failed swap is another update of the word landing, so the loop runs at
  // most once per update of the scatter.
  Status CompareSwapCombine(const std::string& buffer, ElementType t, const std::string& p, const std::string& v) {
    VKXLA_ASSIGN_OR_RETURN(const int bits, ElementStorageBits(t, out_layout_));
    VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, op_.Describe()));
    const bool wide = bits == 64;
    if (bits > 64 || (!wide && WordsPerElement(t) != 1))
      return Internal(op_.Describe() + ": compare-and-swap takes words of 32 or 64 bits");
    if (wide) UseAtomicInt64();
    const std::string word_type = wide ? "uint64_t" : "uint";
    const int per_word = wide ? 1 : 32 / bits;
    const std::string word = Temp("uint", per_word == 1 ? p : "(" + p + ") / " + U(per_word));
    const std::string slot = per_word == 1 ? "0u" : Temp("uint", "(" + p + ") % " + U(per_word));
    const std::string at = ScalarAlias(buffer, word_type) + ".v[" + word + "]";
    body_ += "  " + word_type + " seen = " + at + ";\n";
    body_ += "  for (uint tries = 0u; tries < " + U(static_cast<int64_t>(std::max<uint64_t>(1, c_.update_invocations))) +
             "; ++tries) {\n";
    body_ += "    " + word_type + " old = seen;\n";
    const Memo outside = SaveMemo();
    const std::string current =
        Temp(g.compute, wide ? FromBits64(t, "unpackUint2x32(old)") : DecodeWords(t, {"old"}, slot, bits));
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*Combiner(), {current, v}));
    std::string replaced = wide ? "packUint2x32(" + Bits64(t, next[0]) + ")" : EncodeToBits(t, next[0]);
    if (per_word > 1) {
      const std::string mask = U((int64_t{1} << bits) - 1), shift = Temp("uint", SlotBitOffset(bits, slot));
      replaced = "(old & ~(" + mask + " << " + shift + ")) | (((" + replaced + ") & " + mask + ") << " + shift + ")";
    }
    body_ += "    " + word_type + " desired = " + replaced + ";\n";
    body_ += "    if (desired == old) break;\n";
    body_ += "    seen = atomicCompSwap(" + at + ", old, desired);\n";
    body_ += "    if (seen == old) break;\n  }\n";
    RestoreMemo(outside);
    return OkStatus();
  }

  // Statements combining `v` into 32-bit element `p` of `buffer` with one
  // atomic. f32 min and max use integer atomics on the bits: non-negative
  // floats order as signed ints, negative ones in reverse as uints, and
  // each sign's atomic leaves the other sign's values in place the right
  // way round (see CanonicalNan for NaN).
  StatusOr<std::string> AtomicCombine(const std::string& buffer, ElementType t, const std::string& p, const std::string& v) {
    const Opcode op = c_.atomic_op;
    std::string fn;
    switch (op) {
      case Opcode::kAdd: fn = "atomicAdd"; break;
      case Opcode::kMinimum: fn = "atomicMin"; break;
      case Opcode::kMaximum: fn = "atomicMax"; break;
      case Opcode::kAnd: fn = "atomicAnd"; break;
      case Opcode::kOr: fn = "atomicOr"; break;
      case Opcode::kXor: fn = "atomicXor"; break;
      default: return Internal(op_.Describe() + ": no atomic for " + std::string(OpcodeName(op)));
    }
    if (t == ElementType::kS32) return "  " + fn + "(" + ScalarAlias(buffer, "int") + ".v[" + p + "], " + v + ");\n";
    if (t == ElementType::kU32) return "  " + fn + "(" + ScalarAlias(buffer, "uint") + ".v[" + p + "], " + v + ");\n";
    if (t != ElementType::kF32) return Internal(op_.Describe() + ": no atomic for " + std::string(ElementTypeName(t)));
    if (op == Opcode::kAdd) {
      UseAtomicFloat();
      return "  atomicAdd(" + ScalarAlias(buffer, "float") + ".v[" + p + "], " + v + ");\n";
    }
    const std::string x = Temp("float", "isnan(" + v + ") ? " + CanonicalNan() + " : " + v);
    const bool max = op == Opcode::kMaximum;
    return "  if ((floatBitsToUint(" + x + ") >> 31u) == 0u) " + std::string(max ? "atomicMax(" : "atomicMin(") +
           ScalarAlias(buffer, "int") + ".v[" + p + "], floatBitsToInt(" + x + "));\n" + "  else " +
           (max ? "atomicMin(" : "atomicMax(") + ScalarAlias(buffer, "uint") + ".v[" + p + "], floatBitsToUint(" + x + "));\n";
  }

  const ScatterConfig& c_;
  const Instruction& op_;
};

}  // namespace

StatusOr<KernelSource> BuildScatterKernel(const Program& program, const FusionGroup& group, int kernel) {
  return ScatterKernelBuilder(program, group).Build(kernel);
}

}  // namespace vkxla
