// Dynamic-slice, dynamic-update-slice, gather and scatter: the spec's
// examples, every element type in several layouts against the reference
// evaluator (start indices in and out of bounds), scatter with colliding
// indices and computations that are not commutative or return tuples,
// the builder, and bad input.
#include <gtest/gtest.h>

#include "frontends/hlo_text.h"
#include "frontends/xla_builder.h"
#include "runtime/executable.h"
#include "plan/scatter_config.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class Indexing : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

std::string Combiner(const std::string& name, const std::string& type, const std::string& op) {
  return "%" + name + " (a: " + type + "[], b: " + type + "[]) -> " + type + "[] {\n  %a = " + type +
         "[] parameter(0)\n  %b = " + type + "[] parameter(1)\n  ROOT %r = " + type + "[] " + op + "\n}\n";
}

const char* kMatrix4x3 = "  %b = f32[4,3] constant({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}})\n";

TEST_F(Indexing, DynamicSliceSpecExamples) {
  EXPECT_EQ(RunHloText("", "  %a = f32[5] constant({0, 1, 2, 3, 4})\n  %s = s32[] constant(2)\n"
                        "  ROOT %r = f32[2] dynamic-slice(%a, %s), dynamic_slice_sizes={2}\n"),
            "{2, 3}");
  EXPECT_EQ(RunHloText("", std::string(kMatrix4x3) + "  %s0 = s32[] constant(2)\n  %s1 = s32[] constant(1)\n"
                        "  ROOT %r = f32[2,2] dynamic-slice(%b, %s0, %s1), dynamic_slice_sizes={2,2}\n"),
            "{{7, 8}, {10, 11}}");
  // Start indices are clamped so the slice fits: 7 -> 3, -4 -> 0.
  const std::string wide = "s64";
  EXPECT_EQ(RunHloText("", "  %a = f32[5] constant({0, 1, 2, 3, 4})\n  %s = " + wide + "[] constant(7)\n"
                        "  ROOT %r = f32[2] dynamic-slice(%a, %s), dynamic_slice_sizes={2}\n"),
            "{3, 4}");
  EXPECT_EQ(RunHloText("", "  %a = f32[5] constant({0, 1, 2, 3, 4})\n  %s = s8[] constant(-4)\n"
                        "  ROOT %r = f32[2] dynamic-slice(%a, %s), dynamic_slice_sizes={2}\n"),
            "{0, 1}");
  EXPECT_EQ(RunHloText("", "  %a = f32[5] constant({0, 1, 2, 3, 4})\n  %s = u32[] constant(4294967295)\n"
                        "  ROOT %r = f32[2] dynamic-slice(%a, %s), dynamic_slice_sizes={2}\n"),
            "{3, 4}");
}

TEST_F(Indexing, DynamicUpdateSliceSpecExamples) {
  EXPECT_EQ(RunHloText("", "  %a = f32[5] constant({0, 1, 2, 3, 4})\n  %u = f32[2] constant({5, 6})\n  %s = s32[] constant(2)\n"
                        "  ROOT %r = f32[5] dynamic-update-slice(%a, %u, %s)\n"),
            "{0, 1, 5, 6, 4}");
  EXPECT_EQ(RunHloText("", std::string(kMatrix4x3) +
                            "  %u = f32[3,2] constant({{12, 13}, {14, 15}, {16, 17}})\n"
                            "  %s = s32[] constant(1)\n  ROOT %r = f32[4,3] dynamic-update-slice(%b, %u, %s, %s)\n"),
            "{{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, {9, 16, 17}}");
  // Clamped: a start of 9 places the update at the end.
  EXPECT_EQ(RunHloText("", "  %a = f32[5] constant({0, 1, 2, 3, 4})\n  %u = f32[2] constant({5, 6})\n  %s = s32[] constant(9)\n"
                        "  ROOT %r = f32[5] dynamic-update-slice(%a, %u, %s)\n"),
            "{0, 1, 2, 5, 6}");
}

const char* kOperand2x3x4x2 =
    "  %operand = s32[2,3,4,2] constant({{{{1, 2}, {3, 4}, {5, 6}, {7, 8}}, {{9, 10}, {11, 12}, {13, 14}, {15, 16}},"
    " {{17, 18}, {19, 20}, {21, 22}, {23, 24}}}, {{{25, 26}, {27, 28}, {29, 30}, {31, 32}},"
    " {{33, 34}, {35, 36}, {37, 38}, {39, 40}}, {{41, 42}, {43, 44}, {45, 46}, {47, 48}}}})\n"
    "  %idx = s32[2,2,3,2] constant({{{{0, 0}, {1, 0}, {2, 1}}, {{0, 1}, {1, 1}, {0, 9}}},"
    " {{{0, 0}, {2, 1}, {2, 2}}, {{1, 2}, {0, 1}, {1, 0}}}})\n";

// StableHLO's gather example: batching dims, a collapsed dim, a start
// index map that permutes, and an index (9) that must be clamped.
TEST_F(Indexing, GatherSpecExample) {
  EXPECT_EQ(RunHloText("", std::string(kOperand2x3x4x2) +
                            "  ROOT %g = s32[2,2,3,2,2] gather(%operand, %idx), offset_dims={3,4}, collapsed_slice_dims={1},"
                            " operand_batching_dims={0}, start_indices_batching_dims={1}, start_index_map={2,1},"
                            " index_vector_dim=3, slice_sizes={1,1,2,2}\n"),
            "{{{{{1, 2}, {3, 4}}, {{3, 4}, {5, 6}}, {{13, 14}, {15, 16}}}, {{{33, 34}, {35, 36}}, {{35, 36}, {37, 38}}, "
            "{{41, 42}, {43, 44}}}}, {{{{1, 2}, {3, 4}}, {{13, 14}, {15, 16}}, {{21, 22}, {23, 24}}}, {{{43, 44}, {45, 46}}, "
            "{{33, 34}, {35, 36}}, {{27, 28}, {29, 30}}}}}");
}

// The page's informal cases: rows picked by index (tf.gather), and
// tf.gather_nd with index_vector_dim past the last dim.
TEST_F(Indexing, GatherRowsAndGatherNd) {
  const std::string m = "  %m = f32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})\n";
  EXPECT_EQ(RunHloText("", m + "  %i = s32[2] constant({0, 2})\n"
                            "  ROOT %g = f32[2,3] gather(%m, %i), offset_dims={1}, collapsed_slice_dims={0},"
                            " start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}\n"),
            "{{1, 2, 3}, {7, 8, 9}}");
  EXPECT_EQ(RunHloText("", m + "  %i = s32[2,2] constant({{0, 2}, {2, 1}})\n"
                            "  ROOT %g = f32[2] gather(%m, %i), offset_dims={}, collapsed_slice_dims={0,1},"
                            " start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,1}\n"),
            "{3, 8}");
  // Columns: the index vector is implicit (index_vector_dim = rank).
  EXPECT_EQ(RunHloText("", m + "  %i = u8[2] constant({2, 0})\n"
                            "  ROOT %g = f32[3,2] gather(%m, %i), offset_dims={0}, collapsed_slice_dims={1},"
                            " start_index_map={1}, index_vector_dim=1, slice_sizes={3,1}\n"),
            "{{3, 1}, {6, 4}, {9, 7}}");
}

// StableHLO's scatter example (in s32): the window at [0, 9] falls outside
// and is skipped.
TEST_F(Indexing, ScatterSpecExample) {
  EXPECT_EQ(RunHloText(Combiner("add", "s32", "add(%a, %b)"),
                    std::string(kOperand2x3x4x2) + "  %one = s32[] constant(1)\n"
                    "  %upd = s32[2,2,3,2,2] broadcast(%one), dimensions={}\n"
                    "  ROOT %s = s32[2,3,4,2] scatter(%operand, %idx, %upd), update_window_dims={3,4}, inserted_window_dims={1},"
                    " input_batching_dims={0}, scatter_indices_batching_dims={1}, scatter_dims_to_operand_dims={2,1},"
                    " index_vector_dim=3, to_apply=%add\n"),
            "{{{{3, 4}, {6, 7}, {6, 7}, {7, 8}}, {{9, 10}, {11, 12}, {15, 16}, {17, 18}}, {{17, 18}, {19, 20}, {22, 23}, {24, 25}}}, "
            "{{{25, 26}, {28, 29}, {30, 31}, {31, 32}}, {{35, 36}, {38, 39}, {38, 39}, {39, 40}}, {{41, 42}, {44, 45}, {46, 47}, {47, 48}}}}");
}

// A window that sticks out by one element is skipped whole (XLA), not
// applied to the part that fits.
TEST_F(Indexing, ScatterSkipsWindowsThatDoNotFit) {
  EXPECT_EQ(RunHloText(Combiner("add", "f32", "add(%a, %b)"),
                    "  %x = f32[5] constant({0, 0, 0, 0, 0})\n  %i = s32[3,1] constant({{0}, {4}, {-1}})\n"
                    "  %u = f32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})\n"
                    "  ROOT %s = f32[5] scatter(%x, %i, %u), update_window_dims={1}, inserted_window_dims={},"
                    " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add\n"),
            "{1, 2, 0, 0, 0}");
}

// Colliding indices with a computation that is neither commutative nor
// associative: 2a + b, applied in update order, matches the reference.
TEST_F(Indexing, ScatterCollisionsWithAnyComputation) {
  const std::string comb =
      "%twice_plus (a: s32[], b: s32[]) -> s32[] {\n  %a = s32[] parameter(0)\n  %b = s32[] parameter(1)\n"
      "  %two = s32[] constant(2)\n  %t = s32[] multiply(%a, %two)\n  ROOT %r = s32[] add(%t, %b)\n}\n";
  // Element 1: ((1*2+10)*2+20)*2+30 = 118; element 3: 3*2+40 = 46.
  EXPECT_EQ(RunHloText(comb, "  %x = s32[4] constant({0, 1, 2, 3})\n  %i = s32[4] constant({1, 1, 3, 1})\n"
                          "  %u = s32[4] constant({10, 20, 40, 30})\n"
                          "  ROOT %s = s32[4] scatter(%x, %i, %u), update_window_dims={}, inserted_window_dims={0},"
                          " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%twice_plus\n"),
            "{0, 118, 2, 46}");
}

// Variadic scatter with a tuple-returning computation: keep the larger
// value and its tag (an arg-max), ties keeping the earlier one.
TEST_F(Indexing, VariadicScatterArgMax) {
  const std::string comb =
      "%argmax (a: f32[], i: s32[], b: f32[], j: s32[]) -> (f32[], s32[]) {\n"
      "  %a = f32[] parameter(0)\n  %i = s32[] parameter(1)\n  %b = f32[] parameter(2)\n  %j = s32[] parameter(3)\n"
      "  %keep = pred[] compare(%a, %b), direction=GE\n  %v = f32[] select(%keep, %a, %b)\n"
      "  %k = s32[] select(%keep, %i, %j)\n  ROOT %r = (f32[], s32[]) tuple(%v, %k)\n}\n";
  const std::string body =
      "  %x = f32[3] constant({0, 0, 0})\n  %t = s32[3] constant({-1, -1, -1})\n  %i = s32[5] constant({0, 2, 0, 2, 2})\n"
      "  %u = f32[5] constant({5, 1, 7, 3, 3})\n  %j = s32[5] constant({10, 11, 12, 13, 14})\n"
      "  %s = (f32[3], s32[3]) scatter(%x, %t, %i, %u, %j), update_window_dims={}, inserted_window_dims={0},"
      " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%argmax\n";
  std::string as_root = body;
  as_root.replace(as_root.find("  %s = "), 7, "  ROOT %s = ");
  EXPECT_EQ(RunHloText(comb, as_root), "({7, 0, 3}, {12, -1, 13})");
  // A scatter gets its own kernel, which writes both results; consumers read them.
  auto m = ParseAndVerifyHlo("HloModule m\n" + comb + "ENTRY %e {\n" + body +
                             "  %v = f32[3] get-tuple-element(%s), index=0\n  %k = s32[3] get-tuple-element(%s), index=1\n"
                             "  %kf = f32[3] convert(%k)\n  ROOT %sum = f32[3] add(%v, %kf)\n}\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto exe = Executable::Compile(**m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  EXPECT_EQ((*exe)->kernel_count(), 2);
  auto r = (*exe)->Run({});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->ValuesToString(), "{19, -1, 16}");
}

const std::string kLayouts2[] = {"{1,0}", "{0,1}", "{0,1:T(2,4)}"};
const std::string kLayouts3[] = {"{2,1,0}", "{0,1,2}", "{1,2,0:T(2,4)}"};

// Dynamic slice, dynamic update slice and gather chained in one kernel.
TEST_F(Indexing, EveryTypeAndLayoutMatchesReference) {
  const std::string wide = "s64";
  int trial = 0;
  for (ElementType t : kAllTypes) {
    const std::string ty(ElementTypeName(t));
    for (int l = 0; l < 3; ++l) {
      const std::string text =
          "HloModule index_" + ty + "_" + std::to_string(l) + "\nENTRY %e {\n"
          "  %x = " + ty + "[6,8]" + kLayouts2[l] + " parameter(0)\n"
          "  %i = " + wide + "[] parameter(1)\n  %j = " + wide + "[] parameter(2)\n"
          "  %u = " + ty + "[3,4]" + kLayouts2[(l + 1) % 3] + " parameter(3)\n"
          "  %g = u32[5,2]" + kLayouts2[(l + 2) % 3] + " parameter(4)\n"
          "  %ds = " + ty + "[3,4] dynamic-slice(%x, %i, %j), dynamic_slice_sizes={3,4}\n"
          "  %dus = " + ty + "[6,8] dynamic-update-slice(%x, %u, %j, %i)\n"
          "  %ga = " + ty + "[5,2,3] gather(%dus, %g), offset_dims={1,2}, collapsed_slice_dims={},"
          " start_index_map={1,0}, index_vector_dim=1, slice_sizes={2,3}\n"
          "  %dsf = " + ty + "[3,4]" + kLayouts2[(l + 2) % 3] + " copy(%ds)\n"
          "  %gaf = " + ty + "[5,2,3]" + kLayouts3[l] + " copy(%ga)\n"
          "  ROOT %t = (" + ty + "[3,4], " + ty + "[5,2,3]) tuple(%dsf, %gaf)\n}\n";
      SCOPED_TRACE(text);
      auto m = ParseAndVerifyHlo(text);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      std::mt19937_64 rng(++trial);
      const auto shapes = (*m)->EntryProgramShape().parameters;
      std::vector<Literal> args = {RandomLiteral(shapes[0], rng, Opcode::kAdd),
                                   RandomIndices(shapes[1], -3, 9, rng), RandomIndices(shapes[2], -3, 9, rng),
                                   RandomLiteral(shapes[3], rng, Opcode::kAdd), RandomIndices(shapes[4], 0, 9, rng)};
      RunAndCompareWith(**m, args, 2);
    }
  }
}

// Scatter-add of 7 windows into a 6x8 array: random starts collide, and
// some windows fall outside.
TEST_F(Indexing, ScatterEveryTypeAndLayoutMatchesReference) {
  int trial = 100;
  for (ElementType t : kAllTypes) {
    const std::string ty(ElementTypeName(t));
    for (int l = 0; l < 3; ++l) {
      const std::string text =
          "HloModule scatter_" + ty + "_" + std::to_string(l) + "\n" + Combiner("comb", ty, "add(%a, %b)") +
          "ENTRY %e {\n"
          "  %x = " + ty + "[6,8]" + kLayouts2[l] + " parameter(0)\n"
          "  %i = s32[7,2]" + kLayouts2[(l + 1) % 3] + " parameter(1)\n"
          "  %u = " + ty + "[7,2,3]" + kLayouts3[(l + 2) % 3] + " parameter(2)\n"
          "  ROOT %s = " + ty + "[6,8]" + kLayouts2[(l + 1) % 3] + " scatter(%x, %i, %u), update_window_dims={1,2},"
          " inserted_window_dims={}, scatter_dims_to_operand_dims={1,0}, index_vector_dim=1, to_apply=%comb\n}\n";
      SCOPED_TRACE(text);
      auto m = ParseAndVerifyHlo(text);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      std::mt19937_64 rng(++trial);
      const auto shapes = (*m)->EntryProgramShape().parameters;
      std::vector<Literal> args = {ExactSumLiteral(shapes[0], rng), RandomIndices(shapes[1], -1, 7, rng),
                                   ExactSumLiteral(shapes[2], rng)};
      // Add runs as one pass over the updates (an atomic, or a
      // compare-and-swap loop) wherever the type fits a word the device
      // swaps (plan/scatter_config.h): a copy kernel and an update kernel.
      const Instruction* s = (*m)->entry()->root();
      const bool one_pass = ChooseScatterMode(*s, s->shape, TestDevice().target()) != ScatterConfig::Mode::kOwner;
      EXPECT_EQ(one_pass, t != ElementType::kC128 && (BitWidth(t) < 64 || TestDevice().target().int64_atomics)) << ty;
      RunAndCompareWith(**m, args, one_pass ? 2 : 1);
    }
  }
}

TEST_F(Indexing, BuilderBuildsTheSameOps) {
  XlaBuilder b("builder_indexing");
  XlaOp x = b.Parameter(0, Shape(ElementType::kF32, {2, 3}), "x");
  XlaOp one = b.ConstantLiteral(Literal::ScalarOf(Scalar::Int(ElementType::kS32, 1)));
  XlaOp ds = b.DynamicSlice(x, {one, one}, {1, 2});                    // {{5, 6}}
  XlaOp dus = b.DynamicUpdateSlice(x, ds, {b.ConstantLiteral(Literal::ScalarOf(Scalar::Int(ElementType::kS32, 0))), one});
  XlaOp flat = b.Collapse(dus, {0, 1});                                // [6]
  Literal rows(Shape(ElementType::kS32, {2}));
  rows.Set(0, Scalar::Int(ElementType::kS32, 1));
  rows.Set(1, Scalar::Int(ElementType::kS32, 0));
  GatherDimensions g;
  g.offset_dims = {1};
  g.collapsed_slice_dims = {0};
  g.start_index_map = {0};
  g.index_vector_dim = 1;
  g.slice_sizes = {1, 3};
  XlaOp swapped = b.Gather(dus, b.ConstantLiteral(rows), g);           // rows 1, 0
  XlaBuilder sum("sum");
  XlaOp sa = sum.Parameter(0, Shape::Scalar(ElementType::kF32), "a");
  XlaOp sb = sum.Parameter(1, Shape::Scalar(ElementType::kF32), "b");
  auto comb = sum.BuildComputation(Add(sa, sb));
  ASSERT_TRUE(comb.ok()) << comb.status().ToString();
  ScatterDimensions sd;
  sd.update_window_dims = {};
  sd.inserted_window_dims = {0};
  sd.scatter_dims_to_operand_dims = {0};
  sd.index_vector_dim = 1;
  Literal at(Shape(ElementType::kS32, {3}));
  for (int i = 0; i < 3; ++i) at.Set(i, Scalar::Int(ElementType::kS32, 5 - i));
  XlaOp scattered = b.Scatter({flat}, b.ConstantLiteral(at), {b.Slice(flat, {0}, {3}, {1})}, *comb, sd);
  auto m = b.Build(b.Tuple({swapped, scattered}));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Literal in(Shape(ElementType::kF32, {2, 3}));
  for (int i = 0; i < 6; ++i) in.Set(i, Scalar::Float(ElementType::kF32, i + 1));
  auto got = CompileAndRun(**m, {in});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  // x = {{1,2,3},{4,5,6}}; dus = {{1,5,6},{4,5,6}}; flat = {1,5,6,4,5,6};
  // scatter adds flat[0..2] = {1,5,6} at 5, 4, 3.
  EXPECT_EQ(got->ValuesToString(), "({{4, 5, 6}, {1, 5, 6}}, {1, 5, 6, 10, 10, 7})");
}

TEST(IndexingErrors, QuoteTheShapes) {
  const std::string x = "  %x = f32[4,6] parameter(0)\n  %i = s32[] parameter(1)\n";
  ExpectHloError("", x + "  ROOT %r = f32[2,2] dynamic-slice(%x, %i), dynamic_slice_sizes={2,2}\n",
              {"dynamic-slice", "2 scalar start indices", "f32[4,6]"});
  ExpectHloError("", x + "  ROOT %r = f32[2,7] dynamic-slice(%x, %i, %i), dynamic_slice_sizes={2,7}\n",
              {"slice size 7", "out of bounds", "f32[4,6]"});
  ExpectHloError("", x + "  %f = f32[] parameter(2)\n  ROOT %r = f32[2,2] dynamic-slice(%x, %i, %f), dynamic_slice_sizes={2,2}\n",
              {"start index 1", "f32[]", "integer"});
  ExpectHloError("", x + "  %u = f32[5,1] parameter(2)\n  ROOT %r = f32[4,6] dynamic-update-slice(%x, %u, %i, %i)\n",
              {"dynamic-update-slice", "f32[5,1]", "larger", "f32[4,6]"});
  ExpectHloError("", x + "  %u = f32[2] parameter(2)\n  ROOT %r = f32[4,6] dynamic-update-slice(%x, %u, %i, %i)\n",
              {"rank", "f32[2]"});
  const std::string g = "  %x = f32[4,6] parameter(0)\n  %g = s32[5,2] parameter(1)\n";
  ExpectHloError("", g + "  ROOT %r = f32[5,2,3] gather(%x, %g), offset_dims={2,1}, collapsed_slice_dims={},"
                      " start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,3}\n",
              {"gather", "offset_dims={2,1}", "ascending", "the rank-3 result"});
  ExpectHloError("", g + "  ROOT %r = f32[5,2,3] gather(%x, %g), offset_dims={1,2}, collapsed_slice_dims={},"
                      " start_index_map={0}, index_vector_dim=1, slice_sizes={2,3}\n",
              {"start_index_map={0}", "s32[5,2]", "2"});
  ExpectHloError("", g + "  ROOT %r = f32[5,2,7] gather(%x, %g), offset_dims={1,2}, collapsed_slice_dims={},"
                      " start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,7}\n",
              {"slice_sizes={2,7}", "exceeds", "f32[4,6]"});
  ExpectHloError("", g + "  ROOT %r = f32[5,3] gather(%x, %g), offset_dims={1}, collapsed_slice_dims={0},"
                      " start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,3}\n",
              {"collapsed dimension 0", "slice size 2"});
  ExpectHloError("", g + "  ROOT %r = f32[5,2,3] gather(%x, %g), offset_dims={1,2}, collapsed_slice_dims={},"
                      " start_index_map={0,1}, index_vector_dim=3, slice_sizes={2,3}\n",
              {"index_vector_dim=3", "s32[5,2]"});
  const std::string s = "  %x = f32[4,6] parameter(0)\n  %i = s32[3,2] parameter(1)\n  %u = f32[3,2,2] parameter(2)\n";
  const std::string dims = ", update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1";
  ExpectHloError("%three (a: f32[], b: f32[], c: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
              "  %c = f32[] parameter(2)\n  ROOT %r = f32[] add(%a, %b)\n}\n",
              s + "  ROOT %r = f32[4,6] scatter(%x, %i, %u)" + dims + ", to_apply=%three\n",
              {"update computation %three", "(f32[], f32[], f32[]) -> f32[]", "expected (f32[], f32[]) -> f32[]"});
  ExpectHloError(Combiner("add", "s32", "add(%a, %b)"), s + "  ROOT %r = f32[4,6] scatter(%x, %i, %u)" + dims + ", to_apply=%add\n",
              {"update computation %add", "expected (f32[], f32[]) -> f32[]"});
  ExpectHloError(Combiner("add", "f32", "add(%a, %b)"),
              "  %x = f32[4,6] parameter(0)\n  %i = s32[3,2] parameter(1)\n  %u = f32[3,2] parameter(2)\n"
              "  ROOT %r = f32[4,6] scatter(%x, %i, %u)" + dims + ", to_apply=%add\n",
              {"update_window_dims={1,2}", "f32[3,2]"});
  ExpectHloError(Combiner("add", "f32", "add(%a, %b)"),
              s + "  ROOT %r = f32[4,6] scatter(%x, %i, %u), update_window_dims={1,3}, inserted_window_dims={},"
                  " scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=%add\n",
              {"update_window_dims={1,3}", "f32[3,2,2]"});
  ExpectHloError(Combiner("add", "f32", "add(%a, %b)"),
              "  %x = f32[4,6] parameter(0)\n  %i = s32[3,2] parameter(1)\n  %u = f32[3,5,2] parameter(2)\n"
              "  ROOT %r = f32[4,6] scatter(%x, %i, %u)" + dims + ", to_apply=%add\n",
              {"update window dimension 1", "f32[3,5,2]", "larger", "f32[4,6]"});
}

}  // namespace
}  // namespace vkxla
