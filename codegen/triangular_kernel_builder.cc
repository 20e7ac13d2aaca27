// Cholesky and TriangularSolve blocks (plan/triangular_config.h): one
// invocation per system, its loops bounded by the block's order (the
// expansion keeps it at most the leaf order).
//  - TriangularSolve: an invocation substitutes one right-hand side
//    through T (ops/triangular_solve.h), the unknowns solved so far in a
//    private array; a's transposes and conjugates are index swaps.
//  - Cholesky: an invocation factors one matrix column by column
//    (Cholesky-Banachiewicz), reading back the factor it has stored; the
//    other triangle is written as zeros and a matrix that meets a bad
//    pivot is rewritten as NaN.
#include "codegen/element_emitter.h"
#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "codegen/kernel_builder.h"
#include "ops/cholesky.h"
#include "ops/triangular_solve.h"

namespace vkxla {
namespace {

class TriangularKernelBuilder : public ElementEmitter {
 public:
  TriangularKernelBuilder(const Program& program, const FusionGroup& group)
      : ElementEmitter(program, group), c_(std::get<TriangularConfig>(group.config)), op_(*group.hero) {}

  StatusOr<KernelSource> Build() {
    type_ = op_.shape.element_type();
    complex_ = IsComplex(type_);
    VKXLA_RETURN_IF_ERROR(Use(type_, op_));
    VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(type_, target_, op_.Describe()));
    ct_ = g.compute;
    VKXLA_ASSIGN_OR_RETURN(GlslType r, GlslTypeFor(complex_ ? ComplexComponentType(type_) : type_, target_, op_.Describe()));
    rt_ = r.compute;
    out_ = group_.OutputOf(ValueRef::Of(&op_));
    if (out_ < 0) return Internal(op_.Describe() + ": its group does not write it");
    return op_.opcode == Opcode::kCholesky ? Cholesky() : Solve();
  }

 private:
  std::string M() const { return U(c_.order); }
  std::string Conj(const std::string& x) const { return complex_ ? ct_ + "(" + x + ".x, -" + x + ".y)" : x; }
  std::string Mul(const std::string& a, const std::string& b) const {
    return complex_ ? "cmul_" + MathSuffix(type_) + "(" + a + ", " + b + ")" : "(" + a + " * " + b + ")";
  }
  std::string Div(const std::string& a, const std::string& b) const {
    return (complex_ ? "cdiv_" : "div_") + MathSuffix(type_) + "(" + a + ", " + b + ")";
  }
  // The batch part of an index: matrix `m` of the leading dims.
  std::vector<std::string> BatchIndex(const std::string& m) const {
    const Shape& a = op_.operands[0]->shape;
    GlslIndexArithmetic arith;
    std::vector<std::string> idx(static_cast<size_t>(a.rank() - 2));
    int64_t stride = 1;
    for (size_t d = idx.size(); d-- > 0;) {
      idx[d] = arith.ModConstant(arith.DivConstant(m, stride), a.dims()[d]);
      stride *= a.dims()[d];
    }
    return idx;
  }
  static std::vector<std::string> At(std::vector<std::string> batch, const std::string& row, const std::string& col) {
    batch.push_back(row);
    batch.push_back(col);
    return batch;
  }
  // Statements emitted so far, taken out (values inside a loop stay there).
  std::string Flush() {
    std::string s = std::move(body_);
    body_.clear();
    ClearMemo();
    return s;
  }

  StatusOr<KernelSource> Solve() {
    VKXLA_ASSIGN_OR_RETURN(TriangularSolveOptions o, ReadTriangularSolveOptions(op_));
    const Instruction* a = op_.operands[0];
    const Instruction* b = op_.operands[1];
    const std::vector<std::string> batch = BatchIndex("matrix");
    auto rhs = [&](const std::string& i) { return o.left_side ? At(batch, i, "line") : At(batch, "line", i); };
    auto t = [&](const std::string& i, const std::string& l) -> StatusOr<std::string> {
      VKXLA_ASSIGN_OR_RETURN(std::string v, Value(a, o.TransposedRead() ? At(batch, l, i) : At(batch, i, l)));
      return o.Conjugated() ? Conj(v) : v;
    };
    const bool forward = o.ForwardSubstitution();
    std::string main = "  if (inv >= " + U(c_.systems) + ") return;\n";
    main += "  uint line = inv % " + U(c_.lines) + ", matrix = inv / " + U(c_.lines) + ";\n";
    main += "  " + ct_ + " x[" + M() + "];\n";
    main += "  for (uint s = 0u; s < " + M() + "; ++s) {\n";
    main += "    uint i = " + (forward ? std::string("s") : M() + " - 1u - s") + ";\n";
    Flush();
    VKXLA_ASSIGN_OR_RETURN(std::string bi, Value(b, rhs("i")));
    main += Flush() + "    " + ct_ + " acc = " + bi + ";\n";
    main += "    for (uint q = 0u; q < s; ++q) {\n";
    main += "      uint l = " + (forward ? std::string("q") : M() + " - 1u - q") + ";\n";
    VKXLA_ASSIGN_OR_RETURN(std::string til, t("i", "l"));
    main += Flush() + "      acc -= " + Mul(til, "x[l]") + ";\n    }\n";
    if (!o.unit_diagonal) {
      VKXLA_ASSIGN_OR_RETURN(std::string tii, t("i", "i"));
      main += Flush() + "    acc = " + Div("acc", tii) + ";\n";
    }
    main += "    x[i] = acc;\n";
    VKXLA_ASSIGN_OR_RETURN(std::string store, StoreOutputElement(out_, rhs("i"), "acc"));
    main += Flush() + store + "  }\n}\n";
    return Finish(group_.kernels[0].name, group_.kernels[0].local_size, main);
  }

  StatusOr<KernelSource> Cholesky() {
    VKXLA_ASSIGN_OR_RETURN(bool lower, ReadCholeskyLower(op_));
    const Instruction* a = op_.operands[0];
    const std::vector<std::string> batch = BatchIndex("inv");
    // The named triangle as a lower one, and the factor stored in it.
    auto ahat = [&](const std::string& i, const std::string& j) -> StatusOr<std::string> {
      if (lower) return Value(a, At(batch, i, j));
      VKXLA_ASSIGN_OR_RETURN(std::string v, Value(a, At(batch, j, i)));
      return Conj(v);
    };
    auto load = [&](const std::string& i, const std::string& j) -> StatusOr<std::string> {
      if (lower) return LoadOutputElement(out_, At(batch, i, j));
      VKXLA_ASSIGN_OR_RETURN(std::string v, LoadOutputElement(out_, At(batch, j, i)));
      return Conj(v);
    };
    auto store = [&](const std::string& i, const std::string& j, const std::string& v) -> StatusOr<std::string> {
      return lower ? StoreOutputElement(out_, At(batch, i, j), v) : StoreOutputElement(out_, At(batch, j, i), Conj(v));
    };
    auto complex_of = [&](const std::string& re) { return complex_ ? ct_ + "(" + re + ", " + rt_ + "(0))" : re; };
    std::string main = "  if (inv >= " + U(c_.systems) + ") return;\n  bool bad = false;\n";
    main += "  for (uint j = 0u; j < " + M() + "; ++j) {\n";
    Flush();
    VKXLA_ASSIGN_OR_RETURN(std::string ajj, ahat("j", "j"));
    main += Flush() + "    " + rt_ + " pivot = " + (complex_ ? ajj + ".x" : ajj) + ";\n";
    main += "    for (uint q = 0u; q < j; ++q) {\n";
    VKXLA_ASSIGN_OR_RETURN(std::string ljq, load("j", "q"));
    main += Flush() + "      pivot -= " + (complex_ ? "dot(" + ljq + ", " + ljq + ")" : ljq + " * " + ljq) + ";\n    }\n";
    // GLSL leaves sqrt of a negative undefined: a bad pivot is noted, and
    // the matrix rewritten as NaN below.
    main += "    bad = bad || !(pivot >= " + rt_ + "(0));\n";
    main += "    " + rt_ + " d = sqrt(max(pivot, " + rt_ + "(0)));\n";
    VKXLA_ASSIGN_OR_RETURN(std::string put_diagonal, store("j", "j", complex_of("d")));
    main += Flush() + put_diagonal;
    main += "    for (uint i = j + 1u; i < " + M() + "; ++i) {\n";
    VKXLA_ASSIGN_OR_RETURN(std::string aij, ahat("i", "j"));
    main += Flush() + "      " + ct_ + " v = " + aij + ";\n      for (uint q = 0u; q < j; ++q) {\n";
    VKXLA_ASSIGN_OR_RETURN(std::string liq, load("i", "q"));
    VKXLA_ASSIGN_OR_RETURN(std::string ljq2, load("j", "q"));
    main += Flush() + "        v -= " + Mul(liq, Conj(ljq2)) + ";\n      }\n";
    VKXLA_ASSIGN_OR_RETURN(std::string put, store("i", "j", complex_ ? "(v / d)" : Div("v", "d")));
    main += Flush() + put + "    }\n";
    main += "    for (uint i = 0u; i < j; ++i) {\n";
    VKXLA_ASSIGN_OR_RETURN(std::string zero, store("i", "j", ct_ + "(0)"));
    main += Flush() + zero + "    }\n  }\n";
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::string nan_value = GlslLiteral(complex_ ? Scalar::Complex(type_, {nan, 0.0}) : Scalar::Float(type_, nan));
    main += "  if (bad) {\n    for (uint i = 0u; i < " + M() + "; ++i) {\n      for (uint j = 0u; j < " + M() + "; ++j) {\n";
    VKXLA_ASSIGN_OR_RETURN(std::string spoil, StoreOutputElement(out_, At(batch, "i", "j"), nan_value));
    main += Flush() + spoil + "      }\n    }\n  }\n}\n";
    return Finish(group_.kernels[0].name, group_.kernels[0].local_size, main);
  }

  const TriangularConfig& c_;
  const Instruction& op_;
  ElementType type_ = ElementType::kInvalid;
  bool complex_ = false;
  std::string ct_, rt_;
  int out_ = -1;
};

}  // namespace

StatusOr<KernelSource> BuildTriangularKernel(const Program& program, const FusionGroup& group, int kernel) {
  return TriangularKernelBuilder(program, group).Build();
}

}  // namespace vkxla
