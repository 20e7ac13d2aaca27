// The custom calls that stand for linear algebra
// (frontends/linalg_custom_calls.h): jaxlib's LAPACK/BLAS kernels in CPU
// exports and XLA's own decompositions run as the decompositions built of
// HLO ops, checked by what defines each factorisation (the product gives
// the matrix back, factors are orthonormal or triangular, LAPACK's signs,
// pivots and info) and against known answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>

#include "frontends/stablehlo_reader.h"
#include "ops/evaluator.h"
#include "runtime/executable.h"
#include "tests/stablehlo_test_util.h"

namespace vkxla {
namespace {

class LinalgCustomCalls : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

// LAPACK's getrf on the host, unblocked (dgetf2): the factors in place,
// 1-based pivots, info.
// Complex pivots by |re| + |im|, as izamax.
void HostGetrf(std::vector<std::complex<double>>& a, int64_t m, int64_t n, std::vector<int32_t>& ipiv, int32_t& info) {
  const int64_t k = std::min(m, n);
  auto magnitude = [](std::complex<double> z) { return std::abs(z.real()) + std::abs(z.imag()); };
  info = 0;
  ipiv.assign(static_cast<size_t>(k), 0);
  for (int64_t j = 0; j < k; ++j) {
    int64_t p = j;
    for (int64_t i = j + 1; i < m; ++i)
      if (magnitude(a[i * n + j]) > magnitude(a[p * n + j])) p = i;
    ipiv[j] = static_cast<int32_t>(p + 1);
    if (a[p * n + j] != 0.0) {
      for (int64_t c = 0; c < n; ++c) std::swap(a[j * n + c], a[p * n + c]);
      const std::complex<double> r = 1.0 / a[j * n + j];
      for (int64_t i = j + 1; i < m; ++i) a[i * n + j] *= r;
    } else if (info == 0) {
      info = static_cast<int32_t>(j + 1);
    }
    for (int64_t i = j + 1; i < m; ++i)
      for (int64_t c = j + 1; c < n; ++c) a[i * n + c] -= a[i * n + j] * a[j * n + c];
  }
}

// Eigenvalues by real part, then imaginary part; real parts within 1e-6
// of each other (a conjugate pair's, rounded apart) count as one.
std::vector<std::complex<double>> InValueOrder(std::vector<std::complex<double>> v) {
  auto key = [](std::complex<double> z) { return std::make_pair(std::round(z.real() * 1e6), z.imag()); };
  std::sort(v.begin(), v.end(), [&](auto x, auto y) { return key(x) < key(y); });
  return v;
}

// A module jax.export wrote on a CPU calls jaxlib's LAPACK/BLAS kernels:
// the ones XLA ops compute give what those ops give (the same kernels), in
// the legacy and the FFI forms, batched, and LAPACK's info says which
// matrix is not positive definite.
TEST_F(LinalgCustomCalls, JaxlibCpuLinearAlgebraRunsAsXlaOps) {
  // Two 3x3 matrices: one positive definite, one not.
  Literal a(Shape(ElementType::kF32, {2, 3, 3}));
  const float av[] = {4, 2, 0.6f, 2, 5, 1, 0.6f, 1, 3, /**/ 1, 2, 0, 2, 1, 0, 0, 0, 1};
  for (int64_t i = 0; i < 18; ++i) a.Set(i, Scalar::Float(ElementType::kF32, av[i]));
  const std::string info_and_factor = RunRefined(R"(
func.func @main(%a: tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>) {
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)
  return %0#0, %0#1 : tensor<2x3x3xf32>, tensor<2xi32>
})", {a});
  EXPECT_NE(info_and_factor.find("{0, 1})"), std::string::npos) << info_and_factor;
  const std::string direct = RunRefined(R"(
func.func @main(%a: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %0 = stablehlo.cholesky %a, lower = true : tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
})", {a});
  // The first factor as the op gives it (the second holds NaNs).
  const std::string first = direct.substr(direct.find("{{{"), direct.find("}}, {{") - direct.find("{{{"));
  EXPECT_NE(info_and_factor.find(first), std::string::npos) << info_and_factor << "\n" << direct;
  const std::string legacy = RunRefined(R"(
func.func @main(%a: tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>) {
  %lower = stablehlo.constant dense<1> : tensor<i32>
  %b = stablehlo.constant dense<2> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %0:2 = stablehlo.custom_call @lapack_spotrf(%lower, %b, %n, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)
  return %0#0, %0#1 : tensor<2x3x3xf32>, tensor<2xi32>
})", {a});
  EXPECT_EQ(legacy, info_and_factor);
  // op(a) x = alpha b for each side, triangle, transpose and diagonal,
  // against stablehlo.triangular_solve of alpha b.
  Literal t(Shape(ElementType::kF32, {3, 3})), b(Shape(ElementType::kF32, {3, 3}));
  const float tv[] = {2, 0.5f, -1, 0.25f, 3, 0.5f, 1, -0.5f, 4}, bv[] = {1, 2, 3, -1, 0.5f, 2, 4, -2, 1};
  for (int64_t i = 0; i < 9; ++i) {
    t.Set(i, Scalar::Float(ElementType::kF32, tv[i]));
    b.Set(i, Scalar::Float(ElementType::kF32, bv[i]));
  }
  for (const char* side : {"L", "R"})
    for (const char* uplo : {"L", "U"})
      for (const char* trans : {"N", "T"})
        for (const char* diag : {"N", "U"}) {
          SCOPED_TRACE(std::string(side) + uplo + trans + diag);
          auto code = [](const char* c) { return std::to_string(static_cast<int>(c[0])); };
          const std::string ffi = RunRefined(R"(
func.func @main(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %alpha = stablehlo.constant dense<2.0> : tensor<f32>
  %0 = stablehlo.custom_call @blas_strsm_ffi(%a, %b, %alpha) {mhlo.backend_config = {diag = )" + code(diag) + " : ui8, side = " +
                                             code(side) + " : ui8, trans_x = " + code(trans) + " : ui8, uplo = " + code(uplo) +
                                             R"( : ui8}} : (tensor<3x3xf32>, tensor<3x3xf32>, tensor<f32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
})", {t, b});
          const std::string flags = std::string(side[0] == 'L' ? "1" : "0") + "," + (uplo[0] == 'L' ? "1" : "0") + "," +
                                    (trans[0] == 'T' ? "1" : "0") + "," + (diag[0] == 'U' ? "1" : "0");
          std::vector<std::string> f;
          for (size_t at = 0; at < flags.size(); at += 2) f.push_back(flags.substr(at, 1));
          const std::string blas = RunRefined(R"(
func.func @main(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %s = stablehlo.constant dense<)" + f[0] + R"(> : tensor<i32>
  %l = stablehlo.constant dense<)" + f[1] + R"(> : tensor<i32>
  %t = stablehlo.constant dense<)" + f[2] + R"(> : tensor<i32>
  %u = stablehlo.constant dense<)" + f[3] + R"(> : tensor<i32>
  %m = stablehlo.constant dense<3> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %alpha = stablehlo.constant dense<2.0> : tensor<f32>
  %0 = stablehlo.custom_call @blas_strsm(%s, %l, %t, %u, %m, %m, %one, %alpha, %a, %b) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
})", {t, b});
          const std::string op = RunRefined(R"(
func.func @main(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %alpha = stablehlo.constant dense<2.0> : tensor<3x3xf32>
  %ab = stablehlo.multiply %b, %alpha : tensor<3x3xf32>
  %0 = "stablehlo.triangular_solve"(%a, %ab) {left_side = )" + std::string(side[0] == 'L' ? "true" : "false") +
                                            ", lower = " + (uplo[0] == 'L' ? "true" : "false") + ", unit_diagonal = " +
                                            (diag[0] == 'U' ? "true" : "false") + ", transpose_a = #stablehlo<transpose " +
                                            (trans[0] == 'T' ? "TRANSPOSE" : "NO_TRANSPOSE") + R"(>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
})", {t, b});
          EXPECT_EQ(ffi, op);
          EXPECT_EQ(blas, op);
          EXPECT_EQ(op.rfind("f32[3,3] {{", 0), 0u) << op;
        }
}

// jaxlib's getrf (jnp.linalg.lu, solve, inv, det exported on a CPU): the
// factors, pivots and info LAPACK gives, batched, wide and tall, with a
// singular matrix, in the legacy and FFI forms.
TEST_F(LinalgCustomCalls, JaxlibCpuLuMatchesLapacksGetrf) {
  std::mt19937_64 rng(5);
  struct Case {
    ElementType t;
    std::vector<int64_t> dims;
    bool ffi;
  };
  for (const Case& c : {Case{ElementType::kF32, {4, 4}, true}, Case{ElementType::kF64, {3, 5, 5}, false},
                        Case{ElementType::kF32, {2, 6, 3}, true}, Case{ElementType::kF64, {3, 6}, true},
                        Case{ElementType::kC64, {2, 4, 4}, true}, Case{ElementType::kC128, {3, 5}, false}}) {
    const int64_t rank = static_cast<int64_t>(c.dims.size()), m = c.dims[rank - 2], n = c.dims[rank - 1], k = std::min(m, n);
    const int64_t batch = c.dims.size() == 3 ? c.dims[0] : 1;
    const std::string t = std::string(ElementTypeName(c.t));
    const std::string ty = MlirElementType(c.t);
    const std::string prefix = c.t == ElementType::kF32 ? "s" : c.t == ElementType::kF64 ? "d" : c.t == ElementType::kC64 ? "c" : "z";
    std::string shape = "", bshape = "";
    for (int64_t d : c.dims) shape += std::to_string(d) + "x";
    if (batch > 1 || c.dims.size() == 3) bshape = std::to_string(batch) + "x";
    SCOPED_TRACE(shape + t);
    Literal a(Shape(c.t, c.dims));
    std::uniform_int_distribution<int> d(-8, 8);
    for (int64_t i = 0; i < a.element_count(); ++i) {
      const double re = d(rng) / 4.0;
      a.Set(i, IsComplex(c.t) ? Scalar::Complex(c.t, {re, d(rng) / 4.0}) : Scalar::Float(c.t, re));
    }
    if (batch > 1)  // a singular member: its second column is zero
      for (int64_t i = 0; i < m; ++i) a.Set(m * n + i * n + 1, Scalar::Convert(Scalar::Float(ElementType::kF64, 0), c.t));
    const std::string ins = "tensor<" + shape + ty + ">", piv = "tensor<" + bshape + std::to_string(k) + "xi32>",
                      inf = bshape.empty() ? "tensor<i32>" : "tensor<" + bshape.substr(0, bshape.size() - 1) + "xi32>";
    const std::string call = c.ffi ? "stablehlo.custom_call @lapack_" + prefix +
                                         "getrf_ffi(%a) : (" + ins + ") -> (" + ins + ", " + piv + ", " + inf + ")"
                                   : "stablehlo.custom_call @lapack_" + prefix +
                                         "getrf(%b, %m, %n, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, " +
                                         ins + ") -> (" + ins + ", " + piv + ", " + inf + ")";
    const std::string text = "func.func @main(%a: " + ins + ") -> (" + ins + ", " + piv + ", " + inf + ") {\n"
                             "  %b = stablehlo.constant dense<" + std::to_string(batch) + "> : tensor<i32>\n"
                             "  %m = stablehlo.constant dense<" + std::to_string(m) + "> : tensor<i32>\n"
                             "  %n = stablehlo.constant dense<" + std::to_string(n) + "> : tensor<i32>\n"
                             "  %0:3 = " + call + "\n  return %0#0, %0#1, %0#2 : " + ins + ", " + piv + ", " + inf + "\n}\n";
    auto p = ReadStablehlo(text, false);
    ASSERT_TRUE(p.ok()) << p.status().ToString() << "\n" << text;
    auto got = CompileAndRun(*p->module, {a});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<std::complex<double>> host(static_cast<size_t>(m * n));
      for (int64_t i = 0; i < m * n; ++i) host[i] = {a.Get(b * m * n + i).re, a.Get(b * m * n + i).im};
      std::vector<int32_t> ipiv;
      int32_t info = 0;
      HostGetrf(host, m, n, ipiv, info);
      for (int64_t i = 0; i < m * n; ++i) {
        const Scalar g = got->tuple_elements()[0].Get(b * m * n + i);
        EXPECT_NEAR(g.re, host[i].real(), 1e-5 * (1 + std::abs(host[i]))) << "batch " << b << " element " << i;
        EXPECT_NEAR(g.im, host[i].imag(), 1e-5 * (1 + std::abs(host[i]))) << "batch " << b << " element " << i;
      }
      for (int64_t j = 0; j < k; ++j) EXPECT_EQ(got->tuple_elements()[1].Get(b * k + j).s, ipiv[j]) << "batch " << b << " pivot " << j;
      EXPECT_EQ(got->tuple_elements()[2].Get(b).s, info) << "batch " << b;
      if (batch > 1) {
        EXPECT_EQ(info, b == 1 ? 2 : 0);
      }
    }
  }
}

// jaxlib's GPU pivots-to-permutation kernels (0-based row swaps, those
// out of range skipped) and XLA's LuDecomposition (the factors, 0-based
// pivots, the permutation): against the swaps done by hand.
TEST_F(LinalgCustomCalls, PivotsBecomePermutations) {
  Literal piv(Shape(ElementType::kS32, {2, 3}));
  const int pv[] = {2, 2, 9, 1, -1, 1};
  for (int64_t i = 0; i < 6; ++i) piv.Set(i, Scalar::Int(ElementType::kS32, pv[i]));
  // [0,1,2,3]: swap 0,2 -> [2,1,0,3]; swap 1,2 -> [2,0,1,3]; 9 out of range. [0,1,2,3]: swap 0,1 -> [1,0,2,3]; -1 skipped; 2,1 -> [1,2,0,3].
  EXPECT_EQ(RunRefined(R"(
func.func @main(%p: tensor<2x3xi32>) -> tensor<2x4xi32> {
  %0 = stablehlo.custom_call @cu_lu_pivots_to_permutation(%p) {mhlo.backend_config = {}} : (tensor<2x3xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
})", {piv}),
            "s32[2,4] {{2, 0, 1, 3}, {1, 2, 0, 3}}");
  Literal a(Shape(ElementType::kF32, {3, 3}));
  for (int64_t i = 0; i < 9; ++i) a.Set(i, Scalar::Float(ElementType::kF32, static_cast<double>(i)));
  EXPECT_EQ(RunRefined(R"(
func.func @main(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<3xi32>) {
  %0 = stablehlo.custom_call @LuDecomposition(%a) : (tensor<3x3xf32>) -> tuple<tensor<3x3xf32>, tensor<3xi32>, tensor<3xi32>>
  %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<3x3xf32>, tensor<3xi32>, tensor<3xi32>>) -> tensor<3x3xf32>
  %2 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<3x3xf32>, tensor<3xi32>, tensor<3xi32>>) -> tensor<3xi32>
  %3 = stablehlo.get_tuple_element %0[2] : (tuple<tensor<3x3xf32>, tensor<3xi32>, tensor<3xi32>>) -> tensor<3xi32>
  return %1, %2, %3 : tensor<3x3xf32>, tensor<3xi32>, tensor<3xi32>
})", {a}),
            "(f32[3,3], s32[3], s32[3]) ({{6, 7, 8}, {0, 1, 2}, {0.5, 0.5, 0}}, {2, 2, 2}, {2, 0, 1})");
}

// jaxlib's QR (jnp.linalg.qr exported on a CPU: geqrf then orgqr) and
// XLA's Qr and ProductOfElementaryHouseholderReflectors: Q R gives the
// matrix back, Q's columns are orthonormal, R is upper triangular with
// LAPACK's signs (the diagonal -sign(alpha) |column|), batched, tall and
// square, legacy and FFI forms; a zero column reflects nothing.
TEST_F(LinalgCustomCalls, QrByHouseholderReflections) {
  std::mt19937_64 rng(9);
  struct Case {
    ElementType t;
    int64_t batch, m, n;
    int form;  // 0 FFI, 1 legacy tuples, 2 XLA's Qr
  };
  for (const Case& c : {Case{ElementType::kF32, 1, 4, 4, 0}, Case{ElementType::kF64, 2, 5, 3, 1}, Case{ElementType::kF32, 3, 3, 3, 2}}) {
    const std::string ty = c.t == ElementType::kF32 ? "f32" : "f64", p = c.t == ElementType::kF32 ? "s" : "d";
    const int64_t k = std::min(c.m, c.n);
    const std::string b = c.batch > 1 ? std::to_string(c.batch) + "x" : "";
    const std::string mat = "tensor<" + b + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + ty + ">";
    const std::string tau = "tensor<" + b + std::to_string(k) + "x" + ty + ">";
    SCOPED_TRACE(mat + " form " + std::to_string(c.form));
    std::string body;
    if (c.form == 0) {
      body = "  %0:2 = stablehlo.custom_call @lapack_" + p + "geqrf_ffi(%a) : (" + mat + ") -> (" + mat + ", " + tau + ")\n"
             "  %q = stablehlo.custom_call @lapack_" + p + "orgqr_ffi(%0#0, %0#1) : (" + mat + ", " + tau + ") -> " + mat + "\n"
             "  return %q, %0#0 : " + mat + ", " + mat + "\n";
    } else if (c.form == 1) {
      const std::string geqrf = "tuple<" + mat + ", " + tau + ", tensor<i32>, tensor<8x" + ty + ">>";
      const std::string orgqr = "tuple<" + mat + ", tensor<i32>, tensor<8x" + ty + ">>";
      body = "  %i = stablehlo.constant dense<1> : tensor<i32>\n"
             "  %0 = stablehlo.custom_call @lapack_" + p + "geqrf(%i, %i, %i, %i, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, " + mat + ") -> " + geqrf + "\n"
             "  %r = stablehlo.get_tuple_element %0[0] : (" + geqrf + ") -> " + mat + "\n"
             "  %t = stablehlo.get_tuple_element %0[1] : (" + geqrf + ") -> " + tau + "\n"
             "  %1 = stablehlo.custom_call @lapack_" + p + "orgqr(%i, %i, %i, %i, %i, %r, %t) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, " + mat + ", " + tau + ") -> " + orgqr + "\n"
             "  %q = stablehlo.get_tuple_element %1[0] : (" + orgqr + ") -> " + mat + "\n"
             "  return %q, %r : " + mat + ", " + mat + "\n";
    } else {
      const std::string qr = "tuple<" + mat + ", " + tau + ">";
      body = "  %0 = stablehlo.custom_call @Qr(%a) : (" + mat + ") -> " + qr + "\n"
             "  %r = stablehlo.get_tuple_element %0[0] : (" + qr + ") -> " + mat + "\n"
             "  %t = stablehlo.get_tuple_element %0[1] : (" + qr + ") -> " + tau + "\n"
             "  %q = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%r, %t) : (" + mat + ", " + tau + ") -> " + mat + "\n"
             "  return %q, %r : " + mat + ", " + mat + "\n";
    }
    auto prog = ReadStablehlo("func.func @main(%a: " + mat + ") -> (" + mat + ", " + mat + ") {\n" + body + "}\n", false);
    ASSERT_TRUE(prog.ok()) << prog.status().ToString();
    std::vector<int64_t> dims = {c.m, c.n};
    if (c.batch > 1) dims.insert(dims.begin(), c.batch);
    Literal a(Shape(c.t, dims));
    std::uniform_int_distribution<int> d(-8, 8);
    for (int64_t i = 0; i < a.element_count(); ++i) a.Set(i, Scalar::Float(c.t, d(rng) / 4.0));
    if (c.batch > 1)  // a zero second column in the last member
      for (int64_t i = 0; i < c.m; ++i) a.Set((c.batch - 1) * c.m * c.n + i * c.n + 1, Scalar::Float(c.t, 0));
    auto got = CompileAndRun(*prog->module, {a});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const Literal& q = got->tuple_elements()[0];
    const Literal& r = got->tuple_elements()[1];
    const double tol = c.t == ElementType::kF32 ? 2e-5 : 1e-12;
    for (int64_t bi = 0; bi < c.batch; ++bi) {
      const int64_t base = bi * c.m * c.n;
      auto Q = [&](int64_t i, int64_t j) { return q.Get(base + i * c.n + j).re; };
      auto R = [&](int64_t i, int64_t j) { return i <= j ? r.Get(base + i * c.n + j).re : 0.0; };
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
          double qr = 0;
          for (int64_t l = 0; l < c.n; ++l) qr += Q(i, l) * R(l, j);
          EXPECT_NEAR(qr, a.Get(base + i * c.n + j).re, tol * 16) << "Q R at " << i << "," << j << " batch " << bi;
        }
      for (int64_t i = 0; i < c.n; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
          double dot = 0;
          for (int64_t l = 0; l < c.m; ++l) dot += Q(l, i) * Q(l, j);
          EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, tol * 16) << "Q^T Q at " << i << "," << j << " batch " << bi;
        }
      // LAPACK's sign: R's diagonal is -sign(a_jj') |.| where the column is reflected.
      double norm0 = 0;
      for (int64_t i = 0; i < c.m; ++i) norm0 += a.Get(base + i * c.n).re * a.Get(base + i * c.n).re;
      EXPECT_NEAR(R(0, 0), (a.Get(base).re >= 0 ? -1 : 1) * std::sqrt(norm0), tol * 16) << "batch " << bi;
    }
  }
}

// A column's norm is taken over its largest entry (LAPACK's scaled norm):
// matrices of tiny or huge entries, whose squares underflow or overflow f32,
// still give an orthonormal Q and Q R = A, real and complex.
TEST_F(LinalgCustomCalls, QrOfTinyAndHugeMatrices) {
  std::mt19937_64 rng(41);
  std::normal_distribution<double> d;
  for (const ElementType t : {ElementType::kF32, ElementType::kC64})
    for (const double scale : {1e-21, 1e22}) {
      const bool complex = IsComplex(t);
      const std::string ty = complex ? "complex<f32>" : "f32";
      SCOPED_TRACE(ty + " scaled " + std::to_string(scale));
      const int64_t n = 5;
      const std::string mat = "tensor<5x5x" + ty + ">", tau = "tensor<5x" + ty + ">";
      auto prog = ReadStablehlo("func.func @main(%a: " + mat + ") -> (" + mat + ", " + mat + ") {\n"
                                "  %0:2 = stablehlo.custom_call @Qr(%a) : (" + mat + ") -> (" + mat + ", " + tau + ")\n"
                                "  %q = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%0#0, %0#1) : (" + mat + ", " + tau + ") -> " + mat + "\n"
                                "  return %q, %0#0 : " + mat + ", " + mat + "\n}\n",
                                false);
      ASSERT_TRUE(prog.ok()) << prog.status().ToString();
      Literal a(Shape(t, {n, n}));
      std::vector<std::complex<double>> want(n * n);
      for (int64_t i = 0; i < n * n; ++i) {
        want[i] = {d(rng) * scale, complex ? d(rng) * scale : 0.0};
        a.Set(i, complex ? Scalar::Complex(t, want[i]) : Scalar::Float(t, want[i].real()));
        want[i] = a.Get(i).c();  // as rounded to f32
      }
      auto got = CompileAndRun(*prog->module, {a});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      auto Q = [&](int64_t i, int64_t j) { return got->tuple_elements()[0].Get(i * n + j).c(); };
      auto R = [&](int64_t i, int64_t j) { return i <= j ? got->tuple_elements()[1].Get(i * n + j).c() : std::complex<double>(0); };
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          std::complex<double> qr = 0, qq = 0;
          for (int64_t l = 0; l < n; ++l) {
            qr += Q(i, l) * R(l, j);
            qq += std::conj(Q(l, i)) * Q(l, j);
          }
          EXPECT_NEAR(std::abs(qq - (i == j ? 1.0 : 0.0)), 0, 1e-5) << "Q^H Q at " << i << "," << j;
          EXPECT_NEAR(std::abs(qr - want[i * n + j]) / scale, 0, 1e-5) << "Q R at " << i << "," << j;
        }
    }
}

// The eigenvalue drivers scale a matrix whose entries lie outside
// [3e-16, 3e15] (f32) into range first, as LAPACK's do: syevd, geev and
// gees (real and complex) of f32 matrices of 1e-30s and 1e30s give
// A V = V diag(w) and A = Z T Z^H to f32's precision, where unscaled the
// rotations' squares underflowed (eigenvalues off by 80%, info 0) or
// overflowed (NaNs).
TEST_F(LinalgCustomCalls, EigenvaluesOfTinyAndHugeMatrices) {
  std::mt19937_64 rng(47);
  std::normal_distribution<double> d;
  const int64_t n = 5;
  const std::string mat = "tensor<5x5xf32>", vec = "tensor<5xf32>", cmat = "tensor<5x5xcomplex<f32>>", cvec = "tensor<5xcomplex<f32>>";
  for (const double scale : {1e-30, 1e30}) {
    SCOPED_TRACE("scaled " + std::to_string(scale));
    std::vector<double> a(n * n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) a[i * n + j] = a[j * n + i] = d(rng);  // symmetric, so that syevd reads it whole
    Literal in(Shape(ElementType::kF32, {n, n})), cin(Shape(ElementType::kC64, {n, n}));
    std::vector<std::complex<double>> ca(n * n);
    for (int64_t i = 0; i < n * n; ++i) {
      in.Set(i, Scalar::Float(ElementType::kF32, a[i] * scale));
      a[i] = in.Get(i).re / scale;
      cin.Set(i, Scalar::Complex(ElementType::kC64, {d(rng) * scale, d(rng) * scale}));
      ca[i] = cin.Get(i).c() / scale;
    }
    auto run = [&](const std::string& text, const Literal& x) {
      auto prog = ReadStablehlo(text, false);
      EXPECT_TRUE(prog.ok()) << prog.status().ToString();
      auto got = CompileAndRun(*prog->module, {x});
      EXPECT_TRUE(got.ok()) << got.status().ToString();
      return got.ok() ? std::move(*got) : Literal();
    };
    // A v_k = w_k v_k for the columns of v, |A| = 1 after the scale.
    auto expect_pairs = [&](const std::vector<std::complex<double>>& m, const Literal& w, const Literal& v, const char* what) {
      for (int64_t k = 0; k < n; ++k)
        for (int64_t i = 0; i < n; ++i) {
          std::complex<double> av = 0;
          for (int64_t j = 0; j < n; ++j) av += m[i * n + j] * v.Get(j * n + k).c();
          EXPECT_NEAR(std::abs(av - w.Get(k).c() / scale * v.Get(i * n + k).c()), 0, 3e-5) << what << " pair " << k << " row " << i;
        }
    };
    // A = Z T Z^H.
    auto expect_schur = [&](const std::vector<std::complex<double>>& m, const Literal& t, const Literal& z, const char* what) {
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          std::complex<double> ztz = 0;
          for (int64_t k = 0; k < n; ++k)
            for (int64_t l = 0; l < n; ++l) ztz += z.Get(i * n + k).c() * t.Get(k * n + l).c() / scale * std::conj(z.Get(j * n + l).c());
          EXPECT_NEAR(std::abs(ztz - m[i * n + j]), 0, 3e-5) << what << " at " << i << "," << j;
        }
    };
    std::vector<std::complex<double>> ra(a.begin(), a.end());
    Literal eigh = run("func.func @main(%a: " + mat + ") -> (" + mat + ", " + vec + ") {\n  %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (" +
                           mat + ") -> (" + mat + ", " + vec + ", tensor<i32>)\n  return %0#0, %0#1 : " + mat + ", " + vec + "\n}\n",
                       in);
    if (eigh.shape().IsTuple()) expect_pairs(ra, eigh.tuple_elements()[1], eigh.tuple_elements()[0], "syevd");
    Literal geev = run("func.func @main(%a: " + mat + ") -> (" + cvec + ", " + cmat + ") {\n  %0:8 = stablehlo.custom_call @lapack_sgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (" +
                           mat + ") -> (" + vec + ", " + vec + ", " + cmat + ", " + cmat + ", tensor<i32>, " + mat + ", " + mat + ", " + mat +
                           ")\n  %w = stablehlo.complex %0#0, %0#1 : " + cvec + "\n  return %w, %0#3 : " + cvec + ", " + cmat + "\n}\n",
                       in);
    if (geev.shape().IsTuple()) expect_pairs(ra, geev.tuple_elements()[0], geev.tuple_elements()[1], "geev");
    Literal gees = run("func.func @main(%a: " + mat + ") -> (" + mat + ", " + mat + ") {\n  %0:6 = stablehlo.custom_call @lapack_sgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}} : (" +
                           mat + ") -> (" + mat + ", " + vec + ", " + vec + ", " + mat + ", tensor<i32>, tensor<i32>)\n  return %0#0, %0#3 : " + mat + ", " + mat + "\n}\n",
                       in);
    if (gees.shape().IsTuple()) expect_schur(ra, gees.tuple_elements()[0], gees.tuple_elements()[1], "sgees");
    Literal cgees = run("func.func @main(%a: " + cmat + ") -> (" + cmat + ", " + cmat + ") {\n  %0:5 = stablehlo.custom_call @lapack_cgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}} : (" +
                            cmat + ") -> (" + cmat + ", " + cvec + ", " + cmat + ", tensor<i32>, tensor<i32>)\n  return %0#0, %0#2 : " + cmat + ", " + cmat + "\n}\n",
                        cin);
    if (cgees.shape().IsTuple()) expect_schur(ca, cgees.tuple_elements()[0], cgees.tuple_elements()[1], "cgees");
  }
}

// A matrix with a NaN or an infinity takes no QR steps (none could
// deflate it: the loop would run to its limit) and reports info = n, which
// JAX turns into NaNs; the others of its batch decompose as ever.
TEST_F(LinalgCustomCalls, MatricesWithNaNsOrInfinities) {
  const int64_t n = 4;
  for (const bool eig : {false, true}) {
    SCOPED_TRACE(eig ? "sgeev" : "sgees");
    Literal in(Shape(ElementType::kF32, {3, n, n}));
    for (int64_t i = 0; i < 3 * n * n; ++i) in.Set(i, Scalar::Float(ElementType::kF32, static_cast<double>((i * 7) % 11) - 5));
    in.Set(0 * n * n + 6, Scalar::Float(ElementType::kF32, std::nan("")));
    in.Set(1 * n * n + 9, Scalar::Float(ElementType::kF32, -std::numeric_limits<double>::infinity()));
    const std::string mat = "tensor<3x4x4xf32>", vec = "tensor<3x4xf32>", cmat = "tensor<3x4x4xcomplex<f32>>", info = "tensor<3xi32>";
    const std::string call =
        eig ? "  %0:8 = stablehlo.custom_call @lapack_sgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (" + mat + ") -> (" +
                  vec + ", " + vec + ", " + cmat + ", " + cmat + ", " + info + ", " + mat + ", " + mat + ", " + mat + ")\n  return %0#0, %0#4 : " + vec + ", " + info + "\n"
            : "  %0:6 = stablehlo.custom_call @lapack_sgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}} : (" + mat + ") -> (" + mat + ", " + vec +
                  ", " + vec + ", " + mat + ", " + info + ", " + info + ")\n  return %0#1, %0#5 : " + vec + ", " + info + "\n";
    auto prog = ReadStablehlo("func.func @main(%a: " + mat + ") -> (" + vec + ", " + info + ") {\n" + call + "}\n", false);
    ASSERT_TRUE(prog.ok()) << prog.status().ToString();
    auto got = CompileAndRun(*prog->module, {in});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const Literal &wr = got->tuple_elements()[0], &inf = got->tuple_elements()[1];
    EXPECT_EQ(inf.Get(0).s, n);
    EXPECT_EQ(inf.Get(1).s, n);
    EXPECT_EQ(inf.Get(2).s, 0);
    double trace = 0, sum = 0;  // the regular member's eigenvalues add up to its trace
    for (int64_t k = 0; k < n; ++k) {
      trace += in.Get(2 * n * n + k * n + k).re;
      sum += wr.Get(2 * n + k).re;
    }
    EXPECT_NEAR(sum, trace, 1e-4);
  }
  // gesdd: NaNs throughout such a member (LAPACK's info -4, which JAX
  // turns into NaNs), not the identity the rotations would leave in U.
  Literal in(Shape(ElementType::kF32, {2, n, n}));
  for (int64_t i = 0; i < 2 * n * n; ++i) in.Set(i, Scalar::Float(ElementType::kF32, static_cast<double>((i * 5) % 7) - 3));
  in.Set(3, Scalar::Float(ElementType::kF32, std::nan("")));
  auto prog = ReadStablehlo(R"(
func.func @main(%a: tensor<2x4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>) {
  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2xi32>)
  return %0#1, %0#2, %0#3 : tensor<2x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>
})",
                            false);
  ASSERT_TRUE(prog.ok()) << prog.status().ToString();
  auto got = CompileAndRun(*prog->module, {in});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t i = 0; i < got->tuple_elements()[r].element_count(); ++i) {
      const bool first = i < got->tuple_elements()[r].element_count() / 2;
      EXPECT_EQ(std::isnan(got->tuple_elements()[r].Get(i).re), first) << "result " << r << " element " << i;
    }
}

// jaxlib's syevd (jnp.linalg.eigh exported on a CPU) and XLA's Eigh by
// Jacobi rotations: A V = V diag(w) for the triangle named, V orthonormal,
// w ascending; the other triangle holds garbage that must not be read.
TEST_F(LinalgCustomCalls, SymmetricEigendecompositionByJacobi) {
  std::mt19937_64 rng(13);
  struct Case {
    ElementType t;
    int64_t batch, n;
    int form;  // 0 syevd FFI (lower), 1 syevd legacy (upper), 2 XLA's Eigh (lower)
  };
  for (const Case& c : {Case{ElementType::kF32, 2, 5, 0}, Case{ElementType::kF64, 1, 6, 1}, Case{ElementType::kF32, 1, 4, 2},
                        Case{ElementType::kF64, 1, 1, 0}}) {
    const std::string ty = c.t == ElementType::kF32 ? "f32" : "f64", p = c.t == ElementType::kF32 ? "s" : "d";
    const std::string b = c.batch > 1 ? std::to_string(c.batch) + "x" : "";
    const std::string mat = "tensor<" + b + std::to_string(c.n) + "x" + std::to_string(c.n) + "x" + ty + ">";
    const std::string vec = "tensor<" + b + std::to_string(c.n) + "x" + ty + ">";
    const std::string info = c.batch > 1 ? "tensor<" + std::to_string(c.batch) + "xi32>" : "tensor<i32>";
    SCOPED_TRACE(mat + " form " + std::to_string(c.form));
    std::string body;
    if (c.form == 0) {
      body = "  %0:3 = stablehlo.custom_call @lapack_" + p + "syevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (" + mat + ") -> (" + mat + ", " + vec + ", " + info + ")\n"
             "  return %0#0, %0#1 : " + mat + ", " + vec + "\n";
    } else if (c.form == 1) {
      const std::string tuple = "tuple<" + mat + ", " + vec + ", tensor<i32>, tensor<9x" + ty + ">, tensor<4xi32>>";
      body = "  %l = stablehlo.constant dense<0> : tensor<i32>\n  %i = stablehlo.constant dense<1> : tensor<i32>\n"
             "  %0 = stablehlo.custom_call @lapack_" + p + "syevd(%l, %i, %i, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, " + mat + ") -> " + tuple + "\n"
             "  %v = stablehlo.get_tuple_element %0[0] : (" + tuple + ") -> " + mat + "\n"
             "  %w = stablehlo.get_tuple_element %0[1] : (" + tuple + ") -> " + vec + "\n"
             "  return %v, %w : " + mat + ", " + vec + "\n";
    } else {
      const std::string tuple = "tuple<" + mat + ", " + vec + ">";
      body = "  %0 = stablehlo.custom_call @Eigh(%a) {backend_config = \"1,1,15,0.000010\"} : (" + mat + ") -> " + tuple + "\n"
             "  %v = stablehlo.get_tuple_element %0[0] : (" + tuple + ") -> " + mat + "\n"
             "  %w = stablehlo.get_tuple_element %0[1] : (" + tuple + ") -> " + vec + "\n"
             "  return %v, %w : " + mat + ", " + vec + "\n";
    }
    auto prog = ReadStablehlo("func.func @main(%a: " + mat + ") -> (" + mat + ", " + vec + ") {\n" + body + "}\n", false);
    ASSERT_TRUE(prog.ok()) << prog.status().ToString();
    const bool lower = c.form != 1;
    std::vector<int64_t> dims = {c.n, c.n};
    if (c.batch > 1) dims.insert(dims.begin(), c.batch);
    Literal a(Shape(c.t, dims));
    std::uniform_int_distribution<int> d(-8, 8);
    std::vector<double> sym(static_cast<size_t>(c.batch * c.n * c.n));
    for (int64_t bi = 0; bi < c.batch; ++bi)
      for (int64_t i = 0; i < c.n; ++i)
        for (int64_t j = 0; j <= i; ++j) {
          const double v = d(rng) / 4.0;
          sym[bi * c.n * c.n + i * c.n + j] = sym[bi * c.n * c.n + j * c.n + i] = v;
          const int64_t read = lower ? i * c.n + j : j * c.n + i, unread = lower ? j * c.n + i : i * c.n + j;
          a.Set(bi * c.n * c.n + read, Scalar::Float(c.t, v));
          if (i != j) a.Set(bi * c.n * c.n + unread, Scalar::Float(c.t, 1000 + i));  // garbage
        }
    auto got = CompileAndRun(*prog->module, {a});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const Literal& v = got->tuple_elements()[0];
    const Literal& w = got->tuple_elements()[1];
    const double tol = c.t == ElementType::kF32 ? 1e-4 : 1e-10;
    for (int64_t bi = 0; bi < c.batch; ++bi) {
      const int64_t base = bi * c.n * c.n;
      auto V = [&](int64_t i, int64_t j) { return v.Get(base + i * c.n + j).re; };
      auto W = [&](int64_t j) { return w.Get(bi * c.n + j).re; };
      for (int64_t j = 0; j + 1 < c.n; ++j) EXPECT_LE(W(j), W(j + 1)) << "ascending, batch " << bi;
      for (int64_t i = 0; i < c.n; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
          double av = 0, vv = 0;
          for (int64_t l = 0; l < c.n; ++l) {
            av += sym[base + i * c.n + l] * V(l, j);
            vv += V(l, i) * V(l, j);
          }
          EXPECT_NEAR(av, V(i, j) * W(j), tol * 32) << "A V = V w at " << i << "," << j << " batch " << bi;
          EXPECT_NEAR(vv, i == j ? 1.0 : 0.0, tol * 8) << "V^T V at " << i << "," << j << " batch " << bi;
        }
    }
  }
}

// jaxlib's gesdd (jnp.linalg.svd exported on a CPU) by one-sided Jacobi:
// U diag(s) V^T gives the matrix back, U and V are orthonormal (completed
// where the matrix is wide, tall or rank-deficient), s descends; full and
// thin matrices, values only, legacy and FFI forms, batched.
TEST_F(LinalgCustomCalls, SingularValuesByOneSidedJacobi) {
  std::mt19937_64 rng(17);
  struct Case {
    ElementType t;
    int64_t batch, m, n;
    char mode;    // 'A' full, 'S' thin, 'N' values only
    bool legacy;  // (full_matrices, compute_uv, batch, m, n, lwork, a) -> tuple
  };
  for (const Case& c : {Case{ElementType::kF32, 2, 4, 4, 'A', false}, Case{ElementType::kF64, 1, 3, 5, 'S', false},
                        Case{ElementType::kF32, 2, 6, 3, 'A', true}, Case{ElementType::kF64, 2, 2, 5, 'A', false},
                        Case{ElementType::kF32, 1, 5, 3, 'N', false}, Case{ElementType::kF64, 1, 1, 1, 'A', true}}) {
    const std::string ty = c.t == ElementType::kF32 ? "f32" : "f64", p = c.t == ElementType::kF32 ? "s" : "d";
    const int64_t k = std::min(c.m, c.n), um = c.mode == 'A' ? c.m : c.mode == 'S' ? k : 0, vn = c.mode == 'A' ? c.n : c.mode == 'S' ? k : 0;
    const bool vectors = c.mode != 'N';
    const std::string b = std::to_string(c.batch) + "x";
    auto tensor = [&](int64_t r, int64_t cols) { return "tensor<" + b + std::to_string(r) + "x" + std::to_string(cols) + "x" + ty + ">"; };
    const std::string mat = tensor(c.m, c.n), vals = "tensor<" + b + std::to_string(k) + "x" + ty + ">";
    const std::string u = vectors ? tensor(c.m, um) : tensor(0, 0), vt = vectors ? tensor(vn, c.n) : tensor(0, 0);
    const std::string info = "tensor<" + std::to_string(c.batch) + "xi32>", results = vals + ", " + u + ", " + vt;
    SCOPED_TRACE(mat + " mode " + std::string(1, c.mode) + (c.legacy ? " legacy" : " ffi"));
    std::string body;
    if (!c.legacy) {
      body = "  %0:5 = stablehlo.custom_call @lapack_" + p + "gesdd_ffi(%a) {mhlo.backend_config = {mode = " + std::to_string(int(c.mode)) +
             " : ui8}} : (" + mat + ") -> (" + mat + ", " + results + ", " + info + ")\n  return %0#1, %0#2, %0#3 : " + results + "\n";
    } else {
      const std::string tuple = "tuple<" + mat + ", " + results + ", " + info + ", tensor<32xi32>, tensor<64x" + ty + ">>";
      body = "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
             "  %0 = stablehlo.custom_call @lapack_" + p + "gesdd(%one, %one, %one, %one, %one, %one, %a) {api_version = 2 : i32} : "
             "(tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, " + mat + ") -> " + tuple + "\n"
             "  %s = stablehlo.get_tuple_element %0[1] : (" + tuple + ") -> " + vals + "\n"
             "  %u = stablehlo.get_tuple_element %0[2] : (" + tuple + ") -> " + u + "\n"
             "  %v = stablehlo.get_tuple_element %0[3] : (" + tuple + ") -> " + vt + "\n  return %s, %u, %v : " + results + "\n";
    }
    auto prog = ReadStablehlo("func.func @main(%a: " + mat + ") -> (" + results + ") {\n" + body + "}\n", false);
    ASSERT_TRUE(prog.ok()) << prog.status().ToString();
    Literal a(Shape(c.t, {c.batch, c.m, c.n}));
    std::uniform_int_distribution<int> d(-8, 8);
    for (int64_t i = 0; i < a.element_count(); ++i) a.Set(i, Scalar::Float(c.t, d(rng) / 4.0));
    if (c.batch > 1 && c.n > 1)  // the last member's column 1 twice its column 0: rank deficient
      for (int64_t i = 0; i < c.m; ++i) {
        const int64_t at = (c.batch - 1) * c.m * c.n + i * c.n;
        a.Set(at + 1, Scalar::Float(c.t, 2 * a.Get(at).re));
      }
    auto got = CompileAndRun(*prog->module, {a});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const Literal &s = got->tuple_elements()[0], &U = got->tuple_elements()[1], &VT = got->tuple_elements()[2];
    EXPECT_EQ(U.shape().ToString(false), (vectors ? Shape(c.t, {c.batch, c.m, um}) : Shape(c.t, {c.batch, 0, 0})).ToString(false));
    const double tol = c.t == ElementType::kF32 ? 1e-5 : 1e-12;
    for (int64_t bi = 0; bi < c.batch; ++bi) {
      auto S = [&](int64_t j) { return s.Get(bi * k + j).re; };
      for (int64_t j = 0; j < k; ++j) {
        EXPECT_GE(S(j), 0.0) << j;
        if (j + 1 < k) {
          EXPECT_GE(S(j), S(j + 1)) << "descending at " << j << " batch " << bi;
        }
      }
      double frobenius = 0, squares = 0;  // sum of s^2 is |A|_F^2 even without vectors
      for (int64_t i = 0; i < c.m * c.n; ++i) frobenius += a.Get(bi * c.m * c.n + i).re * a.Get(bi * c.m * c.n + i).re;
      for (int64_t j = 0; j < k; ++j) squares += S(j) * S(j);
      EXPECT_NEAR(squares, frobenius, tol * 64 * std::max(1.0, frobenius));
      if (!vectors) continue;
      auto Uat = [&](int64_t i, int64_t j) { return U.Get(bi * c.m * um + i * um + j).re; };
      auto Vt = [&](int64_t i, int64_t j) { return VT.Get(bi * vn * c.n + i * c.n + j).re; };
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
          double sum = 0;
          for (int64_t l = 0; l < k; ++l) sum += Uat(i, l) * S(l) * Vt(l, j);
          EXPECT_NEAR(sum, a.Get(bi * c.m * c.n + i * c.n + j).re, tol * 16) << "U S V^T at " << i << "," << j << " batch " << bi;
        }
      for (int64_t i = 0; i < um; ++i)
        for (int64_t j = 0; j < um; ++j) {
          double dot = 0;
          for (int64_t l = 0; l < c.m; ++l) dot += Uat(l, i) * Uat(l, j);
          EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, tol * 16) << "U^T U at " << i << "," << j << " batch " << bi;
        }
      for (int64_t i = 0; i < vn; ++i)
        for (int64_t j = 0; j < vn; ++j) {
          double dot = 0;
          for (int64_t l = 0; l < c.n; ++l) dot += Vt(i, l) * Vt(j, l);
          EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, tol * 16) << "V^T V at " << i << "," << j << " batch " << bi;
        }
    }
  }
  // A known answer: [[3, 0], [4, 5]] has singular values 3 sqrt(5) and sqrt(5).
  auto known = ReadStablehlo(R"(
func.func @main(%a: tensor<2x2xf64>) -> tensor<2xf64> {
  %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 78 : ui8}} : (tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2xf64>, tensor<0x0xf64>, tensor<0x0xf64>, tensor<i32>)
  return %0#1 : tensor<2xf64>
})", false);
  ASSERT_TRUE(known.ok()) << known.status().ToString();
  Literal a(Shape(ElementType::kF64, {2, 2}));
  const double values[] = {3, 0, 4, 5};
  for (int64_t i = 0; i < 4; ++i) a.Set(i, Scalar::Float(ElementType::kF64, values[i]));
  auto s = CompileAndRun(*known->module, {a});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_NEAR(s->Get(0).re, 3 * std::sqrt(5.0), 1e-14);
  EXPECT_NEAR(s->Get(1).re, std::sqrt(5.0), 1e-14);
}

// Complex matrices through the complex kernels' names (?geqrf + ?ungqr,
// ?heevd, ?gesdd): Q R = A with Q unitary and R's diagonal real with
// zgeqrf's signs; A V = V w for the Hermitian matrix the lower triangle
// names, V unitary, w real ascending; U S V^H = A with U, V unitary.
TEST_F(LinalgCustomCalls, ComplexMatricesDecompose) {
  std::mt19937_64 rng(29);
  std::uniform_int_distribution<int> d(-8, 8);
  for (const ElementType t : {ElementType::kC64, ElementType::kC128}) {
    const bool single = t == ElementType::kC64;
    const std::string ty = single ? "complex<f32>" : "complex<f64>", real = single ? "f32" : "f64", p = single ? "c" : "z";
    const double tol = single ? 2e-5 : 1e-12;
    SCOPED_TRACE(ty);
    const int64_t m = 4, n = 3;
    Literal a(Shape(t, {m, n})), h(Shape(t, {n, n}));
    for (int64_t i = 0; i < m * n; ++i) a.Set(i, Scalar::Complex(t, {d(rng) / 4.0, d(rng) / 4.0}));
    std::vector<std::complex<double>> herm(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        const std::complex<double> v = {d(rng) / 4.0, i == j ? 0.0 : d(rng) / 4.0};
        herm[i * n + j] = v;
        herm[j * n + i] = std::conj(v);
        h.Set(i * n + j, Scalar::Complex(t, v));
        if (i != j) h.Set(j * n + i, Scalar::Complex(t, {1000.0 + i, 7}));  // the upper triangle is not read
      }
    const std::string ma = "tensor<4x3x" + ty + ">", mh = "tensor<3x3x" + ty + ">", v3 = "tensor<3x" + ty + ">", r3 = "tensor<3x" + real + ">";
    const std::string text = "func.func @main(%a: " + ma + ", %h: " + mh + ") -> (" + ma + ", " + ma + ", " + mh + ", " + r3 + ", " + r3 + ", tensor<4x4x" + ty + ">, " + mh + ") {\n"
        "  %0:2 = stablehlo.custom_call @lapack_" + p + "geqrf_ffi(%a) : (" + ma + ") -> (" + ma + ", " + v3 + ")\n"
        "  %q = stablehlo.custom_call @lapack_" + p + "ungqr_ffi(%0#0, %0#1) : (" + ma + ", " + v3 + ") -> " + ma + "\n"
        "  %1:3 = stablehlo.custom_call @lapack_" + p + "heevd_ffi(%h) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (" + mh + ") -> (" + mh + ", " + r3 + ", tensor<i32>)\n"
        "  %2:5 = stablehlo.custom_call @lapack_" + p + "gesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (" + ma + ") -> (" + ma + ", " + r3 + ", tensor<4x4x" + ty + ">, " + mh + ", tensor<i32>)\n"
        "  return %q, %0#0, %1#0, %1#1, %2#1, %2#2, %2#3 : " + ma + ", " + ma + ", " + mh + ", " + r3 + ", " + r3 + ", tensor<4x4x" + ty + ">, " + mh + "\n}\n";
    auto prog = ReadStablehlo(text, false);
    ASSERT_TRUE(prog.ok()) << prog.status().ToString();
    auto got = CompileAndRun(*prog->module, {a, h});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const std::vector<Literal>& r = got->tuple_elements();
    auto at = [](const Literal& l, int64_t cols, int64_t i, int64_t j) { return l.Get(i * cols + j).c(); };
    auto A = [&](int64_t i, int64_t j) { return at(a, n, i, j); };
    // QR: Q (4x3, orthonormal columns) times R (the upper triangle of the packed result).
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        std::complex<double> qr = 0;
        for (int64_t l = 0; l <= j; ++l) qr += at(r[0], n, i, l) * at(r[1], n, l, j);
        EXPECT_NEAR(std::abs(qr - A(i, j)), 0, tol * 16) << "Q R at " << i << "," << j;
      }
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_NEAR(at(r[1], n, i, i).imag(), 0, tol) << "R's diagonal is real";
      for (int64_t j = 0; j < n; ++j) {
        std::complex<double> dot = 0;
        for (int64_t l = 0; l < m; ++l) dot += std::conj(at(r[0], n, l, i)) * at(r[0], n, l, j);
        EXPECT_NEAR(std::abs(dot - (i == j ? 1.0 : 0.0)), 0, tol * 16) << "Q^H Q at " << i << "," << j;
      }
    }
    double column0 = 0;
    for (int64_t i = 0; i < m; ++i) column0 += std::norm(A(i, 0));
    EXPECT_NEAR(at(r[1], n, 0, 0).real(), (A(0, 0).real() >= 0 ? -1 : 1) * std::sqrt(column0), tol * 16);
    // Hermitian eigendecomposition.
    for (int64_t j = 0; j < n; ++j) {
      if (j + 1 < n) {
        EXPECT_LE(r[3].Get(j).re, r[3].Get(j + 1).re);
      }
      for (int64_t i = 0; i < n; ++i) {
        std::complex<double> av = 0, vv = 0;
        for (int64_t l = 0; l < n; ++l) {
          av += herm[i * n + l] * at(r[2], n, l, j);
          vv += std::conj(at(r[2], n, l, i)) * at(r[2], n, l, j);
        }
        EXPECT_NEAR(std::abs(av - at(r[2], n, i, j) * r[3].Get(j).re), 0, tol * 32) << "A V = V w at " << i << "," << j;
        EXPECT_NEAR(std::abs(vv - (i == j ? 1.0 : 0.0)), 0, tol * 16) << "V^H V at " << i << "," << j;
      }
    }
    // SVD, full: U 4x4, V^H 3x3.
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        std::complex<double> usv = 0;
        for (int64_t l = 0; l < n; ++l) usv += at(r[5], m, i, l) * r[4].Get(l).re * at(r[6], n, l, j);
        EXPECT_NEAR(std::abs(usv - A(i, j)), 0, tol * 16) << "U S V^H at " << i << "," << j;
      }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < m; ++j) {
        std::complex<double> dot = 0;
        for (int64_t l = 0; l < m; ++l) dot += std::conj(at(r[5], m, l, i)) * at(r[5], m, l, j);
        EXPECT_NEAR(std::abs(dot - (i == j ? 1.0 : 0.0)), 0, tol * 16) << "U^H U at " << i << "," << j;
      }
  }
}

// Orders past the 64 that one rotation a loop trip allowed: eigh of a
// 100 x 100 symmetric matrix and the SVD of a 90 x 70 one, n / 2 rotations
// a trip, until a sweep needs none.
TEST_F(LinalgCustomCalls, LargerMatricesRotateManyPairsATrip) {
  std::mt19937_64 rng(43);
  std::normal_distribution<double> g;
  const int64_t n = 100, m = 90, k = 70;
  Literal sym(Shape(ElementType::kF32, {n, n})), a(Shape(ElementType::kF32, {m, k}));
  std::vector<double> s(n * n), av(m * k);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) s[i * n + j] = s[j * n + i] = g(rng);
  for (int64_t i = 0; i < n * n; ++i) sym.Set(i, Scalar::Float(ElementType::kF32, s[i]));
  for (int64_t i = 0; i < m * k; ++i) a.Set(i, Scalar::Float(ElementType::kF32, av[i] = g(rng)));
  auto prog = ReadStablehlo(R"(
func.func @main(%s: tensor<100x100xf32>, %a: tensor<90x70xf32>) -> (tensor<100x100xf32>, tensor<100xf32>, tensor<70xf32>, tensor<90x70xf32>, tensor<70x70xf32>) {
  %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%s) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<100x100xf32>) -> (tensor<100x100xf32>, tensor<100xf32>, tensor<i32>)
  %1:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<90x70xf32>) -> (tensor<90x70xf32>, tensor<70xf32>, tensor<90x70xf32>, tensor<70x70xf32>, tensor<i32>)
  return %0#0, %0#1, %1#1, %1#2, %1#3 : tensor<100x100xf32>, tensor<100xf32>, tensor<70xf32>, tensor<90x70xf32>, tensor<70x70xf32>
})", false);
  ASSERT_TRUE(prog.ok()) << prog.status().ToString();
  auto got = CompileAndRun(*prog->module, {sym, a});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const std::vector<Literal>& r = got->tuple_elements();
  double worst_av = 0, worst_vv = 0, worst_usv = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double av_ij = 0, vv = 0;
      for (int64_t l = 0; l < n; ++l) {
        av_ij += s[i * n + l] * r[0].Get(l * n + j).re;
        vv += r[0].Get(l * n + i).re * r[0].Get(l * n + j).re;
      }
      worst_av = std::max(worst_av, std::abs(av_ij - r[0].Get(i * n + j).re * r[1].Get(j).re));
      worst_vv = std::max(worst_vv, std::abs(vv - (i == j ? 1.0 : 0.0)));
    }
  for (int64_t j = 0; j + 1 < n; ++j) EXPECT_LE(r[1].Get(j).re, r[1].Get(j + 1).re);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) {
      double usv = 0;
      for (int64_t l = 0; l < k; ++l) usv += r[3].Get(i * k + l).re * r[2].Get(l).re * r[4].Get(l * k + j).re;
      worst_usv = std::max(worst_usv, std::abs(usv - av[i * k + j]));
    }
  // |A| is about 2 sqrt(n): errors of a few hundred f32 epsilons of it.
  EXPECT_LT(worst_av, 2e-3);
  EXPECT_LT(worst_vv, 1e-4);
  EXPECT_LT(worst_usv, 2e-4);
}

// jaxlib's gtsv (jax.lax.linalg.tridiagonal_solve on a CPU) and cuSPARSE's
// gtsv2: A x = b for every type, batched, with a zero leading diagonal
// element (rows must swap) and a singular member (LAPACK's info);
// dl[0] and du[n - 1] hold garbage that must not be read.
TEST_F(LinalgCustomCalls, TridiagonalSystemsSolveWithPivoting) {
  std::mt19937_64 rng(31);
  std::uniform_int_distribution<int> d(-8, 8);
  for (const ElementType t : {ElementType::kF32, ElementType::kF64, ElementType::kC64, ElementType::kC128}) {
    const bool complex = IsComplex(t), single = t == ElementType::kF32 || t == ElementType::kC64;
    const std::string ty = MlirElementType(t);
    const std::string p = t == ElementType::kF32 ? "s" : t == ElementType::kF64 ? "d" : t == ElementType::kC64 ? "c" : "z";
    SCOPED_TRACE(ty);
    const int64_t batch = 3, n = 5, k = 2;
    auto value = [&](double scale) { return std::complex<double>(d(rng) / scale, complex ? d(rng) / scale : 0.0); };
    std::vector<std::complex<double>> dl(batch * n), dd(batch * n), du(batch * n), bb(batch * n * k);
    for (int64_t i = 0; i < batch * n; ++i) {  // diagonally dominant: regular
      dl[i] = value(8);
      dd[i] = value(4) + 6.0;
      du[i] = value(8);
    }
    for (auto& v : bb) v = value(2);
    dd[0] = 0;  // member 0: rows 0 and 1 swap
    du[0] = dl[1] = 1;
    for (int64_t i = 0; i < n; ++i) dd[2 * n + i] = dl[2 * n + i] = du[2 * n + i] = 0;  // member 2: singular
    auto literal = [&](const std::vector<std::complex<double>>& v, std::vector<int64_t> dims) {
      Literal l(Shape(t, dims));
      for (size_t i = 0; i < v.size(); ++i) l.Set(static_cast<int64_t>(i), complex ? Scalar::Complex(t, v[i]) : Scalar::Float(t, v[i].real()));
      return l;
    };
    // Garbage where the kernels must not read.
    std::vector<std::complex<double>> dl_in = dl, du_in = du;
    for (int64_t b = 0; b < batch; ++b) {
      dl_in[b * n] = 1e3;
      du_in[b * n + n - 1] = -1e3;
    }
    const std::string vec = "tensor<3x5x" + ty + ">", mat = "tensor<3x5x2x" + ty + ">", info = "tensor<3xi32>";
    for (const bool gpu : {false, true}) {
      if (gpu && complex) continue;
      const std::string call = gpu ? "  %x = stablehlo.custom_call @cusparse_gtsv2_ffi(%dl, %d, %du, %b) : (" + vec + ", " + vec + ", " + vec + ", " + mat + ") -> " + mat + "\n"
                                     "  %i = stablehlo.constant dense<0> : " + info + "\n"
                                   : "  %0:5 = stablehlo.custom_call @lapack_" + p + "gtsv_ffi(%dl, %d, %du, %b) : (" + vec + ", " + vec + ", " + vec + ", " + mat +
                                         ") -> (" + vec + ", " + vec + ", " + vec + ", " + mat + ", " + info + ")\n"
                                         "  %x = stablehlo.add %0#3, %0#3 : " + mat + "\n  %i = stablehlo.add %0#4, %0#4 : " + info + "\n";
      auto prog = ReadStablehlo("func.func @main(%dl: " + vec + ", %d: " + vec + ", %du: " + vec + ", %b: " + mat + ") -> (" + mat + ", " + info + ") {\n" +
                                    call + "  return %x, %i : " + mat + ", " + info + "\n}\n",
                                false);
      ASSERT_TRUE(prog.ok()) << prog.status().ToString();
      auto got = CompileAndRun(*prog->module, {literal(dl_in, {batch, n}), literal(dd, {batch, n}), literal(du_in, {batch, n}), literal(bb, {batch, n, k})});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      const double scale = gpu ? 1 : 2;  // the LAPACK form's results are doubled above
      const Literal &x = got->tuple_elements()[0], &inf = got->tuple_elements()[1];
      if (!gpu) {
        EXPECT_EQ(inf.Get(0).s, 0);
        EXPECT_EQ(inf.Get(1).s, 0);
        EXPECT_EQ(inf.Get(2).s, 2 * 1) << "the singular member's first zero pivot, row 1 (1-based), doubled";
      }
      for (int64_t b = 0; b < 2; ++b)  // A x = b for the regular members
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < k; ++j) {
            auto X = [&](int64_t r) { return r < 0 || r >= n ? std::complex<double>(0) : x.Get((b * n + r) * k + j).c() / scale; };
            std::complex<double> ax = dd[b * n + i] * X(i);
            if (i > 0) ax += dl[b * n + i] * X(i - 1);
            if (i + 1 < n) ax += du[b * n + i] * X(i + 1);
            EXPECT_NEAR(std::abs(ax - bb[(b * n + i) * k + j]), 0, single ? 1e-5 : 1e-12) << "row " << i << " column " << j << " batch " << b;
          }
    }
  }
}

// jaxlib's geev (jnp.linalg.eig on a CPU) and complex gees (Schur): A v =
// lambda v and u^H A = lambda u^H for every pair, each vector of unit length
// with its largest component real; a real matrix's real eigenvalues exactly
// real (with real vectors) and its complex ones in conjugate pairs; known
// answers (a companion matrix's roots, a rotation's +-i); batched members
// converging at their own pace; A = Z T Z^H with T upper triangular.
TEST_F(LinalgCustomCalls, GeneralEigenvectorsAndSchurForms) {
  std::mt19937_64 rng(37);
  std::uniform_int_distribution<int> d(-8, 8);
  for (const ElementType t : {ElementType::kF32, ElementType::kF64, ElementType::kC64, ElementType::kC128}) {
    const bool complex = IsComplex(t), single = t == ElementType::kF32 || t == ElementType::kC64;
    const std::string ty = MlirElementType(t);
    const std::string cty = single ? "complex<f32>" : "complex<f64>", rty = single ? "f32" : "f64";
    const std::string p = t == ElementType::kF32 ? "s" : t == ElementType::kF64 ? "d" : t == ElementType::kC64 ? "c" : "z";
    SCOPED_TRACE(ty);
    const int64_t batch = 4, n = 5;
    std::vector<std::complex<double>> a(batch * n * n);
    for (auto& v : a) v = {d(rng) / 4.0, complex ? d(rng) / 4.0 : 0.0};
    // Member 1: the companion matrix of (x - 1)(x - 2)(x - 3)(x - 4)(x - 5).
    const double coefficients[] = {-120, 274, -225, 85, -15};  // x^5 - 15 x^4 + 85 x^3 - 225 x^2 + 274 x - 120
    for (int64_t i = 0; i < n * n; ++i) a[n * n + i] = 0;
    for (int64_t i = 1; i < n; ++i) a[n * n + i * n + i - 1] = 1;
    for (int64_t i = 0; i < n; ++i) a[n * n + i * n + n - 1] = -coefficients[i];
    // Member 2: a rotation by 90 degrees in the first two coordinates, 2 and 3 beyond.
    for (int64_t i = 0; i < n * n; ++i) a[2 * n * n + i] = 0;
    a[2 * n * n + 0 * n + 1] = -1;
    a[2 * n * n + 1 * n + 0] = 1;
    a[2 * n * n + 2 * n + 2] = 2;
    a[2 * n * n + 3 * n + 3] = 3;
    a[2 * n * n + 4 * n + 4] = 3;
    // Member 3: rank 2 (row i is i n + 0 .. n - 1, over 4): 0 three times,
    // its eigenspace a plane and more; a real eigenvalue's vector, the real
    // part of a complex one there, is still of unit length.
    for (int64_t i = 0; i < n * n; ++i) a[3 * n * n + i] = i / 4.0;
    Literal in(Shape(t, {batch, n, n}));
    for (int64_t i = 0; i < batch * n * n; ++i) in.Set(i, complex ? Scalar::Complex(t, a[i]) : Scalar::Float(t, a[i].real()));
    const std::string mat = "tensor<4x5x5x" + ty + ">", cmat = "tensor<4x5x5x" + cty + ">", cvec = "tensor<4x5x" + cty + ">",
                      rvec = "tensor<4x5x" + rty + ">", info = "tensor<4xi32>";
    std::string call;
    if (complex)
      call = "  %0:6 = stablehlo.custom_call @lapack_" + p + "geev_ffi(%a) {mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}} : (" + mat +
             ") -> (" + cvec + ", " + cmat + ", " + cmat + ", " + info + ", " + cmat + ", tensor<10x" + rty + ">)\n  %w = stablehlo.add %0#0, %0#0 : " + cvec + "\n";
    else
      call = "  %0:8 = stablehlo.custom_call @lapack_" + p + "geev_ffi(%a) {mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}} : (" + mat +
             ") -> (" + rvec + ", " + rvec + ", " + cmat + ", " + cmat + ", " + info + ", " + mat + ", " + mat + ", " + mat + ")\n"
             "  %c = stablehlo.complex %0#0, %0#1 : " + cvec + "\n  %w = stablehlo.add %c, %c : " + cvec + "\n";
    const std::string l = complex ? "%0#1" : "%0#2", r = complex ? "%0#2" : "%0#3", inf = complex ? "%0#3" : "%0#4";
    auto prog = ReadStablehlo("func.func @main(%a: " + mat + ") -> (" + cvec + ", " + cmat + ", " + cmat + ", " + info + ") {\n" + call +
                                  "  return %w, " + l + ", " + r + ", " + inf + " : " + cvec + ", " + cmat + ", " + cmat + ", " + info + "\n}\n",
                              false);
    ASSERT_TRUE(prog.ok()) << prog.status().ToString();
    auto got = CompileAndRun(*prog->module, {in});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const Literal &w2 = got->tuple_elements()[0], &vl = got->tuple_elements()[1], &vr = got->tuple_elements()[2], &inf_l = got->tuple_elements()[3];
    const double tol = single ? 1e-4 : 1e-10;
    for (int64_t b = 0; b < batch; ++b) {
      EXPECT_EQ(inf_l.Get(b).s, 0) << "batch " << b;
      auto A = [&](int64_t i, int64_t j) { return a[b * n * n + i * n + j]; };
      auto W = [&](int64_t k) { return w2.Get(b * n + k).c() / 2.0; };
      auto R = [&](int64_t i, int64_t k) { return vr.Get(b * n * n + i * n + k).c(); };
      auto L = [&](int64_t i, int64_t k) { return vl.Get(b * n * n + i * n + k).c(); };
      double scale = 1;
      for (int64_t i = 0; i < n * n; ++i) scale = std::max(scale, std::abs(a[b * n * n + i]));
      for (int64_t k = 0; k < n; ++k) {
        double right_norm = 0, left_norm = 0, right_largest = 0, left_largest = 0;
        for (int64_t i = 0; i < n; ++i) {
          std::complex<double> av = 0, ua = 0;
          for (int64_t j = 0; j < n; ++j) {
            av += A(i, j) * R(j, k);
            ua += std::conj(L(j, k)) * A(j, i);
          }
          EXPECT_NEAR(std::abs(av - W(k) * R(i, k)), 0, tol * 32 * scale) << "A v = w v, batch " << b << " pair " << k << " row " << i;
          EXPECT_NEAR(std::abs(ua - W(k) * std::conj(L(i, k))), 0, tol * 32 * scale) << "u^H A = w u^H, batch " << b << " pair " << k;
          right_norm += std::norm(R(i, k));
          left_norm += std::norm(L(i, k));
          right_largest = std::max(right_largest, std::norm(R(i, k)));
          left_largest = std::max(left_largest, std::norm(L(i, k)));
        }
        // A largest component (ties within rounding) is real.
        bool right_real = false, left_real = false;
        for (int64_t i = 0; i < n; ++i) {
          right_real = right_real || (std::norm(R(i, k)) >= right_largest * (1 - 1e-3) && std::abs(R(i, k).imag()) <= tol);
          left_real = left_real || (std::norm(L(i, k)) >= left_largest * (1 - 1e-3) && std::abs(L(i, k).imag()) <= tol);
        }
        EXPECT_NEAR(right_norm, 1, tol * 8);
        EXPECT_NEAR(left_norm, 1, tol * 8);
        EXPECT_TRUE(right_real) << "batch " << b << " pair " << k;
        EXPECT_TRUE(left_real) << "batch " << b << " pair " << k;
        if (!complex && W(k).imag() == 0) {
          for (int64_t i = 0; i < n; ++i) EXPECT_EQ(R(i, k).imag(), 0) << "a real eigenvalue's vector is real";
        }
      }
    }
    // Known answers, in any order.
    auto sorted_values = [&](int64_t b) {
      std::vector<std::complex<double>> v;
      for (int64_t k = 0; k < n; ++k) v.push_back(w2.Get(b * n + k).c() / 2.0);
      return InValueOrder(v);
    };
    const std::vector<std::complex<double>> roots = sorted_values(1), rotation = sorted_values(2);
    for (int64_t k = 0; k < n; ++k) EXPECT_NEAR(std::abs(roots[k] - static_cast<double>(k + 1)), 0, single ? 2e-3 : 1e-9) << k;
    const std::complex<double> rotation_want[] = {{0, -1}, {0, 1}, {2, 0}, {3, 0}, {3, 0}};
    for (int64_t k = 0; k < n; ++k) EXPECT_NEAR(std::abs(rotation[k] - rotation_want[k]), 0, tol * 10) << k;
    if (!complex) {
      for (int64_t k = 0; k < n; ++k) {
        EXPECT_EQ(roots[k].imag(), 0) << "real eigenvalues are exactly real";
        if (std::abs(rotation[k].imag()) < 0.5) {
          EXPECT_EQ(rotation[k].imag(), 0);
        }
      }
      continue;
    }
    // The complex Schur form.
    auto schur = ReadStablehlo("func.func @main(%a: " + mat + ") -> (" + mat + ", " + mat + ") {\n"
                               "  %0:5 = stablehlo.custom_call @lapack_" + p + "gees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}} : (" + mat +
                               ") -> (" + mat + ", " + cvec + ", " + mat + ", tensor<4xi32>, " + info + ")\n  return %0#0, %0#2 : " + mat + ", " + mat + "\n}\n",
                               false);
    ASSERT_TRUE(schur.ok()) << schur.status().ToString();
    auto tz = CompileAndRun(*schur->module, {in});
    ASSERT_TRUE(tz.ok()) << tz.status().ToString();
    for (int64_t b = 0; b < batch; ++b) {
      auto T = [&](int64_t i, int64_t j) { return tz->tuple_elements()[0].Get(b * n * n + i * n + j).c(); };
      auto Z = [&](int64_t i, int64_t j) { return tz->tuple_elements()[1].Get(b * n * n + i * n + j).c(); };
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          if (i > j) {
            EXPECT_EQ(T(i, j), std::complex<double>(0)) << "T is upper triangular";
          }
          std::complex<double> ztz = 0, zz = 0;
          for (int64_t k = 0; k < n; ++k) {
            for (int64_t l = 0; l < n; ++l) ztz += Z(i, k) * T(k, l) * std::conj(Z(j, l));
            zz += std::conj(Z(k, i)) * Z(k, j);
          }
          EXPECT_NEAR(std::abs(ztz - a[b * n * n + i * n + j]), 0, tol * 64) << "Z T Z^H at " << i << "," << j << " batch " << b;
          EXPECT_NEAR(std::abs(zz - (i == j ? 1.0 : 0.0)), 0, tol * 8) << "Z^H Z";
        }
    }
  }
  // cuSOLVER's real form: a rotation's +-i, their vector (1, -i) / sqrt 2
  // packed as its real and imaginary parts.
  Literal rotation(Shape(ElementType::kF32, {2, 2}));
  const float rv[] = {0, -1, 1, 0};
  for (int64_t i = 0; i < 4; ++i) rotation.Set(i, Scalar::Float(ElementType::kF32, rv[i]));
  auto packed = ReadStablehlo(R"(
func.func @main(%a: tensor<2x2xf32>) -> (tensor<2xcomplex<f32>>, tensor<2x2xf32>) {
  %0:5 = stablehlo.custom_call @cusolver_geev_ffi(%a) {mhlo.backend_config = {left = false, right = true}} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xcomplex<f32>>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<i32>)
  return %0#1, %0#3 : tensor<2xcomplex<f32>>, tensor<2x2xf32>
})", false);
  ASSERT_TRUE(packed.ok()) << packed.status().ToString();
  auto wv = CompileAndRun(*packed->module, {rotation});
  ASSERT_TRUE(wv.ok()) << wv.status().ToString();
  const double h = std::sqrt(0.5);
  const std::complex<double> want_w[] = {{0, 1}, {0, -1}};
  const double want_v[] = {h, 0, 0, -h};
  for (int64_t i = 0; i < 2; ++i) EXPECT_NEAR(std::abs(wv->tuple_elements()[0].Get(i).c() - want_w[i]), 0, 1e-6) << i;
  for (int64_t i = 0; i < 4; ++i) EXPECT_NEAR(wv->tuple_elements()[1].Get(i).re, want_v[i], 1e-6) << i;
}

// jaxlib's real gees (jax.scipy.linalg.schur of a real matrix): A = Z T
// Z^T with Z orthogonal and T quasi-triangular, each 2x2 block in LAPACK's
// standard form (a complex pair's: equal diagonal entries, off-diagonal
// ones of opposite signs; a real pair is split), wr + i wi the blocks'
// eigenvalues (the positive imaginary part first); known answers (a
// companion matrix's roots, a rotation's +-i beside a block of 2 +- i
// sqrt 15, JAX's own 4x4 example), the zero matrix, an upper triangular
// one; the legacy form too.
TEST_F(LinalgCustomCalls, RealSchurFormsAreQuasiTriangularAndStandard) {
  std::mt19937_64 rng(43);
  std::normal_distribution<double> d;
  for (const ElementType t : {ElementType::kF32, ElementType::kF64}) {
    const bool single = t == ElementType::kF32;
    const std::string ty = single ? "f32" : "f64", p = single ? "s" : "d";
    for (const bool legacy : {false, true}) {
      SCOPED_TRACE(ty + (legacy ? " legacy" : " ffi"));
      const int64_t batch = 6, n = 6;
      std::vector<double> a(batch * n * n, 0.0);
      auto A = [&](int64_t b, int64_t i, int64_t j) -> double& { return a[(b * n + i) * n + j]; };
      for (int64_t i = 0; i < n * n; ++i) a[i] = d(rng);                 // 0: random, complex pairs likely
      const double coefficients[] = {720, -1764, 1624, -735, 175, -21};  // 1: (x - 1) ... (x - 6)
      for (int64_t i = 1; i < n; ++i) A(1, i, i - 1) = 1;
      for (int64_t i = 0; i < n; ++i) A(1, i, n - 1) = -coefficients[i];
      A(2, 0, 1) = -1, A(2, 1, 0) = 1;                                   // 2: +-i, 2 +- i sqrt 15, 4, 5
      A(2, 2, 2) = 2, A(2, 2, 3) = 5, A(2, 3, 2) = -3, A(2, 3, 3) = 2;
      A(2, 4, 4) = 4, A(2, 5, 5) = 5, A(2, 0, 5) = 1;
      for (int64_t i = 0; i < 4; ++i)                                    // 3: JAX's example, 0 .. 15
        for (int64_t j = 0; j < 4; ++j) A(3, i, j) = static_cast<double>(4 * i + j);
      for (int64_t i = 0; i < n; ++i)                                    // 4: upper triangular
        for (int64_t j = i; j < n; ++j) A(4, i, j) = std::round(4 * d(rng));
      Literal in(Shape(t, {batch, n, n}));                               // 5: zero
      for (int64_t i = 0; i < batch * n * n; ++i) in.Set(i, Scalar::Float(t, a[i]));
      for (int64_t i = 0; i < batch * n * n; ++i) a[i] = in.Get(i).re;  // as rounded
      const std::string mat = "tensor<6x6x6x" + ty + ">", vec = "tensor<6x6x" + ty + ">", info = "tensor<6xi32>";
      std::string call;
      if (legacy)
        call = "  %b = stablehlo.constant dense<6> : tensor<i32>\n  %v = stablehlo.constant dense<86> : tensor<ui8>\n"
               "  %s = stablehlo.constant dense<78> : tensor<ui8>\n"
               "  %0:6 = stablehlo.custom_call @lapack_" + p + "gees(%b, %b, %v, %s, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<ui8>, tensor<ui8>, " +
               mat + ") -> (" + mat + ", " + vec + ", " + vec + ", " + mat + ", " + info + ", " + info + ")\n";
      else
        call = "  %0:6 = stablehlo.custom_call @lapack_" + p + "gees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}} : (" + mat + ") -> (" + mat +
               ", " + vec + ", " + vec + ", " + mat + ", " + info + ", " + info + ")\n";
      auto prog = ReadStablehlo("func.func @main(%a: " + mat + ") -> (" + mat + ", " + vec + ", " + vec + ", " + mat + ", " + info + ", " + info + ") {\n" + call +
                                    "  return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5 : " + mat + ", " + vec + ", " + vec + ", " + mat + ", " + info + ", " + info + "\n}\n",
                                false);
      ASSERT_TRUE(prog.ok()) << prog.status().ToString();
      auto got = CompileAndRun(*prog->module, {in});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      const std::vector<Literal>& r = got->tuple_elements();
      const double tol = single ? 2e-6 : 1e-14;
      for (int64_t b = 0; b < batch; ++b) {
        SCOPED_TRACE("batch " + std::to_string(b));
        auto T = [&](int64_t i, int64_t j) { return r[0].Get((b * n + i) * n + j).re; };
        auto Z = [&](int64_t i, int64_t j) { return r[3].Get((b * n + i) * n + j).re; };
        auto W = [&](int64_t k) { return std::complex<double>(r[1].Get(b * n + k).re, r[2].Get(b * n + k).re); };
        EXPECT_EQ(r[4].Get(b).s, 0) << "sdim";
        EXPECT_EQ(r[5].Get(b).s, 0) << "info";
        double scale = 1;
        for (int64_t i = 0; i < n * n; ++i) scale = std::max(scale, std::abs(a[b * n * n + i]));
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double ztz = 0, zz = 0;
            for (int64_t k = 0; k < n; ++k) {
              for (int64_t l = 0; l < n; ++l) ztz += Z(i, k) * T(k, l) * Z(j, l);
              zz += Z(k, i) * Z(k, j);
            }
            EXPECT_NEAR(ztz, A(b, i, j), tol * 64 * scale) << "Z T Z^T at " << i << "," << j;
            EXPECT_NEAR(zz, i == j ? 1.0 : 0.0, tol * 16) << "Z^T Z at " << i << "," << j;
            if (i > j + 1) {
              EXPECT_EQ(T(i, j), 0) << "below the subdiagonal at " << i << "," << j;
            }
          }
        for (int64_t k = 0; k < n; ++k) {
          const bool block = k + 1 < n && T(k + 1, k) != 0, second = k > 0 && T(k, k - 1) != 0;
          if (block) {
            EXPECT_FALSE(second) << "blocks overlap at " << k;
            EXPECT_EQ(T(k, k), T(k + 1, k + 1)) << "a block's diagonal at " << k;
            EXPECT_LT(T(k, k + 1) * T(k + 1, k), 0) << "a block's off-diagonal signs at " << k;
            const double im = std::sqrt(std::abs(T(k, k + 1))) * std::sqrt(std::abs(T(k + 1, k)));
            EXPECT_NEAR(std::abs(W(k) - std::complex<double>(T(k, k), im)), 0, tol * 8 * scale) << k;
            EXPECT_EQ(W(k + 1), std::conj(W(k))) << k;
          } else if (!second) {
            EXPECT_EQ(W(k), std::complex<double>(T(k, k), 0)) << k;
          }
        }
      }
      auto sorted_values = [&](int64_t b) {
        std::vector<std::complex<double>> v;
        for (int64_t k = 0; k < n; ++k) v.emplace_back(r[1].Get(b * n + k).re, r[2].Get(b * n + k).re);
        return InValueOrder(v);
      };
      const std::vector<std::complex<double>> roots = sorted_values(1), blocks = sorted_values(2), jax = sorted_values(3);
      for (int64_t k = 0; k < n; ++k) EXPECT_NEAR(std::abs(roots[k] - static_cast<double>(k + 1)), 0, single ? 2e-2 : 1e-8) << k;
      const double s15 = std::sqrt(15.0);
      const std::complex<double> blocks_want[] = {{0, -1}, {0, 1}, {2, -s15}, {2, s15}, {4, 0}, {5, 0}};
      for (int64_t k = 0; k < n; ++k) EXPECT_NEAR(std::abs(blocks[k] - blocks_want[k]), 0, tol * 32) << k;
      // JAX's example: 15 -+ sqrt 305 (rank 2: trace 30, the product -80), then zeros.
      EXPECT_NEAR(jax[0].real(), 15 - std::sqrt(305.0), tol * 64 * 15);
      EXPECT_NEAR(jax[n - 1].real(), 15 + std::sqrt(305.0), tol * 64 * 15);
      for (int64_t k = 1; k + 1 < n; ++k) EXPECT_NEAR(std::abs(jax[k]), 0, single ? 1e-5 * 15 : 1e-13 * 15) << k;
    }
  }
}

// jaxlib's gehrd (jax.lax.linalg.hessenberg) and sytrd/hetrd and
// cuSOLVER's sytrd (jax.lax.linalg.tridiagonal, lower): LAPACK's packed
// forms. Q rebuilt from the reflectors below the subdiagonal and the taus
// gives A = Q H Q^H with H Hessenberg (tridiagonal, real, for a Hermitian
// matrix, its diagonal and subdiagonal also in d and e); sytrd leaves the
// upper triangle as it was.
TEST_F(LinalgCustomCalls, HessenbergAndTridiagonalReductions) {
  std::mt19937_64 rng(41);
  std::uniform_int_distribution<int> d(-8, 8);
  for (const ElementType t : {ElementType::kF32, ElementType::kF64, ElementType::kC64, ElementType::kC128}) {
    const bool complex = IsComplex(t), single = t == ElementType::kF32 || t == ElementType::kC64;
    const std::string ty = MlirElementType(t);
    const std::string rty = single ? "f32" : "f64";
    const std::string p = t == ElementType::kF32 ? "s" : t == ElementType::kF64 ? "d" : t == ElementType::kC64 ? "c" : "z";
    const double tol = single ? 1e-4 : 1e-11;
    SCOPED_TRACE(ty);
    const int64_t batch = 2, n = 5;
    std::vector<std::complex<double>> a(batch * n * n), herm(batch * n * n);
    for (auto& v : a) v = {d(rng) / 4.0, complex ? d(rng) / 4.0 : 0.0};
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const std::complex<double> lower = i >= j ? a[b * n * n + i * n + j] : std::conj(a[b * n * n + j * n + i]);
          herm[b * n * n + i * n + j] = i == j ? std::complex<double>(lower.real(), 0) : lower;
        }
    Literal in(Shape(t, {batch, n, n}));
    for (int64_t i = 0; i < batch * n * n; ++i) in.Set(i, complex ? Scalar::Complex(t, a[i]) : Scalar::Float(t, a[i].real()));
    const std::string mat = "tensor<2x5x5x" + ty + ">", taus = "tensor<2x4x" + ty + ">", info = "tensor<2xi32>";
    const std::string trd = complex ? "hetrd" : "sytrd";
    auto prog = ReadStablehlo(
        "func.func @main(%a: " + mat + ") -> (" + mat + ", " + taus + ", " + mat + ", tensor<2x5x" + rty + ">, tensor<2x4x" + rty + ">, " + taus + ", " + mat + ") {\n"
        "  %0:3 = stablehlo.custom_call @lapack_" + p + "gehrd_ffi(%a) {mhlo.backend_config = {high = 5 : i32, low = 1 : i32}} : (" + mat + ") -> (" + mat + ", " + taus + ", " + info + ")\n"
        "  %1:5 = stablehlo.custom_call @lapack_" + p + trd + "_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (" + mat + ") -> (" + mat + ", tensor<2x5x" + rty + ">, tensor<2x4x" + rty + ">, " + taus + ", " + info + ")\n"
        "  %2:5 = stablehlo.custom_call @cusolver_sytrd_ffi(%a) {mhlo.backend_config = {lower = true}} : (" + mat + ") -> (" + mat + ", tensor<2x5x" + rty + ">, tensor<2x4x" + rty + ">, " + taus + ", " + info + ")\n"
        "  return %0#0, %0#1, %1#0, %1#1, %1#2, %1#3, %2#0 : " + mat + ", " + taus + ", " + mat + ", tensor<2x5x" + rty + ">, tensor<2x4x" + rty + ">, " + taus + ", " + mat + "\n}\n",
        false);
    ASSERT_TRUE(prog.ok()) << prog.status().ToString();
    auto got = CompileAndRun(*prog->module, {in});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const std::vector<Literal>& r = got->tuple_elements();
    EXPECT_EQ(r[2].ToString(), r[6].ToString()) << "cuSOLVER's sytrd gives what LAPACK's does";
    for (const bool tridiagonal : {false, true}) {
      const Literal &packed = r[tridiagonal ? 2 : 0], &tau = r[tridiagonal ? 5 : 1];
      const std::vector<std::complex<double>>& m = tridiagonal ? herm : a;
      for (int64_t b = 0; b < batch; ++b) {
        auto P = [&](int64_t i, int64_t j) { return packed.Get(b * n * n + i * n + j).c(); };
        // Q = H(0) ... H(n - 2), H(j) = I - tau v v^H.
        std::vector<std::complex<double>> q(n * n, 0.0);
        for (int64_t i = 0; i < n; ++i) q[i * n + i] = 1;
        for (int64_t j = 0; j + 1 < n; ++j) {
          std::vector<std::complex<double>> v(n, 0.0);
          v[j + 1] = 1;
          for (int64_t i = j + 2; i < n; ++i) v[i] = P(i, j);
          const std::complex<double> tj = tau.Get(b * (n - 1) + j).c();
          for (int64_t i = 0; i < n; ++i) {  // q <- q H(j)
            std::complex<double> qv = 0;
            for (int64_t k = 0; k < n; ++k) qv += q[i * n + k] * v[k];
            for (int64_t k = 0; k < n; ++k) q[i * n + k] -= qv * tj * std::conj(v[k]);
          }
        }
        auto H = [&](int64_t i, int64_t j) -> std::complex<double> {
          if (i > j + 1 || (tridiagonal && j > i + 1)) return 0.0;
          if (tridiagonal && j > i) return std::conj(P(j, i));  // T is Hermitian; its upper part is not written
          return P(i, j);
        };
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            std::complex<double> qhq = 0;
            for (int64_t k = 0; k < n; ++k)
              for (int64_t l = 0; l < n; ++l) qhq += q[i * n + k] * H(k, l) * std::conj(q[j * n + l]);
            EXPECT_NEAR(std::abs(qhq - m[b * n * n + i * n + j]), 0, tol * 16) << (tridiagonal ? "Q T Q^H" : "Q H Q^H") << " at " << i << "," << j << " batch " << b;
            if (tridiagonal && j > i) {
              EXPECT_EQ(P(i, j), a[b * n * n + i * n + j]) << "the upper triangle is kept";
            }
          }
        if (tridiagonal)
          for (int64_t i = 0; i < n; ++i) {
            EXPECT_EQ(r[3].Get(b * n + i).re, P(i, i).real());
            EXPECT_EQ(P(i, i).imag(), 0);
            if (i + 1 < n) {
              EXPECT_EQ(r[4].Get(b * (n - 1) + i).re, P(i + 1, i).real());
              EXPECT_EQ(P(i + 1, i).imag(), 0) << "a real subdiagonal";
            }
          }
      }
    }
  }
}

// jaxlib's GPU solver kernels (a module exported on a GPU) compute what
// the CPU ones do, with booleans for attributes and their own result
// arrangements: each gives exactly what its LAPACK counterpart gives.
TEST_F(LinalgCustomCalls, GpuSolverKernelsGiveWhatLapacksGive) {
  auto run = [](const std::string& text, const Literal& a) -> StatusOr<Literal> {
    VKXLA_ASSIGN_OR_RETURN(StablehloProgram p, ReadStablehlo(text, false));
    return CompileAndRun(*p.module, {a});
  };
  std::mt19937_64 rng(23);
  auto random = [&](std::vector<int64_t> dims, bool symmetric_positive) {
    Literal a(Shape(ElementType::kF32, dims));
    std::uniform_int_distribution<int> d(-8, 8);
    for (int64_t i = 0; i < a.element_count(); ++i) a.Set(i, Scalar::Float(ElementType::kF32, d(rng) / 4.0));
    if (symmetric_positive) {  // A^T A + n I
      const int64_t n = dims.back();
      Literal s(a.shape());
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double v = i == j ? static_cast<double>(n) : 0.0;
          for (int64_t l = 0; l < n; ++l) v += a.Get(l * n + i).re * a.Get(l * n + j).re;
          s.Set(i * n + j, Scalar::Float(ElementType::kF32, v));
        }
      return s;
    }
    return a;
  };
  struct Case {
    std::string why, gpu, lapack;
    std::vector<int64_t> dims;
    bool spd;
    bool complex = false;
  };
  const std::string m44 = "tensor<4x4xf32>", m35 = "tensor<3x5xf32>", m44c = "tensor<4x4xcomplex<f32>>", i32 = "tensor<i32>";
  // LAPACK's forms the GPU ones are held against.
  const std::string lapack_svd_wide =
      "  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (" + m35 + ") -> (" + m35 +
      ", tensor<3xf32>, tensor<3x3xf32>, tensor<5x5xf32>, " + i32 + ")\n  return %0#1, %0#2, %0#3 : tensor<3xf32>, tensor<3x3xf32>, tensor<5x5xf32>";
  auto lapack_eigh = [&](const char* uplo) {
    return "  %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = " + std::string(uplo) +
           " : ui8}} : (" + m44 + ") -> (" + m44 + ", tensor<4xf32>, " + i32 + ")\n  return %0#0, %0#1 : " + m44 + ", tensor<4xf32>";
  };
  const std::string lapack_eigh_lower = lapack_eigh("76"), lapack_eigh_upper = lapack_eigh("85");
  const std::string lapack_q = "  %0:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%a) : (" + m44 + ") -> (" + m44 +
                               ", tensor<4xf32>)\n  %1 = stablehlo.custom_call @lapack_sorgqr_ffi(%0#0, %0#1) : (" + m44 +
                               ", tensor<4xf32>) -> " + m44 + "\n  return %1 : " + m44;
  const std::vector<Case> cases = {
      {"potrf, upper",
       "  %0:2 = stablehlo.custom_call @cusolver_potrf_ffi(%a) {mhlo.backend_config = {lower = false}} : (" + m44 + ") -> (" + m44 + ", " + i32 + ")\n  return %0#0 : " + m44,
       "  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 85 : ui8}} : (" + m44 + ") -> (" + m44 + ", " + i32 + ")\n  return %0#0 : " + m44,
       {4, 4}, true},
      {"getrf",
       "  %0:3 = stablehlo.custom_call @hipsolver_getrf_ffi(%a) : (" + m44 + ") -> (" + m44 + ", tensor<4xi32>, " + i32 + ")\n  return %0#0, %0#1 : " + m44 + ", tensor<4xi32>",
       "  %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) : (" + m44 + ") -> (" + m44 + ", tensor<4xi32>, " + i32 + ")\n  return %0#0, %0#1 : " + m44 + ", tensor<4xi32>",
       {4, 4}, false},
      {"geqrf and orgqr",
       "  %0:2 = stablehlo.custom_call @cusolver_geqrf_ffi(%a) : (" + m44 + ") -> (" + m44 + ", tensor<4xf32>)\n"
       "  %1 = stablehlo.custom_call @cusolver_orgqr_ffi(%0#0, %0#1) : (" + m44 + ", tensor<4xf32>) -> " + m44 + "\n  return %1 : " + m44,
       lapack_q,
       {4, 4}, false},
      {"syevd, upper",
       "  %0:3 = stablehlo.custom_call @cusolver_syevd_ffi(%a) {mhlo.backend_config = {algorithm = 0 : ui8, lower = false}} : (" + m44 + ") -> (" + m44 + ", tensor<4xf32>, " + i32 + ")\n  return %0#0, %0#1 : " + m44 + ", tensor<4xf32>",
       lapack_eigh_upper,
       {4, 4}, false},
      {"gesvd of a wide matrix: vt before u",
       "  %0:5 = stablehlo.custom_call @cusolver_gesvd_ffi(%a) {mhlo.backend_config = {compute_uv = true, full_matrices = true, transposed = true}} : (" + m35 + ") -> (" + m35 + ", tensor<3xf32>, tensor<5x5xf32>, tensor<3x3xf32>, " + i32 + ")\n"
       "  return %0#1, %0#3, %0#2 : tensor<3xf32>, tensor<3x3xf32>, tensor<5x5xf32>",
       lapack_svd_wide,
       {3, 5}, false},
      {"hipSOLVER's gesdd, as gesvd",
       "  %0:5 = stablehlo.custom_call @hipsolver_gesdd_ffi(%a) {mhlo.backend_config = {compute_uv = true, full_matrices = true, transposed = true}} : (" + m35 + ") -> (" + m35 + ", tensor<3xf32>, tensor<5x5xf32>, tensor<3x3xf32>, " + i32 + ")\n"
       "  return %0#1, %0#3, %0#2 : tensor<3xf32>, tensor<3x3xf32>, tensor<5x5xf32>",
       lapack_svd_wide,
       {3, 5}, false},
      {"geev of a complex matrix: (a, w, vl, vr, info)",
       "  %0:5 = stablehlo.custom_call @cusolver_geev_ffi(%a) {mhlo.backend_config = {left = true, right = true}} : (" + m44c + ") -> (" + m44c + ", tensor<4xcomplex<f32>>, " + m44c + ", " + m44c + ", " + i32 + ")\n"
       "  return %0#1, %0#2, %0#3 : tensor<4xcomplex<f32>>, " + m44c + ", " + m44c,
       "  %0:6 = stablehlo.custom_call @lapack_cgeev_ffi(%a) {mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}} : (" + m44c + ") -> (tensor<4xcomplex<f32>>, " + m44c + ", " + m44c + ", " + i32 + ", " + m44c + ", tensor<8xf32>)\n"
       "  return %0#0, %0#1, %0#2 : tensor<4xcomplex<f32>>, " + m44c + ", " + m44c,
       {4, 4}, false, true},
      {"older exports' cuSOLVER geqrf and orgqr",
       "  %0:4 = stablehlo.custom_call @cusolver_geqrf(%a) {api_version = 2 : i32, backend_config = \"\\00\\00\\00\\00\\01\\00\\00\\00\\04\\00\\00\\00\\04\\00\\00\\00\\00\\01\\00\\00\"} : (" + m44 + ") -> (" + m44 + ", tensor<4xf32>, " + i32 + ", tensor<256xf32>)\n"
       "  %1:3 = stablehlo.custom_call @cusolver_orgqr(%0#0, %0#1) {api_version = 2 : i32, backend_config = \"\\00\\00\\00\\00\\01\\00\\00\\00\"} : (" + m44 + ", tensor<4xf32>) -> (" + m44 + ", " + i32 + ", tensor<64xf32>)\n  return %1#0 : " + m44,
       lapack_q,
       {4, 4}, false},
      {"older exports' hipSOLVER syevd, lower by its descriptor",
       "  %0:4 = stablehlo.custom_call @hipsolver_syevd(%a) {api_version = 2 : i32, backend_config = \"\\00\\00\\00\\00z\\00\\00\\00\\01\\00\\00\\00\\04\\00\\00\\00@\\00\\00\\00\"} : (" + m44 + ") -> (" + m44 + ", tensor<4xf32>, " + i32 + ", tensor<64xf32>)\n  return %0#0, %0#1 : " + m44 + ", tensor<4xf32>",
       lapack_eigh_lower,
       {4, 4}, false},
      {"older exports' cuSOLVER syevj, upper by its descriptor",
       "  %0:4 = stablehlo.custom_call @cusolver_syevj(%a) {api_version = 2 : i32, backend_config = \"\\00\\00\\00\\00\\01\\00\\00\\00\\01\\00\\00\\00\\04\\00\\00\\00@\\00\\00\\00\"} : (" + m44 + ") -> (" + m44 + ", tensor<4xf32>, " + i32 + ", tensor<64xf32>)\n  return %0#0, %0#1 : " + m44 + ", tensor<4xf32>",
       lapack_eigh_upper,
       {4, 4}, false},
      {"oneMKL's potrf, lower",
       "  %0:2 = stablehlo.custom_call @oneapisolver_potrf_ffi(%a) {mhlo.backend_config = {lower = true}} : (" + m44 + ") -> (" + m44 + ", " + i32 + ")\n  return %0#0 : " + m44,
       "  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (" + m44 + ") -> (" + m44 + ", " + i32 + ")\n  return %0#0 : " + m44,
       {4, 4}, true},
      {"oneMKL's geqrf, orgqr and syevd",
       "  %0:2 = stablehlo.custom_call @oneapisolver_geqrf_ffi(%a) : (" + m44 + ") -> (" + m44 + ", tensor<4xf32>)\n"
       "  %1 = stablehlo.custom_call @oneapisolver_orgqr_ffi(%0#0, %0#1) : (" + m44 + ", tensor<4xf32>) -> " + m44 + "\n"
       "  %s = stablehlo.transpose %1, dims = [1, 0] : (" + m44 + ") -> " + m44 + "\n"
       "  %2 = stablehlo.add %1, %s : " + m44 + "\n"
       "  %3:3 = stablehlo.custom_call @oneapisolver_syevd_ffi(%2) {mhlo.backend_config = {algorithm = 0 : ui8, lower = true}} : (" + m44 + ") -> (" + m44 + ", tensor<4xf32>, " + i32 + ")\n"
       "  return %1, %3#1 : " + m44 + ", tensor<4xf32>",
       "  %0:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%a) : (" + m44 + ") -> (" + m44 + ", tensor<4xf32>)\n"
       "  %1 = stablehlo.custom_call @lapack_sorgqr_ffi(%0#0, %0#1) : (" + m44 + ", tensor<4xf32>) -> " + m44 + "\n"
       "  %s = stablehlo.transpose %1, dims = [1, 0] : (" + m44 + ") -> " + m44 + "\n"
       "  %2 = stablehlo.add %1, %s : " + m44 + "\n"
       "  %3:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%2) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (" + m44 + ") -> (" + m44 + ", tensor<4xf32>, " + i32 + ")\n"
       "  return %1, %3#1 : " + m44 + ", tensor<4xf32>",
       {4, 4}, false},
      {"oneMKL's gesvd of a wide matrix",
       "  %0:5 = stablehlo.custom_call @oneapisolver_gesvd_ffi(%a) {mhlo.backend_config = {compute_uv = true, full_matrices = true, transposed = true}} : (" + m35 + ") -> (" + m35 + ", tensor<3xf32>, tensor<5x5xf32>, tensor<3x3xf32>, " + i32 + ")\n"
       "  return %0#1, %0#3, %0#2 : tensor<3xf32>, tensor<3x3xf32>, tensor<5x5xf32>",
       lapack_svd_wide,
       {3, 5}, false},
      {"gesvdj: V itself, thin",
       "  %0:5 = stablehlo.custom_call @cusolver_gesvdj_ffi(%a) {mhlo.backend_config = {compute_uv = true, full_matrices = false}} : (" + m35 + ") -> (" + m35 + ", tensor<3xf32>, tensor<3x3xf32>, tensor<5x3xf32>, " + i32 + ")\n"
       "  %vt = stablehlo.transpose %0#3, dims = [1, 0] : (tensor<5x3xf32>) -> tensor<3x5xf32>\n"
       "  return %0#1, %0#2, %vt : tensor<3xf32>, tensor<3x3xf32>, tensor<3x5xf32>",
       "  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}} : (" + m35 + ") -> (" + m35 + ", tensor<3xf32>, tensor<3x3xf32>, tensor<3x5xf32>, " + i32 + ")\n"
       "  return %0#1, %0#2, %0#3 : tensor<3xf32>, tensor<3x3xf32>, tensor<3x5xf32>",
       {3, 5}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    const std::string arg = "tensor<" + std::to_string(c.dims[0]) + "x" + std::to_string(c.dims[1]) + (c.complex ? "xcomplex<f32>>" : "xf32>");
    auto results = [&](const std::string& body) {
      const size_t at = body.rfind("return ");
      const std::string types = body.substr(body.find(" : ", at) + 3);
      return "func.func @main(%a: " + arg + ") -> (" + types + ") {\n" + body + "\n}\n";
    };
    Literal a = random(c.dims, c.spd);
    if (c.complex) {  // the real parts and a second draw as imaginary parts
      const Literal im = random(c.dims, false);
      Literal z(Shape(ElementType::kC64, c.dims));
      for (int64_t i = 0; i < z.element_count(); ++i) z.Set(i, Scalar::Complex(ElementType::kC64, {a.Get(i).re, im.Get(i).re}));
      a = std::move(z);
    }
    StatusOr<Literal> gpu = run(results(c.gpu), a), lapack = run(results(c.lapack), a);
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    ASSERT_TRUE(lapack.ok()) << lapack.status().ToString();
    EXPECT_EQ(gpu->ToString(), lapack->ToString());
  }
}

TEST_F(LinalgCustomCalls, BadOperandsAreErrorsAtTheirPosition) {
  EXPECT_NE(RunRefined(R"(
func.func @main(%a: tensor<4x4xf32>) -> tensor<4xf32> {
  %0:4 = stablehlo.custom_call @hipsolver_syevd(%a) {api_version = 2 : i32, backend_config = "\00\00"} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<i32>, tensor<64xf32>)
  return %0#1 : tensor<4xf32>
})", {Literal(Shape(ElementType::kF32, {4, 4}))}).find("3:3: custom_call @hipsolver_syevd: needs its descriptor"),
            std::string::npos);
  EXPECT_NE(RunRefined(R"(
func.func @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0:6 = stablehlo.custom_call @lapack_sgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 83 : ui8}} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<i32>, tensor<i32>)
  return %0#0 : tensor<4x4xf32>
})", {Literal(Shape(ElementType::kF32, {4, 4}))}).find("3:3: custom_call @lapack_sgees_ffi: sorting the Schur form's eigenvalues is not supported"),
            std::string::npos);
  EXPECT_NE(RunRefined(R"(
func.func @main(%a: tensor<65x65xf64>) -> tensor<65x65xf64> {
  %0:6 = stablehlo.custom_call @lapack_dgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}} : (tensor<65x65xf64>) -> (tensor<65x65xf64>, tensor<65xf64>, tensor<65xf64>, tensor<65x65xf64>, tensor<i32>, tensor<i32>)
  return %0#0 : tensor<65x65xf64>
})", {Literal(Shape(ElementType::kF64, {65, 65}))}).find("3:3: custom_call @lapack_dgees_ffi: the Schur decomposition of f64[65,65]: matrices of order up to 64"),
            std::string::npos);
  EXPECT_NE(RunRefined(R"(
func.func @main(%a: tensor<65x65xcomplex<f32>>) -> tensor<65xcomplex<f32>> {
  %0:6 = stablehlo.custom_call @lapack_cgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 78 : ui8}} : (tensor<65x65xcomplex<f32>>) -> (tensor<65xcomplex<f32>>, tensor<65x65xcomplex<f32>>, tensor<65x65xcomplex<f32>>, tensor<i32>, tensor<65x65xcomplex<f32>>, tensor<130xf32>)
  return %0#0 : tensor<65xcomplex<f32>>
})", {Literal(Shape(ElementType::kC64, {65, 65}))}).find("3:3: custom_call @lapack_cgeev_ffi: the Schur decomposition of c64[65,65]: matrices of order up to 64"),
            std::string::npos);
  EXPECT_NE(RunRefined(R"(
func.func @main(%a: tensor<1025x1025xf32>) -> (tensor<1025x1025xf32>, tensor<1025xf32>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) : (tensor<1025x1025xf32>) -> (tensor<1025x1025xf32>, tensor<1025xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<1025x1025xf32>, tensor<1025xf32>, tensor<i32>
})", {Literal(Shape(ElementType::kF32, {1025, 1025}))}).find("3:3: custom_call @lapack_ssyevd_ffi: eigendecomposition of f32[1025,1025]: matrices of order up to 1024"),
            std::string::npos);
  Literal z(Shape(ElementType::kF16, {2, 2}));
  EXPECT_NE(RunRefined(R"(
func.func @main(%a: tensor<2x2xf16>) -> (tensor<2x2xf16>, tensor<2xi32>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) : (tensor<2x2xf16>) -> (tensor<2x2xf16>, tensor<2xi32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<2x2xf16>, tensor<2xi32>, tensor<i32>
})", {z}).find("3:3: custom_call @lapack_sgetrf_ffi: LU decomposition of f16[2,2]: f32, f64, c64 and c128 matrices are supported"),
            std::string::npos);
  EXPECT_NE(RunRefined(R"(
func.func @main(%a: tensor<3x65xf32>) -> (tensor<3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) {
  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) : (tensor<3x65xf32>) -> (tensor<3x65xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<i32>)
  return %0#1, %0#2, %0#3 : tensor<3xf32>, tensor<3x3xf32>, tensor<3x3xf32>
})", {Literal(Shape(ElementType::kF32, {3, 65}))}).find("3:3: custom_call @lapack_sgesdd_ffi: result 3 is written f32[3,3] but is f32[65,65]"),
            std::string::npos);
  EXPECT_NE(RunRefined(R"(
func.func @main(%a: tensor<1025x1026xf32>) -> tensor<1025xf32> {
  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 78 : ui8}} : (tensor<1025x1026xf32>) -> (tensor<1025x1026xf32>, tensor<1025xf32>, tensor<0x0xf32>, tensor<0x0xf32>, tensor<i32>)
  return %0#1 : tensor<1025xf32>
})", {Literal(Shape(ElementType::kF32, {1025, 1026}))}).find("3:3: custom_call @lapack_sgesdd_ffi: singular value decomposition of f32[1025,1026]: matrices with at most 1024"),
            std::string::npos);
}

}  // namespace
}  // namespace vkxla
