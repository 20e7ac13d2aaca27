// CHLO ops the StableHLO reader writes as HLO (their CHLO
// decompositions), run on the device against values computed on the host.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "frontends/stablehlo_reader.h"
#include "runtime/executable.h"
#include "tests/stablehlo_test_util.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class Chlo : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

// The high half of the 2w-bit product, by 128-bit arithmetic on the host.
int64_t MulhiOnHost(ElementType t, int64_t a, int64_t b) {
  const int bits = BitWidth(t);
  if (IsSignedInt(t)) {
    const __int128 p = static_cast<__int128>(a) * static_cast<__int128>(b);
    return static_cast<int64_t>(p >> bits);
  }
  const unsigned __int128 p = static_cast<unsigned __int128>(static_cast<uint64_t>(a)) * static_cast<uint64_t>(b);
  return static_cast<int64_t>(static_cast<uint64_t>(p >> bits));
}

TEST_F(Chlo, MulhiOfEveryIntegerWidthMatchesTheHost) {
  std::mt19937_64 rng(3);
  for (const auto& [t, mlir] : std::vector<std::pair<ElementType, std::string>>{
           {ElementType::kS8, "i8"}, {ElementType::kU8, "ui8"}, {ElementType::kS16, "i16"}, {ElementType::kU16, "ui16"},
           {ElementType::kS32, "i32"}, {ElementType::kU32, "ui32"}, {ElementType::kS64, "i64"}, {ElementType::kU64, "ui64"}}) {
    const std::string type = "tensor<64x" + mlir + ">";
    auto program = ReadStablehlo("func.func @main(%a: " + type + ", %b: " + type + ") -> " + type + " {\n  %r = \"chlo.mulhi\"(%a, %b) : (" +
                                     type + ", " + type + ") -> " + type + "\n  func.return %r : " + type + "\n}\n",
                                 false);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    const int bits = BitWidth(t);
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    Literal a(Shape(t, {64})), b(Shape(t, {64}));
    // Extremes first (min, max, -1, 0, 1), then random bit patterns.
    const uint64_t edges[] = {uint64_t{1} << (bits - 1), mask >> 1, mask, 0, 1};
    for (int64_t i = 0; i < 64; ++i) {
      const uint64_t x = i < 25 ? edges[i % 5] : rng() & mask, y = i < 25 ? edges[i / 5] : rng() & mask;
      a.Set(i, IsSignedInt(t) ? Scalar::Int(t, static_cast<int64_t>(x << (64 - bits)) >> (64 - bits)) : Scalar::UInt(t, x));
      b.Set(i, IsSignedInt(t) ? Scalar::Int(t, static_cast<int64_t>(y << (64 - bits)) >> (64 - bits)) : Scalar::UInt(t, y));
    }
    auto exe = Executable::Compile(*program->module, TestDevice());
    ASSERT_TRUE(exe.ok()) << mlir << ": " << exe.status().ToString();
    auto got = (*exe)->Run({a, b});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (int64_t i = 0; i < 64; ++i) {
      const Scalar x = a.Get(i), y = b.Get(i);
      const int64_t want = IsSignedInt(t) ? MulhiOnHost(t, x.s, y.s) : MulhiOnHost(t, static_cast<int64_t>(x.u), static_cast<int64_t>(y.u));
      const Scalar g = got->Get(i);
      if (IsSignedInt(t)) EXPECT_EQ(g.s, want) << mlir << " " << x.s << " * " << y.s;
      else EXPECT_EQ(g.u, static_cast<uint64_t>(want) & mask) << mlir << " " << x.u << " * " << y.u;
    }
  }
  // Operands of two types: a located error.
  auto bad = ReadStablehlo("func.func @main(%a: tensor<2xi32>, %b: tensor<2xi16>) -> tensor<2xi32> {\n"
                           "  %r = \"chlo.mulhi\"(%a, %b) : (tensor<2xi32>, tensor<2xi16>) -> tensor<2xi32>\n"
                           "  func.return %r : tensor<2xi32>\n}\n",
                           false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("2:3"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("chlo.mulhi"), std::string::npos) << bad.status().ToString();
}

// Units in the last place of `t` between a and b (0 when both are NaN or
// the same infinity).
double Ulps(double a, double b, ElementType t) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isinf(a) || std::isinf(b)) return a == b ? 0 : INFINITY;
  if (std::isnan(a) || std::isnan(b)) return INFINITY;
  const int mantissa = t == ElementType::kF64 ? 52 : 23;
  const double scale = std::max({std::fabs(a), std::fabs(b), t == ElementType::kF64 ? 2.2250738585072014e-308 : 1.17549435e-38});
  int e;
  std::frexp(scale, &e);
  return std::fabs(a - b) / std::ldexp(1.0, e - 1 - mantissa);
}

// Runs `chlo.<op>` over `xs` (f32 and f64) and compares with `host`.
void CheckUnary(const std::string& op, const std::vector<double>& xs, double (*host)(double), double max_ulps) {
  for (ElementType t : TestedFloatTypes()) {
    std::optional<UnaryRun> run = RunUnary("chlo." + op, t, xs);
    if (!run) return;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double in = run->input.Get(static_cast<int64_t>(i)).re;
      double want = host(in);
      if (t == ElementType::kF32) want = static_cast<float>(want);
      const double g = run->output.Get(static_cast<int64_t>(i)).re;
      EXPECT_LE(Ulps(g, want, t), max_ulps) << op << "(" << in << ") " << ElementTypeName(t) << ": " << g << ", host " << want;
    }
  }
}

TEST_F(Chlo, InverseTrigonometricAndHyperbolicMatchTheHost) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(-1, 1), wide(-30, 30);
  std::vector<double> in_unit = {-1, 1, 0, -0.0, 0.5, -0.5, 0.999999, -0.999999, 1e-20, -3e-8, 1.5, -2};
  std::vector<double> in_wide = {0, -0.0, 1e-20, -3e-8, 1, -1, 10, -10, 1e10, -1e30, 1e300, 80, -85, 88.9, -89.3};
  for (int i = 0; i < 40; ++i) {
    in_unit.push_back(unit(rng));
    in_wide.push_back(wide(rng));
  }
  std::vector<double> in_acosh = {1, 1.0000001, 1.5, 2, 10, 1e10, 1e30, 0.5, -3};
  for (int i = 0; i < 20; ++i) in_acosh.push_back(1 + std::fabs(wide(rng)));
  CheckUnary("asin", in_unit, [](double v) { return std::asin(v); }, 4);
  CheckUnary("acos", in_unit, [](double v) { return std::acos(v); }, 4);
  CheckUnary("atanh", in_unit, [](double v) { return std::atanh(v); }, 4);
  CheckUnary("atan", in_wide, [](double v) { return std::atan(v); }, 4);
  CheckUnary("asinh", in_wide, [](double v) { return std::asinh(v); }, 4);
  CheckUnary("acosh", in_acosh, [](double v) { return std::acosh(v); }, 4);
  std::vector<double> in_sinh;
  for (double v : in_wide)
    if (std::fabs(v) < 700) in_sinh.push_back(v);
  CheckUnary("sinh", in_sinh, [](double v) { return std::sinh(v); }, 4);
  CheckUnary("cosh", in_sinh, [](double v) { return std::cosh(v); }, 4);
  CheckUnary("tan", in_unit, [](double v) { return std::tan(v); }, 4);
  CheckUnary("erf", in_unit, [](double v) { return std::erf(v); }, 4);
}

// digamma on the host: the recurrence up to 10, then the asymptotic series.
double DigammaOnHost(double x) {
  if (x <= 0 && x == std::floor(x)) return NAN;
  if (x < 0.5) return DigammaOnHost(1 - x) - M_PI / std::tan(M_PI * x);
  double r = 0;
  for (; x < 10; x += 1) r -= 1 / x;
  const double x2 = 1 / (x * x);
  return r + std::log(x) - 0.5 / x -
         x2 * (1.0 / 12 - x2 * (1.0 / 120 - x2 * (1.0 / 252 - x2 * (1.0 / 240 - x2 * (1.0 / 132)))));
}

// lgamma and digamma, through their reflection below 1/2 and at their
// poles, against the host (absolute error near their zeros, relative
// elsewhere).
TEST_F(Chlo, LgammaAndDigammaMatchTheHost) {
  std::vector<double> xs = {0.5, 1, 2, 3, 1e-6, 1e-30, 0.1, 2.5, 10.5, 100, 1e5, 1e20, -0.5, -1.5, -2.25, -7.9, 0, -1, -3, 1.5};
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> range(-20, 60);
  for (int i = 0; i < 40; ++i) xs.push_back(range(rng));
  for (const auto& [op, host] : std::vector<std::pair<std::string, double (*)(double)>>{
           {"lgamma", [](double v) { return std::lgamma(v); }}, {"digamma", DigammaOnHost}}) {
    for (ElementType t : TestedFloatTypes()) {
      std::optional<UnaryRun> run = RunUnary("chlo." + op, t, xs);
      if (!run) return;
      const double eps = t == ElementType::kF64 ? 1e-13 : 2e-5;
      for (size_t i = 0; i < xs.size(); ++i) {
        const double in = run->input.Get(static_cast<int64_t>(i)).re, want = host(in);
        const double g = run->output.Get(static_cast<int64_t>(i)).re;
        if (std::isnan(want) || std::isinf(want)) {
          EXPECT_TRUE(std::isnan(want) ? std::isnan(g) : g == want) << op << "(" << in << ") " << ElementTypeName(t) << ": " << g;
          continue;
        }
        // Reflection near the poles loses what pi·x loses.
        const double scale = std::max({1.0, std::fabs(want), std::fabs(in)});
        EXPECT_NEAR(g, want, eps * scale) << op << "(" << in << ") " << ElementTypeName(t);
      }
    }
  }
}

// Hurwitz zeta on the host: 2000 terms summed in long double, the rest by
// its integral and two correction terms.
double ZetaOnHost(double s, double q) {
  long double sum = 0;
  const int k = 2000;
  for (int i = 0; i < k; ++i) sum += std::pow(static_cast<long double>(q) + i, -static_cast<long double>(s));
  const long double a = static_cast<long double>(q) + k;
  sum += std::pow(a, 1 - static_cast<long double>(s)) / (s - 1) + std::pow(a, -static_cast<long double>(s)) / 2 +
         s * std::pow(a, -static_cast<long double>(s) - 1) / 12;
  return static_cast<double>(sum);
}

// zeta(s, q) against the host; polygamma against its closed forms at 1 and
// 1/2 and against (-1)^(n+1) n! zeta(n + 1, x); both at their edges.
TEST_F(Chlo, ZetaAndPolygamma) {
  std::vector<double> s_values = {1.5, 2, 3, 4.5, 10, 30, 1.01}, q_values = {1, 0.5, 2, 7.25, 100, 0.01, 1e3};
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> sv(1.1, 12), qv(0.05, 40);
  for (int i = 0; i < 30; ++i) {
    s_values.push_back(sv(rng));
    q_values.push_back(qv(rng));
  }
  for (ElementType t : TestedFloatTypes()) {
    const std::string name(ElementTypeName(t));
    const std::string type = "tensor<" + std::to_string(s_values.size()) + "x" + name + ">";
    auto program = ReadStablehlo("func.func @main(%s: " + type + ", %q: " + type + ") -> (" + type + ", " + type + ") {\n"
                                 "  %z = chlo.zeta %s, %q : " + type + ", " + type + " -> " + type + "\n"
                                 "  %p = chlo.polygamma %s, %q : " + type + ", " + type + " -> " + type + "\n"
                                 "  func.return %z, %p : " + type + ", " + type + "\n}\n",
                                 false);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    // polygamma reads its first operand as the order: integers there.
    Literal s(Shape(t, {static_cast<int64_t>(s_values.size())})), q(Shape(t, {static_cast<int64_t>(s_values.size())}));
    for (size_t i = 0; i < s_values.size(); ++i) {
      s.Set(static_cast<int64_t>(i), Scalar::Float(t, i < 7 ? s_values[i] : std::floor(s_values[i])));
      q.Set(static_cast<int64_t>(i), Scalar::Float(t, q_values[i]));
    }
    auto exe = Executable::Compile(*program->module, TestDevice());
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    auto got = (*exe)->Run({s, q});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const double eps = t == ElementType::kF64 ? 1e-13 : 1e-5;
    for (size_t i = 0; i < s_values.size(); ++i) {
      const double sv_i = s.Get(static_cast<int64_t>(i)).re, qv_i = q.Get(static_cast<int64_t>(i)).re;
      const double z = got->tuple_elements()[0].Get(static_cast<int64_t>(i)).re;
      // Beyond the type's range the device says inf (as at s = 1).
      const double limit = t == ElementType::kF64 ? 1.7976931348623157e308 : 3.4028234663852886e38;
      auto expect = [&](double g, double want, double tolerance, const std::string& what) {
        if (std::fabs(want) > limit || std::isinf(want)) EXPECT_TRUE(std::isinf(g)) << what << ": " << g;
        else EXPECT_NEAR(g, want, tolerance * std::fabs(want)) << what;
      };
      expect(z, sv_i == 1 ? INFINITY : ZetaOnHost(sv_i, qv_i), eps,
             name + " zeta(" + std::to_string(sv_i) + ", " + std::to_string(qv_i) + ")");
      if (sv_i == std::floor(sv_i) && sv_i >= 1) {
        const double n = sv_i, p = got->tuple_elements()[1].Get(static_cast<int64_t>(i)).re;
        const double sign = static_cast<int64_t>(n) % 2 == 1 ? 1 : -1;
        expect(p, sign * std::tgamma(n + 1) * ZetaOnHost(n + 1, qv_i), 10 * eps,
               name + " polygamma(" + std::to_string(n) + ", " + std::to_string(qv_i) + ")");
      }
    }
  }
  ExpectChecksPass(R"(func.func public @main() {
  %n = stablehlo.constant dense<[1.0, 1.0, 3.0, 0.0, 0.5, -1.0]> : tensor<6xf32>
  %x = stablehlo.constant dense<[1.0, 0.5, 1.0, 1.0, 1.0, 1.0]> : tensor<6xf32>
  %p = chlo.polygamma %n, %x : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const %p, dense<[1.6449341, 4.934802, 6.4939394, -0.5772157, 0x7FC00000, 0x7FC00000]> : tensor<6xf32> {tolerance = 1.0e-5 : f64}
  %s = stablehlo.constant dense<[1.0, 0.5, 2.0]> : tensor<3xf32>
  %q = stablehlo.constant dense<[1.0, 1.0, -1.0]> : tensor<3xf32>
  %z = chlo.zeta %s, %q : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  check.expect_eq_const %z, dense<[0x7F800000, 0x7FC00000, 0x7FC00000]> : tensor<3xf32>
  func.return
})");
}

// bessel_i1e against libstdc++'s cyl_bessel_i: both ranges of its series,
// the switch at 8, negative x (odd), zero.
TEST_F(Chlo, BesselI1eMatchesTheHost) {
  std::vector<double> xs = {0, -0.0, 1e-30, 1e-5, 0.5, 1, 2, 7.999, 8, 8.001, 10, 50, 100, 600, -0.5, -3, -8, -40};
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<double> range(-60, 60);
  for (int i = 0; i < 40; ++i) xs.push_back(range(rng));
  for (ElementType t : TestedFloatTypes()) {
    std::optional<UnaryRun> run = RunUnary("chlo.bessel_i1e", t, xs);
    if (!run) return;
    const double eps = t == ElementType::kF64 ? 0x1p-52 : 0x1p-23;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double in = run->input.Get(static_cast<int64_t>(i)).re, g = run->output.Get(static_cast<int64_t>(i)).re;
      double want = std::exp(-std::fabs(in)) * std::cyl_bessel_i(1.0, std::fabs(in));
      if (in < 0) want = -want;
      if (t == ElementType::kF32) want = static_cast<float>(want);
      // 8 ULP on f32; on f64 2e-14 of the value: the [0, 8] series is
      // fitted to about 5e-16 absolute, which near 8 (where i1e/x is 0.017)
      // is 3e-14 relative at most.
      const double tolerance = t == ElementType::kF64 ? 5e-14 : 8 * eps;
      EXPECT_NEAR(g, want, tolerance * std::max(std::fabs(want), 1e-300)) << "bessel_i1e(" << in << ") " << ElementTypeName(t);
    }
  }
}

// erf_inv: erf of its result gives x back (to the float's precision where
// erf is not flat), ±1 give ±inf, beyond them NaN.
TEST_F(Chlo, ErfInvInvertsErf) {
  std::vector<double> xs = {0, -0.0, 0.5, -0.5, 0.9, -0.99, 0.999999, 1e-10, -1e-30, 1, -1, 1.5};
  std::mt19937_64 rng(6);
  std::uniform_real_distribution<double> unit(-1, 1);
  for (int i = 0; i < 40; ++i) xs.push_back(unit(rng));
  for (ElementType t : TestedFloatTypes()) {
    std::optional<UnaryRun> run = RunUnary("chlo.erf_inv", t, xs);
    if (!run) return;
    const double eps = t == ElementType::kF64 ? 1e-15 : 1e-6;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double in = run->input.Get(static_cast<int64_t>(i)).re, y = run->output.Get(static_cast<int64_t>(i)).re;
      if (std::fabs(in) > 1) {
        EXPECT_TRUE(std::isnan(y)) << in;
      } else if (std::fabs(in) == 1) {
        EXPECT_EQ(y, in * INFINITY) << in;
      } else {
        // erf's slope at y scales how far x may move.
        const double slope = 2 / std::sqrt(M_PI) * std::exp(-y * y);
        EXPECT_NEAR(std::erf(y), in, 8 * eps * std::max(std::fabs(in), 1e-30) + 4 * eps * slope * std::fabs(y))
            << ElementTypeName(t) << " erf_inv(" << in << ") = " << y;
      }
    }
  }
}

// erfc against the host's: the three ranges of its formula, the tails where
// the result is tiny (relative error still within a few ULP: exp(-x²) is
// taken without x²'s rounding), the infinities and NaN.
TEST_F(Chlo, ErfcMatchesTheHostOverItsRanges) {
  std::vector<double> xs = {0, -0.0, 0.25, 0.4999, 0.5, 0.75, 1, 1.5, 1.9999, 2, 2.5, 3, 5, 8, 9.5, 10, 15, 20, 26, 27,
                            30, -0.5, -1, -3, -10, INFINITY, -INFINITY, NAN};
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> range(-4, 12);
  for (int i = 0; i < 60; ++i) xs.push_back(range(rng));
  for (ElementType t : TestedFloatTypes()) {
    std::optional<UnaryRun> run = RunUnary("chlo.erfc", t, xs);
    if (!run) return;
    const double eps = t == ElementType::kF64 ? 0x1p-52 : 0x1p-23;
    const double tiny = t == ElementType::kF64 ? 2.2250738585072014e-308 : 1.17549435e-38;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double in = run->input.Get(static_cast<int64_t>(i)).re, g = run->output.Get(static_cast<int64_t>(i)).re;
      double want = std::erfc(in);
      if (t == ElementType::kF32) want = static_cast<float>(want);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(g)) << in;
        continue;
      }
      // 8 ULP of the result on f32, 24 on f64, where the Chebyshev series of
      // the middle range is good to about 3e-15 (subnormal results: ULP of
      // the smallest normal).
      const double ulps = t == ElementType::kF64 ? 24 : 8;
      // A device that flushes f32 subnormals gives zero for them.
      if (t != ElementType::kF64 && !TestDevice().target().f32_subnormals_kept && std::fabs(want) < tiny && g == 0) continue;
      EXPECT_NEAR(g, want, ulps * eps * std::max(std::fabs(want), tiny)) << "erfc(" << in << ") " << ElementTypeName(t);
    }
  }
}

// The small ones: is_inf and its signed forms, next_after (against
// std::nextafter), conj, square, constant_like, a broadcast binary with
// broadcast_dimensions, top_k.
TEST_F(Chlo, PredicatesNextAfterAndBroadcastBinaries) {
  const std::string text = R"(func.func public @main() {
  %x = stablehlo.constant dense<[0x7F800000, 0xFF800000, 1.0, 0x7FC00000]> : tensor<4xf32>
  %i = chlo.is_inf %x : tensor<4xf32> -> tensor<4xi1>
  check.expect_eq_const %i, dense<[true, true, false, false]> : tensor<4xi1>
  %p = chlo.is_pos_inf %x : tensor<4xf32> -> tensor<4xi1>
  check.expect_eq_const %p, dense<[true, false, false, false]> : tensor<4xi1>
  %n = chlo.is_neg_inf %x : tensor<4xf32> -> tensor<4xi1>
  check.expect_eq_const %n, dense<[false, true, false, false]> : tensor<4xi1>
  %z = stablehlo.constant dense<[(1.0, 2.0), (-3.0, -0.5)]> : tensor<2xcomplex<f32>>
  %c = chlo.conj %z : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  check.expect_eq_const %c, dense<[(1.0, -2.0), (-3.0, 0.5)]> : tensor<2xcomplex<f32>>
  %s = chlo.square %x : tensor<4xf32> -> tensor<4xf32>
  %one = chlo.constant_like %x {value = 1.0 : f32} : tensor<4xf32> -> tensor<4xf32>
  check.expect_eq_const %one, dense<1.0> : tensor<4xf32>
  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %b = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
  %ab = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %ab, dense<[[11, 12, 13], [24, 25, 26]]> : tensor<2x3xi32>
  %row = stablehlo.constant dense<[1, 0, 7]> : tensor<3xi32>
  %lt = chlo.broadcast_compare %a, %row {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  check.expect_eq_const %lt, dense<[[false, false, true], [false, false, true]]> : tensor<2x3xi1>
  %v = stablehlo.constant dense<[3.0, 9.0, -1.0, 4.0]> : tensor<4xf32>
  %values, %indices = chlo.top_k(%v, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)
  check.expect_eq_const %values, dense<[9.0, 4.0]> : tensor<2xf32>
  check.expect_eq_const %indices, dense<[1, 3]> : tensor<2xi32>
  func.return
})";
  ExpectChecksPass(text);

  // next_after against the host, f32, over signs, zeros, subnormals, NaN.
  const float vals[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-45f, -1e-45f, 3.4028235e38f, INFINITY, -INFINITY, NAN, 2.5f, -7.0f};
  const int n = sizeof(vals) / sizeof(vals[0]);
  const std::string type = "tensor<" + std::to_string(n * n) + "xf32>";
  auto program = ReadStablehlo("func.func @main(%x: " + type + ", %y: " + type + ") -> " + type + " {\n  %r = chlo.next_after %x, %y : " +
                                   type + "\n  func.return %r : " + type + "\n}\n",
                               false);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  Literal x(Shape(ElementType::kF32, {n * n})), y(Shape(ElementType::kF32, {n * n}));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      x.Set(i * n + j, Scalar::Float(ElementType::kF32, vals[i]));
      y.Set(i * n + j, Scalar::Float(ElementType::kF32, vals[j]));
    }
  auto exe = Executable::Compile(*program->module, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto got = (*exe)->Run({x, y});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (int i = 0; i < n * n; ++i) {
    const float want = std::nextafter(vals[i / n], vals[i % n]);
    const float g = static_cast<float>(got->Get(i).re);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(g)) << vals[i / n] << " -> " << vals[i % n];
    } else {
      EXPECT_EQ(std::bit_cast<uint32_t>(g), std::bit_cast<uint32_t>(want)) << vals[i / n] << " -> " << vals[i % n] << ": " << g;
    }
  }
}

// chlo.scan as XLA's Scan (slices of a 2-D input with a vector carry,
// reversed), the pretty chlo.mulhi, and a scan without its dimension.
TEST_F(Chlo, ScanOverSlicesAndPrettyForms) {
  auto program = ReadStablehlo(R"(func.func @main(%x: tensor<3x4xf32>, %h: tensor<4xi32>) -> (tensor<3x4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %init = stablehlo.constant dense<0.0> : tensor<4xf32>
  %0:2 = chlo.scan(%x) inits(%init) dimension=0 attributes {is_reverse = true} {
  ^bb0(%row: tensor<4xf32>, %acc: tensor<4xf32>):
    %s = stablehlo.add %row, %acc : tensor<4xf32>
    stablehlo.return %s, %s : tensor<4xf32>, tensor<4xf32>
  } : (tensor<3x4xf32>, tensor<4xf32>) -> (tensor<3x4xf32>, tensor<4xf32>)
  %m = chlo.mulhi %h, %h : tensor<4xi32>
  func.return %0#0, %0#1, %m : tensor<3x4xf32>, tensor<4xf32>, tensor<4xi32>
})",
                               false);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  Literal x(Shape(ElementType::kF32, {3, 4})), h(Shape(ElementType::kS32, {4}));
  for (int i = 0; i < 12; ++i) x.Set(i, Scalar::Float(ElementType::kF32, i + 1));
  const int64_t hv[] = {65536, -65536, 2147483647, -2147483647 - 1};
  for (int i = 0; i < 4; ++i) h.Set(i, Scalar::Int(ElementType::kS32, hv[i]));
  auto bad = ReadStablehlo(R"(func.func @main(%x: tensor<3xf32>, %c: tensor<f32>) -> tensor<3xf32> {
  %0:2 = chlo.scan(%x) inits(%c) {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a, %b : tensor<f32>, tensor<f32>
  } : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
  func.return %0#0 : tensor<3xf32>
})",
                           false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("2:"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("dimension"), std::string::npos) << bad.status().ToString();
  Literal got = RunAndCompareWith(*program->module, {x, h});
  ASSERT_TRUE(got.shape().IsTuple());
  // Suffix sums down the rows: row 0 holds all three rows.
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(got.tuple_elements()[0].Get(c).re, (c + 1) + (c + 5) + (c + 9));
    EXPECT_EQ(got.tuple_elements()[0].Get(8 + c).re, c + 9);
    EXPECT_EQ(got.tuple_elements()[1].Get(c).re, (c + 1) + (c + 5) + (c + 9));
  }
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(got.tuple_elements()[2].Get(i).s, MulhiOnHost(ElementType::kS32, hv[i], hv[i])) << hv[i];
}

}  // namespace
}  // namespace vkxla
