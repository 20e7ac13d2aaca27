// Cholesky and TriangularSolve on the device: the spec's examples, every
// combination of the solve's options on every type against the reference
// evaluator (small blocks run as one kernel, large ones through the
// blocked expansion), batches and other layouts, residual bounds on well
// and badly conditioned matrices (|LL^H - A| / |A| and |AX - B| /
// (|A||X|) within small multiples of n eps), XLA's NaNs for a matrix that
// is not positive definite, only the named triangle read, the StableHLO
// and builder forms, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>

#include "frontends/stablehlo_reader.h"
#include "frontends/xla_builder.h"
#include "ops/cholesky.h"
#include "ops/evaluator.h"
#include "ops/triangular_solve.h"
#include "plan/target_profiles.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

using cd = std::complex<double>;

class Linalg : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

const std::vector<ElementType> kTypes = {ElementType::kF32, ElementType::kF64, ElementType::kC64, ElementType::kC128};

double Eps(ElementType t) {
  return t == ElementType::kF32 || t == ElementType::kC64 ? std::numeric_limits<float>::epsilon()
                                                          : std::numeric_limits<double>::epsilon();
}

std::string TypeName(ElementType t) { return std::string(ElementTypeName(t)); }

std::string Dims(const std::vector<int64_t>& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s;
}

// Matrices as row-major complex<double>, batch first.
struct Matrices {
  std::vector<int64_t> batch;
  int64_t rows = 0, cols = 0;
  std::vector<cd> v;
  int64_t count() const {
    int64_t n = 1;
    for (int64_t b : batch) n *= b;
    return n;
  }
  cd& at(int64_t m, int64_t i, int64_t j) { return v[static_cast<size_t>((m * rows + i) * cols + j)]; }
  cd at(int64_t m, int64_t i, int64_t j) const { return v[static_cast<size_t>((m * rows + i) * cols + j)]; }
  std::vector<int64_t> dims() const {
    std::vector<int64_t> d = batch;
    d.push_back(rows);
    d.push_back(cols);
    return d;
  }
};

Matrices Zeros(std::vector<int64_t> batch, int64_t rows, int64_t cols) {
  Matrices m{std::move(batch), rows, cols, {}};
  m.v.assign(static_cast<size_t>(m.count() * rows * cols), 0.0);
  return m;
}

Matrices Random(std::vector<int64_t> batch, int64_t rows, int64_t cols, bool complex, std::mt19937_64& rng) {
  Matrices m = Zeros(std::move(batch), rows, cols);
  std::uniform_real_distribution<double> u(-1, 1);
  for (cd& x : m.v) x = complex ? cd(u(rng), u(rng)) : cd(u(rng), 0);
  return m;
}

Literal ToLiteral(const Matrices& m, ElementType t, const Layout* layout = nullptr) {
  Literal l(Shape(t, m.dims()));
  for (size_t i = 0; i < m.v.size(); ++i) l.Set(static_cast<int64_t>(i), Scalar::Complex(ElementType::kC128, m.v[i]));
  if (layout) l.set_layout(*layout);
  return l;
}

Matrices FromLiteral(const Literal& l) {
  const auto& d = l.shape().dims();
  Matrices m = Zeros(std::vector<int64_t>(d.begin(), d.end() - 2), d[d.size() - 2], d.back());
  for (size_t i = 0; i < m.v.size(); ++i) m.v[i] = l.Get(static_cast<int64_t>(i)).c();
  return m;
}

// Frobenius norm of matrix `k`.
double Norm(const Matrices& a, int64_t k) {
  double s = 0;
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) s += std::norm(a.at(k, i, j));
  return std::sqrt(s);
}

Matrices Product(const Matrices& a, const Matrices& b, bool adjoint_b = false) {
  const int64_t cols = adjoint_b ? b.rows : b.cols;
  Matrices c = Zeros(a.batch, a.rows, cols);
  for (int64_t k = 0; k < a.count(); ++k)
    for (int64_t i = 0; i < a.rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        cd s = 0;
        for (int64_t l = 0; l < a.cols; ++l) s += a.at(k, i, l) * (adjoint_b ? std::conj(b.at(k, j, l)) : b.at(k, l, j));
        c.at(k, i, j) = s;
      }
  return c;
}

// Hermitian positive definite: M M^H + shift I (a small shift: badly conditioned).
Matrices RandomSpd(std::vector<int64_t> batch, int64_t n, bool complex, double shift, std::mt19937_64& rng) {
  Matrices m = Random(batch, n, n, complex, rng);
  Matrices a = Product(m, m, true);
  for (int64_t k = 0; k < a.count(); ++k)
    for (int64_t i = 0; i < n; ++i) {
      a.at(k, i, i) = a.at(k, i, i).real() + shift;
      for (int64_t j = 0; j < i; ++j) a.at(k, j, i) = std::conj(a.at(k, i, j));  // exactly Hermitian
    }
  return a;
}

// A triangular-ish matrix: random entries, the diagonal `diag` in size
// (large: well conditioned; spread over decades: badly conditioned).
Matrices RandomTriangular(std::vector<int64_t> batch, int64_t n, bool complex, bool spread, std::mt19937_64& rng) {
  Matrices a = Random(std::move(batch), n, n, complex, rng);
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t k = 0; k < a.count(); ++k)
    for (int64_t i = 0; i < n; ++i) {
      const double size = spread ? std::pow(10.0, -3.0 * u(rng)) : static_cast<double>(n);
      a.at(k, i, i) = complex ? cd(size, size / 2) : cd(size, 0);
    }
  return a;
}

// The Cholesky factor of a badly conditioned matrix (its condition the
// square root of the matrix's, ~1e4 here): finite, unlike a random
// triangular matrix with small pivots, whose solutions overflow.
Matrices BadlyConditionedTriangular(int64_t n, bool complex, std::mt19937_64& rng) {
  Matrices a = RandomSpd({}, n, complex, 1e-4, rng);
  Instruction chol;
  chol.opcode = Opcode::kCholesky;
  chol.other_attributes.emplace_back("lower", "true");
  StatusOr<Literal> l = EvaluateCholesky(chol, ToLiteral(a, ElementType::kC128));
  EXPECT_TRUE(l.ok()) << l.status().ToString();
  return l.ok() ? FromLiteral(*l) : a;
}

std::string SolveOptionsText(const TriangularSolveOptions& o) {
  return std::string("left_side=") + (o.left_side ? "true" : "false") + ", lower=" + (o.lower ? "true" : "false") +
         ", unit_diagonal=" + (o.unit_diagonal ? "true" : "false") + ", transpose_a=" + std::string(TransposeAName(o.transpose_a));
}

std::string SolveModule(ElementType t, const std::vector<int64_t>& a_dims, const std::vector<int64_t>& b_dims,
                        const TriangularSolveOptions& o, const std::string& a_layout = "", const std::string& b_layout = "") {
  const std::string ty = TypeName(t);
  return "HloModule solve\nENTRY main {\n  a = " + ty + "[" + Dims(a_dims) + "]" + a_layout + " parameter(0)\n  b = " + ty + "[" +
         Dims(b_dims) + "]" + b_layout + " parameter(1)\n  ROOT x = " + ty + "[" + Dims(b_dims) + "]" + b_layout +
         " triangular-solve(a, b), " + SolveOptionsText(o) + "\n}\n";
}

std::string CholeskyModule(ElementType t, const std::vector<int64_t>& dims, bool lower, const std::string& layout = "") {
  const std::string ty = TypeName(t);
  return "HloModule cholesky\nENTRY main {\n  a = " + ty + "[" + Dims(dims) + "]" + layout + " parameter(0)\n  ROOT l = " + ty + "[" +
         Dims(dims) + "]" + layout + " cholesky(a), lower=" + (lower ? "true" : "false") + "\n}\n";
}

Matrices RunOnDevice(const std::string& text, const std::vector<Literal>& args, Matrices* reference = nullptr) {
  auto module = ParseOrFail(text);
  if (!module) return {};
  StatusOr<Literal> got = CompileAndRun(*module, args);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  if (reference) {
    StatusOr<Literal> want = EvaluateModule(*module, args);
    EXPECT_TRUE(want.ok()) << want.status().ToString();
    if (want.ok()) *reference = FromLiteral(*want);
  }
  return got.ok() ? FromLiteral(*got) : Matrices{};
}

// |got - want| / |want| per matrix, within `tol`, where `mask` (if given) says which elements count.
void ExpectNear(const Matrices& got, const Matrices& want, double tol, const std::string& what,
                const std::function<bool(int64_t, int64_t)>& counts = nullptr) {
  ASSERT_EQ(got.v.size(), want.v.size()) << what;
  for (int64_t k = 0; k < want.count(); ++k) {
    double err = 0, size = 0;
    for (int64_t i = 0; i < want.rows; ++i)
      for (int64_t j = 0; j < want.cols; ++j) {
        if (counts && !counts(i, j)) continue;
        err += std::norm(got.at(k, i, j) - want.at(k, i, j));
        size += std::norm(want.at(k, i, j));
      }
    EXPECT_LE(std::sqrt(err), tol * std::max(std::sqrt(size), 1e-300)) << what << ", matrix " << k;
  }
}

// op(a) as the solve reads it: the named triangle, the diagonal 1 when unit.
Matrices Effective(const Matrices& a, const TriangularSolveOptions& o) {
  Matrices t = Zeros(a.batch, a.rows, a.cols);
  for (int64_t k = 0; k < a.count(); ++k)
    for (int64_t i = 0; i < a.rows; ++i)
      for (int64_t j = 0; j < a.cols; ++j) {
        const bool named = o.lower ? i >= j : i <= j;
        cd v = !named ? 0.0 : (i == j && o.unit_diagonal) ? 1.0 : a.at(k, i, j);
        switch (o.transpose_a) {
          case TransposeA::kNoTranspose: t.at(k, i, j) = v; break;
          case TransposeA::kTranspose: t.at(k, j, i) = v; break;
          case TransposeA::kAdjoint: t.at(k, j, i) = std::conj(v); break;
        }
      }
  return t;
}

// |op(a) x - b| / (|op(a)| |x|) per matrix (x op(a) for a right-side solve).
void ExpectSolveResidual(const Matrices& a, const Matrices& b, const Matrices& x, const TriangularSolveOptions& o, double bound,
                         const std::string& what) {
  const Matrices t = Effective(a, o);
  const Matrices ax = o.left_side ? Product(t, x) : Product(x, t);
  for (int64_t k = 0; k < b.count(); ++k) {
    double r = 0;
    for (int64_t i = 0; i < b.rows; ++i)
      for (int64_t j = 0; j < b.cols; ++j) r += std::norm(ax.at(k, i, j) - b.at(k, i, j));
    EXPECT_LE(std::sqrt(r), bound * Norm(t, k) * Norm(x, k)) << what << ", matrix " << k;
  }
}

std::vector<TriangularSolveOptions> AllSolveOptions() {
  std::vector<TriangularSolveOptions> all;
  for (bool left : {true, false})
    for (bool lower : {true, false})
      for (bool unit : {false, true})
        for (TransposeA t : {TransposeA::kNoTranspose, TransposeA::kTranspose, TransposeA::kAdjoint})
          all.push_back({left, lower, unit, t});
  return all;
}

TEST_F(Linalg, SpecExamples) {
  // stablehlo_spec.md: cholesky and triangular_solve.
  const std::string chol = R"(
func.func @main() -> tensor<3x3xf32> {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [2.0, 20.0, 26.0], [3.0, 26.0, 70.0]]> : tensor<3x3xf32>
  %r = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  func.return %r : tensor<3x3xf32>
})";
  auto m = ReadStablehlo(chol, false);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  StatusOr<Literal> l = CompileAndRun(*m->module, {});
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  const std::vector<double> want_l = {1, 0, 0, 2, 4, 0, 3, 5, 6};
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(l->Get(i).re, want_l[i], 1e-5) << i;
  const std::string solve = R"(
func.func @main() -> tensor<3x3xf32> {
  %a = stablehlo.constant dense<[[1.0, 0.0, 0.0], [2.0, 4.0, 0.0], [3.0, 5.0, 6.0]]> : tensor<3x3xf32>
  %b = stablehlo.constant dense<[[2.0, 0.0, 0.0], [4.0, 8.0, 0.0], [6.0, 10.0, 12.0]]> : tensor<3x3xf32>
  %r = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  func.return %r : tensor<3x3xf32>
})";
  m = ReadStablehlo(solve, false);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  StatusOr<Literal> x = CompileAndRun(*m->module, {});
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(x->Get(i).re, i % 4 == 0 ? 2.0 : 0.0, 1e-5) << i;
}

// A batch of two random solves of order m with k right-hand sides, run on
// the device and on the reference.
struct SolveRun {
  Matrices a, b, x, want;
};
SolveRun RunRandomSolve(ElementType t, int64_t m, int64_t k, const TriangularSolveOptions& o, std::mt19937_64& rng) {
  SolveRun r;
  r.a = RandomTriangular({2}, m, IsComplex(t), false, rng);
  r.b = o.left_side ? Random({2}, m, k, IsComplex(t), rng) : Random({2}, k, m, IsComplex(t), rng);
  r.x = RunOnDevice(SolveModule(t, {2, m, m}, r.b.dims(), o), {ToLiteral(r.a, t), ToLiteral(r.b, t)}, &r.want);
  return r;
}

// Every option on every type, one kernel per solve, against the reference.
TEST_F(Linalg, SolveEveryOptionAndType) {
  std::mt19937_64 rng(7);
  for (ElementType t : kTypes) {
    for (const TriangularSolveOptions& o : AllSolveOptions())
      // 128 right-hand sides: whole workgroups of invocations on one matrix.
      for (const int64_t k : {3, 128}) {
        const SolveRun r = RunRandomSolve(t, 7, k, o, rng);
        ExpectNear(r.x, r.want, 20 * Eps(t), TypeName(t) + " k=" + std::to_string(k) + " " + SolveOptionsText(o));
      }
  }
}

// Orders past the leaf run blocked (the matmul does the bulk): every option
// at f32 and c64 (where the adjoint differs), four at f64 and c128, and
// left-looking panels over an odd order; batched.
TEST_F(Linalg, BlockedSolveEveryOption) {
  std::mt19937_64 rng(11);
  for (ElementType t : kTypes) {
    int option = 0;
    for (const TriangularSolveOptions& o : AllSolveOptions()) {
      const bool wide = t == ElementType::kF64 || t == ElementType::kC128;
      if (wide && option++ % 6 != 0) continue;
      for (int64_t m : {40, 201}) {
        if (m == 201 && (o.unit_diagonal || o.transpose_a == TransposeA::kTranspose || t != ElementType::kF32)) continue;
        const SolveRun r = RunRandomSolve(t, m, 9, o, rng);
        const std::string what = TypeName(t) + " m=" + std::to_string(m) + " " + SolveOptionsText(o);
        ExpectNear(r.x, r.want, 50 * Eps(t), what);
        ExpectSolveResidual(r.a, r.b, r.x, o, 4 * m * Eps(t), what);
      }
    }
  }
}

// Residual bounds hold on badly conditioned matrices too (backward
// stability), where the solution itself may be far from the reference.
TEST_F(Linalg, SolveResidualBadlyConditioned) {
  std::mt19937_64 rng(13);
  for (ElementType t : kTypes) {
    for (bool left : {true, false}) {
      TriangularSolveOptions o{left, true, false, TransposeA::kNoTranspose};
      const int64_t m = 130, k = 40;
      Matrices a = BadlyConditionedTriangular(m, IsComplex(t), rng);
      Matrices b = left ? Random({}, m, k, IsComplex(t), rng) : Random({}, k, m, IsComplex(t), rng);
      Matrices x = RunOnDevice(SolveModule(t, {m, m}, b.dims(), o), {ToLiteral(a, t), ToLiteral(b, t)});
      ExpectSolveResidual(a, b, x, o, 4 * m * Eps(t), TypeName(t) + " badly conditioned " + SolveOptionsText(o));
    }
  }
}

TEST_F(Linalg, SolveLayouts) {
  std::mt19937_64 rng(17);
  for (bool blocked : {false, true}) {
    const int64_t m = blocked ? 40 : 6, k = 5;
    TriangularSolveOptions o{true, false, false, TransposeA::kTranspose};
    Matrices a = RandomTriangular({3}, m, false, false, rng);
    Matrices b = Random({3}, m, k, false, rng);
    Matrices want;
    Matrices x = RunOnDevice(SolveModule(ElementType::kF32, a.dims(), b.dims(), o, "{0,1,2}", "{1,0,2}"),
                     {ToLiteral(a, ElementType::kF32), ToLiteral(b, ElementType::kF32)}, &want);
    ExpectNear(x, want, 50 * Eps(ElementType::kF32), "column-major a");
    x = RunOnDevice(SolveModule(ElementType::kF32, a.dims(), b.dims(), o, "{2,1,0:T(8,128)}", "{2,1,0:T(8,128)}"),
            {ToLiteral(a, ElementType::kF32), ToLiteral(b, ElementType::kF32)}, &want);
    ExpectNear(x, want, 50 * Eps(ElementType::kF32), "tiled");
  }
}

TEST_F(Linalg, CholeskyEveryType) {
  std::mt19937_64 rng(19);
  for (ElementType t : kTypes) {
    for (int64_t n : {1, 5, 32, 33, 70})
      for (bool lower : {true, false}) {
        Matrices a = RandomSpd({2}, n, IsComplex(t), 1.0 * n, rng);
        Matrices want;
        const std::string what = TypeName(t) + " n=" + std::to_string(n) + (lower ? " lower" : " upper");
        Matrices l = RunOnDevice(CholeskyModule(t, a.dims(), lower), {ToLiteral(a, t)}, &want);
        ExpectNear(l, want, 20 * n * Eps(t), what);
        // The other triangle is zero, as XLA writes it.
        for (int64_t k = 0; k < 2; ++k)
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
              if (lower ? j > i : j < i) {
                EXPECT_EQ(l.at(k, i, j), cd(0)) << what;
              }
      }
  }
}

// |L L^H - A| / |A| within a small multiple of n eps, well and badly
// conditioned (a shift of 1e-3 against entries of size n).
TEST_F(Linalg, CholeskyResidual) {
  std::mt19937_64 rng(23);
  for (ElementType t : kTypes) {
    for (double shift : {100.0, 1e-3}) {
      // f32 and c64 past kLowerUpdateLeafOrder (the split trailing update);
      // f64 and c128 below it (each order compiles its own kernels).
      const int64_t n = t == ElementType::kF32 || t == ElementType::kC64 ? 300 : 100;
      Matrices a = RandomSpd({}, n, IsComplex(t), shift, rng);
      Matrices l = RunOnDevice(CholeskyModule(t, a.dims(), true), {ToLiteral(a, t)});
      if (l.v.empty()) continue;
      Matrices llh = Product(l, l, true);
      double r = 0;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) r += std::norm(llh.at(0, i, j) - a.at(0, i, j));
      EXPECT_LE(std::sqrt(r), 4 * n * Eps(t) * Norm(a, 0)) << TypeName(t) << " shift " << shift;
    }
  }
}

// Only the named triangle is read: NaN in the other one changes nothing.
TEST_F(Linalg, ReadsOnlyTheNamedTriangle) {
  std::mt19937_64 rng(29);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t n : {6, 50})
    for (bool lower : {true, false}) {
      Matrices a = RandomSpd({}, n, true, 1.0 * n, rng);
      Matrices spoiled = a;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
          if (lower ? j > i : j < i) spoiled.at(0, i, j) = cd(nan, nan);
      Matrices clean = RunOnDevice(CholeskyModule(ElementType::kC64, a.dims(), lower), {ToLiteral(a, ElementType::kC64)});
      Matrices got = RunOnDevice(CholeskyModule(ElementType::kC64, a.dims(), lower), {ToLiteral(spoiled, ElementType::kC64)});
      ExpectNear(got, clean, 0, "cholesky n=" + std::to_string(n));
      for (const TriangularSolveOptions& o : AllSolveOptions()) {
        if (o.lower != lower) continue;
        Matrices b = Random({}, n, n, true, rng);
        Matrices unread = spoiled;
        if (o.unit_diagonal)
          for (int64_t i = 0; i < n; ++i) unread.at(0, i, i) = cd(nan, nan);
        const std::string text = SolveModule(ElementType::kC64, a.dims(), b.dims(), o);
        Matrices x0 = RunOnDevice(text, {ToLiteral(a, ElementType::kC64), ToLiteral(b, ElementType::kC64)});
        Matrices x1 = RunOnDevice(text, {ToLiteral(unread, ElementType::kC64), ToLiteral(b, ElementType::kC64)});
        ExpectNear(x1, x0, 0, "solve " + SolveOptionsText(o));
      }
    }
}

// XLA: a matrix whose factorisation meets a negative pivot is NaN
// throughout; the other matrices of the batch are unaffected.
TEST_F(Linalg, NotPositiveDefiniteIsNan) {
  std::mt19937_64 rng(31);
  for (int64_t n : {4, 32, 90})
    for (ElementType t : {ElementType::kF32, ElementType::kC128}) {
      Matrices a = RandomSpd({3}, n, IsComplex(t), 1.0 * n, rng);
      a.at(1, n - 1, n - 1) = -1.0 * n * n;  // the last pivot fails
      a.at(2, 0, 0) = -1.0;                  // the first one fails
      Matrices l = RunOnDevice(CholeskyModule(t, a.dims(), true), {ToLiteral(a, t)});
      if (l.v.empty()) continue;
      for (int64_t k = 0; k < 3; ++k)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j)
            EXPECT_EQ(std::isnan(l.at(k, i, j).real()), k != 0) << TypeName(t) << " n=" << n << " matrix " << k << " (" << i << ", " << j << ")";
    }
}

TEST_F(Linalg, CholeskyLayouts) {
  std::mt19937_64 rng(37);
  for (int64_t n : {7, 45}) {
    Matrices a = RandomSpd({2}, n, false, 1.0 * n, rng);
    Matrices want;
    for (const char* layout : {"{1,2,0}", "{2,1,0:T(8,128)}"}) {
      Matrices l = RunOnDevice(CholeskyModule(ElementType::kF32, a.dims(), false, layout), {ToLiteral(a, ElementType::kF32)}, &want);
      ExpectNear(l, want, 20 * n * Eps(ElementType::kF32), layout);
    }
  }
}

TEST_F(Linalg, Builder) {
  XlaBuilder b("linalg");
  const Shape s(ElementType::kF64, {40, 40});
  XlaOp a = b.Parameter(0, s, "a");
  XlaOp l = b.Cholesky(a, true);
  XlaOp x = b.TriangularSolve(l, a, true, true, false, TransposeA::kNoTranspose);  // L^-1 A = L^H
  auto module = b.Build(x);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  std::mt19937_64 rng(41);
  Matrices spd = RandomSpd({}, 40, false, 40, rng);
  const Literal arg = ToLiteral(spd, ElementType::kF64);
  StatusOr<Literal> got = CompileAndRun(**module, {arg});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  StatusOr<Literal> want = EvaluateModule(**module, {arg});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ExpectNear(FromLiteral(*got), FromLiteral(*want), 1e-12, "builder");
}

// Empty matrices, batches and right-hand sides: nothing to compute, no dispatch.
TEST_F(Linalg, EmptyArrays) {
  EXPECT_EQ(RunHloText("", "a = f32[0,0] constant({})\n  b = f32[0,3] constant({})\n  l = f32[0,0] cholesky(a), lower=true\n"
                           "  x = f32[0,3] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n"
                           "  ROOT t = (f32[0,0], f32[0,3]) tuple(l, x)"),
            "({}, {})");
  EXPECT_EQ(RunHloText("", "z = f32[] constant(1)\n  a = f32[2,0,40,40] broadcast(z), dimensions={}\n"
                           "  ROOT l = f32[2,0,40,40] cholesky(a), lower=true"),
            "{{}, {}}");
  EXPECT_EQ(RunHloText("", "z = f32[] constant(1)\n  a = f32[40,40] broadcast(z), dimensions={}\n  b = f32[0,40] broadcast(z), dimensions={}\n"
                           "  ROOT x = f32[0,40] triangular-solve(a, b), left_side=false, lower=true, transpose_a=TRANSPOSE"),
            "{}");
}

// The GPU configurations (matmul tiles, workgroups) run on lavapipe too.
TEST_F(Linalg, DesktopGpuPlanRuns) {
  std::mt19937_64 rng(43);
  const TargetFeatures gpu = [] {
    TargetFeatures t = DesktopGpuTarget();
    t.cpu = false;
    return t;
  }();
  const int64_t n = 70;
  Matrices a = RandomSpd({}, n, false, 1.0 * n, rng);
  Matrices b = Random({}, n, 5, false, rng);
  for (const std::string& text : {CholeskyModule(ElementType::kF32, a.dims(), false),
                                  SolveModule(ElementType::kF32, a.dims(), b.dims(), {true, true, false, TransposeA::kAdjoint})}) {
    auto module = ParseOrFail(text);
    ASSERT_TRUE(module);
    std::vector<Literal> args = {ToLiteral(a, ElementType::kF32)};
    if (module->entry()->parameters().size() == 2) args.push_back(ToLiteral(b, ElementType::kF32));
    StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(*module, TestDevice(), gpu);
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    StatusOr<Literal> got = (*exe)->Run(args);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    StatusOr<Literal> want = EvaluateModule(*module, args);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    ExpectNear(FromLiteral(*got), FromLiteral(*want), 50 * n * Eps(ElementType::kF32), text.substr(0, 40));
  }
}

TEST_F(Linalg, Errors) {
  ExpectHloError("", "a = f32[3,4] parameter(0)\n  ROOT l = f32[3,4] cholesky(a), lower=true", {"cholesky", "f32[3,4]", "square"});
  ExpectHloError("", "a = s32[3,3] parameter(0)\n  ROOT l = s32[3,3] cholesky(a), lower=true", {"cholesky", "s32[3,3]", "f32, f64"});
  ExpectHloError("", "a = f32[3] parameter(0)\n  ROOT l = f32[3] cholesky(a)", {"cholesky", "f32[3]"});
  ExpectHloError("", "a = f32[3,3] parameter(0)\n  b = f32[4,2] parameter(1)\n  ROOT x = f32[4,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
                 {"triangular-solve", "f32[4,2]", "3"});
  ExpectHloError("", "a = f32[2,3,3] parameter(0)\n  b = f32[5,3,2] parameter(1)\n  ROOT x = f32[5,3,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
                 {"triangular-solve", "batch", "f32[2,3,3]"});
  ExpectHloError("", "a = f32[3,3] parameter(0)\n  b = f64[3,2] parameter(1)\n  ROOT x = f64[3,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
                 {"triangular-solve", "f32[3,3]", "f64[3,2]"});
  ExpectHloError("", "a = f32[3,3] parameter(0)\n  b = f32[3,2] parameter(1)\n  ROOT x = f32[3,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=SIDEWAYS",
                 {"triangular-solve", "transpose_a", "SIDEWAYS"});
  ExpectHloError("", "a = f16[3,3] parameter(0)\n  b = f16[3,2] parameter(1)\n  ROOT x = f16[3,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
                 {"triangular-solve", "f16[3,3]", "f32, f64, c64 or c128"});
  auto bad = ReadStablehlo(R"(
func.func @main(%a: tensor<3x3xf32>, %b: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %r = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose BACKWARDS>} : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  func.return %r : tensor<3x1xf32>
})", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("BACKWARDS"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("3:"), std::string::npos) << bad.status().ToString();
}

}  // namespace
}  // namespace vkxla
