// The StableHLO reader: pretty and generic forms of the same program agree
// with each other and with HLO text, dense literal forms, func.call inlining,
// errors with line:col, unsupported ops named; and the conformance runner's
// verdicts on passing and failing cases.
#include <gtest/gtest.h>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"
#include "runtime/executable.h"
#include "tests/stablehlo_test_util.h"
#include "tests/test_util.h"
#include "tools/conformance/conformance_case.h"

namespace vkxla {
namespace {

std::string RunMlir(const std::string& text, const std::vector<Literal>& args = {}) {
  auto p = ReadStablehlo(text, /*with_checks=*/false);
  if (!p.ok()) return p.status().ToString();
  auto exe = Executable::Compile(*p->module, TestDevice());
  if (!exe.ok()) return exe.status().ToString();
  auto r = (*exe)->Run(args);
  return r.ok() ? r->ToString() : r.status().ToString();
}

class StablehloReader : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

const char* kPretty = R"(
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<3x2xf32> {
  %b = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %s = stablehlo.add %x, %b : tensor<2x3xf32>
  %c = stablehlo.compare GT, %s, %x, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %m = stablehlo.select %c, %s, %x : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = stablehlo.transpose %m, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
})";

const char* kGeneric = R"(
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<3x2xf32> {
  %b = "stablehlo.broadcast_in_dim"(%y) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
  %s = "stablehlo.add"(%x, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = "stablehlo.compare"(%s, %x) <{comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %m = "stablehlo.select"(%c, %s, %x) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = "stablehlo.transpose"(%m) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  "func.return"(%t) : (tensor<3x2xf32>) -> ()
})";

const char* kHlo = R"(HloModule m
ENTRY %main {
  %x = f32[2,3] parameter(0)
  %y = f32[3] parameter(1)
  %b = f32[2,3] broadcast(%y), dimensions={1}
  %s = f32[2,3] add(%x, %b)
  %c = pred[2,3] compare(%s, %x), direction=GT, type=FLOAT
  %m = f32[2,3] select(%c, %s, %x)
  ROOT %t = f32[3,2] transpose(%m), dimensions={1,0}
})";

TEST_F(StablehloReader, PrettyGenericAndHloTextAgree) {
  Literal x(Shape(ElementType::kF32, {2, 3})), y(Shape(ElementType::kF32, {3}));
  for (int i = 0; i < 6; ++i) x.Set(i, Scalar::Float(ElementType::kF32, i - 2.5));
  for (int i = 0; i < 3; ++i) y.Set(i, Scalar::Float(ElementType::kF32, 1 - i));
  const std::string pretty = RunMlir(kPretty, {x, y});
  EXPECT_EQ(pretty, "f32[3,2] {{-1.5, 1.5}, {-1.5, 1.5}, {-0.5, 2.5}}");
  EXPECT_EQ(RunMlir(kGeneric, {x, y}), pretty);
  auto hlo = ParseAndVerifyHlo(kHlo);
  ASSERT_TRUE(hlo.ok()) << hlo.status().ToString();
  auto exe = Executable::Compile(**hlo, TestDevice());
  ASSERT_TRUE(exe.ok());
  EXPECT_EQ((*exe)->Run({x, y})->ToString(), pretty);
}

TEST_F(StablehloReader, DenseLiteralForms) {
  auto value = [](const std::string& dense, const std::string& type) {
    return RunMlir("func.func @main() -> " + type + " {\n  %c = stablehlo.constant " + dense + " : " + type +
                   "\n  func.return %c : " + type + "\n}\n");
  };
  EXPECT_EQ(value("dense<[[1, 2], [3, 4]]>", "tensor<2x2xi32>"), "s32[2,2] {{1, 2}, {3, 4}}");
  EXPECT_EQ(value("dense<7>", "tensor<3xui8>"), "u8[3] {7, 7, 7}");
  EXPECT_EQ(value("dense<[0x7F800000, 0xFF800000, 1.5]>", "tensor<3xf32>"), "f32[3] {inf, -inf, 1.5}");
  EXPECT_EQ(value("dense<[true, false]>", "tensor<2xi1>"), "pred[2] {true, false}");
  EXPECT_EQ(value("dense<[(1.0, -2.0), (0.5, 0.0)]>", "tensor<2xcomplex<f32>>"), "c64[2] {(1, -2), (0.5, 0)}");
  EXPECT_EQ(value("dense<\"0x0100000002000000\">", "tensor<2xi32>"), "s32[2] {1, 2}");
  EXPECT_EQ(value("dense<[-8, 7]>", "tensor<2xi4>"), "s4[2] {-8, 7}");
}

TEST_F(StablehloReader, CallsAreInlinedAndModuleWrapperAccepted) {
  EXPECT_EQ(RunMlir(R"(module @jit_f attributes {mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2xf32> {jax.result_info = ""}) {
    %0 = call @inputs() : () -> tensor<2xf32>
    %1 = stablehlo.negate %0 : tensor<2xf32>
    return %1 : tensor<2xf32>
  }
  func.func private @inputs() -> (tensor<2xf32>) {
    %cst = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
    return %cst : tensor<2xf32>
  }
})"),
            "f32[2] {-1, 2}");
}

TEST(StablehloReaderErrors, LineColumnAndUnsupportedOps) {
  auto undefined = ReadStablehlo("func.func @f() {\n  %a = stablehlo.negate %nope : tensor<f32>\n  func.return\n}\n", false);
  ASSERT_FALSE(undefined.ok());
  EXPECT_NE(undefined.status().message().find("2:3: use of undefined value %nope"), std::string::npos) << undefined.status().message();
  auto syntax = ReadStablehlo("func.func @f() {\n  %a stablehlo.constant dense<1> : tensor<f32>\n}\n", false);
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.status().message().find("2:6: expected '='"), std::string::npos) << syntax.status().message();
  EXPECT_NE(syntax.status().message().find("^"), std::string::npos) << syntax.status().message();
  auto conv = ReadStablehlo(
      "func.func @f(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
      "  %r = \"stablehlo.not_an_op\"(%a) : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
      "  func.return %r : tensor<2x2xf32>\n}\n",
      false);
  ASSERT_FALSE(conv.ok());
  EXPECT_EQ(conv.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(conv.status().message().find("2:3: stablehlo.not_an_op is not implemented"), std::string::npos)
      << conv.status().message();
  auto multi = ReadStablehlo("func.func @f() {\n  %r:2 = \"stablehlo.sort\"(%a, %b) ({\n  }) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)\n}\n", false);
  ASSERT_FALSE(multi.ok());
  EXPECT_NE(multi.status().message().find("stablehlo.sort"), std::string::npos) << multi.status().message();
  auto type = ReadStablehlo("func.func @f(%a: tensor<2xi3>) {\n  func.return\n}\n", false);  // MLIR's, not StableHLO's
  ASSERT_FALSE(type.ok());
  EXPECT_NE(type.status().message().find("element type i3 is not supported"), std::string::npos) << type.status().message();
}

TEST_F(StablehloReader, ConformanceVerdicts) {
  const std::string good = R"(func.func @good() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.add %a, %a : tensor<2xi32>
  check.expect_eq_const %b, dense<[2, 4]> : tensor<2xi32>
  %f = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %f, dense<[1.00001, 2.0]> : tensor<2xf32>
  func.return
})";
  auto cases = SplitCases("x.mlir", good + "\n// -----\n" + R"(func.func @bad() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.multiply %a, %a : tensor<2xf32>
  check.expect_eq_const %b, dense<[1.0, 4.5]> : tensor<2xf32>
  func.return
}
// -----
func.func @skipped() {
  %a = stablehlo.constant dense<[1]> : tensor<1xi3>
  func.return
})");
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[1].name, "bad");
  EXPECT_EQ(cases[1].first_line, 10);
  CaseResult good_result = RunCase(cases[0], TestDevice());
  EXPECT_EQ(good_result.outcome, Outcome::kPassed) << good_result.detail;
  CaseResult bad = RunCase(cases[1], TestDevice());
  EXPECT_EQ(bad.outcome, Outcome::kFailed);
  EXPECT_NE(bad.detail.find("13:3: element 1 is 4, expected 4.5"), std::string::npos) << bad.detail;
  EXPECT_NE(bad.detail.find("ULP apart"), std::string::npos) << bad.detail;
  CaseResult skipped = RunCase(cases[2], TestDevice());
  EXPECT_EQ(skipped.outcome, Outcome::kSkipped);
  EXPECT_NE(skipped.detail.find("element type i3 is not supported"), std::string::npos) << skipped.detail;
}

// x.at[2].add(10) as JAX writes it: the printer leaves out
// update_window_dims (empty) and index_vector_dim (0).
TEST_F(StablehloReader, ScatterDimensionNumbersAtTheirDefaults) {
  const std::string text = R"(func.func public @main() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %i = stablehlo.constant dense<[2]> : tensor<1xi32>
  %u = stablehlo.constant dense<10.0> : tensor<f32>
  %r = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>} : (tensor<4xf32>, tensor<1xi32>, tensor<f32>) -> tensor<4xf32>
  check.expect_eq_const %r, dense<[1.0, 2.0, 13.0, 4.0]> : tensor<4xf32>
  %g = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, slice_sizes = array<i64: 1>} : (tensor<4xf32>, tensor<1xi32>) -> tensor<f32>
  check.expect_eq_const %g, dense<3.0> : tensor<f32>
  func.return
})";
  ExpectChecksPass(text);
}

// Symbols may be quoted (@"name"), as exporters write names with dots or
// dashes; an unterminated one is a located error.
TEST_F(StablehloReader, QuotedSymbolNames) {
  auto program = ReadStablehlo(R"(module @"jit_f" {
  func.func private @"inner.fn-1"(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = stablehlo.add %x, %x : tensor<2xf32>
    func.return %y : tensor<2xf32>
  }
  func.func public @"main"(%a: tensor<2xf32>) -> tensor<2xf32> {
    %b = func.call @"inner.fn-1"(%a) : (tensor<2xf32>) -> tensor<2xf32>
    func.return %b : tensor<2xf32>
  }
})",
                               false);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_EQ(program->function, "main");
  Literal a(Shape(ElementType::kF32, {2}));
  a.Set(0, Scalar::Float(ElementType::kF32, 1.5));
  a.Set(1, Scalar::Float(ElementType::kF32, -2));
  Literal got = RunAndCompareWith(*program->module, {a});
  EXPECT_EQ(got.ValuesToString(), "{3, -4}");
  auto bad = ReadStablehlo("func.func @\"main(%a: tensor<2xf32>) {\n  func.return\n}\n", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("1:"), std::string::npos) << bad.status().ToString();
}

// The region ops in the forms JAX writes: the pretty reduce with
// "applies" and with a "reducer" block (an argmax: two operands, the block
// taking both accumulators first), and the generic reduce_window, sort,
// map and select_and_scatter.
TEST_F(StablehloReader, RegionOpsAsJaxWritesThem) {
  const std::string text = R"(func.func public @main() {
  %x = stablehlo.constant dense<[[1.0, 5.0, 3.0], [-2.0, -7.0, 4.0]]> : tensor<2x3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  check.expect_eq_const %sum, dense<[9.0, -5.0]> : tensor<2xf32>
  %iota = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %m:2 = stablehlo.reduce(%x init: %ninf), (%iota init: %c0) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>)  {
    %gt = stablehlo.compare  GT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
    %i = stablehlo.select %gt, %ai, %bi : tensor<i1>, tensor<i32>
    stablehlo.return %v, %i : tensor<f32>, tensor<i32>
  }
  check.expect_eq_const %m#0, dense<[5.0, 4.0]> : tensor<2xf32>
  check.expect_eq_const %m#1, dense<[1, 2]> : tensor<2xi32>
  %w = "stablehlo.reduce_window"(%x, %ninf) <{padding = dense<[[0, 0], [1, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 2>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %mx = stablehlo.maximum %p, %q : tensor<f32>
    stablehlo.return %mx : tensor<f32>
  }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  check.expect_eq_const %w, dense<[[1.0, 5.0, 5.0], [-2.0, -2.0, 4.0]]> : tensor<2x3xf32>
  %s = "stablehlo.sort"(%x) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %lt = stablehlo.compare  LT, %p, %q,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %s, dense<[[1.0, 3.0, 5.0], [-7.0, -2.0, 4.0]]> : tensor<2x3xf32>
  %sq = "stablehlo.map"(%x) ({
  ^bb0(%p: tensor<f32>):
    %y = stablehlo.multiply %p, %p : tensor<f32>
    stablehlo.return %y : tensor<f32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %sq, dense<[[1.0, 25.0, 9.0], [4.0, 49.0, 16.0]]> : tensor<2x3xf32>
  func.return
})";
  ExpectChecksPass(text);
  // A pretty reduce without "across dimensions": a located error.
  auto bad = ReadStablehlo(R"(func.func @main(%x: tensor<3xf32>, %z: tensor<f32>) -> tensor<f32> {
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  func.return %r : tensor<f32>
})",
                           false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("2:"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("across"), std::string::npos) << bad.status().ToString();
}

// The older ops exporters still write: broadcast (sizes prepended), einsum
// (a product, a batched product with a label summed away first, a
// matrix-vector product), unary_einsum (a transpose, a sum, an unsigned
// sum that wraps), and
// torch_index_select with and without batch dimensions.
TEST_F(StablehloReader, OlderOpsExportersStillWrite) {
  const std::string text = R"(func.func public @main() {
  %v = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = "stablehlo.broadcast"(%v) {broadcast_sizes = array<i64: 2>} : (tensor<3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %b, dense<[[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c = stablehlo.constant dense<[[5.0, 6.0, 7.0], [8.0, 9.0, 10.0]]> : tensor<2x3xf32>
  %ac = "stablehlo.einsum"(%a, %c) {einsum_config = "ab,bc->ac"} : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %ac, dense<[[21.0, 24.0, 27.0], [47.0, 54.0, 61.0]]> : tensor<2x3xf32>
  %ca = "stablehlo.einsum"(%a, %c) {einsum_config = "ab,bc->ca"} : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
  check.expect_eq_const %ca, dense<[[21.0, 47.0], [24.0, 54.0], [27.0, 61.0]]> : tensor<3x2xf32>
  %x = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf32>
  %y = stablehlo.constant dense<[[1.0, 10.0], [100.0, 1000.0]]> : tensor<2x2xf32>
  %xy = "stablehlo.einsum"(%x, %y) {einsum_config = "bsj,bk->bk"} : (tensor<2x2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %xy, dense<[[10.0, 100.0], [2600.0, 26000.0]]> : tensor<2x2xf32>
  %w = stablehlo.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mv = "stablehlo.einsum"(%a, %w) {einsum_config = "ij,j->i"} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const %mv, dense<[-1.0, -1.0]> : tensor<2xf32>
  %t = "stablehlo.unary_einsum"(%c) {einsum_config = "ij->ji"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  check.expect_eq_const %t, dense<[[5.0, 8.0], [6.0, 9.0], [7.0, 10.0]]> : tensor<3x2xf32>
  %s = "stablehlo.unary_einsum"(%c) {einsum_config = "ij->i"} : (tensor<2x3xf32>) -> tensor<2xf32>
  check.expect_eq_const %s, dense<[18.0, 27.0]> : tensor<2xf32>
  %u = stablehlo.constant dense<[[1, 2, 3], [4, 5, 4294967295]]> : tensor<2x3xui32>
  %us = "stablehlo.unary_einsum"(%u) {einsum_config = "ij->i"} : (tensor<2x3xui32>) -> tensor<2xui32>
  check.expect_eq_const %us, dense<[6, 8]> : tensor<2xui32>
  %table = stablehlo.constant dense<[[0, 1, 2, 3], [10, 11, 12, 13]]> : tensor<2x4xi32>
  %idx = stablehlo.constant dense<[3, 0, 3]> : tensor<3xi32>
  %sel = "stablehlo.torch_index_select"(%table, %idx) {dim = 1 : i64, batch_dims = 0 : i64} : (tensor<2x4xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %sel, dense<[[3, 0, 3], [13, 10, 13]]> : tensor<2x3xi32>
  %bidx = stablehlo.constant dense<[[1, 2], [3, 3]]> : tensor<2x2xi32>
  %bsel = "stablehlo.torch_index_select"(%table, %bidx) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<2x4xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %bsel, dense<[[1, 2], [13, 13]]> : tensor<2x2xi32>
  func.return
})";
  ExpectChecksPass(text);
  // A diagonal einsum is refused by name; a config for the wrong number of
  // operands is a located error.
  auto diagonal = ReadStablehlo(R"(func.func @main(%a: tensor<2x2xf32>) -> tensor<2xf32> {
  %d = "stablehlo.unary_einsum"(%a) {einsum_config = "ii->i"} : (tensor<2x2xf32>) -> tensor<2xf32>
  func.return %d : tensor<2xf32>
})",
                                false);
  ASSERT_FALSE(diagonal.ok());
  EXPECT_EQ(diagonal.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(diagonal.status().message().find("repeats label 'i'"), std::string::npos) << diagonal.status().ToString();
  auto wrong = ReadStablehlo(R"(func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %d = "stablehlo.einsum"(%a, %b) {einsum_config = "ab->ab"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %d : tensor<2x2xf32>
})",
                           false);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("2:3"), std::string::npos) << wrong.status().ToString();
}

// bitcast_convert to and from i1 counts bits as StableHLO does: bit k of a
// word is element k of the i1 side's last dimension.
TEST_F(StablehloReader, BitcastConvertOfI1CountsBits) {
  const std::string text = R"(func.func public @main() {
  %w = stablehlo.constant dense<[5, 128]> : tensor<2xui8>
  %b = stablehlo.bitcast_convert %w : (tensor<2xui8>) -> tensor<2x8xi1>
  check.expect_eq_const %b, dense<[[true, false, true, false, false, false, false, false], [false, false, false, false, false, false, false, true]]> : tensor<2x8xi1>
  %back = stablehlo.bitcast_convert %b : (tensor<2x8xi1>) -> tensor<2xi8>
  check.expect_eq_const %back, dense<[5, -128]> : tensor<2xi8>
  %f = stablehlo.constant dense<-2.0> : tensor<f32>
  %fb = stablehlo.bitcast_convert %f : (tensor<f32>) -> tensor<32xi1>
  %fw = stablehlo.bitcast_convert %fb : (tensor<32xi1>) -> tensor<ui32>
  check.expect_eq_const %fw, dense<3221225472> : tensor<ui32>
  func.return
})";
  ExpectChecksPass(text);
  auto bad = ReadStablehlo(R"(func.func @main(%w: tensor<2xui8>) -> tensor<2x7xi1> {
  %b = stablehlo.bitcast_convert %w : (tensor<2xui8>) -> tensor<2x7xi1>
  func.return %b : tensor<2x7xi1>
})",
                           false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("2:3"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("bit width"), std::string::npos) << bad.status().ToString();
}

// A function with arguments takes them from the file's RUN line and is
// judged by what its CHECK lines expect printed; a wrong expectation fails.
TEST_F(StablehloReader, RunLineArgumentsAndPrintedResults) {
  const std::string body = R"(func.func @main(%a: tensor<2xi32>, %b: tensor<2xf32>) -> (tensor<2xi32>, tensor<2xf32>) {
  %0 = stablehlo.add %a, %a : tensor<2xi32>
  %1 = stablehlo.multiply %b, %b : tensor<2xf32>
  return %0, %1 : tensor<2xi32>, tensor<2xf32>
}
)";
  const std::string run = "// RUN: stablehlo-translate %s --interpret --args=\"[dense<[1, -4]> : tensor<2xi32>, dense<1.5> : tensor<2xf32>]\"\n"
                          "// RUN: not stablehlo-translate %s --interpret --args=\"oops\"\n";
  auto result = [&](const std::string& text) { return RunCase(SplitCases("x.mlir", text).at(0), TestDevice()); };
  const std::string good = "// CHECK: tensor<2xi32> {\n// CHECK-NEXT: [2, -8]\n// CHECK-NEXT: }\n"
                           "// CHECK-NEXT: tensor<2xf32> {\n// CHECK-NEXT: [2.250000e+00, 2.250000e+00]\n// CHECK-NEXT: }\n";
  CaseResult pass = result(run + body + good);
  EXPECT_EQ(pass.outcome, Outcome::kPassed) << pass.detail;
  CaseResult fail = result(run + body + "// CHECK: tensor<2xi32> {\n// CHECK-NEXT: [2, -7]\n// CHECK-NEXT: }\n");
  EXPECT_EQ(fail.outcome, Outcome::kFailed);
  EXPECT_NE(fail.detail.find("element 1 is -8, expected -7"), std::string::npos) << fail.detail;
  CaseResult none = result(body + good);
  EXPECT_EQ(none.outcome, Outcome::kSkipped);
  EXPECT_NE(none.detail.find("--args"), std::string::npos) << none.detail;
}

// Several test functions in one piece, no separators: each is a case, so
// a second function's failing check is seen (it once passed unseen); a
// function with arguments is counted as skipped, a private helper is no
// case, and a function it calls keeps its checks to itself.
TEST_F(StablehloReader, EveryFunctionWithChecksIsACase) {
  const std::string text = R"(module {
  func.func private @twice(%x: tensor<2xi32>) -> tensor<2xi32> {
    %y = stablehlo.add %x, %x : tensor<2xi32>
    func.return %y : tensor<2xi32>
  }
  func.func @first() {
    %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %b = func.call @twice(%a) : (tensor<2xi32>) -> tensor<2xi32>
    check.expect_eq_const %b, dense<[2, 4]> : tensor<2xi32>
    func.return
  }
  func.func public @second() {
    %a = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
    %b = stablehlo.add %a, %a : tensor<2xi32>
    check.expect_eq_const %b, dense<[6, 9]> : tensor<2xi32>
    func.return
  }
  func.func @with_arguments(%a: tensor<2xi32>) {
    check.expect_eq_const %a, dense<[6, 9]> : tensor<2xi32>
    func.return
  }
})";
  auto cases = SplitCases("x.mlir", text);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].name, "first");
  EXPECT_EQ(cases[1].name, "second");
  EXPECT_EQ(cases[2].name, "with_arguments");
  EXPECT_EQ(RunCase(cases[0], TestDevice()).outcome, Outcome::kPassed);
  CaseResult second = RunCase(cases[1], TestDevice());
  EXPECT_EQ(second.outcome, Outcome::kFailed);
  EXPECT_NE(second.detail.find("15:5: element 1 is 8, expected 9"), std::string::npos) << second.detail;
  EXPECT_EQ(RunCase(cases[2], TestDevice()).outcome, Outcome::kSkipped);
  // Asking the reader for a function that is not there is an error.
  auto missing = ReadStablehlo(text, true, 1, "third");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no function @third"), std::string::npos) << missing.status().ToString();
}


// Reads `text`, runs it on the device and on the reference evaluator with
// `args`; the device's values as text, or the reader's error.
// What --mlir-print-debuginfo (JAX's as_text(debug_info=True)) writes:
// #loc aliases before and after the module, and loc(...) after ops,
// arguments, block arguments, regions, functions and the module, in every
// form (unknown, file:line:col, named, fused, callsite). They change
// nothing: the program runs as it does without them.
TEST_F(StablehloReader, SourceLocationsAnywhere) {
  const std::string text = R"(#loc = loc(unknown)
#loc1 = loc("/home/u/model.py":3:4)
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> {jax.arg_info = "x"} loc("x"), %arg1: tensor<3xf32> loc(#loc1)) -> (tensor<2xf32> {jax.result_info = ""}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc)
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32> loc(#loc3)
    %1 = stablehlo.multiply %arg0, %0 : tensor<2x3xf32> loc(#loc4)
    %2 = stablehlo.reduce(%1 init: %cst) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
     reducer(%a: tensor<f32> loc(unknown), %b: tensor<f32> loc(unknown))  {
      %s = stablehlo.add %a, %b : tensor<f32> loc(#loc5)
      stablehlo.return %s : tensor<f32> loc(#loc5)
    } loc(#loc5)
    %3 = "stablehlo.reduce"(%2, %cst) <{dimensions = array<i64: 0>}> ({
    ^bb0(%p: tensor<f32> loc(fused[#loc1, #loc2]), %q: tensor<f32> loc(callsite(#loc1 at #loc2))):
      %m = stablehlo.maximum %p, %q : tensor<f32> loc("name"(#loc3))
      stablehlo.return %m : tensor<f32> loc(#loc)
    }) : (tensor<2xf32>, tensor<f32>) -> tensor<f32> loc(#loc6)
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<2xf32> loc(#loc)
    %5 = stablehlo.add %2, %4 : tensor<2xf32>loc(#loc)
    return %5 : tensor<2xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc2 = loc("jit(f)/jit(main)/mul"(#loc1))
#loc3 = loc(fused<"x">[#loc1, #loc2])
#loc4 = loc(callsite("f"("a.py":1:2) at "g"("b.py":3:4)))
#loc5 = loc("reduce")
#loc6 = loc("a(b)\"c loc(":1:2))";
  const std::vector<Literal> args = {F32Values({2, 3}, {1, 2, 3, 4, 5, 6}), F32Values({3}, {1, 10, 100})};
  // Row sums of x * y: 321 and 654; plus their maximum.
  EXPECT_EQ(ReadAndRun(text, args), "{975, 1308}");
  // The same program with no location at all.
  std::string bare;
  for (size_t at = 0; at < text.size();) {
    const size_t line_end = std::min(text.find('\n', at), text.size());
    std::string line = text.substr(at, line_end - at);
    at = line_end + 1;
    if (line.rfind("#loc", 0) == 0) continue;
    for (size_t l = line.find("loc("); l != std::string::npos; l = line.find("loc(")) {
      int depth = 0;
      size_t e = l + 3;
      bool quoted = false;
      for (; e < line.size(); ++e) {
        if (line[e] == '\\' && quoted) ++e;
        else if (line[e] == '"') quoted = !quoted;
        else if (!quoted && line[e] == '(') ++depth;
        else if (!quoted && line[e] == ')' && --depth == 0) break;
      }
      line.erase(l, e + 1 - l);
    }
    bare += line + "\n";
  }
  ASSERT_EQ(bare.find("loc"), std::string::npos) << bare;
  EXPECT_EQ(ReadAndRun(bare, args), "{975, 1308}");
  // Errors still point at the op, past the aliases at the top.
  auto undefined = ReadStablehlo("#loc = loc(unknown)\nfunc.func @f() -> tensor<f32> {\n  %a = stablehlo.negate %nope : tensor<f32> loc(#loc)\n"
                                 "  func.return %a : tensor<f32> loc(#loc)\n} loc(#loc)\n",
                                 false);
  ASSERT_FALSE(undefined.ok());
  EXPECT_NE(undefined.status().message().find("3:3: use of undefined value %nope"), std::string::npos)
      << undefined.status().message();
  // A location that never closes is not skipped: an error (the function's
  // braces no longer balance), not a hang.
  auto open = ReadStablehlo("func.func @f() -> tensor<f32> {\n  %a = stablehlo.constant dense<1.0> : tensor<f32> loc(\"x\"\n"
                            "  func.return %a : tensor<f32>\n}\n",
                            false);
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.status().message().find("1:31: unbalanced brackets"), std::string::npos) << open.status().message();
  auto alias = ReadStablehlo("#loc1 loc(unknown)\nfunc.func @f() {\n  func.return\n}\n", false);
  ASSERT_FALSE(alias.ok());
  EXPECT_NE(alias.status().message().find("2:1: expected '='"), std::string::npos) << alias.status().message();
}

// What JAX and Shardy write around a program meant for many devices: the
// mesh, shardings on arguments, results and ops, sharding constraints, and
// the mhlo./jax./tf. attributes of arguments, results and the module. One
// device holds every shard, so the program runs as written.
TEST_F(StablehloReader, ShardingAndFrameworkAttributes) {
  const std::string text = R"(module @jit_step attributes {jax.uses_shape_polymorphism = false, mhlo.frontend_attributes = {xla.sdy.use_tuple_args = "t"}, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=1, "y"=1]>
  sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>
  func.func public @main(%arg0: tensor<2x3xf32> {jax.arg_info = "params['w']", mhlo.layout_mode = "default", mhlo.memory_kind = "device", mhlo.sharding = "{devices=[1,1]<=[1]}", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<3xf32> {jax.buffer_donor = true, tf.aliasing_output = 1 : i32, mhlo.sharding = "{replicated}"}) -> (tensor<2x3xf32> {jax.result_info = "[0]", mhlo.layout_mode = "default", sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}, {}]>}, tensor<3xf32> {jax.result_info = "[1]", mhlo.memory_kind = "pinned_host"}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"y"}]>]>} : (tensor<3xf32>) -> tensor<2x3xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<2x3xf32>
    %2 = stablehlo.custom_call @Sharding(%1) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = stablehlo.multiply %arg0, %2 {mhlo.frontend_attributes = {_xla_compute_type = "host", _xla_buffer_placement = "arg"}, mhlo.sharding = "{devices=[2,1]0,1}"} : tensor<2x3xf32>
    %4 = sdy.reshard %3 <@mesh, [{}, {}]> : tensor<2x3xf32>
    %5 = call @double(%arg1) {mhlo.sharding = "{replicated}"} : (tensor<3xf32>) -> tensor<3xf32>
    return %4, %5 : tensor<2x3xf32>, tensor<3xf32>
  }
  func.func private @double(%x: tensor<3xf32> {mhlo.sharding = "{replicated}"}) -> tensor<3xf32> attributes {mhlo.frontend_attributes = {inlineable = "true"}} {
    %y = stablehlo.add %x, %x : tensor<3xf32>
    return %y : tensor<3xf32>
  }
})";
  auto program = ReadStablehlo(text, false);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_EQ(program->function, "main");
  EXPECT_EQ(program->module->entry()->parameters().size(), 2u);
  const std::vector<Literal> args = {F32Values({2, 3}, {1, 2, 3, 4, 5, 6}), F32Values({3}, {1, -10, 0.5})};
  EXPECT_EQ(RunAndCompareWith(*program->module, args).ValuesToString(), "({{1, -20, 1.5}, {4, -50, 3}}, {2, -20, 1})");
  // A mesh without its <[...]> is a located error.
  auto bad = ReadStablehlo("module {\n  sdy.mesh @mesh = [\"x\"=2]\n  func.func @f() {\n    func.return\n  }\n}\n", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("2:20: expected the mesh <[...]> of sdy.mesh"), std::string::npos)
      << bad.status().message();
}

// shard_map's sdy.manual_computation: its body runs on each device's
// shard. Over manual axes of size 1 every shard is the whole array and the
// body runs in line; over a larger axis it is written out per device
// (tests/spmd_expansion_test.cc), never run once on the whole array.
TEST_F(StablehloReader, ManualComputationOverAxesOfSizeOne) {
  auto module = [](const std::string& mesh, const std::string& axes, const std::string& local) {
    return "module @jit_f {\n  sdy.mesh @mesh = <[" + mesh + "]>\n"
           "  func.func public @main(%arg0: tensor<4x2xf32>, %arg1: tensor<2xf32>) -> tensor<4x2xf32> {\n"
           "    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{\"x\"}, {}]>, <@mesh, [{}]>] "
           "out_shardings=[<@mesh, [{\"x\"}, {}]>] manual_axes={" + axes + "} (%arg2: tensor<" + local +
           "x2xf32>, %arg3: tensor<2xf32>) {\n"
           "      %1 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<2xf32>) -> tensor<" + local + "x2xf32>\n"
           "      %2 = stablehlo.multiply %arg2, %1 : tensor<" + local + "x2xf32>\n"
           "      sdy.return %2 : tensor<" + local + "x2xf32>\n"
           "    } : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>\n"
           "    return %0 : tensor<4x2xf32>\n  }\n}\n";
  };
  const std::vector<Literal> args = {F32Values({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), F32Values({2}, {10, -1})};
  EXPECT_EQ(ReadAndRun(module("\"x\"=1", "\"x\"", "4"), args), "{{10, -2}, {30, -4}, {50, -6}, {70, -8}}");
  EXPECT_EQ(ReadAndRun(module("\"x\"=1, \"y\"=4", "\"x\"", "4"), args), "{{10, -2}, {30, -4}, {50, -6}, {70, -8}}");
  EXPECT_EQ(ReadAndRun(module("\"x\"=2", "", "4"), args), "{{10, -2}, {30, -4}, {50, -6}, {70, -8}}");
  // Over x = 2 each device multiplies its two rows (frontends/spmd_expansion.h).
  EXPECT_EQ(ReadAndRun(module("\"x\"=2", "\"x\"", "2"), args), "{{10, -2}, {30, -4}, {50, -6}, {70, -8}}");
  struct Case {
    std::string text, expect;
  } cases[] = {
      {module("\"y\"=1", "\"x\"", "4"), "4:5: sdy.manual_computation's manual axis \"x\" is not an axis of its mesh"},
      {module("\"x\"=1", "\"x\"", "2"), "4:5: sdy.manual_computation's argument %arg2 is f32[2,2] but its operand is f32[4,2]"},
  };
  for (const Case& c : cases) EXPECT_NE(ReadAndRun(c.text, args).find(c.expect), std::string::npos) << ReadAndRun(c.text, args);
  std::string unnamed = module("\"x\"=1", "\"x\"", "4");
  unnamed.replace(unnamed.find("sdy.mesh @mesh"), 14, "sdy.mesh @other");
  EXPECT_NE(ReadAndRun(unnamed, args).find("sdy.manual_computation names @mesh, which no sdy.mesh defines"), std::string::npos)
      << ReadAndRun(unnamed, args);
}

// The dynamic_* ops whose sizes are constants are their static ops
// (dynamic_conv a convolution, dynamic_pad a pad, ...); a padding or a
// size computed at run time is a clear error, not a guess, and a shape
// operand only restating a static result type is checked where constant.
TEST_F(StablehloReader, DynamicOpsWithConstantSizes) {
  auto module = [](const std::string& padding_source) {
    return "func.func @main(%lhs: tensor<1x4x4x1xf32>, %rhs: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) -> tensor<1x2x2x1xf32> {\n" +
           padding_source +
           "  %result = \"stablehlo.dynamic_conv\"(%lhs, %rhs, %padding) {\n"
           "    window_strides = array<i64: 4, 4>, lhs_dilation = array<i64: 2, 2>, rhs_dilation = array<i64: 1, 1>,\n"
           "    window_reversal = array<i1: false, false>,\n"
           "    dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,\n"
           "    batch_group_count = 1 : i64, feature_group_count = 1 : i64\n"
           "  } : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>\n"
           "  return %result : tensor<1x2x2x1xf32>\n}\n";
  };
  Literal padding(Shape(ElementType::kS64, {2, 2}));
  for (int64_t i = 0; i < 4; ++i) padding.Set(i, Scalar::Int(ElementType::kS64, 1));
  const std::vector<Literal> args = {F32Values({1, 4, 4, 1}, {1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17}),
                                     F32Values({3, 3, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}), padding};
  // The spec's example.
  EXPECT_EQ(ReadAndRun(module("  %padding = stablehlo.constant dense<1> : tensor<2x2xi64>\n"), args), "{{{{1}, {5}}, {{10}, {14}}}}");
  const std::string computed = ReadAndRun(module("  %padding = stablehlo.add %p, %p : tensor<2x2xi64>\n"), args);
  EXPECT_NE(computed.find("3:3: stablehlo.dynamic_conv with %padding computed at run time is not supported; only a constant"),
            std::string::npos)
      << computed;
  // dynamic_pad, dynamic_iota, dynamic_broadcast_in_dim, dynamic_reshape.
  const std::string others = R"(func.func @main(%x: tensor<2x3xf32>, %n: tensor<1xi32>) -> (tensor<4x4xf32>, tensor<2x3xi32>, tensor<2x2x3xf32>, tensor<6xf32>) {
  %v = stablehlo.constant dense<-1.0> : tensor<f32>
  %lo = stablehlo.constant dense<[1, -1]> : tensor<2xi64>
  %hi = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
  %in = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
  %0 = stablehlo.dynamic_pad %x, %v, %lo, %hi, %in : (tensor<2x3xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x4xf32>
  %s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %1 = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi64>) -> tensor<2x3xi32>
  %b = stablehlo.constant dense<[2, 2, 3]> : tensor<3xi32>
  %2 = stablehlo.dynamic_broadcast_in_dim %x, %b, dims = [1, 2] : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x2x3xf32>
  %3 = stablehlo.dynamic_reshape %x, %n : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<6xf32>
  return %0, %1, %2, %3 : tensor<4x4xf32>, tensor<2x3xi32>, tensor<2x2x3xf32>, tensor<6xf32>
})";
  Literal n(Shape(ElementType::kS32, {1}));
  n.Set(0, Scalar::Int(ElementType::kS32, 6));
  EXPECT_EQ(ReadAndRun(others, {F32Values({2, 3}, {1, 2, 3, 4, 5, 6}), n}),
            "({{-1, -1, -1, -1}, {-1, 2, -1, 3}, {-1, 5, -1, 6}, {-1, -1, -1, -1}}, {{0, 1, 2}, {0, 1, 2}}, "
            "{{{1, 2, 3}, {4, 5, 6}}, {{1, 2, 3}, {4, 5, 6}}}, {1, 2, 3, 4, 5, 6})");
  std::string wrong = others;
  wrong.replace(wrong.find("dense<[2, 3]>"), 13, "dense<[3, 2]>");
  EXPECT_NE(ReadAndRun(wrong, {F32Values({2, 3}, {1, 2, 3, 4, 5, 6}), n})
                .find("8:3: stablehlo.dynamic_iota's shape operand %s does not match its result type s32[2,3]"),
            std::string::npos)
      << ReadAndRun(wrong, {F32Values({2, 3}, {1, 2, 3, 4, 5, 6}), n});
}

// Quantized tensors as the spec defines them: held in the storage type,
// quantize clamps to the storage range and rounds half to even,
// dequantize subtracts the zero point and scales, per tensor or per axis;
// every other op runs between a dequantize and a quantize.
TEST_F(StablehloReader, QuantizedTypesAndOps) {
  const std::string text = R"(func.func public @main(%x: tensor<4xf32>, %y: tensor<2x2xi8>) -> (tensor<4xui8>, tensor<2x2xf32>, tensor<4xi8>) {
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<ui8<0:100>:f32, 0.5:10>>
  %qb = stablehlo.bitcast_convert %q : (tensor<4x!quant.uniform<ui8<0:100>:f32, 0.5:10>>) -> tensor<4xui8>
  %yq = stablehlo.bitcast_convert %y : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.25:1, 2.0:-3}>>
  %yd = stablehlo.uniform_dequantize %yq : (tensor<2x2x!quant.uniform<i8:f32:1, {0.25:1, 2.0:-3}>>) -> tensor<2x2xf32>
  %a = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  %m = stablehlo.multiply %a, %a : (tensor<4x!quant.uniform<i8:f32, 0.1>>, tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  %mb = stablehlo.bitcast_convert %m : (tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<4xi8>
  return %qb, %yd, %mb : tensor<4xui8>, tensor<2x2xf32>, tensor<4xi8>
})";
  Literal y(Shape(ElementType::kS8, {2, 2}));
  const int64_t ys[] = {5, -3, -128, 127};
  for (int i = 0; i < 4; ++i) y.Set(i, Scalar::Int(ElementType::kS8, ys[i]));
  // x / 0.5 + 10 clamped to [0, 100]: -5 -> 0, 0.25 -> 10.5 -> 10 (half to even), 3 -> 16, 200 -> 100.
  // (y - zp) * scale per column: (5-1)/4, (-3+3)*2, (-128-1)/4, (127+3)*2, the subtraction in i8 as the
  // spec's dequantize writes it (so -129 wraps to 127 and 130 to -126, as the interpreter computes).
  // x quantized at 0.1 (clamped to i8), squared, quantized again: -5 -> -50 -> -5.0 -> 25 -> 127; 0.25 -> 2 (2.5 to
  // even) -> 0.2 -> 0.04 -> 0; 3 -> 30 -> 9 -> 90; 200 -> 127 -> 12.7 -> 161.29 -> 127.
  EXPECT_EQ(ReadAndRun(text, {F32Values({4}, {-5, 0.25, 3, 200}), y}), "({0, 10, 16, 100}, {{1, 0}, {31.75, -252}}, {127, 0, 90, 127})");
  struct Case {
    std::string type, expect;
  } bad[] = {
      {"!quant.uniform<i8:f32, -0.5:1>", "expected a positive finite scale in a quantized type, found '-0.5'"},
      {"!quant.uniform<i8:f32, {0.5:1, 0.25:2}>", "a per-tensor quantized type has one scale, not 2"},
      {"!quant.uniform<i8:f32, 0.5:300>", "zero point 300 is outside the storage range"},
      {"!quant.uniform<i8<-5:200>:f32, 0.5>", "storage range <-5:200> does not fit s8"},
      {"!quant.uniform<f32:f32, 0.5>", "a quantized type's storage must be an integer type, not f32"},
      // 64-bit storage: its bounds are the int64 limits (the fuzzer found -2^63 computed by overflow).
      {"!quant.uniform<i64<5:1>:f32, 0.5>", "storage range <5:1> does not fit s64"},
      {"!quant.uniform<ui64<-1:1>:f32, 0.5>", "storage range <-1:1> does not fit u64"},
      {"!quant.uniform<i64<-9223372036854775809:0>:f32, 0.5>", "integer -9223372036854775809 is out of range"},
  };
  for (const Case& c : bad) {
    const std::string t = "func.func @main(%x: tensor<4xf32>) -> tensor<4xi8> {\n  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x" +
                          c.type + ">\n  %b = stablehlo.bitcast_convert %q : (tensor<4x" + c.type + ">) -> tensor<4xi8>\n  return %b : tensor<4xi8>\n}\n";
    const std::string got = ReadAndRun(t, {F32Values({4}, {1, 2, 3, 4})});
    EXPECT_NE(got.find(c.expect), std::string::npos) << got;
    EXPECT_NE(got.find("2:"), std::string::npos) << got;  // located on the op's line
  }
  // The whole range of 64-bit storage reads, -2^63 included.
  EXPECT_TRUE(ReadStablehlo("func.func @main(%x: tensor<2xf32>) -> tensor<2xi64> {\n  %q = stablehlo.uniform_quantize %x : "
                            "(tensor<2xf32>) -> tensor<2x!quant.uniform<i64<-9223372036854775808:9223372036854775807>:f32, 0.5:-3>>\n"
                            "  %b = stablehlo.bitcast_convert %q : (tensor<2x!quant.uniform<i64:f32, 0.5:-3>>) -> tensor<2xi64>\n"
                            "  return %b : tensor<2xi64>\n}\n",
                            false)
                  .ok());
  // Any other op runs between a dequantize and a quantize (a dot here), and
  // one with a quantized float operand only dequantizes (hybrid).
  const std::string dot = "func.func @main(%x: tensor<2x2xi8>, %f: tensor<2x2xf32>) -> (tensor<2x2xi8>, tensor<2x2xf32>) {\n"
                          "  %q = stablehlo.bitcast_convert %x : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>\n"
                          "  %d = stablehlo.dot_general %q, %q, contracting_dims = [1] x [0] : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>, "
                          "tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>\n"
                          "  %b = stablehlo.bitcast_convert %d : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2xi8>\n"
                          "  %h = stablehlo.dot_general %f, %q, contracting_dims = [1] x [0] : (tensor<2x2xf32>, "
                          "tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2xf32>\n"
                          "  return %b, %h : tensor<2x2xi8>, tensor<2x2xf32>\n}\n";
  Literal z(Shape(ElementType::kS8, {2, 2}));
  const int64_t zs[] = {2, 4, -2, 6};  // 1, 2, -1, 3 at scale 0.5
  for (int i = 0; i < 4; ++i) z.Set(i, Scalar::Int(ElementType::kS8, zs[i]));
  EXPECT_EQ(ReadAndRun(dot, {z, F32Values({2, 2}, {1, 0, 0, 10})}), "({{-2, 16}, {-8, 14}}, {{1, 2}, {-10, 30}})");
  // The pretty form's one type for every operand, per axis with a storage range.
  const std::string pretty = "func.func @main(%x: tensor<2x2xi8>) -> tensor<2x2xi8> {\n"
                             "  %q = stablehlo.bitcast_convert %x : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25:-2}>>\n"
                             "  %d = stablehlo.add %q, %q : tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25:-2}>>\n"
                             "  %b = stablehlo.bitcast_convert %d : (tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25:-2}>>) -> tensor<2x2xi8>\n"
                             "  return %b : tensor<2x2xi8>\n}\n";
  const int64_t ps[] = {3, 3, 100, 100};  // (3-1)*0.5 doubled -> 5; (3+2)*0.25 doubled -> 8; 100s clamp to 127
  for (int i = 0; i < 4; ++i) z.Set(i, Scalar::Int(ElementType::kS8, ps[i]));
  EXPECT_EQ(ReadAndRun(pretty, {z}), "{{5, 8}, {127, 127}}");
  // A quantized constant is written in its storage values.
  const std::string constant = "func.func @main(%x: tensor<2xf32>) -> tensor<2xi8> {\n"
                               "  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>\n"
                               "  %c = stablehlo.constant dense<[4, -6]> : tensor<2x!quant.uniform<i8:f32, 0.5>>\n"
                               "  %a = stablehlo.add %q, %c : tensor<2x!quant.uniform<i8:f32, 0.5>>\n"
                               "  %b = stablehlo.bitcast_convert %a : (tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2xi8>\n"
                               "  return %b : tensor<2xi8>\n}\n";
  EXPECT_EQ(ReadAndRun(constant, {F32Values({2}, {1, 1})}), "{6, -4}");  // 1 + 2, 1 - 3, at 0.5
}

// A private func.func with no body declares a symbol defined elsewhere:
// read and left alone; calling it, or one that is public, is an error.
TEST_F(StablehloReader, FunctionDeclarationsWithoutABody) {
  const std::string declared = "func.func private @external(tensor<2xf32>) -> tensor<2xf32>\n"
                               "func.func private @hook(%arg0: tensor<2xf32>) -> tensor<2xf32> attributes {llvm.emit_c_interface}\n";
  const std::string main = "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
                           "  %0 = stablehlo.abs %arg0 : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
  EXPECT_EQ(ReadAndRun("module {\n" + declared + main + "}\n", {F32Values({2}, {-1.5, 2})}), "{1.5, 2}");
  const std::string calls = "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
                            "  %0 = call @external(%arg0) : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
  EXPECT_NE(ReadAndRun(declared + calls, {F32Values({2}, {-1.5, 2})})
                .find("4:3: call to @external, a declaration without a body: nothing here defines what it computes"),
            std::string::npos)
      << ReadAndRun(declared + calls, {F32Values({2}, {-1.5, 2})});
  auto only = ReadStablehlo(declared, false);
  ASSERT_FALSE(only.ok());
  EXPECT_NE(only.status().message().find("no func.func with a body in the input"), std::string::npos) << only.status().message();
  auto entry = ReadStablehlo(declared + main, false, 1, "external");
  ASSERT_FALSE(entry.ok());
  EXPECT_NE(entry.status().message().find("@external is a declaration without a body: nothing to run"), std::string::npos)
      << entry.status().message();
  auto public_one = ReadStablehlo("func.func @external(tensor<2xf32>) -> tensor<2xf32>\n" + main, false);
  ASSERT_FALSE(public_one.ok());
  EXPECT_NE(public_one.status().message().find("only a private func.func may be a declaration"), std::string::npos)
      << public_one.status().message();
}

}  // namespace
}  // namespace vkxla
