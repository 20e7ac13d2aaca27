// CHLO ops the StableHLO reader writes as HLO (their CHLO
// decompositions), run on the device against values computed on the host.
#include <gtest/gtest.h>

#include <random>

#include "frontends/stablehlo_reader.h"
#include "runtime/executable.h"
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
    // 32- and 64-bit products are computed in 64 bits: a device without
    // shaderInt64 gives a clear error instead.
    if (bits >= 32 && NeedsMissingFeature(ElementType::kS64, TestDevice().target())) {
      ASSERT_FALSE(exe.ok()) << mlir;
      EXPECT_NE(exe.status().message().find("shaderInt64"), std::string::npos) << exe.status().ToString();
      continue;
    }
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
  if (NeedsMissingFeature(ElementType::kS64, TestDevice().target())) return;  // mulhi of i32 computes in 64 bits
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
