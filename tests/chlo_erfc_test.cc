// chlo.erfc against the host's erfc: the three ranges of its formula, the
// tails where the result is tiny (relative error still within a few ULP:
// exp(-x²) is taken without x²'s rounding), the infinities and NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "frontends/stablehlo_reader.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class ChloErfc : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

TEST_F(ChloErfc, MatchesTheHostOverItsRanges) {
  std::vector<double> xs = {0, -0.0, 0.25, 0.4999, 0.5, 0.75, 1, 1.5, 1.9999, 2, 2.5, 3, 5, 8, 9.5, 10, 15, 20, 26, 27,
                            30, -0.5, -1, -3, -10, INFINITY, -INFINITY, NAN};
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> range(-4, 12);
  for (int i = 0; i < 60; ++i) xs.push_back(range(rng));
  for (const auto& [t, mlir] : std::vector<std::pair<ElementType, std::string>>{{ElementType::kF32, "f32"}, {ElementType::kF64, "f64"}}) {
    if (NeedsMissingFeature(t, TestDevice().target())) continue;
    const std::string type = "tensor<" + std::to_string(xs.size()) + "x" + mlir + ">";
    auto program = ReadStablehlo("func.func @main(%x: " + type + ") -> " + type + " {\n  %r = chlo.erfc %x : " + type +
                                     " -> " + type + "\n  func.return %r : " + type + "\n}\n",
                                 false);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    Literal x(Shape(t, {static_cast<int64_t>(xs.size())}));
    for (size_t i = 0; i < xs.size(); ++i) x.Set(static_cast<int64_t>(i), Scalar::Float(t, xs[i]));
    auto exe = Executable::Compile(*program->module, TestDevice());
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    auto got = (*exe)->Run({x});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const double eps = t == ElementType::kF64 ? 0x1p-52 : 0x1p-23;
    const double tiny = t == ElementType::kF64 ? 2.2250738585072014e-308 : 1.17549435e-38;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double in = x.Get(static_cast<int64_t>(i)).re, g = got->Get(static_cast<int64_t>(i)).re;
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
      EXPECT_NEAR(g, want, ulps * eps * std::max(std::fabs(want), tiny)) << "erfc(" << in << ") " << mlir;
    }
  }
}

}  // namespace
}  // namespace vkxla
