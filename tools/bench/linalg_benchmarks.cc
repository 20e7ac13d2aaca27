#include "tools/bench/linalg_benchmarks.h"

#include <random>

#include "tools/bench/module_timing.h"

namespace vkxla {
namespace {

// Diagonally dominant: positive definite, and a well-conditioned triangle.
Literal DominantMatrix(int64_t n) {
  Literal a = RandomBenchLiteral(Shape(ElementType::kF32, {n, n}), 5);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < i; ++j) a.Set(j * n + i, a.Get(i * n + j));  // symmetric
  for (int64_t i = 0; i < n; ++i) a.Set(i * n + i, Scalar::Float(ElementType::kF32, static_cast<double>(n)));
  return a;
}

StatusOr<double> MatmulSeconds(Device& device, int64_t m, int64_t n, int64_t k) {
  const std::string text = "HloModule matmul\nENTRY main {\n  a = f32[" + std::to_string(m) + "," + std::to_string(k) +
                           "] parameter(0)\n  b = f32[" + std::to_string(k) + "," + std::to_string(n) +
                           "] parameter(1)\n  ROOT c = f32[" + std::to_string(m) + "," + std::to_string(n) +
                           "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
  VKXLA_ASSIGN_OR_RETURN(ModuleTiming t, TimeModuleKernels(device, text,
                                                     {RandomBenchLiteral(Shape(ElementType::kF32, {m, k}), 1),
                                                      RandomBenchLiteral(Shape(ElementType::kF32, {k, n}), 2)},
                                                     3, 2));
  return t.kernels.seconds;
}

BenchRow AgainstMatmul(const std::string& name, double flops, const ModuleTiming& t, double matmul_seconds,
                       const std::string& matmul) {
  BenchRow r;
  r.name = name + " (" + std::to_string(t.kernel_count) + " kernels)";
  r.result = Format("%.1f GFLOP/s", flops / t.kernels.seconds * 1e-9);
  r.limit = matmul + " " + Format("%.1f GFLOP/s", flops / matmul_seconds * 1e-9);
  r.ratio = matmul_seconds / t.kernels.seconds;
  r.target = 0.5;
  r.note = Format("%.2f ms", t.kernels.seconds * 1e3);
  return r;
}

}  // namespace

Status RunLinalgBenchmarks(Device& device, BenchReport& report) {
  const int64_t n = 2048;
  const Literal a = DominantMatrix(n);
  const std::string dims = std::to_string(n) + "," + std::to_string(n);
  // Cholesky: n^3/3 flops, the matmul n x n x n/6.
  const std::string chol = "HloModule cholesky\nENTRY main {\n  a = f32[" + dims + "] parameter(0)\n  ROOT l = f32[" + dims +
                           "] cholesky(a), lower=true\n}\n";
  VKXLA_ASSIGN_OR_RETURN(ModuleTiming c, TimeModuleKernels(device, chol, {a}, 3, 1));
  VKXLA_ASSIGN_OR_RETURN(double chol_matmul, MatmulSeconds(device, n, n, n / 6));
  report.rows.push_back(AgainstMatmul("cholesky f32[2048,2048], lower", static_cast<double>(n) * n * n / 3, c, chol_matmul,
                                      "f32 matmul 2048x2048x341"));
  // A left-side lower solve with n right-hand sides: n^3 flops, the matmul n x n x n/2.
  const std::string solve = "HloModule solve\nENTRY main {\n  a = f32[" + dims + "] parameter(0)\n  b = f32[" + dims +
                            "] parameter(1)\n  ROOT x = f32[" + dims +
                            "] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n}\n";
  VKXLA_ASSIGN_OR_RETURN(ModuleTiming s, TimeModuleKernels(device, solve, {a, RandomBenchLiteral(Shape(ElementType::kF32, {n, n}), 3)}, 3, 1));
  VKXLA_ASSIGN_OR_RETURN(double solve_matmul, MatmulSeconds(device, n, n, n / 2));
  report.rows.push_back(AgainstMatmul("triangular-solve f32[2048,2048] by 2048 right-hand sides, left lower",
                                      static_cast<double>(n) * n * n, s, solve_matmul, "f32 matmul 2048x2048x1024"));
  return OkStatus();
}

}  // namespace vkxla
