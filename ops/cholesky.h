// Cholesky (operation_semantics: Cholesky; stablehlo_spec.md: cholesky):
// `cholesky(a), lower=true|false` factors each Hermitian positive-definite
// matrix of a batch: a = l l^H (lower) or a = u^H u (upper), reading only
// the named triangle. Types: f32, f64, c64, c128. As XLA's expansion does:
// the other triangle of the result is zero, a diagonal takes the square
// root of its real part, and a matrix whose factorisation meets a negative
// (or NaN) pivot is NaN throughout (complex: NaN + 0i).
#pragma once

#include "ir/instruction.h"
#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

StatusOr<bool> ReadCholeskyLower(const Instruction& inst);
void SetCholeskyLower(Instruction& inst, bool lower);
StatusOr<Shape> InferCholeskyShape(const Instruction& inst);
// The reference: Cholesky-Banachiewicz in double (complex<double>), rounded once.
StatusOr<Literal> EvaluateCholesky(const Instruction& inst, const Literal& a);

}  // namespace vkxla
