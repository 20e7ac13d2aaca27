#include "ops/cholesky.h"

#include <cmath>
#include <complex>
#include <limits>

#include "ops/attributes.h"
#include "ops/triangular_solve.h"

namespace vkxla {

StatusOr<bool> ReadCholeskyLower(const Instruction& inst) { return BoolAttribute(inst, "lower"); }

void SetCholeskyLower(Instruction& inst, bool lower) { SetAttribute(inst, "lower", lower ? "true" : "false"); }

StatusOr<Shape> InferCholeskyShape(const Instruction& inst) {
  auto error = [&](const std::string& m) { return InvalidArgument("cholesky " + inst.Describe() + ": " + m); };
  if (inst.operands.size() != 1) return error("takes one operand, got " + std::to_string(inst.operands.size()));
  VKXLA_RETURN_IF_ERROR(ReadCholeskyLower(inst).status());
  const Shape& a = inst.operands[0]->shape;
  if (!a.IsArray()) return error("operand must be an array, got " + a.ToString());
  if (!IsLinearAlgebraType(a.element_type())) return error("operand is " + a.ToString() + "; Cholesky takes f32, f64, c64 or c128");
  if (a.rank() < 2 || a.dims()[a.rank() - 1] != a.dims()[a.rank() - 2])
    return error("operand " + a.ToString() + " must hold square matrices (rank at least 2)");
  return Shape(a.element_type(), a.dims());
}

StatusOr<Literal> EvaluateCholesky(const Instruction& inst, const Literal& a) {
  VKXLA_ASSIGN_OR_RETURN(bool lower, ReadCholeskyLower(inst));
  const Shape& s = a.shape();
  const int64_t n = s.dims()[s.rank() - 1];
  Literal out(Shape(s.element_type(), s.dims()));
  std::vector<std::complex<double>> l(static_cast<size_t>(n * n));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t batch = 0; batch < MatrixBatches(s); ++batch) {
    const int64_t base = batch * n * n;
    // The named triangle seen as a lower one: ahat[i][j], i >= j.
    auto ahat = [&](int64_t i, int64_t j) {
      return lower ? a.Get(base + i * n + j).c() : std::conj(a.Get(base + j * n + i).c());
    };
    std::fill(l.begin(), l.end(), 0.0);
    bool failed = false;
    for (int64_t j = 0; j < n; ++j) {
      double pivot = ahat(j, j).real();
      for (int64_t q = 0; q < j; ++q) pivot -= std::norm(l[j * n + q]);
      const double d = std::sqrt(pivot);
      failed = failed || std::isnan(d);
      l[j * n + j] = d;
      for (int64_t i = j + 1; i < n; ++i) {
        std::complex<double> v = ahat(i, j);
        for (int64_t q = 0; q < j; ++q) v -= l[i * n + q] * std::conj(l[j * n + q]);
        l[i * n + j] = v / d;
      }
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const std::complex<double> v = failed ? std::complex<double>(nan, 0) : lower ? l[i * n + j] : std::conj(l[j * n + i]);
        out.Set(base + i * n + j, Scalar::Complex(ElementType::kC128, v));
      }
  }
  return out;
}

}  // namespace vkxla
