// Windowed ops as loops in the kernel that owns each result element:
// reduce-window folds its window in row-major order (padding and
// base-dilation holes skipped, the init value on the left), and
// select-and-scatter gathers into each operand element the source values
// of the windows that select it, so no two invocations write one element.
#include "codegen/fused_emitter.h"

#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
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

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

}  // namespace

StatusOr<std::vector<std::string>> FusedEmitter::ReduceWindow(const Instruction* n, const std::vector<std::string>& idx) {
  const int64_t arity = static_cast<int64_t>(n->operands.size() / 2);
  const Shape& x = n->operands[0]->shape;
  ASSIGN_OR_RETURN(Window w, WindowOf(*n, x.rank()));
  ASSIGN_OR_RETURN(const Computation* f, CalledComputation(*n, "to_apply", "the reduction computation"));
  std::vector<std::string> acc;
  for (int64_t i = 0; i < arity; ++i) {
    ASSIGN_OR_RETURN(std::string v, Value(n->operands[arity + i], {}));
    ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(n->operands[i]->shape.element_type(), target_, n->Describe()));
    acc.push_back(Temp(g.compute, v));
  }
  const int64_t count = Product(w.size);
  if (count == 0 || x.element_count() == 0) return acc;
  const auto saved_memo = memo_;
  const auto saved_tuples = tuple_memo_;
  const std::string q = "q" + std::to_string(next_temp_++);
  body_ += "    for (uint " + q + " = 0u; " + q + " < " + U(count) + "; ++" + q + ") {\n";
  const std::vector<std::string> k = Digits(q, w.size);
  std::string inside = "true";
  std::vector<std::string> at(x.rank());
  for (int64_t d = 0; d < x.rank(); ++d) {
    // Position in the padded, dilated operand.
    const std::string p = Temp("int", "int(" + idx[d] + ") * " + std::to_string(w.stride[d]) + " + int(" + k[d] + ") * " +
                                          std::to_string(w.window_dilation[d]) + " - " + std::to_string(w.pad_low[d]));
    const int64_t dil = w.base_dilation[d];
    inside += " && " + p + " >= 0 && " + p + " < " + std::to_string((x.dim(d) - 1) * dil + 1);
    if (dil > 1) inside += " && " + p + " % " + std::to_string(dil) + " == 0";
    at[d] = dil > 1 ? "uint(" + p + " / " + std::to_string(dil) + ")" : "uint(" + p + ")";
  }
  body_ += "    if (" + inside + ") {\n";
  std::vector<std::string> args = acc;
  for (int64_t i = 0; i < arity; ++i) {
    ASSIGN_OR_RETURN(std::string v, Value(n->operands[i], at));
    args.push_back(v);
  }
  ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f, args));
  RETURN_IF_ERROR(Assign(n, acc, next));
  body_ += "    }\n    }\n";
  memo_ = saved_memo;
  tuple_memo_ = saved_tuples;
  return acc;
}

StatusOr<std::string> FusedEmitter::SelectAndScatter(const Instruction* n, const std::vector<std::string>& idx) {
  const Instruction* x = n->operands[0];
  const Instruction* source = n->operands[1];
  const Shape& xs = x->shape;
  ASSIGN_OR_RETURN(Window w, WindowOf(*n, xs.rank()));
  ASSIGN_OR_RETURN(const Computation* select, CalledComputation(*n, "select", "the select computation"));
  ASSIGN_OR_RETURN(const Computation* scatter, CalledComputation(*n, "scatter", "the scatter computation"));
  const ElementType t = xs.element_type();
  ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, n->Describe()));
  ASSIGN_OR_RETURN(std::string init, Value(n->operands[2], {}));
  const std::string acc = Temp(g.compute, init);
  const int64_t count = Product(w.size);
  if (count == 0 || source->shape.element_count() == 0) return acc;
  const auto saved_memo = memo_;
  const auto saved_tuples = tuple_memo_;
  // The windows that contain this element, in the source's row-major order
  // (so the offset inside the window runs backwards).
  const std::string o = "o" + std::to_string(next_temp_++);
  body_ += "    for (uint " + o + "r = 0u; " + o + "r < " + U(count) + "; ++" + o + "r) {\n";
  body_ += "    uint " + o + " = " + U(count - 1) + " - " + o + "r;\n";
  const std::vector<std::string> k = Digits(o, w.size);
  std::string covers = "true";
  std::vector<std::string> s(xs.rank());
  for (int64_t d = 0; d < xs.rank(); ++d) {
    const std::string p = Temp("int", "int(" + idx[d] + ") + " + std::to_string(w.pad_low[d]) + " - int(" + k[d] + ")");
    covers += " && " + p + " >= 0 && " + p + " < " + std::to_string(source->shape.dim(d) * w.stride[d]);
    if (w.stride[d] > 1) covers += " && " + p + " % " + std::to_string(w.stride[d]) + " == 0";
    s[d] = Temp("uint", "uint(" + p + ") / " + U(w.stride[d]));
  }
  body_ += "    if (" + covers + ") {\n";
  // The element that window selects: the first of the window, replaced by
  // each later one that `select` does not keep it over.
  const std::string has = Temp("bool", "false");
  const std::string chosen = Temp(g.compute, init);
  const std::string at = Temp("uint", "0u");
  const std::string q = "q" + std::to_string(next_temp_++);
  body_ += "    for (uint " + q + " = 0u; " + q + " < " + U(count) + "; ++" + q + ") {\n";
  const auto outer_memo = memo_;
  const std::vector<std::string> kq = Digits(q, w.size);
  std::string inside = "true";
  std::vector<std::string> pos(xs.rank());
  for (int64_t d = 0; d < xs.rank(); ++d) {
    const std::string p = Temp("int", "int(" + s[d] + ") * " + std::to_string(w.stride[d]) + " + int(" + kq[d] + ") - " +
                                          std::to_string(w.pad_low[d]));
    inside += " && " + p + " >= 0 && " + p + " < " + std::to_string(xs.dim(d));
    pos[d] = "uint(" + p + ")";
  }
  body_ += "    if (" + inside + ") {\n";
  ASSIGN_OR_RETURN(std::string v, Value(x, pos));
  ASSIGN_OR_RETURN(std::vector<std::string> keep, Apply(*select, {chosen, v}));
  body_ += "    if (!" + has + " || !(" + keep[0] + ")) { " + chosen + " = " + v + "; " + at + " = " + q + "; " + has + " = true; }\n";
  body_ += "    }\n    }\n";
  memo_ = outer_memo;
  body_ += "    if (" + has + " && " + at + " == " + o + ") {\n";
  ASSIGN_OR_RETURN(std::string src, Value(source, s));
  ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*scatter, {acc, src}));
  RETURN_IF_ERROR(Assign(n, {acc}, next));
  body_ += "    }\n    }\n    }\n";
  memo_ = saved_memo;
  tuple_memo_ = saved_tuples;
  return acc;
}

Status FusedEmitter::Assign(const Instruction* n, const std::vector<std::string>& vars, const std::vector<std::string>& values) {
  // Through temporaries: a computation may swap or reuse its parameters.
  std::vector<std::string> staged;
  for (size_t k = 0; k < vars.size(); ++k) {
    const Shape& s = n->shape.IsTuple() ? n->shape.tuple_shapes()[k] : n->shape;
    ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(s.element_type(), target_, n->Describe()));
    staged.push_back(Temp(g.compute, values[k]));
  }
  for (size_t k = 0; k < vars.size(); ++k) body_ += "    " + vars[k] + " = " + staged[k] + ";\n";
  return OkStatus();
}

}  // namespace vkxla
