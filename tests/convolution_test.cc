// Convolution: the spec's example, every form the page and the spec allow
// (1-D to 3-D, any dim_labels, strides, negative padding, lhs and rhs
// dilation, reversal, feature and batch groups, 1x1 kernels, empty windows)
// against the reference, every element type, tiled and column-major
// layouts, random floats within a sum's rounding, the fused epilogue, both
// StableHLO forms, the builder, and bad attributes quoting the shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "frontends/stablehlo_reader.h"
#include "frontends/xla_builder.h"
#include "ops/convolution.h"
#include "ops/evaluator.h"
#include "plan/conv_expansion.h"
#include "runtime/executable.h"
#include "tests/dot_test_util.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class Convolution : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

struct Form {
  std::vector<int64_t> lhs, rhs;
  std::string attributes;  // window, dim_labels, group counts
};

// The result's shape for these operands and attributes, by shape inference.
Shape ResultShape(const Form& f, ElementType lhs, ElementType rhs, ElementType out) {
  Instruction a, b, conv;
  a.shape = Shape(lhs, f.lhs);
  b.shape = Shape(rhs, f.rhs);
  conv.opcode = Opcode::kConvolution;
  conv.operands = {&a, &b};
  conv.shape = Shape(out, {});
  // "window={..}, dim_labels=.., feature_group_count=2" into attributes.
  std::string rest = f.attributes;
  while (!rest.empty()) {
    const size_t eq = rest.find('=');
    size_t end = rest.find(", ", eq);
    if (rest.compare(eq + 1, 1, "{") == 0) end = rest.find('}', eq) + 1;
    conv.other_attributes.emplace_back(rest.substr(0, eq), rest.substr(eq + 1, end == std::string::npos ? end : end - eq - 1));
    rest = end == std::string::npos || end >= rest.size() ? "" : rest.substr(rest.find_first_not_of(", ", end));
  }
  StatusOr<Shape> s = InferConvolutionShape(conv);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : Shape(out, {});
}

std::string ConvText(const Form& f, ElementType lhs, ElementType rhs, ElementType out, const std::string& lhs_layout = "",
                     const std::string& out_layout = "") {
  const Shape result = ResultShape(f, lhs, rhs, out);
  return "HloModule conv\nENTRY %e {\n  %x = " + ShapeText(lhs, f.lhs, lhs_layout) + " parameter(0)\n  %k = " +
         ShapeText(rhs, f.rhs) + " parameter(1)\n  ROOT %c = " + ShapeText(out, result.dims(), out_layout) +
         " convolution(%x, %k), " + f.attributes + "\n}\n";
}

void RunForm(const Form& f, ElementType lhs, ElementType rhs, ElementType out, uint64_t seed, const std::string& lhs_layout = "",
             const std::string& out_layout = "", int kernels = -1) {
  const std::string text = ConvText(f, lhs, rhs, out, lhs_layout, out_layout);
  SCOPED_TRACE(text);
  auto module = Parse(text);
  ASSERT_TRUE(module);
  std::mt19937_64 rng(seed);
  RunAndCompareWith(*module, {SmallIntegers(Shape(lhs, f.lhs), rng), SmallIntegers(Shape(rhs, f.rhs), rng)}, kernels);
}

const std::vector<Form>& Forms() {
  static const std::vector<Form> forms = {
      // NHWC with HWIO, SAME padding.
      {{2, 7, 6, 3}, {3, 3, 3, 5}, "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
      // NCHW with OIHW, stride 2, uneven padding, an odd output order.
      {{1, 4, 9, 8}, {6, 4, 3, 2}, "window={size=3x2 stride=2x3 pad=1_0x0_1}, dim_labels=bf01_oi01->0fb1"},
      // 1-D and 3-D.
      {{3, 17, 2}, {5, 2, 4}, "window={size=5 stride=2 pad=2_2}, dim_labels=b0f_0io->b0f"},
      {{1, 5, 4, 6, 2}, {2, 3, 2, 2, 3}, "window={size=2x3x2 pad=0_1x1_1x0_0}, dim_labels=b012f_012io->b012f"},
      // Transposed (lhs dilation) and atrous (rhs dilation) with negative padding.
      {{1, 5, 4, 3}, {3, 3, 3, 2}, "window={size=3x3 pad=2_2x1_2 lhs_dilate=2x3}, dim_labels=b01f_01io->b01f"},
      {{2, 11, 9, 2}, {3, 2, 2, 3}, "window={size=3x2 pad=-1_0x0_-2 rhs_dilate=2x3}, dim_labels=b01f_01io->b01f"},
      // Reversed kernel, strides with dilation.
      {{1, 8, 7, 2}, {3, 3, 2, 2}, "window={size=3x3 stride=2x1 rhs_dilate=1x2 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f"},
      // Grouped (2 groups), depthwise (a multiplier of 2) and batch-grouped.
      {{2, 6, 5, 4}, {3, 3, 2, 6}, "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2"},
      {{1, 7, 7, 3}, {3, 3, 1, 6}, "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=3"},
      {{4, 5, 5, 3}, {3, 3, 3, 4}, "window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=2"},
      {{2, 3, 4, 6}, {2, 3, 2, 3}, "window={size=3x2}, dim_labels=f01b_i01o->01bf, batch_group_count=3"},
      // 1x1 kernels: plain and strided.
      {{2, 5, 5, 8}, {1, 1, 8, 3}, "window={size=1x1}, dim_labels=b01f_01io->b01f"},
      {{2, 8, 5, 5}, {3, 8, 1, 1}, "window={size=1x1 stride=2x2 pad=0_1x1_0}, dim_labels=bf01_oi01->bf01"},
      // Dims in scrambled places everywhere.
      {{3, 2, 6, 5}, {2, 3, 3, 2}, "window={size=3x2 stride=1x2}, dim_labels=1fb0_i0o1->f10b"},
      // Windows larger than the input: an empty result; a feature-free kernel.
      {{1, 2, 2, 1}, {3, 3, 1, 2}, "window={size=3x3}, dim_labels=b01f_01io->b01f"},
      {{1, 4, 4, 0}, {3, 3, 0, 2}, "window={size=3x3}, dim_labels=b01f_01io->b01f"},
      // No spatial dims: a plain product.
      {{3, 4}, {4, 5}, "window={}, dim_labels=bf_io->bf"},
  };
  return forms;
}

TEST_F(Convolution, SpecExample) {
  // stablehlo_spec.md's example: stride 4 over an input dilated by 2.
  const std::string t = "s64";
  EXPECT_EQ(RunHloText("", "  %lhs = " + t + "[1,4,4,1] constant({{{{1}, {2}, {5}, {6}}, {{3}, {4}, {7}, {8}}, {{10}, {11}, {14}, {15}}, "
                           "{{12}, {13}, {16}, {17}}}})\n  %one = " + t + "[] constant(1)\n"
                           "  %rhs = " + t + "[3,3,1,1] broadcast(%one), dimensions={}\n"
                           "  ROOT %c = " + t + "[1,2,2,1] convolution(%lhs, %rhs), window={size=3x3 stride=4x4 lhs_dilate=2x2},"
                           " dim_labels=b01f_01io->b01f\n"),
            "{{{{10}, {26}}, {{46}, {62}}}}");
}

// The spec pads the input with zeros and multiplies them like any element
// (pad, then dot_general): an infinite weight meeting padding or a
// dilation's hole makes that output NaN, on the device and in the
// reference (which once skipped such positions; a random program found
// the difference).
TEST_F(Convolution, PaddingZerosMultiplyInfiniteWeights) {
  // [1, 2] dilated and padded: [0, 1, 0, 2, 0]; the window [inf, 1].
  auto m = ParseOrFail("HloModule pad_inf\nENTRY %e {\n  %lhs = f32[1,2,1] constant({{{1}, {2}}})\n"
                       "  %rhs = f32[2,1,1] constant({{{inf}}, {{1}}})\n"
                       "  ROOT %c = f32[1,4,1] convolution(%lhs, %rhs), window={size=2 pad=1_1 lhs_dilate=2},"
                       " dim_labels=b0f_0io->b0f\n}\n");
  ASSERT_TRUE(m);
  const Literal got = RunAndCompareWith(*m, {});
  ASSERT_EQ(got.element_count(), 4);
  EXPECT_TRUE(std::isnan(got.Get(0).re));
  EXPECT_EQ(got.Get(1).re, INFINITY);
  EXPECT_TRUE(std::isnan(got.Get(2).re));
  EXPECT_EQ(got.Get(3).re, INFINITY);
}

TEST_F(Convolution, EveryFormMatchesTheReference) {
  uint64_t seed = 0;
  for (const Form& f : Forms()) RunForm(f, ElementType::kF32, ElementType::kF32, ElementType::kF32, ++seed);
}

TEST_F(Convolution, EveryElementType) {
  struct Case {
    ElementType lhs, rhs, out;
  };
  std::vector<Case> cases;
  for (ElementType t : kAllTypes) cases.push_back({t, t, t});
  cases.push_back({ElementType::kS8, ElementType::kS8, ElementType::kS32});
  cases.push_back({ElementType::kU8, ElementType::kU8, ElementType::kU32});
  cases.push_back({ElementType::kF16, ElementType::kF16, ElementType::kF32});
  cases.push_back({ElementType::kBF16, ElementType::kBF16, ElementType::kF32});
  cases.push_back({ElementType::kS4, ElementType::kS8, ElementType::kS32});
  const Form& grouped = Forms()[7];
  uint64_t seed = 100;
  for (const Case& c : cases) {
    SCOPED_TRACE(Type(c.lhs) + " x " + Type(c.rhs) + " -> " + Type(c.out));
    RunForm(grouped, c.lhs, c.rhs, c.out, ++seed);
  }
}

TEST_F(Convolution, TiledAndColumnMajorLayouts) {
  RunForm(Forms()[0], ElementType::kF32, ElementType::kF32, ElementType::kF32, 7, "{3,2,1,0:T(4,128)}", "{0,1,2,3}");
  RunForm(Forms()[1], ElementType::kS32, ElementType::kS32, ElementType::kS32, 8, "{0,1,2,3}", "{1,2,3,0:T(2,128)}");
  RunForm(Forms()[8], ElementType::kF16, ElementType::kF16, ElementType::kF32, 9, "{1,2,0,3}", "{3,1,2,0}");
}

TEST_F(Convolution, WindowsReadAsVectorsMatchTheReference) {
  // Features in whole vectors: the matmul reads the windows a block of
  // features at a time through the gather and the pad (one address and one
  // padding test per block); padded edges, strides, dilations, negative
  // padding and groups move the blocks; 6 features and a tiled input fall
  // back to element loads. Fewer features than a vector (an RGB stem; 5
  // in 16-bit types) are padded to one with zeros, the padded input
  // written first (NCHW's too). Every type the matmul reads as vectors.
  const std::string nhwc = "dim_labels=b01f_01io->b01f";
  const std::vector<Form> forms = {
      {{2, 9, 7, 16}, {3, 3, 16, 12}, "window={size=3x3 pad=1_1x1_1}, " + nhwc},
      {{2, 9, 7, 8}, {3, 3, 8, 5}, "window={size=3x3 stride=2x1 pad=0_2x1_1}, " + nhwc},
      {{1, 9, 7, 4}, {3, 2, 4, 3}, "window={size=3x2 pad=-1_1x2_0 rhs_dilate=2x1}, " + nhwc},
      {{1, 4, 5, 32}, {3, 3, 32, 4}, "window={size=3x3 pad=2_2x1_2 lhs_dilate=2x1}, " + nhwc},
      {{1, 6, 6, 32}, {3, 3, 16, 8}, "window={size=3x3 pad=1_1x1_1}, " + nhwc + ", feature_group_count=2"},
      {{2, 5, 5, 6}, {3, 3, 6, 4}, "window={size=3x3 pad=1_1x1_1}, " + nhwc},
      {{1, 15, 13, 3}, {3, 3, 3, 8}, "window={size=3x3 stride=2x2 pad=1_1x1_1}, " + nhwc},
      {{2, 9, 7, 5}, {3, 3, 5, 4}, "window={size=3x3 pad=1_0x0_1}, " + nhwc},
  };
  uint64_t seed = 300;
  for (ElementType t : {ElementType::kF32, ElementType::kF16, ElementType::kBF16, ElementType::kS8, ElementType::kS32}) {
    const ElementType out = t == ElementType::kS8 ? ElementType::kS32 : t;
    for (size_t i = 0; i < forms.size(); ++i)
      if (t == ElementType::kF32 || i == 0 || i == 4 || i >= 6) RunForm(forms[i], t, t, out, ++seed);
  }
  RunForm(forms[0], ElementType::kF32, ElementType::kF32, ElementType::kF32, ++seed, "{3,2,1,0:T(2,8)}");
  RunForm(forms[0], ElementType::kF32, ElementType::kF32, ElementType::kF32, ++seed, "{2,3,1,0}");
}

TEST_F(Convolution, NarrowDepthwiseStripsMatchTheReference) {
  // Depthwise over widths that a CPU driver walks in strips, in narrow
  // types: each product widens its operands, and a strip's bf16 and
  // integer elements are written out one by one (8 to a vector; f16's
  // strips keep their loop: its conversions are long, and its kernels
  // compile for seconds). SAME and strided windows, a multiplier of 2,
  // NHWC and NCHW; 8-bit inputs sum to 32 bits.
  const std::vector<Form> forms = {
      {{1, 8, 112, 32}, {3, 3, 1, 32}, "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=32"},
      {{1, 30, 30, 32}, {3, 3, 1, 32}, "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=32"},
      {{2, 7, 40, 16}, {3, 3, 1, 32}, "window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f, feature_group_count=16"},
      {{1, 16, 9, 30}, {16, 1, 3, 3}, "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=16"},
  };
  uint64_t seed = 350;
  for (ElementType t : {ElementType::kBF16, ElementType::kS8, ElementType::kU8, ElementType::kS16}) {
    const ElementType out = BitWidth(t) == 8 ? (IsSignedInt(t) ? ElementType::kS32 : ElementType::kU32) : t;
    for (const Form& f : forms) RunForm(f, t, t, out, ++seed);
  }
}

TEST_F(Convolution, DepthwiseWeightsStoredWithAUnitDimReadAsVectors) {
  // TensorFlow stores depthwise weights [3,3,C,1] and reshapes them to
  // [3,3,1,C]: the buffer is contiguous along C (its minor-most dim has
  // one element), so the direct kernel reads each tap's weights as vectors
  // like those of a [3,3,1,C] parameter, not element by element. With the
  // bias and relu6 TensorFlow puts after it, in bf16 and f32.
  for (const char* t : {"bf16", "f32"}) {
    const std::string ty = t;
    const std::string text =
        "HloModule depthwise_tf\nENTRY %e {\n  %x = " + ty + "[1,20,24,32] parameter(0)\n  %k = " + ty + "[3,3,32,1] parameter(1)\n"
        "  %b = " + ty + "[32] parameter(2)\n  %kr = " + ty + "[3,3,1,32] reshape(%k)\n"
        "  %c = " + ty + "[1,20,24,32] convolution(%x, %kr), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f,"
        " feature_group_count=32\n"
        "  %bb = " + ty + "[1,20,24,32] broadcast(%b), dimensions={3}\n  %s = " + ty + "[1,20,24,32] add(%c, %bb)\n"
        "  %lo = " + ty + "[] constant(0)\n  %hi = " + ty + "[] constant(6)\n"
        "  %lob = " + ty + "[1,20,24,32] broadcast(%lo), dimensions={}\n  %hib = " + ty + "[1,20,24,32] broadcast(%hi), dimensions={}\n"
        "  ROOT %r = " + ty + "[1,20,24,32] clamp(%lob, %s, %hib)\n}\n";
    auto module = Parse(text);
    ASSERT_TRUE(module) << text;
    const ElementType et = ty == "bf16" ? ElementType::kBF16 : ElementType::kF32;
    std::mt19937_64 rng(31);
    RunAndCompareWith(*module, {SmallIntegers(Shape(et, {1, 20, 24, 32}), rng), SmallIntegers(Shape(et, {3, 3, 32, 1}), rng),
                                SmallIntegers(Shape(et, {32}), rng)},
                      1);
    auto exe = Executable::Compile(*module, TestDevice());
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    for (const std::string& src : (*exe)->kernel_sources())
      EXPECT_EQ(src.find("TW(in"), std::string::npos) << ty << ": weights read element by element\n" << src.substr(0, 4000);
  }
}

TEST_F(Convolution, WinogradMatchesTheReference) {
  // f32 3x3, stride 1, 16 features or more: Winograd's F(2x2, 3x3). Odd
  // outputs (a part tile), valid, same, negative and uneven padding,
  // reversal, NCHW; small integers stay exact through its transforms.
  const std::vector<Form> forms = {
      {{2, 8, 8, 16}, {3, 3, 16, 16}, "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
      {{1, 7, 9, 16}, {3, 3, 16, 24}, "window={size=3x3}, dim_labels=b01f_01io->b01f"},
      {{1, 16, 6, 5}, {16, 16, 3, 3}, "window={size=3x3 pad=2_0x1_1}, dim_labels=bf01_oi01->bf01"},
      {{1, 6, 6, 16}, {3, 3, 16, 16}, "window={size=3x3 pad=1_1x1_1 rhs_reversal=1x1}, dim_labels=b01f_01io->b01f"},
      {{1, 9, 8, 20}, {3, 3, 20, 16}, "window={size=3x3 pad=-1_1x0_0}, dim_labels=b01f_01io->0fb1"},
  };
  uint64_t seed = 400;
  for (const Form& f : forms) {
    const Shape lhs(ElementType::kF32, f.lhs), rhs(ElementType::kF32, f.rhs);
    auto conv = Parse(ConvText(f, ElementType::kF32, ElementType::kF32, ElementType::kF32));
    ASSERT_TRUE(conv);
    const Instruction* root = conv->entry()->root();
    auto params = ReadConvolution(*root);
    ASSERT_TRUE(params.ok()) << params.status().ToString();
    EXPECT_EQ(ChooseConvolutionLowering(*params, lhs, rhs, root->shape), ConvolutionLowering::kWinograd) << f.attributes;
    RunForm(f, ElementType::kF32, ElementType::kF32, ElementType::kF32, ++seed);
  }
}

// Random floats in [-1, 1) within `growth` times the rounding a direct
// sum of the window's products may make.
void ExpectRandomFloatsWithinRounding(const Form& f, uint64_t seed, int64_t growth) {
  const ElementType t = ElementType::kF32;
  auto module = Parse(ConvText(f, t, t, t));
  const Shape result = ResultShape(f, t, t, t);
  auto abs_module = Parse("HloModule conv\nENTRY %e {\n  %x = " + ShapeText(t, f.lhs) + " parameter(0)\n  %k = " + ShapeText(t, f.rhs) +
                          " parameter(1)\n  %ax = " + ShapeText(t, f.lhs) + " abs(%x)\n  %ak = " + ShapeText(t, f.rhs) +
                          " abs(%k)\n  ROOT %c = " + ShapeText(t, result.dims()) + " convolution(%ax, %ak), " + f.attributes + "\n}\n");
  ASSERT_TRUE(module && abs_module);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Literal x(Shape(t, f.lhs)), k(Shape(t, f.rhs));
  for (int64_t i = 0; i < x.element_count(); ++i) x.Set(i, Scalar::Float(t, u(rng)));
  for (int64_t i = 0; i < k.element_count(); ++i) k.Set(i, Scalar::Float(t, u(rng)));
  auto want = EvaluateModule(*module, {x, k});
  auto scale = EvaluateModule(*abs_module, {x, k});
  auto got = CompileAndRun(*module, {x, k});
  ASSERT_TRUE(want.ok() && scale.ok() && got.ok()) << got.status().ToString();
  int64_t window = f.rhs[f.rhs.size() - 2];  // input features (HWIO)
  for (size_t d = 0; d + 2 < f.rhs.size(); ++d) window *= f.rhs[d];
  ExpectDotClose(*got, *want, *scale, growth * window, t);
}

TEST_F(Convolution, RandomFloatsWithinTheRoundingOfTheirSums) {
  // 3x3 over 32 features: 288 products per element.
  ExpectRandomFloatsWithinRounding(
      {{2, 12, 10, 32}, {3, 3, 32, 16}, "window={size=3x3 stride=2x1 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"}, 11, 1);
}

TEST_F(Convolution, WinogradRandomFloatsWithinItsRounding) {
  // Its transforms scale the terms a product sums by up to 4 (input) times
  // 2.25 (kernel) before the output's 9-term sums: within the direct sum's
  // bound for 36x the contraction.
  ExpectRandomFloatsWithinRounding(
      {{2, 12, 10, 32}, {3, 3, 32, 16}, "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"}, 12, 36);
}

TEST_F(Convolution, BiasAndReluFuseIntoOneKernel) {
  // The window gather, the padding and the epilogue all sit in the
  // matmul kernel: no im2col buffer, one dispatch.
  const std::string text =
      "HloModule conv_relu\nENTRY %e {\n  %x = f32[1,9,9,4] parameter(0)\n  %k = f32[3,3,4,8] parameter(1)\n  %b = f32[8] parameter(2)\n"
      "  %c = f32[1,9,9,8] convolution(%x, %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n"
      "  %bb = f32[1,9,9,8] broadcast(%b), dimensions={3}\n  %s = f32[1,9,9,8] add(%c, %bb)\n"
      "  %z = f32[] constant(0)\n  %zb = f32[1,9,9,8] broadcast(%z), dimensions={}\n"
      "  ROOT %r = f32[1,9,9,8] maximum(%s, %zb)\n}\n";
  auto module = Parse(text);
  ASSERT_TRUE(module);
  std::mt19937_64 rng(12);
  RunAndCompareWith(*module, {SmallIntegers(Shape(ElementType::kF32, {1, 9, 9, 4}), rng),
                              SmallIntegers(Shape(ElementType::kF32, {3, 3, 4, 8}), rng),
                              SmallIntegers(Shape(ElementType::kF32, {8}), rng)},
                    1);
}

std::string RunStablehlo(const std::string& body) {
  auto p = ReadStablehlo("func.func @main() {\n" + body + "}\n", /*with_checks=*/false);
  if (!p.ok()) return p.status().ToString();
  auto got = CompileAndRun(*p->module, {});
  return got.ok() ? got->ValuesToString() : got.status().ToString();
}

const char* kOperands =
    "  %lhs = stablehlo.constant dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>\n"
    "  %rhs = stablehlo.constant dense<[[[[1.0]], [[10.0]]], [[[100.0]], [[1000.0]]]]> : tensor<2x2x1x1xf32>\n";

TEST_F(Convolution, StablehloFormsReachIt) {
  // Padded by one on the high side, the kernel reversed along dim 0.
  const std::string want = "{{{{2154}, {3265}, {306}}, {{5487}, {6598}, {609}}, {{8700}, {9800}, {900}}}}";
  EXPECT_EQ(RunStablehlo(std::string(kOperands) +
                         "  %c = stablehlo.convolution(%lhs, %rhs)\n"
                         "    dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],\n"
                         "    window = {stride = [1, 1], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1],"
                         " reverse = [true, false]}\n"
                         "    {batch_group_count = 1 : i64, feature_group_count = 1 : i64}\n"
                         "    : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32>\n"
                         "  return %c : tensor<1x3x3x1xf32>\n"),
            want);
  EXPECT_EQ(RunStablehlo(std::string(kOperands) +
                         "  %c = \"stablehlo.convolution\"(%lhs, %rhs) {batch_group_count = 1 : i64, "
                         "dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, "
                         "input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, "
                         "kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, "
                         "output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, "
                         "padding = dense<[[0, 1], [0, 1]]> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, "
                         "#stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: true, false>, "
                         "window_strides = array<i64: 1, 1>} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32>\n"
                         "  \"func.return\"(%c) : (tensor<1x3x3x1xf32>) -> ()\n"),
            want);
  // The generic form with labels and a splat padding.
  EXPECT_EQ(RunStablehlo(std::string(kOperands) +
                         "  %c = \"stablehlo.convolution\"(%lhs, %rhs) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->"
                         "[b, 0, 1, f]>, padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 2, 1>, "
                         "feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) "
                         "-> tensor<1x1x2x1xf32>\n  \"func.return\"(%c) : (tensor<1x1x2x1xf32>) -> ()\n"),
            "{{{{5421}, {6532}}}}");
  for (const auto& [body, words] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {std::string(kOperands) + "  %c = stablehlo.convolution(%lhs, %rhs)\n    dim_numbers = [b, 0, 1, f]x[0, 1, i, i]->[b, 0, 1, f],\n"
                                     "    window = {}\n    : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>\n"
                                     "  return %c : tensor<1x2x2x1xf32>\n",
            {"4:", "dim_labels", "b01f_01io->b01f"}},
           {std::string(kOperands) + "  %c = stablehlo.convolution(%lhs, %rhs)\n    dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],\n"
                                     "    window = {stride = [1, 1, 1]}\n    : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>\n"
                                     "  return %c : tensor<1x2x2x1xf32>\n",
            {"4:", "window_strides", "3 values where 2"}},
       }) {
    const std::string got = RunStablehlo(body);
    for (const std::string& w : words) EXPECT_NE(got.find(w), std::string::npos) << w << " not in: " << got;
  }
}

TEST_F(Convolution, TheBuilderReachesIt) {
  XlaBuilder b("builder_conv");
  XlaOp x = b.Parameter(0, Shape(ElementType::kF32, {1, 3, 3, 1}), "x");
  XlaOp k = b.Parameter(1, Shape(ElementType::kF32, {2, 2, 1, 1}), "k");
  Window w = UnitWindow({2, 2});
  w.pad_high = {1, 1};
  w.reversal = {1, 0};
  auto dims = ParseDimLabels("b01f_01io->b01f");
  ASSERT_TRUE(dims.ok());
  XlaOp c = b.ConvGeneralDilated(x, k, w, *dims);
  ASSERT_TRUE(c.valid()) << b.first_error().ToString();
  auto module = b.Build(c);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Literal lx(Shape(ElementType::kF32, {1, 3, 3, 1})), lk(Shape(ElementType::kF32, {2, 2, 1, 1}));
  for (int i = 0; i < 9; ++i) lx.Set(i, Scalar::Float(ElementType::kF32, i + 1));
  for (int i = 0; i < 4; ++i) lk.Set(i, Scalar::Float(ElementType::kF32, i == 0 ? 1 : i == 1 ? 10 : i == 2 ? 100 : 1000));
  auto got = CompileAndRun(**module, {lx, lk});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->ValuesToString(), "{{{{2154}, {3265}, {306}}, {{5487}, {6598}, {609}}, {{8700}, {9800}, {900}}}}");
  // A kernel whose features do not fit: an error that sticks, quoting both shapes.
  XlaBuilder bad("builder_conv_bad");
  x = bad.Parameter(0, Shape(ElementType::kF32, {1, 3, 3, 2}), "x");
  k = bad.Parameter(1, Shape(ElementType::kF32, {2, 2, 3, 1}), "k");
  EXPECT_FALSE(bad.ConvGeneralDilated(x, k, UnitWindow({2, 2}), *dims).valid());
  EXPECT_NE(bad.first_error().message().find("f32[1,3,3,2]"), std::string::npos) << bad.first_error().ToString();
}

TEST_F(Convolution, BadAttributesQuoteTheShapes) {
  const std::string ops = "  %x = f32[1,5,5,4] parameter(0)\n  %k = f32[3,3,4,8] parameter(1)\n";
  ExpectHloError("", ops + "  ROOT %c = f32[1,3,3,8] convolution(%x, %k), window={size=3x3}, dim_labels=b01f_01io->b0ff\n",
                 {"dim_labels=b01f_01io->b0ff", "b01f_01io->b01f"});
  ExpectHloError("", ops + "  ROOT %c = f32[1,3,3,8] convolution(%x, %k), window={size=2x3}, dim_labels=b01f_01io->b01f\n",
                 {"window size 2", "f32[1,5,5,4]", "f32[3,3,4,8]"});
  ExpectHloError("", ops + "  ROOT %c = f32[1,3,3,8] convolution(%x, %k), window={size=3x3}, dim_labels=b01f_01io->b01f,"
                           " feature_group_count=2\n",
                 {"input feature dim", "f32[1,5,5,4]", "f32[3,3,4,8]"});
  ExpectHloError("", ops + "  ROOT %c = f32[1,3,3,8] convolution(%x, %k), window={size=3x3}, dim_labels=b01f_01io->b01f,"
                           " feature_group_count=2, batch_group_count=2\n",
                 {"cannot both exceed 1"});
  ExpectHloError("", ops + "  ROOT %c = f32[1,3,3,8] convolution(%x, %k), window={size=3x3 stride=0x1}, dim_labels=b01f_01io->b01f\n",
                 {"stride or dilation below 1"});
  ExpectHloError("", ops + "  ROOT %c = f32[1,4,4,8] convolution(%x, %k), window={size=3x3}, dim_labels=b01f_01io->b01f\n",
                 {"f32[1,4,4,8]", "f32[1,3,3,8]"});
  ExpectHloError("", ops + "  ROOT %c = f32[1,3,3,8] convolution(%x, %k), window={size=3x3 lhs_dilate=4611686018427387904x1},"
                           " dim_labels=b01f_01io->b01f\n",
                 {"too large", "f32[1,5,5,4]"});
  ExpectHloError("", "  %x = f32[1,5,5,4] parameter(0)\n  %k = s32[3,3,4,8] parameter(1)\n"
                     "  ROOT %c = f32[1,3,3,8] convolution(%x, %k), window={size=3x3}, dim_labels=b01f_01io->b01f\n",
                 {"f32[1,5,5,4]", "s32[3,3,4,8]", "integers, floats"});
  ExpectHloError("", "  %x = f32[1,5,5,4] parameter(0)\n  %k = f32[3,4,8] parameter(1)\n"
                     "  ROOT %c = f32[1,3,3,8] convolution(%x, %k), window={size=3x3}, dim_labels=b01f_01io->b01f\n",
                 {"one rank", "f32[3,4,8]"});
}

}  // namespace
}  // namespace vkxla
