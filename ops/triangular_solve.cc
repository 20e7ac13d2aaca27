#include "ops/triangular_solve.h"

#include <complex>

#include "ops/attributes.h"

namespace vkxla {
namespace {

Status SolveError(const Instruction& inst, const std::string& message) {
  return InvalidArgument("triangular-solve " + inst.Describe() + ": " + message);
}

}  // namespace

bool IsLinearAlgebraType(ElementType t) {
  return t == ElementType::kF32 || t == ElementType::kF64 || t == ElementType::kC64 || t == ElementType::kC128;
}

int64_t MatrixBatches(const Shape& s) {
  int64_t n = 1;
  for (int64_t d = 0; d + 2 < s.rank(); ++d) n *= s.dims()[d];
  return n;
}

std::string_view TransposeAName(TransposeA t) {
  switch (t) {
    case TransposeA::kNoTranspose: return "NO_TRANSPOSE";
    case TransposeA::kTranspose: return "TRANSPOSE";
    case TransposeA::kAdjoint: return "ADJOINT";
  }
  return "?";
}

StatusOr<TriangularSolveOptions> ReadTriangularSolveOptions(const Instruction& inst) {
  TriangularSolveOptions o;
  VKXLA_ASSIGN_OR_RETURN(o.left_side, BoolAttribute(inst, "left_side"));
  VKXLA_ASSIGN_OR_RETURN(o.lower, BoolAttribute(inst, "lower"));
  VKXLA_ASSIGN_OR_RETURN(o.unit_diagonal, BoolAttribute(inst, "unit_diagonal"));
  if (const std::string* t = FindAttribute(inst, "transpose_a")) {
    if (*t == "NO_TRANSPOSE") o.transpose_a = TransposeA::kNoTranspose;
    else if (*t == "TRANSPOSE") o.transpose_a = TransposeA::kTranspose;
    else if (*t == "ADJOINT") o.transpose_a = TransposeA::kAdjoint;
    else return BadAttribute(inst, "transpose_a", *t, "NO_TRANSPOSE, TRANSPOSE or ADJOINT");
  }
  return o;
}

void SetTriangularSolveOptions(Instruction& inst, const TriangularSolveOptions& o) {
  SetAttribute(inst, "left_side", o.left_side ? "true" : "false");
  SetAttribute(inst, "lower", o.lower ? "true" : "false");
  SetAttribute(inst, "unit_diagonal", o.unit_diagonal ? "true" : "false");
  SetAttribute(inst, "transpose_a", std::string(TransposeAName(o.transpose_a)));
}

StatusOr<Shape> InferTriangularSolveShape(const Instruction& inst) {
  if (inst.operands.size() != 2) return SolveError(inst, "takes a and b, got " + std::to_string(inst.operands.size()) + " operands");
  VKXLA_ASSIGN_OR_RETURN(TriangularSolveOptions o, ReadTriangularSolveOptions(inst));
  const Shape& a = inst.operands[0]->shape;
  const Shape& b = inst.operands[1]->shape;
  if (!a.IsArray() || !b.IsArray()) return SolveError(inst, "a and b must be arrays, got " + a.ToString() + " and " + b.ToString());
  if (!IsLinearAlgebraType(a.element_type()))
    return SolveError(inst, "a is " + a.ToString() + "; the solve takes f32, f64, c64 or c128");
  if (a.element_type() != b.element_type())
    return SolveError(inst, "a " + a.ToString() + " and b " + b.ToString() + " must have one element type");
  if (a.rank() < 2 || a.rank() != b.rank())
    return SolveError(inst, "a " + a.ToString() + " and b " + b.ToString() + " must have one rank, at least 2");
  const int64_t r = a.rank(), m = a.dims()[r - 1];
  if (a.dims()[r - 2] != m) return SolveError(inst, "a " + a.ToString() + " must hold square matrices");
  for (int64_t d = 0; d + 2 < r; ++d)
    if (a.dims()[d] != b.dims()[d])
      return SolveError(inst, "batch dim " + std::to_string(d) + " of a " + a.ToString() + " and b " + b.ToString() + " differ");
  const int64_t solved = b.dims()[o.left_side ? r - 2 : r - 1];
  if (solved != m)
    return SolveError(inst, std::string(o.left_side ? "left_side: dim -2" : "right side: dim -1") + " of b " + b.ToString() +
                                " must be " + std::to_string(m) + ", a's order");
  return Shape(b.element_type(), b.dims());
}

StatusOr<Literal> EvaluateTriangularSolve(const Instruction& inst, const Literal& a, const Literal& b) {
  VKXLA_ASSIGN_OR_RETURN(TriangularSolveOptions o, ReadTriangularSolveOptions(inst));
  const Shape& bs = b.shape();
  const int64_t r = bs.rank(), m = a.shape().dims()[r - 1];
  const int64_t rows = bs.dims()[r - 2], cols = bs.dims()[r - 1];
  const int64_t lines = o.left_side ? cols : rows;  // independent systems per matrix
  Literal x(Shape(bs.element_type(), bs.dims()));
  std::vector<std::complex<double>> sol(static_cast<size_t>(m));
  const bool forward = o.ForwardSubstitution();
  for (int64_t batch = 0; batch < MatrixBatches(bs); ++batch) {
    const int64_t a0 = batch * m * m, b0 = batch * rows * cols;
    auto t = [&](int64_t i, int64_t l) {
      const int64_t row = o.TransposedRead() ? l : i, col = o.TransposedRead() ? i : l;
      std::complex<double> v = a.Get(a0 + row * m + col).c();
      return o.Conjugated() ? std::conj(v) : v;
    };
    auto at = [&](int64_t line, int64_t i) { return b0 + (o.left_side ? i * cols + line : line * cols + i); };
    for (int64_t line = 0; line < lines; ++line) {
      for (int64_t s = 0; s < m; ++s) {
        const int64_t i = forward ? s : m - 1 - s;
        std::complex<double> acc = b.Get(at(line, i)).c();
        for (int64_t q = 0; q < s; ++q) {
          const int64_t l = forward ? q : m - 1 - q;
          acc -= t(i, l) * sol[l];
        }
        sol[i] = o.unit_diagonal ? acc : acc / t(i, i);
      }
      for (int64_t i = 0; i < m; ++i) x.Set(at(line, i), Scalar::Complex(ElementType::kC128, sol[i]));
    }
  }
  return x;
}

}  // namespace vkxla
