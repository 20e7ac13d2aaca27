// Dot and DotGeneral: the page's examples, every element type against the
// reference (small integers, exact in every type's accumulation; random
// floats within a bound on the rounding of a sum), odd sizes, every way of
// placing batch, contracting and free dims up to rank 4, tiled layouts,
// fused producers and epilogues, contractions past the loop budget, and
// bad dimension numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"
#include "frontends/xla_builder.h"
#include "codegen/kernel_builder.h"
#include "codegen/spirv_compiler.h"
#include "plan/matmul_config.h"
#include "plan/target_profiles.h"
#include "plan/planner.h"
#include "ops/evaluator.h"
#include "runtime/executable.h"
#include "tests/dot_test_util.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class Dot : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

TEST_F(Dot, SpecExamples) {
  EXPECT_EQ(RunHloText("", "  %lhs = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n"
                           "  %rhs = f32[2,3] constant({{1, 1, 1}, {2, 2, 2}})\n"
                           "  ROOT %d = f32[2,2] dot(%lhs, %rhs), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"),
            "{{6, 12}, {15, 30}}");
  EXPECT_EQ(RunHloText("", "  %lhs = f32[2,2,2] constant({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}})\n"
                           "  %rhs = f32[2,2,2] constant({{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}})\n"
                           "  ROOT %d = f32[2,2,2] dot(%lhs, %rhs), lhs_batch_dims={0}, rhs_batch_dims={0},"
                           " lhs_contracting_dims={2}, rhs_contracting_dims={1}\n"),
            "{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}");
  // Dot's three forms by rank: vector . vector, matrix . vector, matrix . matrix.
  EXPECT_EQ(RunHloText("", "  %a = s32[3] constant({1, 2, 3})\n  %b = s32[3] constant({4, 5, 6})\n"
                           "  ROOT %d = s32[] dot(%a, %b), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n"),
            "32");
  EXPECT_EQ(RunHloText("", "  %a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n  %b = s32[3] constant({1, 0, -1})\n"
                           "  ROOT %d = s32[2] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"),
            "{-2, -2}");
  EXPECT_EQ(RunHloText("", "  %a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n  %b = s32[3,2] constant({{1, 0}, {0, 1}, {1, 1}})\n"
                           "  ROOT %d = s32[2,2] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"),
            "{{4, 5}, {10, 11}}");
  // No contracting dims: an outer product.
  EXPECT_EQ(RunHloText("", "  %a = s32[2] constant({1, 2})\n  %b = s32[2] constant({3, 4})\n"
                           "  ROOT %d = s32[2,2] dot(%a, %b), lhs_contracting_dims={}, rhs_contracting_dims={}\n"),
            "{{3, 4}, {6, 8}}");
}

// lhs [b, m, k] . rhs [b, k, n] of every element type: small integers
// (exact), with s8/u8 -> s32/u32, narrow floats accumulating in f32.
TEST_F(Dot, EveryElementTypeMatchesTheReference) {
  struct Case {
    ElementType lhs, rhs, out;
  };
  std::vector<Case> cases;
  for (ElementType t : kAllTypes) cases.push_back({t, t, t});
  cases.push_back({ElementType::kS8, ElementType::kS8, ElementType::kS32});
  cases.push_back({ElementType::kU8, ElementType::kU8, ElementType::kU32});
  cases.push_back({ElementType::kS8, ElementType::kU8, ElementType::kS32});
  cases.push_back({ElementType::kS4, ElementType::kS4, ElementType::kS32});
  cases.push_back({ElementType::kF16, ElementType::kF16, ElementType::kF32});
  cases.push_back({ElementType::kBF16, ElementType::kBF16, ElementType::kF32});
  cases.push_back({ElementType::kF8E4M3FN, ElementType::kF8E5M2, ElementType::kF32});
  cases.push_back({ElementType::kF32, ElementType::kF32, ElementType::kF64});
  cases.push_back({ElementType::kF32, ElementType::kC64, ElementType::kC64});
  int seed = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(Type(c.lhs) + " x " + Type(c.rhs) + " -> " + Type(c.out));
    for (const std::vector<int64_t>& bmkn : {std::vector<int64_t>{1, 3, 17, 5}, std::vector<int64_t>{2, 17, 3, 127}}) {
      const int64_t b = bmkn[0], m = bmkn[1], k = bmkn[2], n = bmkn[3];
      const std::string text = "HloModule dot\nENTRY %e {\n  %x = " + ShapeText(c.lhs, {b, m, k}) + " parameter(0)\n  %y = " +
                               ShapeText(c.rhs, {b, k, n}) + " parameter(1)\n  ROOT %d = " + ShapeText(c.out, {b, m, n}) +
                               " dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2},"
                               " rhs_contracting_dims={1}\n}\n";
      auto module = Parse(text);
      ASSERT_TRUE(module);
      std::mt19937_64 rng(++seed);
      RunAndCompareWith(*module, {SmallIntegers(Shape(c.lhs, {b, m, k}), rng), SmallIntegers(Shape(c.rhs, {b, k, n}), rng)}, 1);
    }
  }
}

TEST_F(Dot, RandomFloatsWithinTheRoundingOfTheirSums) {
  for (const ElementType t : {ElementType::kF32, ElementType::kF64}) {
    for (const std::vector<int64_t>& mkn : {std::vector<int64_t>{1, 1000, 1}, std::vector<int64_t>{127, 1000, 3},
                                            std::vector<int64_t>{17, 3, 1000}, std::vector<int64_t>{64, 300, 64}}) {
      const int64_t m = mkn[0], k = mkn[1], n = mkn[2];
      SCOPED_TRACE(Type(t) + " " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
      const std::string head = "HloModule dot\nENTRY %e {\n  %x = " + ShapeText(t, {m, k}) + " parameter(0)\n  %y = " +
                               ShapeText(t, {k, n}) + " parameter(1)\n";
      auto module = Parse(head + "  ROOT %d = " + ShapeText(t, {m, n}) +
                          " dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
      auto abs_module = Parse(head + "  %ax = " + ShapeText(t, {m, k}) + " abs(%x)\n  %ay = " + ShapeText(t, {k, n}) +
                              " abs(%y)\n  ROOT %d = " + ShapeText(t, {m, n}) +
                              " dot(%ax, %ay), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
      ASSERT_TRUE(module && abs_module);
      std::mt19937_64 rng(m * 7 + n);
      std::uniform_real_distribution<double> u(-1, 1);
      Literal x(Shape(t, {m, k})), y(Shape(t, {k, n}));
      for (int64_t i = 0; i < x.element_count(); ++i) x.Set(i, Scalar::Float(t, u(rng)));
      for (int64_t i = 0; i < y.element_count(); ++i) y.Set(i, Scalar::Float(t, u(rng)));
      auto want = EvaluateModule(*module, {x, y});
      auto scale = EvaluateModule(*abs_module, {x, y});
      auto got = CompileAndRun(*module, {x, y});
      ASSERT_TRUE(want.ok() && scale.ok() && got.ok()) << got.status().ToString();
      ExpectDotClose(*got, *want, *scale, k, t);
    }
  }
}

// Every placement of batch, contracting and free dims up to rank 4: the
// lhs's dims in every order, the rhs's in a rotation of orders.
TEST_F(Dot, EveryDimensionNumberPermutation) {
  struct Split {
    int batch, contracting, lhs_free, rhs_free;
  };
  const Split splits[] = {{0, 1, 1, 1}, {1, 1, 1, 1}, {0, 2, 2, 1}, {1, 2, 1, 0}, {2, 1, 0, 1}, {0, 0, 2, 2}, {1, 0, 1, 2}};
  const int64_t sizes[] = {2, 3, 4, 5};
  int trial = 0;
  for (const Split& s : splits) {
    const int lr = s.batch + s.contracting + s.lhs_free, rr = s.batch + s.contracting + s.rhs_free;
    // Roles by position: batch dims, contracting dims, free dims; then permuted.
    std::vector<int> lhs_order(lr), rhs_order(rr);
    std::iota(lhs_order.begin(), lhs_order.end(), 0);
    std::iota(rhs_order.begin(), rhs_order.end(), 0);
    do {
      ++trial;
      std::rotate(rhs_order.begin(), rhs_order.begin() + (rr ? trial % rr : 0), rhs_order.end());
      // Role r of lhs sits at lhs position lhs_order[r].
      std::vector<int64_t> ld(lr), rd(rr), lb, rb, lc, rc;
      for (int r = 0; r < lr; ++r) {
        const int role_size = r < s.batch ? r : r < s.batch + s.contracting ? 2 + (r - s.batch) % 2 : 1 + r % 3;
        ld[lhs_order[r]] = sizes[role_size % 4];
        if (r < s.batch) lb.push_back(lhs_order[r]);
        else if (r < s.batch + s.contracting) lc.push_back(lhs_order[r]);
      }
      for (int r = 0; r < rr; ++r) {
        const int role_size = r < s.batch ? r : r < s.batch + s.contracting ? 2 + (r - s.batch) % 2 : 3 - r % 2;
        rd[rhs_order[r]] = sizes[role_size % 4];
        if (r < s.batch) rb.push_back(rhs_order[r]);
        else if (r < s.batch + s.contracting) rc.push_back(rhs_order[r]);
      }
      std::vector<int64_t> out;
      for (int64_t d : lb) out.push_back(ld[d]);
      for (int64_t d = 0; d < lr; ++d)
        if (std::find(lb.begin(), lb.end(), d) == lb.end() && std::find(lc.begin(), lc.end(), d) == lc.end()) out.push_back(ld[d]);
      for (int64_t d = 0; d < rr; ++d)
        if (std::find(rb.begin(), rb.end(), d) == rb.end() && std::find(rc.begin(), rc.end(), d) == rc.end()) out.push_back(rd[d]);
      const std::string text = "HloModule perm\nENTRY %e {\n  %x = " + ShapeText(ElementType::kS32, ld) + " parameter(0)\n  %y = " +
                               ShapeText(ElementType::kS32, rd) + " parameter(1)\n  ROOT %d = " +
                               ShapeText(ElementType::kS32, out) + " dot(%x, %y), lhs_batch_dims=" + List(lb) +
                               ", rhs_batch_dims=" + List(rb) + ", lhs_contracting_dims=" + List(lc) +
                               ", rhs_contracting_dims=" + List(rc) + "\n}\n";
      SCOPED_TRACE(text);
      auto module = Parse(text);
      ASSERT_TRUE(module);
      RunAndCompare(*module, trial, 1);
    } while (std::next_permutation(lhs_order.begin(), lhs_order.end()));
  }
}

TEST_F(Dot, TiledLayoutsAndFusedProducers) {
  // Operands in tiled and column-major layouts, a transposed and converted
  // operand, a broadcast one: all read inside the one kernel.
  const std::string text = "HloModule fused\nENTRY %e {\n  %x = f32[33,20]{0,1:T(8,128)} parameter(0)\n"
                           "  %w = s8[40,20]{0,1} parameter(1)\n  %v = f32[20] parameter(2)\n"
                           "  %wf = f32[40,20] convert(%w)\n  %wt = f32[20,40] transpose(%wf), dimensions={1,0}\n"
                           "  %vb = f32[33,20] broadcast(%v), dimensions={1}\n  %xs = f32[33,20] multiply(%x, %vb)\n"
                           "  ROOT %d = f32[33,40]{0,1:T(2,128)} dot(%xs, %wt), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
  auto module = Parse(text);
  ASSERT_TRUE(module);
  std::mt19937_64 rng(4);
  RunAndCompareWith(*module, {SmallIntegers(Shape(ElementType::kF32, {33, 20}), rng), SmallIntegers(Shape(ElementType::kS8, {40, 20}), rng),
                              SmallIntegers(Shape(ElementType::kF32, {20}), rng)}, 1);
}

TEST_F(Dot, BiasAndReluFuseIntoOneKernel) {
  const std::string text = "HloModule dense\nENTRY %e {\n  %x = f32[8,16] parameter(0)\n  %w = f32[16,32] parameter(1)\n"
                           "  %b = f32[32] parameter(2)\n  %d = f32[8,32] dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
                           "  %bb = f32[8,32] broadcast(%b), dimensions={1}\n  %s = f32[8,32] add(%d, %bb)\n"
                           "  %z = f32[] constant(0)\n  %zb = f32[8,32] broadcast(%z), dimensions={}\n"
                           "  ROOT %r = f32[8,32] maximum(%s, %zb)\n}\n";
  auto module = Parse(text);
  ASSERT_TRUE(module);
  std::mt19937_64 rng(5);
  RunAndCompareWith(*module, {SmallIntegers(Shape(ElementType::kF32, {8, 16}), rng), SmallIntegers(Shape(ElementType::kF32, {16, 32}), rng),
                              SmallIntegers(Shape(ElementType::kF32, {32}), rng)}, 1);
}

// gelu(x . W + b) as BERT writes it, x (1 + erf(x / sqrt(2))) / 2: the
// biased product is read twice, and the whole graph is the matmul's
// epilogue, one kernel, on every element type it computes in f32 or wider.
TEST_F(Dot, GeluEpilogueThatSplitsAndJoinsIsOneKernel) {
  for (const char* t : {"f32", "bf16", "f16", "f64"}) {
    SCOPED_TRACE(t);
    const std::string ty(t), m = ty + "[9,40]";
    const std::string text = "HloModule gelu\nENTRY %e {\n  %x = " + ty + "[9,24] parameter(0)\n  %w = " + ty +
                             "[24,40] parameter(1)\n  %b = " + ty + "[40] parameter(2)\n  %d = " + m +
                             " dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  %bb = " + m +
                             " broadcast(%b), dimensions={1}\n  %h = " + m + " add(%d, %bb)\n  %r = " + ty +
                             "[] constant(0.70710678)\n  %rb = " + m + " broadcast(%r), dimensions={}\n  %s = " + m +
                             " multiply(%h, %rb)\n  %e = " + m + " erf(%s)\n  %one = " + ty + "[] constant(1)\n  %ob = " + m +
                             " broadcast(%one), dimensions={}\n  %e1 = " + m + " add(%e, %ob)\n  %half = " + ty +
                             "[] constant(0.5)\n  %hf = " + m + " broadcast(%half), dimensions={}\n  %hh = " + m +
                             " multiply(%h, %hf)\n  ROOT %g = " + m + " multiply(%hh, %e1)\n}\n";
    auto module = Parse(text);
    ASSERT_TRUE(module);
    std::mt19937_64 rng(11);
    const ElementType et = module->entry()->parameters()[0]->shape.element_type();
    const std::vector<Literal> args = {SmallIntegers(Shape(et, {9, 24}), rng), SmallIntegers(Shape(et, {24, 40}), rng),
                                       SmallIntegers(Shape(et, {40}), rng)};
    auto want = EvaluateModule(*module, args);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto exe = Executable::Compile(*module, TestDevice());
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    EXPECT_EQ((*exe)->kernel_count(), 1);
    auto got = (*exe)->Run(args);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    // Products of small integers are exact; the erf and the three roundings
    // after it bound the error by a few units of the type's precision
    // relative to |h|, the largest term (1 + erf cancels for negative h).
    const double eps = et == ElementType::kF64 ? 1e-13 : et == ElementType::kF32 ? 1e-6 : et == ElementType::kF16 ? 4e-3 : 3e-2;
    for (int64_t i = 0; i < want->element_count(); ++i) {
      const double w = want->Get(i).re, g = got->Get(i).re;
      EXPECT_NEAR(g, w, eps * std::max(1.0, std::fabs(w))) << "element " << i;
    }
  }
}

// The epilogue of an invocation's block runs in one scope: a value of the
// column alone (the bias) is read once per column of the block, not once
// per element, and the results still match.
TEST_F(Dot, EpilogueReadsAValueOfTheColumnOncePerColumn) {
  const std::string text = "HloModule dense\nENTRY %e {\n  %x = f32[64,32] parameter(0)\n  %w = f32[32,48] parameter(1)\n"
                           "  %b = f32[48] parameter(2)\n  %d = f32[64,48] dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
                           "  %bb = f32[64,48] broadcast(%b), dimensions={1}\n  %s = f32[64,48] add(%d, %bb)\n"
                           "  %z = f32[] constant(0)\n  %zb = f32[64,48] broadcast(%z), dimensions={}\n"
                           "  ROOT %r = f32[64,48] maximum(%s, %zb)\n}\n";
  auto module = Parse(text);
  ASSERT_TRUE(module);
  auto exe = Executable::Compile(*module, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  ASSERT_EQ((*exe)->program().groups.size(), 1u);
  const MatmulConfig& c = std::get<MatmulConfig>((*exe)->program().groups[0].config);
  ASSERT_GT(c.thread_m, 1);
  // The bias's binding: the one the epilogue reads by words.
  const std::string& source = (*exe)->kernel_sources()[0];
  const std::string bias_read = source.find("TW(in2t, ") != std::string::npos ? "TW(in2t, " : "W(in2, ";
  int64_t reads = 0;
  for (size_t at = source.find(bias_read); at != std::string::npos; at = source.find(bias_read, at + 1)) ++reads;
  EXPECT_EQ(reads, c.thread_n) << source;
  std::mt19937_64 rng(9);
  RunAndCompareWith(*module, {SmallIntegers(Shape(ElementType::kF32, {64, 32}), rng), SmallIntegers(Shape(ElementType::kF32, {32, 48}), rng),
                              SmallIntegers(Shape(ElementType::kF32, {48}), rng)}, 1);
}

TEST_F(Dot, ResultsStoredAsVectorsOrElements) {
  // Where a vector's neighbouring columns lie together in the output (4 of
  // 32 bits, 8 of 16, 16 of 8; the one rhs free dim innermost, its size a
  // multiple of them) they leave as one vector, through the epilogue;
  // narrow results whose rows hold whole words leave a word at a time
  // (bf16 at 18 columns, s8 at 36); column-major outputs, rows that end
  // inside a word and 64-bit results store element by element. Batches,
  // odd rows and a partial last block of columns.
  struct Case {
    std::string type, out_layout;
    int64_t n;
  };
  for (const Case& c : {Case{"f32", "{2,1,0}", 20}, Case{"s32", "{2,1,0}", 36}, Case{"u32", "{2,1,0}", 8},
                        Case{"f32", "{1,2,0}", 20}, Case{"f32", "{2,1,0}", 18}, Case{"s64", "{2,1,0}", 20},
                        Case{"bf16", "{2,1,0}", 24}, Case{"bf16", "{2,1,0}", 18}, Case{"bf16", "{2,1,0}", 17},
                        Case{"bf16", "{1,2,0}", 24}, Case{"s16", "{2,1,0}", 40}, Case{"u16", "{2,1,0}", 6},
                        Case{"s8", "{2,1,0}", 48}, Case{"s8", "{2,1,0}", 36}, Case{"u8", "{2,1,0}", 10},
                        Case{"f16", "{2,1,0}", 16}}) {
    const std::string t = c.type, ns = std::to_string(c.n);
    const std::string out = t + "[3,17," + ns + "]";
    const std::string text = "HloModule stores\nENTRY %e {\n  %x = " + t + "[3,17,8] parameter(0)\n  %w = " + t + "[3,8," + ns +
                             "] parameter(1)\n  %b = " + t + "[" + ns + "] parameter(2)\n  %d = " + out +
                             " dot(%x, %w), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}\n"
                             "  %bb = " + out + " broadcast(%b), dimensions={2}\n  %s = " + out + " add(%d, %bb)\n  %z = " + t +
                             "[] constant(0)\n  %zb = " + out + " broadcast(%z), dimensions={}\n  ROOT %r = " + out +
                             c.out_layout + " maximum(%s, %zb)\n}\n";
    SCOPED_TRACE(text);
    auto module = Parse(text);
    ASSERT_TRUE(module);
    std::mt19937_64 rng(7 + c.n);
    const ElementType et = module->entry()->parameters()[0]->shape.element_type();
    RunAndCompareWith(*module, {SmallIntegers(Shape(et, {3, 17, 8}), rng), SmallIntegers(Shape(et, {3, 8, c.n}), rng),
                                SmallIntegers(Shape(et, {c.n}), rng)}, 1);
  }
}

TEST_F(Dot, ContractionsPastTheLoopBudgetSplit) {
  // 200k contracting elements of ones: chunks summed in order, exact.
  const std::string text = "HloModule long\nENTRY %e {\n  %one = s32[] constant(1)\n  %x = s32[3,200000] broadcast(%one), dimensions={}\n"
                           "  %y = s32[200000,2] broadcast(%one), dimensions={}\n"
                           "  ROOT %d = s32[3,2] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
  auto module = Parse(text);
  ASSERT_TRUE(module);
  auto exe = Executable::Compile(*module, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  EXPECT_EQ((*exe)->kernel_count(), 2);  // chunks, then their sum
  auto r = (*exe)->Run({});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->ValuesToString(), "{{200000, 200000}, {200000, 200000}, {200000, 200000}}");
}

TEST_F(Dot, AlgorithmsRoundTheOperands) {
  // bf16 operands: 1 + 2^-10 rounds to 1, so the product is 1, not 1 + 2^-9.
  EXPECT_EQ(RunHloText("", "  %a = f32[1,1] constant({{1.0009765625}})\n"
                           "  ROOT %d = f32[1,1] dot(%a, %a), lhs_contracting_dims={1}, rhs_contracting_dims={0},"
                           " algorithm=dot_bf16_bf16_f32\n"),
            "{{1}}");
  EXPECT_EQ(RunHloText("", "  %a = f32[1,1] constant({{1.0009765625}})\n"
                           "  ROOT %d = f32[1,1] dot(%a, %a), lhs_contracting_dims={1}, rhs_contracting_dims={0},"
                           " algorithm=dot_f32_f32_f32, operand_precision={highest,highest}\n"),
            "{{1.0019541}}");
  ExpectHloError("", "  %a = f32[1,1] constant({{1}})\n  ROOT %d = f32[1,1] dot(%a, %a), lhs_contracting_dims={1},"
                     " rhs_contracting_dims={0}, algorithm=dot_f7_f7_f7\n",
                 {"dot", "algorithm", "dot_f7_f7_f7", "supported"});
}

// 8- and 16-bit operands read 16 bytes at a time along k (the lhs) and n
// (the rhs) where their dims allow: every narrow type, against the
// reference, with the plan checked to have chosen vectors on lavapipe.
TEST_F(Dot, NarrowOperandsReadAsVectors) {
  struct Case {
    ElementType in, out;
  };
  const Case cases[] = {{ElementType::kF16, ElementType::kF16},       {ElementType::kBF16, ElementType::kF32},
                        {ElementType::kS8, ElementType::kS32},        {ElementType::kU8, ElementType::kU32},
                        {ElementType::kS16, ElementType::kS16},       {ElementType::kF8E4M3FN, ElementType::kF32},
                        {ElementType::kF8E5M2, ElementType::kBF16}};
  int seed = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(Type(c.in) + " -> " + Type(c.out));
    auto module = Parse("HloModule narrow\nENTRY %e {\n  %x = " + ShapeText(c.in, {40, 64}) + " parameter(0)\n  %y = " +
                        ShapeText(c.in, {64, 96}) + " parameter(1)\n  ROOT %d = " + ShapeText(c.out, {40, 96}) +
                        " dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
    ASSERT_TRUE(module);
    if (TestDevice().target().cpu) {
      auto program = PlanModule(*module, TestDevice().target());
      ASSERT_TRUE(program.ok()) << program.status().ToString();
      const auto& config = std::get<MatmulConfig>(program->groups[0].config);
      EXPECT_EQ(config.lhs, MatmulConfig::Read::kAlongK);
      EXPECT_EQ(config.k_step, VectorLanes(c.in));
    }
    std::mt19937_64 rng(++seed);
    RunAndCompareWith(*module, {SmallIntegers(Shape(c.in, {40, 64}), rng), SmallIntegers(Shape(c.in, {64, 96}), rng)});
  }
}

// f16 operands of every bit pattern (subnormals, zeros of both signs,
// infinities, NaNs) times the identity: finite ones come back exactly
// widened (zeros as +0), whichever way the target decodes them (the driver's widening
// where TargetFeatures::exact_half_widen says it is exact, the integer
// decoding elsewhere), and rows holding an infinity or a NaN are NaN (0 x
// inf). Both ways run here.
TEST_F(Dot, F16OperandsOfEveryBitPatternWidenExactly) {
  auto module = Parse("HloModule widen\nENTRY %e {\n  %x = f16[1024,64] parameter(0)\n  %i = f16[64,64] parameter(1)\n"
                      "  ROOT %d = f32[1024,64] dot(%x, %i), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  ASSERT_TRUE(module);
  Literal x(Shape(ElementType::kF16, {1024, 64})), identity(Shape(ElementType::kF16, {64, 64}));
  for (int64_t k = 0; k < 65536; ++k) x.Set(k, Scalar::FromBits(ElementType::kF16, static_cast<uint64_t>(k)));
  for (int64_t k = 0; k < 64 * 64; ++k) identity.Set(k, Scalar::Float(ElementType::kF16, k / 64 == k % 64 ? 1.0 : 0.0));
  TargetFeatures decoded = TestDevice().target();
  decoded.exact_half_widen = false;
  for (const TargetFeatures& target : {TestDevice().target(), decoded}) {
    SCOPED_TRACE(target.exact_half_widen ? "widened by the driver" : "decoded");
    const Literal got = RunAndCompareWith(*module, {x, identity}, -1, &target);
    for (int64_t row = 0; row < 1024; ++row) {
      bool special = false;  // an infinity or a NaN in the row
      for (int64_t j = 0; j < 64; ++j) special = special || ((row * 64 + j) & 0x7C00) == 0x7C00;
      for (int64_t j = 0; j < 64; ++j) {
        const Scalar value = got.Get(row * 64 + j);
        if (special) {
          ASSERT_TRUE(std::isnan(value.re)) << "row " << row << " column " << j;
        } else {
          // A sum starts from +0: -0 comes back as +0.
          const Scalar want = Scalar::Convert(x.Get(row * 64 + j), ElementType::kF32);
          ASSERT_EQ(value.Bits(), want.re == 0 ? 0u : want.Bits()) << "f16 bits 0x" << std::hex << row * 64 + j;
        }
      }
    }
  }
}

// Stride-1 slices of operands in memory (a blocked algorithm's blocks) are
// read as vectors from the sliced buffer where they start on a vector, as
// elements otherwise; both against the reference, in two layouts, with a
// slice of a slice.
TEST_F(Dot, SlicedOperandsReadAsVectorsWhereAligned) {
  struct Case {
    const char* lhs_slice;  // of x f32[48,96]: m x k
    const char* rhs_slice;  // of y f32[96,80]: k x n
    int64_t m, k, n;
    bool aligned;
  };
  const Case cases[] = {{"{[8:40], [32:96]}", "{[32:96], [16:80]}", 32, 64, 64, true},
                        {"{[0:33], [4:68]}", "{[4:68], [0:77]}", 33, 64, 77, true},
                        {"{[8:40], [30:94]}", "{[30:94], [16:80]}", 32, 64, 64, false},
                        // Strided rows keep whole vectors along k; strided k does not.
                        {"{[1:40:2], [32:96]}", "{[32:96], [16:80]}", 20, 64, 64, true},
                        {"{[8:40], [1:96:2]}", "{[32:80], [16:80]}", 32, 48, 64, false}};
  int seed = 0;
  for (const Case& c : cases)
    for (const char* y_layout : {"{1,0}", "{0,1}"}) {
      SCOPED_TRACE(std::string(c.lhs_slice) + " " + c.rhs_slice + " " + y_layout);
      const std::string text = "HloModule sliced\nENTRY %e {\n  %x = f32[48,96] parameter(0)\n  %y = f32[96,80]" +
                               std::string(y_layout) + " parameter(1)\n  %xs = f32[48,96] slice(%x), slice={[0:48], [0:96]}\n" +
                               "  %a = f32[" + std::to_string(c.m) + "," + std::to_string(c.k) + "] slice(%xs), slice=" + c.lhs_slice +
                               "\n  %b = f32[" + std::to_string(c.k) + "," + std::to_string(c.n) + "]" + y_layout + " slice(%y), slice=" +
                               c.rhs_slice + "\n  ROOT %d = f32[" + std::to_string(c.m) + "," + std::to_string(c.n) +
                               "] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
      auto module = Parse(text);
      ASSERT_TRUE(module);
      if (TestDevice().target().cpu) {
        auto program = PlanModule(*module, TestDevice().target());
        ASSERT_TRUE(program.ok()) << program.status().ToString();
        const auto& config = std::get<MatmulConfig>(program->groups[0].config);
        EXPECT_EQ(config.lhs == MatmulConfig::Read::kAlongK, c.aligned);
      }
      std::mt19937_64 rng(++seed);
      RunAndCompareWith(*module, {SmallIntegers(Shape(ElementType::kF32, {48, 96}), rng),
                                  SmallIntegers(Shape(ElementType::kF32, {96, 80}), rng)});
    }
}

// The configurations a GPU gets (shared-memory tiles, split-K at a GPU's
// occupancy) planned with lavapipe's features but cpu = false, so they run
// here: odd sizes, batches, a contraction past the loop budget, wide
// accumulators, a fused producer and epilogue, a tiled operand, and
// contracting groups whose ranges move with the step.
TEST_F(Dot, GpuConfigurationsRunHere) {
  TargetFeatures gpu = TestDevice().target();
  gpu.cpu = false;
  struct Case {
    ElementType t;
    std::string text;
  };
  const std::vector<Case> cases = {
      {ElementType::kF32, "  %x = f32[100,33] parameter(0)\n  %y = f32[33,70] parameter(1)\n"
                          "  ROOT %d = f32[100,70] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"},
      {ElementType::kS32, "  %x = s32[3,64,20000] parameter(0)\n  %y = s32[3,20000,40] parameter(1)\n"
                          "  ROOT %d = s32[3,64,40] dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0},"
                          " lhs_contracting_dims={2}, rhs_contracting_dims={1}\n"},
      {ElementType::kF64, "  %x = f64[40,17] parameter(0)\n  %y = f64[40,65] parameter(1)\n"
                          "  ROOT %d = f64[17,65] dot(%x, %y), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n"},
      {ElementType::kC64, "  %x = c64[33,9] parameter(0)\n  %y = c64[9,34] parameter(1)\n"
                          "  ROOT %d = c64[33,34] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"},
      {ElementType::kF16, "  %x = f16[48,64]{0,1:T(8,128)(2,1)} parameter(0)\n  %y = f16[64,80] parameter(1)\n"
                          "  %ny = f16[64,80] negate(%y)\n  %b = f16[80] parameter(2)\n"
                          "  %d = f16[48,80] dot(%x, %ny), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
                          "  %bb = f16[48,80] broadcast(%b), dimensions={1}\n  ROOT %s = f16[48,80] add(%d, %bb)\n"},
      // Matrix . vector: teams of lanes along k (split for occupancy too).
      {ElementType::kF32, "  %x = f32[300,5000] parameter(0)\n  %y = f32[5000] parameter(1)\n"
                          "  ROOT %d = f32[300] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"},
      {ElementType::kPred, "  %x = pred[2,37,100] parameter(0)\n  %y = pred[2,100] parameter(1)\n"
                           "  ROOT %d = pred[2,37] dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0},"
                           " lhs_contracting_dims={2}, rhs_contracting_dims={1}\n"},
      {ElementType::kF32, "  %x = f32[40,4,9] parameter(0)\n  %y = f32[4,9,50] parameter(1)\n  %g = s32[4,3] parameter(2)\n"
                          "  ROOT %d = f32[3,40,50] ragged-dot(%x, %y, %g), lhs_contracting_dims={1,2},"
                          " rhs_contracting_dims={0,1}, lhs_ragged_dims={2}\n"},
  };
  int seed = 0;
  // Small integers; a ragged dot's group sizes 0, 3, 6 (their sum fits).
  auto arguments = [&seed](const Module& module) {
    std::mt19937_64 rng(++seed);
    std::vector<Literal> args;
    for (const Instruction* p : module.entry()->parameters()) {
      Literal l = SmallIntegers(p->shape, rng);
      if (p->shape.element_type() == ElementType::kS32 && p->shape.rank() == 2 && p->shape.dim(1) == 3)
        for (int64_t i = 0; i < l.element_count(); ++i) l.Set(i, Scalar::Int(ElementType::kS32, 3 * (i % 3)));
      args.push_back(std::move(l));
    }
    return args;
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    auto module = Parse("HloModule gpu\nENTRY %e {\n" + c.text + "}\n");
    ASSERT_TRUE(module);
    RunAndCompareWith(*module, arguments(*module), -1, &gpu);
  }
  // Quads, in the shapes the plan picks for large products (forced here by
  // the tuning, as these products are too small to fill a GPU):
  const std::vector<Case> quad_cases = {
      // Tails in m, n and the slices, a split contraction, batches, a
      // transposed lhs, integers, and bf16 operands under a bias-and-relu
      // epilogue stored as vectors.
      {ElementType::kF32, "  %x = f32[130,203] parameter(0)\n  %y = f32[203,129] parameter(1)\n"
                          "  ROOT %d = f32[130,129] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"},
      {ElementType::kF32, "  %x = f32[2000,128]{0,1} parameter(0)\n  %y = f32[2000,136] parameter(1)\n"
                          "  ROOT %d = f32[128,136] dot(%x, %y), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n"},
      {ElementType::kS32, "  %x = s32[3,128,40] parameter(0)\n  %y = s32[3,40,160] parameter(1)\n"
                          "  ROOT %d = s32[3,128,160] dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0},"
                          " lhs_contracting_dims={2}, rhs_contracting_dims={1}\n"},
      // Batches of quads.
      {ElementType::kF32, "  %x = f32[32,257,16] parameter(0)\n  %y = f32[32,16,130] parameter(1)\n"
                          "  ROOT %d = f32[32,257,130] dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0},"
                          " lhs_contracting_dims={2}, rhs_contracting_dims={1}\n"},
      // The second column quad partly past the end (200 = 128 + 72).
      {ElementType::kF32, "  %x = f32[136,40] parameter(0)\n  %y = f32[40,200] parameter(1)\n"
                          "  ROOT %d = f32[136,200] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"},
      // Contracting groups: each load tests its step's group.
      {ElementType::kF32, "  %x = f32[40,4,9] parameter(0)\n  %y = f32[4,9,50] parameter(1)\n  %g = s32[4,3] parameter(2)\n"
                          "  ROOT %d = f32[3,40,50] ragged-dot(%x, %y, %g), lhs_contracting_dims={1,2},"
                          " rhs_contracting_dims={0,1}, lhs_ragged_dims={2}\n"},
      {ElementType::kU32, "  %x = u32[129,16] parameter(0)\n  %y = u32[16,128] parameter(1)\n"
                          "  ROOT %d = u32[129,128] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"},
      {ElementType::kBF16, "  %x = bf16[136,64] parameter(0)\n  %y = bf16[64,256] parameter(1)\n  %b = f32[256] parameter(2)\n"
                           "  %d = f32[136,256] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
                           "  %bb = f32[136,256] broadcast(%b), dimensions={1}\n  %s = f32[136,256] add(%d, %bb)\n"
                           "  %z = f32[] constant(0)\n  %zb = f32[136,256] broadcast(%z), dimensions={}\n"
                           "  ROOT %r = f32[136,256] maximum(%s, %zb)\n"},
  };
  using Tuning = TargetFeatures::MatmulTuning;
  std::vector<Tuning> shapes = {{16, 16, 8, 256}};
  if (gpu.max_workgroup_invocations >= 512) shapes.push_back({32, 16, 16, 256});  // not on a phone
  for (const Tuning& shape : shapes)
    for (const Case& c : quad_cases) {
      SCOPED_TRACE(c.text + " in " + std::to_string(shape.threads_m) + " x " + std::to_string(shape.threads_n) + " invocations");
      TargetFeatures quads = gpu;
      quads.matmul_tuning = shape;
      auto module = Parse("HloModule quads\nENTRY %e {\n" + c.text + "}\n");
      ASSERT_TRUE(module);
      auto program = PlanModule(*module, quads);
      ASSERT_TRUE(program.ok()) << program.status().ToString();
      EXPECT_TRUE(std::get<MatmulConfig>(program->groups[0].config).quads);
      RunAndCompareWith(*module, arguments(*module), -1, &quads);
    }
  // A tuned shape (VKXLA_MATMUL_TILES=8,4,4,64): 64 x 32 tiles of 32
  // invocations, slices of 4 steps, split to 64 workgroups.
  TargetFeatures tuned = gpu;
  tuned.matmul_tuning = {8, 4, 4, 64};
  auto module = Parse("HloModule tuned\nENTRY %e {\n  %x = f32[70,1030] parameter(0)\n  %y = f32[1030,45] parameter(1)\n"
                      "  ROOT %d = f32[70,45] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  ASSERT_TRUE(module);
  auto program = PlanModule(*module, tuned);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  const auto& config = std::get<MatmulConfig>(program->groups[0].config);
  EXPECT_TRUE(config.quads);
  EXPECT_GT(config.splits, 1);
  std::mt19937_64 rng(++seed);
  RunAndCompareWith(*module, {SmallIntegers(module->entry()->parameters()[0]->shape, rng),
                              SmallIntegers(module->entry()->parameters()[1]->shape, rng)}, -1, &tuned);
}

// relu(x . W + b): the epilogue both CPU read paths are checked with.
constexpr const char* kBiasRelu =
    "  %x = f32[64,48] parameter(0)\n  %y = f32[48,96] parameter(1)\n  %b = f32[96] parameter(2)\n"
    "  %d = f32[64,96] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
    "  %bb = f32[64,96] broadcast(%b), dimensions={1}\n  %s = f32[64,96] add(%d, %bb)\n"
    "  %z = f32[] constant(0)\n  %zb = f32[64,96] broadcast(%z), dimensions={}\n"
    "  ROOT %r = f32[64,96] maximum(%s, %zb)\n";

// A CPU driver reads its inputs through uniform texel buffers
// (TargetFeatures::max_texel_buffer_elements): the kernel declares texel
// bindings, and odd sizes (blocks past the ends), padded and sliced
// operands, batches, narrow types and an epilogue match the reference.
TEST_F(Dot, CpuDriversReadOperandVectorsAsTexels) {
  const TargetFeatures here = TestDevice().target();
  if (here.max_texel_buffer_elements == 0) {
    // A GPU (or VKXLA_MASK=texel): no kernel may declare a texel binding.
    auto module = Parse("HloModule t\nENTRY %e {\n  %x = f32[64,64] parameter(0)\n  %y = f32[64,64] parameter(1)\n"
                        "  ROOT %d = f32[64,64] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
    ASSERT_TRUE(module);
    auto exe = Executable::Compile(*module, TestDevice());
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    for (const std::string& k : (*exe)->kernel_sources()) EXPECT_EQ(k.find("usamplerBuffer"), std::string::npos);
    return;
  }
  const std::vector<std::string> cases = {
      "  %x = f32[127,68] parameter(0)\n  %y = f32[68,17] parameter(1)\n"
      "  ROOT %d = f32[127,17] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
      "  %x = f32[3,40,36] parameter(0)\n  %y = f32[3,36,100] parameter(1)\n"
      "  ROOT %d = f32[3,40,100] dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0},"
      " lhs_contracting_dims={2}, rhs_contracting_dims={1}\n",
      "  %x = bf16[33,64] parameter(0)\n  %y = bf16[64,48] parameter(1)\n"
      "  ROOT %d = f32[33,48] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
      "  %x = s8[70,64] parameter(0)\n  %y = s8[64,50] parameter(1)\n"
      "  ROOT %d = s32[70,50] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
      // 8-bit operands in 16 x 16 blocks, both read as vectors.
      "  %x = u8[40,96] parameter(0)\n  %y = s8[96,64] parameter(1)\n"
      "  ROOT %d = s32[40,64] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
      // A slice of the lhs and a padded rhs: vectors through index maps.
      "  %x0 = f32[20,72] parameter(0)\n  %x = f32[20,64] slice(%x0), slice={[0:20], [8:72]}\n"
      "  %y0 = f32[60,32] parameter(1)\n  %z = f32[] constant(0)\n"
      "  %y = f32[64,32] pad(%y0, %z), padding=0_4x0_0\n"
      "  ROOT %d = f32[20,32] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
      kBiasRelu,
  };
  int seed = 40;
  for (const std::string& text : cases) {
    SCOPED_TRACE(text);
    auto module = Parse("HloModule texel\nENTRY %e {\n" + text + "}\n");
    ASSERT_TRUE(module);
    auto exe = Executable::Compile(*module, TestDevice());
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    bool texel = false;
    for (const std::string& k : (*exe)->kernel_sources()) texel = texel || k.find("uniform usamplerBuffer") != std::string::npos;
    EXPECT_TRUE(texel);
    std::mt19937_64 rng(++seed);
    std::vector<Literal> args;
    for (const Instruction* p : module->entry()->parameters()) args.push_back(SmallIntegers(p->shape, rng));
    RunAndCompareWith(*module, args, -1, &here);
  }
}

// A CPU driver's lanes along n share the lhs rows through subgroup
// broadcasts (MatmulConfig::share_lhs): rows past the end, columns past a
// block, element and vector reads, batches and epilogues against the
// reference, with and without the broadcasts.
TEST_F(Dot, CpuLanesShareTheLhsRows) {
  // Sharing is for vectors from storage buffers (texel reads off, as
  // VKXLA_MASK=texel); with texel reads too, and with neither.
  TargetFeatures here = TestDevice().target();
  const TargetFeatures texels = here;
  here.max_texel_buffer_elements = 0;
  const bool shares = here.cpu && here.subgroup_broadcast && here.subgroup_size == 8;
  TargetFeatures unshared = here;
  unshared.subgroup_broadcast = false;
  const std::vector<std::string> cases = {
      // 32 x 16 blocks over 300 rows and 130 columns: the last blocks clamp.
      "  %x = f32[300,200] parameter(0)\n  %y = f32[200,130] parameter(1)\n"
      "  ROOT %d = f32[300,130] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
      // The lhs read an element at a time through a fused convert.
      "  %x = s32[77,300] parameter(0)\n  %cx = f32[77,300] convert(%x)\n  %y = f32[300,40] parameter(1)\n"
      "  ROOT %d = f32[77,40] dot(%cx, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
      "  %x = s8[70,64] parameter(0)\n  %y = s8[64,50] parameter(1)\n"
      "  ROOT %d = s32[70,50] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
      "  %x = f32[3,40,33] parameter(0)\n  %y = f32[3,33,128] parameter(1)\n"
      "  ROOT %d = f32[3,40,128] dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0},"
      " lhs_contracting_dims={2}, rhs_contracting_dims={1}\n",
      kBiasRelu,
  };
  int seed = 0;
  for (const std::string& text : cases) {
    SCOPED_TRACE(text);
    auto module = Parse("HloModule share\nENTRY %e {\n" + text + "}\n");
    ASSERT_TRUE(module);
    StatusOr<Program> program = PlanModule(*module, here);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    bool shared = false;
    for (const FusionGroup& g : program->groups)
      if (const auto* c = std::get_if<MatmulConfig>(&g.config)) shared = shared || c->share_lhs;
    EXPECT_EQ(shared, shares);
    std::mt19937_64 rng(++seed);
    std::vector<Literal> args;
    for (const Instruction* p : module->entry()->parameters()) args.push_back(SmallIntegers(p->shape, rng));
    RunAndCompareWith(*module, args, 1, &here);
    RunAndCompareWith(*module, args, 1, &unshared);
    RunAndCompareWith(*module, args, 1, &texels);
  }
}

TEST_F(Dot, BadDimensionNumbersQuoteTheShapes) {
  const std::string ops = "  %a = f32[2,3] parameter(0)\n  %b = f32[4,3] parameter(1)\n";
  ExpectHloError("", ops + "  ROOT %d = f32[2,4] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
                 {"contracting dims", "f32[2,3]", "f32[4,3]", "differ in size"});
  ExpectHloError("", ops + "  ROOT %d = f32[2,4] dot(%a, %b), lhs_contracting_dims={2}, rhs_contracting_dims={1}\n",
                 {"out of range", "f32[2,3]"});
  ExpectHloError("", ops + "  ROOT %d = f32[2] dot(%a, %b), lhs_contracting_dims={1,1}, rhs_contracting_dims={1,0}\n",
                 {"named twice", "f32[2,3]"});
  ExpectHloError("", ops + "  ROOT %d = f32[2,4] dot(%a, %b), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}\n",
                 {"batch dims", "f32[2,3]", "f32[4,3]"});
  ExpectHloError("", ops + "  ROOT %d = f32[2,4] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={1},"
                           " operand_precision={default}\n",
                 {"operand_precision", "default"});
  ExpectHloError("", "  %a = f32[2,3] parameter(0)\n  %b = s32[3,2] parameter(1)\n"
                     "  ROOT %d = f32[2,2] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
                 {"f32[2,3]", "s32[3,2]", "integers, floats"});
  ExpectHloError("", ops + "  ROOT %d = f32[3,3] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n",
                 {"f32[3,3]", "f32[2,4]"});
}

std::string RunStablehlo(const std::string& body) {
  auto p = ReadStablehlo("func.func @main() {\n" + body + "}\n", /*with_checks=*/false);
  if (!p.ok()) return p.status().ToString();
  auto got = CompileAndRun(*p->module, {});
  return got.ok() ? got->ValuesToString() : got.status().ToString();
}

const char* kBatched =
    "  %a = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf32>\n"
    "  %b = stablehlo.constant dense<[[[1.0, 0.0], [1.0, 1.0]], [[0.0, 2.0], [1.0, 0.0]]]> : tensor<2x2x2xf32>\n";

TEST_F(Dot, StablehloFormsReachIt) {
  const std::string expected = "{{{3, 2}, {7, 4}}, {{6, 10}, {8, 14}}}";
  EXPECT_EQ(RunStablehlo(std::string(kBatched) +
                         "  %d = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],\n"
                         "    precision = [DEFAULT, HIGHEST] : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>\n"
                         "  return %d : tensor<2x2x2xf32>\n"),
            expected);
  EXPECT_EQ(RunStablehlo(std::string(kBatched) +
                         "  %d = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<"
                         "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], "
                         "rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, "
                         "#stablehlo<precision HIGH>]} : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>\n"
                         "  \"func.return\"(%d) : (tensor<2x2x2xf32>) -> ()\n"),
            expected);
  // No numbers written in dot_general: nothing contracts (an outer product
  // with the batch-free dims in order).
  EXPECT_EQ(RunStablehlo("  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
                         "  %d = stablehlo.dot_general %a, %a : (tensor<2xi32>, tensor<2xi32>) -> tensor<2x2xi32>\n"
                         "  return %d : tensor<2x2xi32>\n"),
            "{{1, 2}, {2, 4}}");
  // stablehlo.dot: Dot's rule, matrix . vector; a wider result type.
  EXPECT_EQ(RunStablehlo("  %m = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>\n"
                         "  %v = stablehlo.constant dense<[100, 100, 100]> : tensor<3xi8>\n"
                         "  %d = stablehlo.dot %m, %v, precision = [DEFAULT, DEFAULT] : (tensor<2x3xi8>, tensor<3xi8>) -> tensor<2xi32>\n"
                         "  return %d : tensor<2xi32>\n"),
            "{600, 1500}");
  // StableHLO's algorithm struct names XLA's algorithm: bf16 operands keep
  // 8 bits of 1 + 2^-10, f32 operands keep them all.
  auto with_algorithm = [](const std::string& type, const std::string& ops) {
    return "  %a = stablehlo.constant dense<[[1.0009765625]]> : tensor<1x1xf32>\n"
           "  %d = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = " +
           type + ", rhs_precision_type = " + type +
           ", accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = " + ops +
           ", allow_imprecise_accumulation = false> : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>\n"
           "  return %d : tensor<1x1xf32>\n";
  };
  EXPECT_EQ(RunStablehlo(with_algorithm("bf16", "1")), "{{1}}");
  EXPECT_EQ(RunStablehlo(with_algorithm("f32", "1")), "{{1.0019541}}");
  EXPECT_EQ(RunStablehlo(with_algorithm("bf16", "6")), "{{1.0019541}}");
  // Errors name what was written and where.
  for (const auto& [body, words] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {with_algorithm("f16", "5"), {"3:", "dot algorithm", "f16", "not supported"}},
           {std::string(kBatched) + "  %d = stablehlo.dot_general %a, %b, contracting_dims = [2]\n"
                                    "    : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2x2xf32>\n  return %d : tensor<2x2x2x2xf32>\n",
            {"4:", "contracting_dims", "[lhs dims] x [rhs dims]"}},
           {std::string(kBatched) + "  %d = stablehlo.dot_general %a, %b, contracting_dims = [2] x [1], precision = [FAST, DEFAULT]\n"
                                    "    : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2x2xf32>\n  return %d : tensor<2x2x2x2xf32>\n",
            {"4:", "precision", "FAST"}},
           {std::string(kBatched) + "  %d = stablehlo.dot_general %a, %b, contracting_dims = [2] x [3]\n"
                                    "    : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>\n  return %d : tensor<2x2x2xf32>\n",
            {"dot", "out of range", "f32[2,2,2]"}},
       }) {
    const std::string got = RunStablehlo(body);
    for (const std::string& w : words) EXPECT_NE(got.find(w), std::string::npos) << w << " not in: " << got;
  }
}

TEST_F(Dot, TheBuilderReachesIt) {
  XlaBuilder b("builder_dot");
  XlaOp x = b.Parameter(0, Shape(ElementType::kF32, {2, 3}), "x");
  XlaOp v = b.Parameter(1, Shape(ElementType::kF32, {3}), "v");
  DotDimensions batched;
  batched.lhs_contracting = {1};
  batched.rhs_contracting = {1};
  EXPECT_TRUE(DotGeneral(x, x, batched, ElementType::kF64).valid());
  EXPECT_TRUE(vkxla::Dot(x, v).valid());
  EXPECT_FALSE(b.Dot(x, x).valid());  // 3 against 2: an error that sticks
  EXPECT_NE(b.first_error().message().find("f32[2,3]"), std::string::npos) << b.first_error().ToString();
  XlaBuilder good("builder_dot_good");
  x = good.Parameter(0, Shape(ElementType::kF32, {2, 3}), "x");
  v = good.Parameter(1, Shape(ElementType::kF32, {3}), "v");
  XlaOp gram = DotGeneral(x, x, batched, ElementType::kF64);  // x . x^T in f64
  XlaOp mv = vkxla::Dot(x, v);
  auto m = good.Build(good.Tuple({gram, mv}));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Literal in(Shape(ElementType::kF32, {2, 3})), vec(Shape(ElementType::kF32, {3}));
  for (int i = 0; i < 6; ++i) in.Set(i, Scalar::Float(ElementType::kF32, i + 1));
  for (int i = 0; i < 3; ++i) vec.Set(i, Scalar::Float(ElementType::kF32, 1 - i));
  auto got = CompileAndRun(**m, {in, vec});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->ToString(), "(\nf64[2,2] {{14, 32}, {32, 77}},\nf32[2] {-2, -2},\n)");
}

// f16 x f16 on matrix units (VK_NV_cooperative_matrix, MatmulConfig::
// cooperative). Without such a device the kernel is still built for the
// canned desktop GPU and must pass SPIR-V validation; on the device the
// products run against the reference: clamped tiles and a contraction that
// is not a multiple of 16, an f16 result with a bias and relu epilogue, a
// batched product and an rhs read transposed.
TEST_F(Dot, F16TilesOnCooperativeMatrices) {
  const std::vector<std::string> cases = {
      "  %x = f16[100,50] parameter(0)\n  %y = f16[50,70] parameter(1)\n"
      "  ROOT %d = f32[100,70] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
      "  %x = f16[128,96] parameter(0)\n  %y = f16[96,192] parameter(1)\n  %b = f16[192] parameter(2)\n"
      "  %d = f16[128,192] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  %bb = f16[128,192] broadcast(%b), dimensions={1}\n  %s = f16[128,192] add(%d, %bb)\n"
      "  %z = f16[] constant(0)\n  %zb = f16[128,192] broadcast(%z), dimensions={}\n"
      "  ROOT %r = f16[128,192] maximum(%s, %zb)\n",
      "  %x = f16[3,64,80] parameter(0)\n  %y = f16[3,80,64] parameter(1)\n"
      "  ROOT %d = f32[3,64,64] dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0},"
      " lhs_contracting_dims={2}, rhs_contracting_dims={1}\n",
      "  %x = f16[96,256]{0,1} parameter(0)\n  %y = f16[160,256] parameter(1)\n"
      "  ROOT %d = f32[96,160] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n",
  };
  const TargetFeatures here = TestDevice().target();
  int seed = 0;
  for (const std::string& text : cases) {
    SCOPED_TRACE(text);
    auto module = Parse("HloModule coop\nENTRY %e {\n" + text + "}\n");
    ASSERT_TRUE(module);
    // The canned desktop GPU: the kernel is built and validates.
    StatusOr<Program> desktop = PlanModule(*module, DesktopGpuTarget());
    ASSERT_TRUE(desktop.ok()) << desktop.status().ToString();
    int built = 0;
    for (const FusionGroup& g : desktop->groups) {
      const auto* c = std::get_if<MatmulConfig>(&g.config);
      if (!c || !c->cooperative) continue;
      StatusOr<KernelSource> k = BuildMatmulKernel(*desktop, g, 0);
      ASSERT_TRUE(k.ok()) << k.status().ToString();
      EXPECT_NE(k->glsl.find("coopMatMulAddNV"), std::string::npos);
      StatusOr<std::vector<uint32_t>> spirv = CompileGlslToSpirv(k->glsl, (1u << 22) | (2u << 12));
      EXPECT_TRUE(spirv.ok()) << spirv.status().ToString();
      ++built;
    }
    EXPECT_EQ(built, 1);
    // This device: matrix units where it has them, else the plain path.
    StatusOr<Program> program = PlanModule(*module, here);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    bool cooperative = false;
    for (const FusionGroup& g : program->groups)
      if (const auto* c = std::get_if<MatmulConfig>(&g.config)) cooperative = cooperative || c->cooperative;
    EXPECT_EQ(cooperative, here.cooperative_matrix_f16);
    std::mt19937_64 rng(++seed);
    std::vector<Literal> args;
    for (const Instruction* p : module->entry()->parameters()) args.push_back(SmallIntegers(p->shape, rng));
    RunAndCompareWith(*module, args, 1, &here);
  }
}

}  // namespace
}  // namespace vkxla
