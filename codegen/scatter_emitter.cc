// Scatter as a loop in the kernel that owns each result element: the
// element starts as the operand's value, and every update whose window
// covers it is combined in, in row-major order of the update scatter index.
// No two invocations write the same element, so the result is
// deterministic for any update computation and any collisions, without
// atomics. The cost is one pass over the scatter indices per element.
#include "codegen/fused_emitter.h"

#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "ops/gather_scatter_plan.h"

namespace vkxla {

StatusOr<std::vector<std::string>> FusedEmitter::Scatter(const Instruction* n, const std::vector<std::string>& idx) {
  ASSIGN_OR_RETURN(ScatterPlan plan, PlanScatter(*n));
  const int64_t arity = plan.arity;
  const Shape& operand = n->operands[0]->shape;
  const Instruction* indices = n->operands[arity];
  const Shape& updates = n->operands[arity + 1]->shape;
  const Computation* combine = nullptr;
  for (const auto& [key, c] : n->called_computations)
    if (key == "to_apply") combine = c;
  const OperandIndexWiring& w = plan.operand;

  // Accumulators, one per result, starting at the operands' values.
  std::vector<std::string> acc;
  for (int64_t k = 0; k < arity; ++k) {
    ASSIGN_OR_RETURN(std::string v, Value(n->operands[k], idx));
    ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(n->operands[k]->shape.element_type(), target_, n->Describe()));
    acc.push_back(Temp(g.compute, v));
  }
  int64_t scatter_count = 1;
  for (int64_t u : plan.update_scatter_dims) scatter_count *= updates.dim(u);
  if (scatter_count == 0 || updates.element_count() == 0) return acc;

  const auto saved_memo = memo_;
  const auto saved_tuples = tuple_memo_;
  const std::string s = "s" + std::to_string(next_temp_++);
  body_ += "    for (uint " + s + " = 0u; " + s + " < " + U(scatter_count) + "; ++" + s + ") {\n";
  // The scatter part of the update index, row-major over update_scatter_dims.
  GlslIndexArithmetic a;
  std::vector<std::string> u(updates.rank(), "0u");
  int64_t stride = 1;
  for (size_t k = plan.update_scatter_dims.size(); k-- > 0;) {
    const int64_t dim = plan.update_scatter_dims[k], extent = updates.dim(dim);
    std::string c = a.DivConstant(s, stride);
    if (k > 0) c = a.ModConstant(c, extent);
    u[dim] = Temp("uint", c);
    stride *= extent;
  }
  // The window's start in each operand dim; whether it fits; whether it
  // covers this element, and where in the window.
  std::string fits = "true", covers = "true";
  for (int64_t d = 0; d < operand.rank(); ++d) {
    std::string start = "0";
    if (w.start_component[d] >= 0) {
      std::vector<std::string> at;
      for (int64_t from : plan.indices.from_outer) at.push_back(from < 0 ? U(w.start_component[d]) : u[from]);
      ASSIGN_OR_RETURN(start, IndexAsInt(indices, at));
      fits += " && " + start + " >= 0 && " + start + " <= " + std::to_string(operand.dim(d) - w.window_size[d]);
    } else if (w.batch_from[d] >= 0) {
      start = "int(" + u[w.batch_from[d]] + ")";
    }
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
    ASSIGN_OR_RETURN(std::string v, Value(n->operands[arity + 1 + k], u));
    args.push_back(v);
  }
  ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*combine, args));
  RETURN_IF_ERROR(Assign(n, acc, next));
  body_ += "    }\n    }\n";
  memo_ = saved_memo;
  tuple_memo_ = saved_tuples;
  return acc;
}

}  // namespace vkxla
