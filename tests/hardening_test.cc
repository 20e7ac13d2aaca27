// Bad input never ends the process: each input of the hardening issue,
// exactly as given, returns an error that says what is wrong (and where),
// or the right value; the readers, the shape bounds and the fusion pass's
// depth bound are checked here, the CLI's exit codes in cli_test.cc.
#include <gtest/gtest.h>

#include <string>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"
#include "ir/numbers.h"
#include "tests/test_util.h"
#include "tools/npy.h"

namespace vkxla {
namespace {

void ExpectError(const Status& s, const std::vector<std::string>& words) {
  ASSERT_FALSE(s.ok());
  for (const std::string& w : words) EXPECT_NE(s.message().find(w), std::string::npos) << w << " not in: " << s.message();
}

// A version-1 .npy file with `header` (padded as NumPy pads it) and `data`.
std::string Npy(const std::string& header, const std::string& data = "") {
  std::string h = header;
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h + data;
}

TEST(Hardening, NpyHeadersWithBadDims) {
  for (const std::string dims : {"abc", "12345678901234567890123", "-1", "1e12"}) {
    SCOPED_TRACE(dims);
    ExpectError(ParseNpy(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + ",), }"), "x.npy").status(),
                {"x.npy", "shape entry", dims});
  }
  // A size the data cannot hold is refused before anything is allocated.
  ExpectError(ParseNpy(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }"), "big.npy").status(),
              {"big.npy", "f32[100000,100000]", "38146 MiB"});
  ExpectError(ParseNpy(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", "12345678"), "short.npy").status(),
              {"short.npy", "8 bytes", "16"});
  ExpectError(ParseNpy(std::string("\x93NUMPY\x01\x00\xff\xff", 10), "cut.npy").status(), {"cut.npy", "truncated"});
  ExpectError(ParseNpy("not numpy", "text.npy").status(), {"bad magic"});
  auto ok = ParseNpy(Npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", std::string("\x07\0\0\0\xff\xff\xff\xff", 8)),
                     "good.npy");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->ToString(), "s32[2] {7, -1}");
}

TEST(Hardening, HloSizesAreBoundedBeforeAllocating) {
  ExpectError(ParseAndVerifyHlo("HloModule m\nENTRY e {\n  ROOT c = f32[100000,100000] constant({1})\n}\n").status(),
              {"3:41", "expected '{'"});
  ExpectError(ParseAndVerifyHlo("HloModule m\nENTRY e {\n  ROOT p = f32[4294967296,4294967296] parameter(0)\n}\n").status(),
              {"3:", "more than 2^48 elements"});
  ExpectError(ParseAndVerifyHlo("HloModule m\nENTRY e {\n  ROOT p = f32[99999999999999999999] parameter(0)\n}\n").status(),
              {"3:", "out of range"});
  ExpectError(ParseAndVerifyHlo("HloModule m\nENTRY e {\n  ROOT x = f32[] add(").status(), {"3:"});
}

TEST(Hardening, NestingIsBoundedWithAClearError) {
  // 100,000 nested tuple shapes in HLO and in MLIR.
  std::string open(100000, '('), close(100000, ')');
  ExpectError(ParseAndVerifyHlo("HloModule m\nENTRY e {\n  ROOT p = " + open + "f32[]" + close + " parameter(0)\n}\n").status(),
              {"3:", "nest deeper than 64"});
  std::string type;
  for (int i = 0; i < 5000; ++i) type += "tuple<";
  type += "tensor<f32>";
  for (int i = 0; i < 5000; ++i) type += ">";
  ExpectError(ReadStablehlo("func.func @main(%a: " + type + ") {\n  func.return\n}\n", false).status(),
              {"1:", "nest deeper than 64"});
  // complex<complex<...>> never recurses.
  ExpectError(ReadStablehlo("func.func @main(%a: tensor<complex<complex<f32>>>) {\n  func.return\n}\n", false).status(),
              {"complex<"});
}

TEST(Hardening, MlirSizesAndFormatsAreChecked) {
  ExpectError(ReadStablehlo("func.func @main(%a: tensor<99999999999999999999999xf32>) {\n  func.return\n}\n", false).status(),
              {"1:", "over 2^48"});
  ExpectError(ReadStablehlo("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                            "  %r = stablehlo.transpose %a, dims = [99999999999999999999] : (tensor<2xf32>) -> tensor<2xf32>\n"
                            "  func.return %r : tensor<2xf32>\n}\n",
                            false)
                  .status(),
              {"2:", "99999999999999999999", "out of range"});
  ExpectError(ReadStablehlo("func.func @main(%a: tensor<2xf32>) {\n  %r:1000000000000 = stablehlo.abs %a : tensor<2xf32>\n"
                            "  func.return\n}\n",
                            false)
                  .status(),
              {"2:", "1000000000000"});
  ExpectError(ReadStablehlo("func.func @main() -> tensor<100000x100000xf32> {\n"
                            "  %c = stablehlo.constant dense<1.0> : tensor<100000x100000xf32>\n"
                            "  func.return %c : tensor<100000x100000xf32>\n}\n",
                            false)
                  .status(),
              {"2:", "MiB", "at most 4 GiB"});
  ExpectError(ReadStablehlo("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                            "  %r = stablehlo.reduce_precision %a, format = e5x : tensor<2xf32>\n"
                            "  func.return %r : tensor<2xf32>\n}\n",
                            false)
                  .status(),
              {"2:", "format 'e5x'", "eXmY"});
}

TEST(Hardening, AnUnterminatedStringEndsTheReaderNotTheProcess) {
  // 25 bytes that once looped forever in MlirCursor::SkipUntil.
  const std::string text = "func.func @main() -> \"abc";
  ASSERT_EQ(text.size(), 25u);
  ExpectError(ReadStablehlo(text, false).status(), {"1:"});
}

TEST(Hardening, CheckedNumbers) {
  EXPECT_EQ(ParseInt64("-9223372036854775808"), std::optional<int64_t>(INT64_MIN));
  EXPECT_EQ(ParseInt64("9223372036854775808"), std::nullopt);
  EXPECT_EQ(ParseInt64("+-5"), std::nullopt);
  EXPECT_EQ(ParseInt64(""), std::nullopt);
  EXPECT_EQ(ParseInt64("12a"), std::nullopt);
  EXPECT_EQ(ParseUint64("ff", 16), std::optional<uint64_t>(255));
  EXPECT_EQ(ParseUint64("-1"), std::nullopt);
  EXPECT_EQ(ParseDouble("1e999"), std::optional<double>(INFINITY));
  EXPECT_EQ(ParseDouble("-1e-999"), std::optional<double>(-0.0));
  EXPECT_EQ(ParseDouble("0x1p-2"), std::optional<double>(0.25));
  EXPECT_EQ(ParseDouble("1.5.2"), std::nullopt);
  EXPECT_EQ(CheckedMul(int64_t{1} << 40, int64_t{1} << 30), std::nullopt);
}

// 10,000 chained elementwise ops: the fusion pass cuts the chain every
// kMaxFusionDepth ops, so code generation's walks stay shallow; the value is
// exact.
TEST(Hardening, TenThousandChainedOps) {
  std::string text = "HloModule chain\nENTRY e {\n  p = f32[16] parameter(0)\n  v0 = f32[16] negate(p)\n";
  for (int i = 1; i < 10000; ++i)
    text += std::string(i == 9999 ? "  ROOT" : " ") + " v" + std::to_string(i) + " = f32[16] add(v" + std::to_string(i - 1) + ", p)\n";
  text += "}\n";
  auto m = ParseAndVerifyHlo(text);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Literal ones(Shape(ElementType::kF32, {16}));
  for (int i = 0; i < 16; ++i) ones.Set(i, Scalar::Float(ElementType::kF32, 1));
  auto got = CompileAndRun(**m, {ones});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(got->Get(i).re, 9998.0);
}

}  // namespace
}  // namespace vkxla
