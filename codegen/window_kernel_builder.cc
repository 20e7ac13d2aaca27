// Windowed ops (plan/window_config.h), each invocation owning one result
// element. reduce-window folds its window in row-major order (padding and
// base-dilation holes skipped, the init value on the left). select-and-
// scatter runs in two kernels: "select" finds, per source element, the
// position its window selects (the first of the window, replaced by each
// later one that `select` does not keep it over); "scatter" adds into each
// operand element the source values of the windows that selected it, in
// the source's row-major order, so no two invocations write one element.
// Windows longer than the loop budget run in passes (push constant `pass`),
// the fold so far kept in the results (or the selection scratch).
#include "codegen/element_emitter.h"
#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "codegen/kernel_builder.h"
#include "ops/computation_signature.h"
#include "ops/window.h"

namespace vkxla {
namespace {

// Row-major digits of a linear window offset `q` over `sizes`.
std::vector<std::string> Digits(const std::string& q, const std::vector<int64_t>& sizes) {
  GlslIndexArithmetic a;
  std::vector<std::string> k(sizes.size());
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    std::string c = a.DivConstant(q, stride);
    if (d > 0) c = a.ModConstant(c, sizes[d]);
    k[d] = c;
    stride *= sizes[d];
  }
  return k;
}

class WindowKernelBuilder : public ElementEmitter {
 public:
  WindowKernelBuilder(const Program& program, const FusionGroup& group)
      : ElementEmitter(program, group), c_(std::get<WindowConfig>(group.config)), op_(*group.hero) {}

  StatusOr<KernelSource> Build(int kernel) {
    VKXLA_ASSIGN_OR_RETURN(w_, WindowOf(op_, op_.operands[0]->shape.rank()));
    out_ = program_.buffers[group_.outputs[0].buffer].shape;
    out_layout_ = out_.layout_or_default();
    push_constants_ = "layout(push_constant) uniform Push { uint pass; } pc;\n";
    // The window positions this pass folds.
    range_ = "    uint q0 = pc.pass * " + U(c_.chunk) + ", q1 = min(" + U(c_.window) + ", q0 + " + U(c_.chunk) + ");\n";
    if (op_.opcode == Opcode::kReduceWindow) return ReduceWindow();
    return kernel == 0 ? Select() : ScatterSelected();
  }

 private:
  // Accumulators of the results: the init values on the first pass, the
  // stored results on later ones.
  StatusOr<std::vector<std::string>> Accumulators(const std::vector<std::string>& idx, int64_t arity,
                                                  const std::vector<const Instruction*>& inits, int64_t passes) {
    std::vector<std::string> acc;
    for (int64_t i = 0; i < arity; ++i) {
      const ElementType t = inits[i]->shape.element_type();
      VKXLA_RETURN_IF_ERROR(Use(t, op_));
      VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, op_.Describe()));
      VKXLA_ASSIGN_OR_RETURN(std::string init, Value(inits[i], {}));
      std::string value = init;
      if (passes > 1) {
        const int k = group_.OutputOf(ValueRef{&op_, op_.shape.IsTuple() ? i : -1});
        if (k < 0) return Internal(op_.Describe() + ": a window in passes needs every result in a buffer");
        VKXLA_ASSIGN_OR_RETURN(std::string previous, LoadOutputElement(k, idx));
        value = "(pc.pass == 0u ? " + init + " : " + previous + ")";
      }
      acc.push_back(Temp(g.compute, value));
    }
    return acc;
  }

  StatusOr<std::string> StoreResults(const std::vector<std::string>& idx, const std::vector<std::string>& acc) {
    std::string s;
    for (size_t k = 0; k < group_.outputs.size(); ++k) {
      const int64_t r = std::max<int64_t>(group_.outputs[k].value.index, 0);
      VKXLA_ASSIGN_OR_RETURN(std::string store, StoreOutputElement(k, idx, acc[r]));
      s += store;
    }
    return s;
  }

  StatusOr<KernelSource> ReduceWindow() {
    const int64_t arity = static_cast<int64_t>(op_.operands.size() / 2);
    const Shape& x = op_.operands[0]->shape;
    VKXLA_ASSIGN_OR_RETURN(const Computation* f, CalledComputation(op_, "to_apply", "the reduction computation"));
    std::string main;
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> idx, OwnOutputElement(main));
    std::vector<const Instruction*> inits(op_.operands.begin() + arity, op_.operands.end());
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> acc, Accumulators(idx, arity, inits, c_.passes));
    if (c_.window > 0 && x.element_count() > 0) {
      body_ += range_ + "    for (uint q = q0; q < q1; ++q) {\n";
      const Memo outside = SaveMemo();
      const std::vector<std::string> k = Digits("q", w_.size);
      std::string inside = "true";
      std::vector<std::string> at(x.rank());
      for (int64_t d = 0; d < x.rank(); ++d) {
        // Position in the padded, dilated operand.
        const std::string p = Temp("int", "int(" + idx[d] + ") * " + std::to_string(w_.stride[d]) + " + int(" + k[d] + ") * " +
                                              std::to_string(w_.window_dilation[d]) + " - " + std::to_string(w_.pad_low[d]));
        const int64_t dil = w_.base_dilation[d];
        inside += " && " + p + " >= 0 && " + p + " < " + std::to_string((x.dim(d) - 1) * dil + 1);
        if (dil > 1) inside += " && " + p + " % " + std::to_string(dil) + " == 0";
        at[d] = dil > 1 ? "uint(" + p + " / " + std::to_string(dil) + ")" : "uint(" + p + ")";
      }
      body_ += "    if (" + inside + ") {\n";
      std::vector<std::string> args = acc;
      for (int64_t i = 0; i < arity; ++i) {
        VKXLA_ASSIGN_OR_RETURN(std::string v, Value(op_.operands[i], at));
        args.push_back(v);
      }
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f, args));
      VKXLA_RETURN_IF_ERROR(Assign(&op_, acc, next));
      body_ += "    }\n    }\n";
      RestoreMemo(outside);
    }
    VKXLA_ASSIGN_OR_RETURN(std::string stores, StoreResults(idx, acc));
    return Finish(group_.kernels[0].name, 256, main + body_ + stores + "}\n");
  }

  // The selection of a source element's window: `has`, the chosen value
  // and its window position, kept in scratch between passes (value words,
  // then the position; 0xFFFFFFFF for none).
  int ValueWords() const { return WordsPerElement(op_.operands[0]->shape.element_type()); }
  std::string SelectionWord(const std::string& s, int word) const {
    return "W(selection, (" + s + ") * " + U(ValueWords() + 1) + " + " + U(word) + ")";
  }

  StatusOr<KernelSource> Select() {
    const Instruction* x = op_.operands[0];
    const Instruction* source = op_.operands[1];
    const Shape& xs = x->shape;
    const ElementType t = xs.element_type();
    VKXLA_RETURN_IF_ERROR(Use(t, op_));
    VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, op_.Describe()));
    VKXLA_ASSIGN_OR_RETURN(const Computation* select, CalledComputation(op_, "select", "the select computation"));
    BindBuffer(group_.scratch[0], Access::kReadWrite, "selection");
    std::string main = "  if (inv >= " + U(c_.select_invocations) + ") return;\n";
    // The source element's index, row-major.
    GlslIndexArithmetic a;
    std::vector<std::string> s(xs.rank());
    int64_t stride = 1;
    for (int64_t d = xs.rank() - 1; d >= 0; --d) {
      std::string c = a.DivConstant("inv", stride);
      if (d > 0) c = a.ModConstant(c, source->shape.dim(d));
      main += "  uint s" + std::to_string(d) + " = " + c + ";\n";
      s[d] = "s" + std::to_string(d);
      stride *= source->shape.dim(d);
    }
    std::vector<std::string> words;
    for (int k = 0; k < ValueWords(); ++k) words.push_back(SelectionWord("inv", k));
    main += "  uint at = pc.pass == 0u ? 0xFFFFFFFFu : " + SelectionWord("inv", ValueWords()) + ";\n";
    main += "  bool has = at != 0xFFFFFFFFu;\n";
    main += "  " + g.compute + " chosen = has ? " + DecodeWords(t, words, "0u") + " : " + g.compute + "(0);\n";
    body_ = range_ + "    for (uint q = q0; q < q1; ++q) {\n";
    const std::vector<std::string> kq = Digits("q", w_.size);
    std::string inside = "true";
    std::vector<std::string> pos(xs.rank());
    for (int64_t d = 0; d < xs.rank(); ++d) {
      const std::string p = Temp("int", "int(" + s[d] + ") * " + std::to_string(w_.stride[d]) + " + int(" + kq[d] + ") - " +
                                            std::to_string(w_.pad_low[d]));
      inside += " && " + p + " >= 0 && " + p + " < " + std::to_string(xs.dim(d));
      pos[d] = "uint(" + p + ")";
    }
    body_ += "    if (" + inside + ") {\n";
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(x, pos));
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> keep, Apply(*select, {"chosen", v}));
    body_ += "    if (!has || !(" + keep[0] + ")) { chosen = " + v + "; at = q; has = true; }\n";
    body_ += "    }\n    }\n";
    main += body_;
    // Back to scratch: the value's words and the position.
    if (t == ElementType::kC128) {
      main += "  { uvec4 b = uvec4(unpackDouble2x32(chosen.x), unpackDouble2x32(chosen.y));\n";
      for (int k = 0; k < 4; ++k) main += "  " + SelectionWord("inv", k) + " = b[" + std::to_string(k) + "];\n";
      main += "  }\n";
    } else if (ValueWords() == 2) {
      main += "  { uvec2 b = " + Bits64(t, "chosen") + "; " + SelectionWord("inv", 0) + " = b.x; " + SelectionWord("inv", 1) +
              " = b.y; }\n";
    } else {
      main += "  " + SelectionWord("inv", 0) + " = " + EncodeToBits(t, "chosen") + ";\n";
    }
    main += "  " + SelectionWord("inv", ValueWords()) + " = has ? at : 0xFFFFFFFFu;\n}\n";
    return Finish(group_.kernels[0].name, 256, main);
  }

  // Each operand element visits the windows that may contain it: along
  // dim d the E_d = ceil(size / stride) window starts s_d ending at
  // floor((i + pad) / stride), in the source's row-major order.
  StatusOr<KernelSource> ScatterSelected() {
    const Instruction* source = op_.operands[1];
    const Shape& xs = op_.operands[0]->shape;
    VKXLA_ASSIGN_OR_RETURN(const Computation* scatter, CalledComputation(op_, "scatter", "the scatter computation"));
    BindBuffer(group_.scratch[0], Access::kRead, "selection");
    std::string main;
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> idx, OwnOutputElement(main));
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> acc, Accumulators(idx, 1, {op_.operands[2]}, c_.containing_passes));
    if (c_.window > 0 && source->shape.element_count() > 0) {
      std::vector<int64_t> extents(xs.rank());
      for (int64_t d = 0; d < xs.rank(); ++d) extents[d] = (w_.size[d] + w_.stride[d] - 1) / w_.stride[d];
      body_ += "    uint r0 = pc.pass * " + U(c_.containing_chunk) + ", r1 = min(" + U(c_.containing) + ", r0 + " +
               U(c_.containing_chunk) + ");\n    for (uint r = r0; r < r1; ++r) {\n";
      const Memo outside = SaveMemo();
      const std::vector<std::string> digit = Digits("r", extents);
      std::string covers = "true";
      std::vector<std::string> s(xs.rank()), k(xs.rank());
      for (int64_t d = 0; d < xs.rank(); ++d) {
        const std::string shifted = "(int(" + idx[d] + ") + " + std::to_string(w_.pad_low[d]) + ")";
        // The window start: the last one at or before the element, minus the digit's complement.
        const std::string sd = Temp("int", "(" + shifted + " >= 0 ? " + shifted + " / " + std::to_string(w_.stride[d]) +
                                               " : -1) - " + std::to_string(extents[d] - 1) + " + int(" + digit[d] + ")");
        const std::string kd = Temp("int", shifted + " - " + sd + " * " + std::to_string(w_.stride[d]));
        covers += " && " + sd + " >= 0 && " + sd + " < " + std::to_string(source->shape.dim(d)) + " && " + kd + " >= 0 && " +
                  kd + " < " + std::to_string(w_.size[d]);
        s[d] = "uint(" + sd + ")";
        k[d] = kd;
      }
      // The element's position in the window and the window's index among the source elements.
      std::string offset = "0", linear = "0u";
      for (int64_t d = 0; d < xs.rank(); ++d) {
        offset = "(" + offset + ") * " + std::to_string(w_.size[d]) + " + " + k[d];
        linear = "(" + linear + ") * " + U(source->shape.dim(d)) + " + " + s[d];
      }
      body_ += "    if (" + covers + ") {\n";
      body_ += "    if (" + SelectionWord(linear, ValueWords()) + " == uint(" + offset + ")) {\n";
      VKXLA_ASSIGN_OR_RETURN(std::string src, Value(source, s));
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*scatter, {acc[0], src}));
      VKXLA_RETURN_IF_ERROR(Assign(&op_, acc, next));
      body_ += "    }\n    }\n    }\n";
      RestoreMemo(outside);
    }
    VKXLA_ASSIGN_OR_RETURN(std::string store, StoreOutputElement(0, idx, acc[0]));
    return Finish(group_.kernels[1].name, 256, main + body_ + store + "}\n");
  }

  const WindowConfig& c_;
  const Instruction& op_;
  Window w_;
  std::string range_;
};

}  // namespace

StatusOr<KernelSource> BuildWindowKernel(const Program& program, const FusionGroup& group, int kernel) {
  return WindowKernelBuilder(program, group).Build(kernel);
}

}  // namespace vkxla
