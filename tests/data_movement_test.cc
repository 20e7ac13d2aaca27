// Reshape, transpose, reverse, slice, concatenate and pad: the spec's
// examples, every element type in several layouts against the reference
// evaluator (each fuses into one kernel as an index map), and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "frontends/hlo_text.h"
#include "frontends/xla_builder.h"
#include "ops/evaluator.h"
#include "plan/planner.h"
#include "runtime/executable.h"
#include "tests/dot_test_util.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class DataMovement : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

const char* kMatrix = "  %a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n";

TEST_F(DataMovement, SpecExamples) {
  EXPECT_EQ(RunHloText("", std::string(kMatrix) + "  ROOT %t = f32[3,2] transpose(%a), dimensions={1,0}\n"), "{{1, 4}, {2, 5}, {3, 6}}");
  EXPECT_EQ(RunHloText("", std::string(kMatrix) + "  ROOT %r = f32[3,2] reshape(%a)\n"), "{{1, 2}, {3, 4}, {5, 6}}");
  EXPECT_EQ(RunHloText("", std::string(kMatrix) + "  ROOT %r = f32[6] reshape(%a)\n"), "{1, 2, 3, 4, 5, 6}");
  EXPECT_EQ(RunHloText("", std::string(kMatrix) + "  ROOT %r = f32[2,3] reverse(%a), dimensions={0,1}\n"), "{{6, 5, 4}, {3, 2, 1}}");
  // Slice: {0,1,2,3,4}[2:4] = {2,3}; the 4x3 matrix's rows 2..3, columns 1..2.
  EXPECT_EQ(RunHloText("", "  %v = s32[5] constant({0, 1, 2, 3, 4})\n  ROOT %s = s32[2] slice(%v), slice={[2:4]}\n"), "{2, 3}");
  EXPECT_EQ(RunHloText("", "  %v = s32[5] constant({0, 1, 2, 3, 4})\n  ROOT %s = s32[3] slice(%v), slice={[0:5:2]}\n"), "{0, 2, 4}");
  EXPECT_EQ(RunHloText("", "  %b = s32[4,3] constant({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}})\n"
                "  ROOT %s = s32[2,2] slice(%b), slice={[2:4], [1:3]}\n"),
            "{{7, 8}, {10, 11}}");
  // ConcatInDim: {2,3} ++ {4,5} ++ {6,7}; matrices along 0 and 1.
  EXPECT_EQ(RunHloText("", "  %x = s32[2] constant({2, 3})\n  %y = s32[2] constant({4, 5})\n  %z = s32[2] constant({6, 7})\n"
                "  ROOT %c = s32[6] concatenate(%x, %y, %z), dimensions={0}\n"),
            "{2, 3, 4, 5, 6, 7}");
  EXPECT_EQ(RunHloText("", std::string(kMatrix) + "  %b = f32[1,3] constant({{7, 8, 9}})\n  ROOT %c = f32[3,3] concatenate(%a, %b), dimensions={0}\n"),
            "{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}");
  EXPECT_EQ(RunHloText("", std::string(kMatrix) + "  %b = f32[2,1] constant({{7}, {8}})\n  ROOT %c = f32[2,4] concatenate(%a, %b), dimensions={1}\n"),
            "{{1, 2, 3, 7}, {4, 5, 6, 8}}");
  // Pad: interior before edges; negative edges crop.
  EXPECT_EQ(RunHloText("", "  %v = f32[3] constant({1, 2, 3})\n  %z = f32[] constant(0)\n"
                "  ROOT %p = f32[8] pad(%v, %z), padding=1_2_1\n"),
            "{0, 1, 0, 2, 0, 3, 0, 0}");
  EXPECT_EQ(RunHloText("", "  %v = f32[3] constant({1, 2, 3})\n  %z = f32[] constant(-1)\n"
                "  ROOT %p = f32[4] pad(%v, %z), padding=-1_0_1\n"),
            "{-1, 2, -1, 3}");
  EXPECT_EQ(RunHloText("", std::string(kMatrix) + "  %z = f32[] constant(0)\n  ROOT %p = f32[3,4] pad(%a, %z), padding=0_1x1_0\n"),
            "{{0, 1, 2, 3}, {0, 4, 5, 6}, {0, 0, 0, 0}}");
}

// Every op over every element type, operands and results in row-major,
// column-major and tiled layouts.
TEST_F(DataMovement, EveryTypeAndLayoutMatchesReference) {
  const std::string layouts3[] = {"{2,1,0}", "{0,1,2}", "{1,2,0:T(2,4)}"};
  int trial = 0;
  for (ElementType t : kAllTypes) {
    const std::string ty(ElementTypeName(t));
    for (int l = 0; l < 3; ++l) {
      const std::string in = layouts3[l], out = layouts3[(l + 1) % 3];
      const std::string x = ty + "[4,6,8]" + in;
      const std::string text =
          "HloModule moves_" + ty + "_" + std::to_string(l) + "\nENTRY %e {\n"
          "  %x = " + x + " parameter(0)\n"
          "  %y = " + ty + "[4,6,3]" + out + " parameter(1)\n"
          "  %v = " + ty + "[] parameter(2)\n"
          "  %t = " + ty + "[8,4,6] transpose(%x), dimensions={2,0,1}\n"
          "  %r = " + ty + "[8,4,6] reverse(%t), dimensions={0,2}\n"
          "  %s = " + ty + "[3,4,3] slice(%r), slice={[1:8:3], [0:4], [1:6:2]}\n"
          "  %q = " + ty + "[4,3,3] reshape(%s)\n"
          "  %w = " + ty + "[4,6,3] pad(%q, %v), padding=0_0x1_0_1x-1_1\n"
          "  %c = " + ty + "[4,6,6] concatenate(%w, %y), dimensions={2}\n"
          "  ROOT %o = " + ty + "[4,6,6]" + out + " copy(%c)\n}\n";
      SCOPED_TRACE(text);
      auto m = ParseAndVerifyHlo(text);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      RunAndCompare(**m, ++trial, 1);
    }
  }
}

// A fused reshape maps indices group by group: dims split into runs of
// equal element counts on both sides, a run of one dim each (unit dims
// aside) passes its index straight, the others go through a linear index.
// Unit dims moved, added and dropped, splits, merges, and runs that
// cross, in every type and two layouts.
TEST_F(DataMovement, ReshapesMapIndicesGroupByGroup) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"[3,3,32,1]", "[3,3,1,32]"}, {"[6,5]", "[2,3,5]"}, {"[2,3,5]", "[6,5]"}, {"[1,6]", "[6,1]"},
      {"[2,1,3]", "[3,2]"},         {"[4,1,1,5]", "[2,2,5]"}, {"[1,1]", "[]"},   {"[4,6]", "[3,8]"},
  };
  int trial = 100;
  for (ElementType t : {ElementType::kF32, ElementType::kBF16, ElementType::kS8, ElementType::kS64})
    for (const auto& [from, to] : pairs)
      for (const char* column_major : {"", "x"}) {
        const std::string ty(ElementTypeName(t));
        // The operand laid out otherwise too, where it has two dims or more.
        std::string layout;
        if (*column_major && from.find(',') != std::string::npos) {
          const int64_t rank = static_cast<int64_t>(std::count(from.begin(), from.end(), ',')) + 1;
          for (int64_t d = 0; d < rank; ++d) layout += (d ? "," : "{") + std::to_string(d);
          layout += "}";
        }
        const std::string text = "HloModule reshape_groups\nENTRY %e {\n  %x = " + ty + from + layout + " parameter(0)\n"
                                 "  %r = " + ty + to + " reshape(%x)\n  ROOT %n = " + ty + to + " multiply(%r, %r)\n}\n";
        SCOPED_TRACE(text);
        auto m = ParseAndVerifyHlo(text);
        ASSERT_TRUE(m.ok()) << m.status().ToString();
        RunAndCompare(**m, ++trial, 1);
      }
  // Moving a unit dim divides nothing: the operand's index is the result's
  // (the kernel still splits its own element index into the result's).
  auto m = ParseAndVerifyHlo("HloModule unit\nENTRY %e {\n  %x = f32[3,3,32,1] parameter(0)\n"
                             "  %r = f32[3,3,1,32] reshape(%x)\n  ROOT %n = f32[3,3,1,32] negate(%r)\n}\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto exe = Executable::Compile(**m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  const std::regex linear_split(R"(\(v[0-9]+ / 96u\))");
  for (const std::string& src : (*exe)->kernel_sources()) EXPECT_FALSE(std::regex_search(src, linear_split)) << src;
}

// A transpose (alone, or under elementwise ops, or of a column-major
// operand) runs as 4x4 register-blocked transposes; dims that are multiples
// of 64 take the tiled invocation order.
TEST_F(DataMovement, TransposeRunsInRegisterBlocks) {
  for (const char* shape : {"[64,128]", "[12,8]"}) {
    const std::string in = std::string(shape) == "[64,128]" ? "f32[128,64]" : "f32[8,12]";
    const std::string out = std::string("f32") + shape;
    const std::string text = "HloModule transpose_blocks\nENTRY %e {\n  %x = " + in + "{1,0} parameter(0)\n"
                             "  %y = " + out + "{0,1} parameter(1)\n"
                             "  %t = " + out + " transpose(%x), dimensions={1,0}\n"
                             "  %n = " + out + " negate(%t)\n"
                             "  ROOT %r = " + out + "{1,0} add(%n, %y)\n}\n";
    SCOPED_TRACE(text);
    auto m = ParseAndVerifyHlo(text);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    auto exe = Executable::Compile(**m, TestDevice());
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    EXPECT_NE((*exe)->kernel_sources()[0].find("block4x4"), std::string::npos);
    RunAndCompare(**m, 21, 1);
  }
}

// A concatenate whose output vectors each lie in one operand reads every
// operand's vector once per invocation (at the clamped index) and picks
// one: joined along the outer dim, along the unit-stride dim at multiples
// of 4, with an empty operand, an operand behind a fused slice, and a
// column-major output whose unit-stride dim is the joined one. Joins at odd
// offsets along the unit-stride dim, and operands computed by elementwise
// ops, keep the element reads.
TEST_F(DataMovement, ConcatenateReadsWholeVectors) {
  struct Case {
    std::string operands, result;
    bool vectors;  // every operand a buffer or index maps of one
  };
  const std::vector<Case> cases = {
      {"%a = T[5,8]{1,0} parameter(0)\n  %b = T[3,8]{1,0} parameter(1)\n  %z = T[0,8]{1,0} parameter(2)\n"
       "  %x = T[9,8]{1,0} parameter(3)\n  %n = T[4,8] slice(%x), slice={[2:6], [0:8]}\n",
       "T[12,8]{1,0} concatenate(%a, %z, %b, %n), dimensions={0}", true},
      {"%a = T[3,8]{1,0} parameter(0)\n  %b = T[3,4]{1,0} parameter(1)\n  %z = T[3,0]{1,0} parameter(2)\n"
       "  %n = T[3,4]{1,0} parameter(3)\n",
       "T[3,16]{1,0} concatenate(%a, %z, %b, %n), dimensions={1}", true},
      {"%a = T[4,3]{0,1} parameter(0)\n  %b = T[8,3]{0,1} parameter(1)\n  %z = T[0,3]{0,1} parameter(2)\n"
       "  %n = T[4,3]{0,1} parameter(3)\n",
       "T[16,3]{0,1} concatenate(%a, %z, %b, %n), dimensions={0}", true},
      {"%a = T[3,5]{1,0} parameter(0)\n  %b = T[3,3]{1,0} parameter(1)\n  %z = T[3,0]{1,0} parameter(2)\n"
       "  %n = T[3,4]{1,0} parameter(3)\n",
       "T[3,12]{1,0} concatenate(%a, %z, %b, %n), dimensions={1}", false},
      {"%a = T[5,8]{1,0} parameter(0)\n  %b = T[3,8]{1,0} parameter(1)\n  %z = T[0,8]{1,0} parameter(2)\n"
       "  %x = T[4,8]{1,0} parameter(3)\n  %n = T[4,8] negate(%x)\n",
       "T[12,8]{1,0} concatenate(%a, %z, %b, %n), dimensions={0}", false},
  };
  int trial = 0;
  for (const char* t : {"f32", "s32", "u8", "f64"}) {
    for (const Case& c : cases) {
      std::string text = "HloModule cat\nENTRY %e {\n  " + c.operands + "  ROOT %c = " + c.result + "\n}\n";
      for (size_t at; (at = text.find("T[")) != std::string::npos;) text.replace(at, 1, t);
      SCOPED_TRACE(text);
      auto m = ParseAndVerifyHlo(text);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      auto exe = Executable::Compile(**m, TestDevice());
      ASSERT_TRUE(exe.ok()) << exe.status().ToString();
      // A uvec4 holds 4 of the 32-bit elements and 2 of the doubles; the
      // bytes' 16 span more than these rows.
      const bool vectors = c.vectors && std::string(t) != "u8";
      EXPECT_EQ((*exe)->kernel_sources()[0].find("hoisted") != std::string::npos, vectors);
      RunAndCompare(**m, ++trial, 1);
    }
  }
}

// A stencil (shifted windows of one padded array, a broadcast weight,
// elementwise ops between) reads each window's vectors through the pad
// and the slices once per invocation, and invocations take strips of
// vectors along the second-minor dim that share the vectors their windows
// overlap in (LoopConfig::strip). A pad over a slice (padding where the
// array has elements) shares nothing with them. Strips of 16, 2 and none.
TEST_F(DataMovement, StencilsShareTheirWindowsVectors) {
  // On lavapipe, strips along the width (16, 4, 2, 1 vectors; half as
  // many where pairs of vectors are stored) and down the height (4, 2, 1
  // rows) share their windows, weights broadcast along both, and a value
  // broadcast along the width only (shared by a row).
  struct Case {
    int64_t h, w;
    int columns, rows;
    int pair_columns, pair_rows;  // where pairs are stored (64-bit integers)
  };
  for (const char* t : {"f32", "s32", "f16"}) {
    for (const Case& c : {Case{8, 16, 4, 4, 4, 2}, Case{6, 6, 2, 2, 2, 2}, Case{6, 7, 1, 1, 1, 1}, Case{5, 16, 16, 1, 8, 1}}) {
      if (std::string(t) != "f32" && c.w == 16) continue;  // the wide strips' code is the same for every type; compiling it is not cheap
      const std::string hs = std::to_string(c.h), ws = std::to_string(c.w), x = std::string(t) + "[2," + hs + "," + ws + ",8]";
      const std::string padded = std::string(t) + "[2," + std::to_string(c.h + 2) + "," + std::to_string(c.w + 2) + ",8]";
      auto window = [&](const std::string& name, int h0, int w0) {
        return "  %" + name + " = " + x + " slice(%p), slice={[0:2], [" + std::to_string(h0) + ":" + std::to_string(h0 + c.h) +
               "], [" + std::to_string(w0) + ":" + std::to_string(w0 + c.w) + "], [0:8]}\n";
      };
      const std::string text =
          "HloModule stencil\nENTRY %e {\n  %x = " + x + " parameter(0)\n  %b = " + t + "[8] parameter(1)\n  %q = " + t + "[" +
          hs + ",8] parameter(2)\n  %v = " + t + "[] constant(3)\n  %p = " + padded +
          " pad(%x, %v), padding=0_0x1_1x1_1x0_0\n" + window("s00", 0, 0) + window("s01", 0, 1) + window("s02", 0, 2) +
          window("s11", 1, 1) + window("s21", 2, 1) + "  %c = " + t + "[2," + hs + "," + std::to_string(c.w - 1) +
          ",8] slice(%x), slice={[0:2], [0:" + hs + "], [1:" + ws + "], [0:8]}\n  %pc = " + x +
          " pad(%c, %v), padding=0_0x0_0x0_1x0_0\n  %bb = " + x + " broadcast(%b), dimensions={3}\n  %qb = " + x +
          " broadcast(%q), dimensions={1,3}\n  %m0 = " + x + " multiply(%s00, %bb)\n  %a0 = " + x +
          " add(%m0, %s01)\n  %m2 = " + x + " multiply(%s02, %bb)\n  %a1 = " + x + " add(%a0, %m2)\n  %a2 = " + x +
          " subtract(%a1, %s11)\n  %m3 = " + x + " multiply(%s21, %qb)\n  %a3 = " + x + " add(%a2, %m3)\n  ROOT %r = " + x +
          " add(%a3, %pc)\n}\n";
      SCOPED_TRACE(text);
      auto m = ParseAndVerifyHlo(text);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      if (TestDevice().target().cpu && std::string(t) == "f32") {
        auto program = PlanModule(**m, TestDevice().target());
        ASSERT_TRUE(program.ok()) << program.status().ToString();
        ASSERT_EQ(program->groups.size(), 1u);
        const bool pairs = TestDevice().target().int64;
        EXPECT_EQ(std::get<LoopConfig>(program->groups[0].config).strip, pairs ? c.pair_columns : c.columns);
        EXPECT_EQ(std::get<LoopConfig>(program->groups[0].config).strip_rows, pairs ? c.pair_rows : c.rows);
      }
      // Small integers: exact however the driver contracts a multiply and an add.
      std::mt19937_64 rng(31 + c.w);
      const ElementType et = (*m)->entry()->parameters()[0]->shape.element_type();
      RunAndCompareWith(**m,
                        {SmallIntegers(Shape(et, {2, c.h, c.w, 8}), rng), SmallIntegers(Shape(et, {8}), rng),
                         SmallIntegers(Shape(et, {c.h, 8}), rng)},
                        1);
    }
  }
}

// The page's Collapse example. Its text labels the {0,1} result f32[4x6]
// and the {1,2} one f32[8x3]; the definition above it (and XLA's builder)
// put the merged dimension where the collapsed ones were, which gives the
// opposite, so the definition is what is checked.
TEST_F(DataMovement, CollapseSpecExample) {
  Literal v(Shape(ElementType::kF32, {4, 2, 3}));
  for (int64_t i = 0; i < 24; ++i) {
    const std::vector<int64_t> at = MultiIndex({4, 2, 3}, i);
    v.Set(i, Scalar::Float(ElementType::kF32, 10 * (at[0] + 1) + 5 * at[1] + at[2]));
  }
  auto run = [&](const std::vector<int64_t>& dims) {
    XlaBuilder b("collapse");
    XlaOp c = b.Collapse(b.ConstantLiteral(v), dims);
    auto m = b.Build(c);
    if (!m.ok()) return m.status().ToString();
    auto r = CompileAndRun(**m, {});
    return r.ok() ? r->shape().ToString(false) + " " + r->ValuesToString() : r.status().ToString();
  };
  EXPECT_EQ(run({0, 1, 2}), "f32[24] {10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47}");
  EXPECT_EQ(run({1, 2}), "f32[4,6] {{10, 11, 12, 15, 16, 17}, {20, 21, 22, 25, 26, 27}, {30, 31, 32, 35, 36, 37}, {40, 41, 42, 45, 46, 47}}");
  EXPECT_EQ(run({0, 1}), "f32[8,3] {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, {25, 26, 27}, {30, 31, 32}, {35, 36, 37}, {40, 41, 42}, {45, 46, 47}}");
  XlaBuilder bad("collapse_bad");
  bad.Collapse(bad.ConstantLiteral(v), {0, 2});
  EXPECT_NE(bad.first_error().message().find("consecutive"), std::string::npos) << bad.first_error().message();
  EXPECT_NE(bad.first_error().message().find("f32[4,2,3]"), std::string::npos) << bad.first_error().message();
}

TEST_F(DataMovement, BuilderBuildsTheSameOps) {
  XlaBuilder b("builder_moves");
  XlaOp x = b.Parameter(0, Shape(ElementType::kS32, {2, 3}), "x");
  XlaOp zero = b.ConstantLiteral(Literal::ScalarOf(Scalar::Int(ElementType::kS32, 0)));
  XlaOp t = b.Transpose(x, {1, 0});                       // [3,2]
  XlaOp r = b.Rev(t, {0});                                 // rows reversed
  XlaOp s = b.Slice(r, {0, 0}, {3, 2}, {2, 1});            // rows 0 and 2
  XlaOp p = b.Pad(s, zero, {{0, 1, 0}, {1, 0, 0}});        // [3,3]
  XlaOp c = b.ConcatInDim({p, b.Reshape(x, {2, 3})}, 0);  // [5,3]
  auto m = b.Build(c);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Literal in(Shape(ElementType::kS32, {2, 3}));
  for (int i = 0; i < 6; ++i) in.Set(i, Scalar::Int(ElementType::kS32, i + 1));
  auto got = CompileAndRun(**m, {in});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  // x^T = {{1,4},{2,5},{3,6}}; reversed rows {{3,6},{2,5},{1,4}}; rows 0,2.
  EXPECT_EQ(got->ValuesToString(), "{{0, 3, 6}, {0, 1, 4}, {0, 0, 0}, {1, 2, 3}, {4, 5, 6}}");
}

// Moving values keeps every bit, NaN payloads and signaling NaNs
// included, as XLA's copies do: narrow floats are decoded to f32 and
// stored again, and that round trip must be exact. Every 8-bit pattern of
// each 8-bit float, and NaNs of every payload kind for f16 and bf16,
// through transpose, reverse, slice, pad and concatenate, seen as
// integers against the reference (which moves bytes).
TEST_F(DataMovement, NarrowFloatNansKeepTheirBits) {
  struct Case {
    ElementType type, bits;
    std::vector<uint64_t> values;
  };
  std::vector<uint64_t> all8(256);
  for (uint64_t i = 0; i < 256; ++i) all8[i] = i;
  std::vector<Case> cases = {
      {ElementType::kF16, ElementType::kU16,
       {0x7C01, 0x7DFF, 0x7E00, 0x7FFF, 0xFC01, 0xFE55, 0x7D00, 0x7C00, 0xFC00, 0x8000, 0x0001, 0x3C00, 0x03FF, 0x7BFF, 0xFF80, 0x7C80}},
      {ElementType::kBF16, ElementType::kU16,
       {0x7F81, 0x7FBF, 0x7FC0, 0x7FFF, 0xFF81, 0xFFD5, 0x7FA0, 0x7F80, 0xFF80, 0x8000, 0x0001, 0x3F80, 0x007F, 0x7F7F, 0xFFC1, 0x7F88}},
  };
  for (ElementType t : {ElementType::kF8E5M2, ElementType::kF8E4M3, ElementType::kF8E3M4, ElementType::kF8E4M3FN,
                        ElementType::kF8E4M3FNUZ, ElementType::kF8E5M2FNUZ, ElementType::kF8E4M3B11FNUZ})
    cases.push_back({t, ElementType::kU8, all8});
  for (const Case& c : cases) {
    const std::string u = std::string(ElementTypeName(c.bits)), f = std::string(ElementTypeName(c.type));
    const int64_t n = static_cast<int64_t>(c.values.size()), rows = n / 16;
    const std::string dims = std::to_string(rows) + ",16", tdims = "16," + std::to_string(rows);
    SCOPED_TRACE(f);
    auto m = ParseAndVerifyHlo("HloModule m\nENTRY e {\n  x = " + u + "[" + dims + "] parameter(0)\n"
                               "  v = " + f + "[" + dims + "] bitcast-convert(x)\n"
                               "  t = " + f + "[" + tdims + "] transpose(v), dimensions={1,0}\n"
                               "  r = " + f + "[" + tdims + "] reverse(t), dimensions={0}\n"
                               "  s = " + f + "[15," + std::to_string(rows) + "] slice(r), slice={[1:16], [0:" + std::to_string(rows) + "]}\n"
                               "  z = " + f + "[] constant(0)\n"
                               "  p = " + f + "[16," + std::to_string(rows + 1) + "] pad(s, z), padding=0_1x1_0\n"
                               "  c = " + f + "[32," + std::to_string(rows + 1) + "] concatenate(p, p), dimensions={0}\n"
                               "  ROOT b = " + u + "[32," + std::to_string(rows + 1) + "] bitcast-convert(c)\n}\n");
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    Literal x(Shape(c.bits, {rows, 16}));
    for (int64_t i = 0; i < n; ++i) x.Set(i, Scalar::UInt(c.bits, c.values[i]));
    auto want = EvaluateModule(**m, {x});
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto got = CompileAndRun(**m, {x});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->ValuesToString(), want->ValuesToString());
    // The moved values themselves: row 0 of the input, reversed, in column 1.
    for (int64_t k = 0; k < 15; ++k) EXPECT_EQ(got->Get(k * (rows + 1) + 1).u, c.values[14 - k]) << "row " << k;
  }
}

TEST(DataMovementErrors, QuoteTheShapes) {
  const std::string x = "  %x = f32[2,3] parameter(0)\n";
  ExpectHloError("", x + "  ROOT %r = f32[4] reshape(%x)\n", {"reshape", "f32[2,3]", "f32[4]", "6 elements"});
  ExpectHloError("", x + "  ROOT %t = f32[3,2] transpose(%x), dimensions={0,0}\n", {"transpose", "f32[2,3]"});
  ExpectHloError("", x + "  ROOT %t = f32[3] transpose(%x), dimensions={1}\n", {"not a permutation"});
  ExpectHloError("", x + "  ROOT %s = f32[2,2] slice(%x), slice={[0:2], [1:4]}\n", {"slice", "out of bounds", "f32[2,3]"});
  ExpectHloError("", x + "  ROOT %s = f32[2] slice(%x), slice={[0:2]}\n", {"1 ranges", "rank 2"});
  ExpectHloError("", x + "  %y = f32[3,3] parameter(1)\n  ROOT %c = f32[5,3] concatenate(%x, %y), dimensions={1}\n",
              {"concatenate", "f32[3,3]", "f32[2,3]"});
  ExpectHloError("", x + "  %z = f32[] parameter(1)\n  ROOT %p = f32[2,3] pad(%x, %z), padding=0_0x0_0_-1\n",
              {"interior padding -1", "negative"});
  ExpectHloError("", x + "  %z = s32[] parameter(1)\n  ROOT %p = f32[2,3] pad(%x, %z), padding=0_0x0_0\n", {"padding value", "s32[]"});
  ExpectHloError("", x + "  %z = f32[] parameter(1)\n  ROOT %p = f32[2,3] pad(%x, %z), padding=0_0\n", {"padding has 1 dimensions"});
}

}  // namespace
}  // namespace vkxla
