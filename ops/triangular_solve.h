// TriangularSolve (operation_semantics: TriangularSolve; stablehlo_spec.md:
// triangular_solve): `triangular-solve(a, b), left_side=, lower=,
// unit_diagonal=, transpose_a=NO_TRANSPOSE|TRANSPOSE|ADJOINT` solves
// op(a) x = b (left side) or x op(a) = b for x, batched over the leading
// dims, reading only the named triangle of a (and not its diagonal when
// unit_diagonal). Types: f32, f64, c64, c128.
//
// Every combination reduces to one form, T x = b per column: T = op(a) for
// a left-side solve (x and b are columns of X and B), T = op(a)^T for a
// right-side one (x and b are rows of X and B). T is lower triangular (a
// forward substitution) or upper (backward); the reference, the small-block
// kernel and the blocked expansion all walk T.
#pragma once

#include <string_view>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

enum class TransposeA { kNoTranspose, kTranspose, kAdjoint };
std::string_view TransposeAName(TransposeA t);  // "NO_TRANSPOSE"

struct TriangularSolveOptions {
  bool left_side = false, lower = false, unit_diagonal = false;
  TransposeA transpose_a = TransposeA::kNoTranspose;

  // T's triangle: true when the substitution runs forward (row 0 first).
  bool ForwardSubstitution() const { return (lower != (transpose_a != TransposeA::kNoTranspose)) != !left_side; }
  // Where T[i][l] lives in a: (row, col), and whether it is conjugated.
  bool TransposedRead() const { return (transpose_a != TransposeA::kNoTranspose) == left_side; }
  bool Conjugated() const { return transpose_a == TransposeA::kAdjoint; }
};

StatusOr<TriangularSolveOptions> ReadTriangularSolveOptions(const Instruction& inst);
void SetTriangularSolveOptions(Instruction& inst, const TriangularSolveOptions& o);
// Checks types, ranks and dims (errors quote the shapes); the result is b's shape.
StatusOr<Shape> InferTriangularSolveShape(const Instruction& inst);
// The reference: substitution in double (complex<double>), rounded once.
StatusOr<Literal> EvaluateTriangularSolve(const Instruction& inst, const Literal& a, const Literal& b);

// The element types the solve and Cholesky take.
bool IsLinearAlgebraType(ElementType t);
// How many matrices the leading dims of `s` hold.
int64_t MatrixBatches(const Shape& s);

}  // namespace vkxla
