// Reduce, reduce-window, select-and-scatter, scan, sort, topk and map: the
// page's examples, computations that are not commutative or return tuples,
// NaN handling, random cases against the reference evaluator over element
// types and layouts, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "frontends/hlo_text.h"
#include "frontends/xla_builder.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class Reduction : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

std::string Binary(const std::string& name, const std::string& type, const std::string& op) {
  return "%" + name + " (a: " + type + "[], b: " + type + "[]) -> " + type + "[] {\n  %a = " + type +
         "[] parameter(0)\n  %b = " + type + "[] parameter(1)\n  ROOT %r = " + type + "[] " + op + "\n}\n";
}

std::string Comparator(const std::string& name, const std::string& type, const std::string& direction,
                       const std::string& extra = "") {
  return "%" + name + " (a: " + type + "[], b: " + type + "[]) -> pred[] {\n  %a = " + type + "[] parameter(0)\n  %b = " +
         type + "[] parameter(1)\n  ROOT %r = pred[] compare(%a, %b), direction=" + direction + extra + "\n}\n";
}

// Values exactly representable and summable in any order: small integers.
Literal SmallIntegers(const Shape& shape, std::mt19937_64& rng) {
  Literal l(Shape(shape.element_type(), shape.dims()));
  const ElementType t = shape.element_type();
  for (int64_t i = 0; i < l.element_count(); ++i) {
    const int64_t v = static_cast<int64_t>(rng() % 9) - 4;
    if (IsComplex(t)) l.Set(i, Scalar::Complex(t, {double(v), double(static_cast<int64_t>(rng() % 5) - 2)}));
    else if (IsFloat(t)) l.Set(i, Scalar::Float(t, double(v)));
    else if (t == ElementType::kPred) l.Set(i, Scalar::Pred(v > 0));
    else l.Set(i, Scalar::Convert(Scalar::Int(ElementType::kS64, v), t));
  }
  return l;
}

Literal RunText(const std::string& text, const std::vector<Literal>& args, int expected_kernels = -1) {
  auto m = ParseAndVerifyHlo(text);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return Literal();
  return RunAndCompareWith(**m, args, expected_kernels);
}

const char* k3d =
    "  %x = f32[4,2,3] constant({{{1, 2, 3}, {4, 5, 6}}, {{1, 2, 3}, {4, 5, 6}}, {{1, 2, 3}, {4, 5, 6}}, {{1, 2, 3}, {4, 5, 6}}})\n"
    "  %z = f32[] constant(0)\n";

// The page's Reduce examples: a 2x3 matrix and the 4x2x3 array.
TEST_F(Reduction, ReduceSpecExamples) {
  const std::string add = Binary("add", "f32", "add(%a, %b)");
  const std::string m = "  %m = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n  %z = f32[] constant(0)\n";
  EXPECT_EQ(RunHloText(add, m + "  ROOT %r = f32[3] reduce(%m, %z), dimensions={0}, to_apply=%add\n"), "{5, 7, 9}");
  EXPECT_EQ(RunHloText(add, m + "  ROOT %r = f32[2] reduce(%m, %z), dimensions={1}, to_apply=%add\n"), "{6, 15}");
  EXPECT_EQ(RunHloText(add, std::string(k3d) + "  ROOT %r = f32[2,3] reduce(%x, %z), dimensions={0}, to_apply=%add\n"),
            "{{4, 8, 12}, {16, 20, 24}}");
  EXPECT_EQ(RunHloText(add, std::string(k3d) + "  ROOT %r = f32[4,2] reduce(%x, %z), dimensions={2}, to_apply=%add\n"),
            "{{6, 15}, {6, 15}, {6, 15}, {6, 15}}");
  EXPECT_EQ(RunHloText(add, std::string(k3d) + "  ROOT %r = f32[3] reduce(%x, %z), dimensions={0,1}, to_apply=%add\n"),
            "{20, 28, 36}");
  EXPECT_EQ(RunHloText(add, std::string(k3d) + "  ROOT %r = f32[] reduce(%x, %z), dimensions={0,1,2}, to_apply=%add\n"),
            "84");
  // The init value takes part once, on the left: 10 + (1 + ... + 6).
  EXPECT_EQ(RunHloText(add, m + "  %ten = f32[] constant(10)\n  ROOT %r = f32[] reduce(%m, %ten), dimensions={0,1}, to_apply=%add\n"),
            "31");
}

const char* kArgMax =
    "%argmax (a: f32[], i: s32[], b: f32[], j: s32[]) -> (f32[], s32[]) {\n"
    "  %a = f32[] parameter(0)\n  %i = s32[] parameter(1)\n  %b = f32[] parameter(2)\n  %j = s32[] parameter(3)\n"
    "  %ge = pred[] compare(%b, %a), direction=GE\n  %v = f32[] select(%ge, %b, %a)\n  %k = s32[] select(%ge, %j, %i)\n"
    "  ROOT %t = (f32[], s32[]) tuple(%v, %k)\n}\n";

// The page's variadic example: max and argmax together (value >= max takes the later index).
TEST_F(Reduction, VariadicArgMax) {
  EXPECT_EQ(RunHloText(kArgMax, "  %v = f32[6] constant({3, 9, 1, 9, 2, -5})\n  %io = s32[6] iota(), iota_dimension=0\n"
                                "  %ninf = f32[] constant(-inf)\n  %m1 = s32[] constant(-1)\n"
                                "  ROOT %am = (f32[], s32[]) reduce(%v, %io, %ninf, %m1), dimensions={0}, to_apply=%argmax\n"),
            "(9, 3)");
  // Random rows against the reference: 3000 columns, so every lane and the tree take part.
  const std::string text = "HloModule argmax\n" + std::string(kArgMax) +
                           "ENTRY %e {\n  %x = f32[5,3000] parameter(0)\n  %io = s32[5,3000] iota(), iota_dimension=1\n"
                           "  %ninf = f32[] constant(-inf)\n  %m1 = s32[] constant(-1)\n"
                           "  ROOT %am = (f32[5], s32[5]) reduce(%x, %io, %ninf, %m1), dimensions={1}, to_apply=%argmax\n}\n";
  std::mt19937_64 rng(5);
  RunText(text, {SmallIntegers(Shape(ElementType::kF32, {5, 3000}), rng)});
}

// Two reductions whose results meet in one op (a variance's sum(x) and
// sum(x * x), two dots added): the op finishes one hero's kernel and reads
// the other's result, which runs first.
TEST_F(Reduction, TwoHeroesMeetingInOneOp) {
  const std::string text =
      "HloModule meet\n%add {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %r = f32[] add(%a, %b)\n}\n"
      "ENTRY %e {\n  %x = f32[8,300] parameter(0)\n  %w = f32[300,8] parameter(1)\n  %z = f32[] constant(0)\n"
      "  %s = f32[8] reduce(%x, %z), dimensions={1}, to_apply=%add\n  %x2 = f32[8,300] multiply(%x, %x)\n"
      "  %q = f32[8] reduce(%x2, %z), dimensions={1}, to_apply=%add\n  %y = f32[8] add(%s, %q)\n"
      "  %d1 = f32[8,8] dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  %d2 = f32[8,8] dot(%x2, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  %dd = f32[8,8] subtract(%d1, %d2)\n  ROOT %t = (f32[8], f32[8,8]) tuple(%y, %dd)\n}\n";
  std::mt19937_64 rng(8);
  RunText(text, {SmallIntegers(Shape(ElementType::kF32, {8, 300}), rng), SmallIntegers(Shape(ElementType::kF32, {300, 8}), rng)});
}

// "The last non-zero element": associative but not commutative, so the
// order of elements must survive the tree, along rows and along columns.
TEST_F(Reduction, NonCommutativeComputationKeepsOrder) {
  const std::string last = Binary("last", "s32", "select(%nz, %b, %a)");
  const std::string comp = "%last (a: s32[], b: s32[]) -> s32[] {\n  %a = s32[] parameter(0)\n  %b = s32[] parameter(1)\n"
                           "  %zero = s32[] constant(0)\n  %nz = pred[] compare(%b, %zero), direction=NE\n"
                           "  ROOT %r = s32[] select(%nz, %b, %a)\n}\n";
  for (const std::string layout : {"{1,0}", "{0,1}"}) {
    for (const std::string dims : {"{1}", "{0}", "{0,1}"}) {
      const std::string out = dims == "{1}" ? "s32[37]" : dims == "{0}" ? "s32[1500]" : "s32[]";
      const std::string text = "HloModule last\n" + comp + "ENTRY %e {\n  %x = s32[37,1500]" + layout +
                               " parameter(0)\n  %z = s32[] constant(0)\n  ROOT %r = " + out +
                               " reduce(%x, %z), dimensions=" + dims + ", to_apply=%last\n}\n";
      SCOPED_TRACE(text);
      std::mt19937_64 rng(7);
      Literal x(Shape(ElementType::kS32, {37, 1500}));
      for (int64_t i = 0; i < x.element_count(); ++i)
        x.Set(i, Scalar::Int(ElementType::kS32, rng() % 50 == 0 ? static_cast<int64_t>(i + 1) : 0));
      // A full reduction may fold in passes (the plan cuts it into chunks
      // for parallelism); the rest are one kernel.
      RunText(text, {x}, dims == "{0,1}" ? -1 : 1);
    }
  }
}

// Long column reductions split into passes (blocks of 16 rows into
// partials, blocks of partials, then the init value and the last few): the
// order survives every pass, remainders of blocks included, for f32, s32
// and u32, fused operands, several kept and reduced dims, and 2 to 4 passes.
TEST_F(Reduction, SplitColumnReductionsKeepOrder) {
  const std::string last = "%last (a: s32[], b: s32[]) -> s32[] {\n  %a = s32[] parameter(0)\n  %b = s32[] parameter(1)\n"
                           "  %zero = s32[] constant(0)\n  %nz = pred[] compare(%b, %zero), direction=NE\n"
                           "  ROOT %r = s32[] select(%nz, %b, %a)\n}\n";
  struct Case {
    std::string computation, x, init, result, dims;
    int kernels;  // the passes and the final fold
  };
  const Case cases[] = {
      {last, "s32[1000,40]{1,0}", "s32[] constant(-7)", "s32[40]", "{0}", 3},
      {Binary("f", "f32", "add(%a, %b)"), "f32[4100,8]{1,0}", "f32[] constant(10)", "f32[8]", "{0}", 4},
      {Binary("f", "u32", "add(%a, %b)"), "u32[3,300,12]{2,1,0}", "u32[] constant(1)", "u32[12]", "{0,1}", 3},
      {Binary("f", "f32", "maximum(%a, %b)"), "f32[8,50,30]{0,2,1}", "f32[] constant(-inf)", "f32[8]", "{1,2}", 3},
      {Binary("f", "s32", "add(%a, %b)"), "s32[200,6,8]{2,1,0}", "s32[] constant(0)", "s32[6,8]", "{0}", 2},
  };
  int trial = 0;
  for (const Case& c : cases) {
    const std::string ty = c.x.substr(0, 3);
    const std::string text = "HloModule split\n" + c.computation + "ENTRY %e {\n  %x = " + c.x + " parameter(0)\n  %y = " +
                             c.x + " parameter(1)\n  %xy = " + c.x + " multiply(%x, %y)\n  %i = " + c.init +
                             "\n  ROOT %r = " + c.result + " reduce(%xy, %i), dimensions=" + c.dims + ", to_apply=%" +
                             (c.computation == last ? "last" : "f") + "\n}\n";
    SCOPED_TRACE(text);
    auto m = ParseAndVerifyHlo(text);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Shape s = (*m)->EntryProgramShape().parameters[0];
    std::mt19937_64 rng(++trial);
    Literal x(Shape(s.element_type(), s.dims())), y(Shape(s.element_type(), s.dims()));
    for (int64_t i = 0; i < x.element_count(); ++i) {
      // Mostly zeros with a few distinct values, so "last non-zero" tells positions apart.
      const int64_t v = rng() % 40 == 0 ? static_cast<int64_t>(i % 1000) + 1 : static_cast<int64_t>(rng() % 3);
      x.Set(i, IsFloat(s.element_type()) ? Scalar::Float(s.element_type(), double(v) - 1) : Scalar::Int(s.element_type(), v));
      y.Set(i, IsFloat(s.element_type()) ? Scalar::Float(s.element_type(), 1) : Scalar::Int(s.element_type(), 1));
    }
    RunAndCompareWith(**m, {x, y}, c.kernels);
  }
}

// Max and min propagate NaN wherever it sits.
TEST_F(Reduction, NaNPropagatesThroughMaxAndMin) {
  const std::string fns = Binary("max", "f32", "maximum(%a, %b)") + Binary("min", "f32", "minimum(%a, %b)");
  EXPECT_EQ(RunHloText(fns, "  %x = f32[2,4] constant({{1, nan, 3, -inf}, {2, 5, 4, 0}})\n  %i = f32[] constant(-inf)\n"
                            "  ROOT %r = f32[2] reduce(%x, %i), dimensions={1}, to_apply=%max\n"),
            "{nan, 5}");
  EXPECT_EQ(RunHloText(fns, "  %x = f32[2,4] constant({{1, 7, 3, -inf}, {2, 5, nan, 0}})\n  %i = f32[] constant(inf)\n"
                            "  ROOT %r = f32[4] reduce(%x, %i), dimensions={0}, to_apply=%min\n"),
            "{1, 5, nan, -inf}");
}

std::string TypeName(ElementType t) { return std::string(ElementTypeName(t)); }

// An order-free computation for type t: integers add (wrapping), pred or,
// complex add (on small integers), other floats max.
std::string CombinerFor(ElementType t) {
  const std::string ty = TypeName(t);
  if (t == ElementType::kPred) return Binary("f", ty, "or(%a, %b)");
  if (IsFloat(t)) return Binary("f", ty, "maximum(%a, %b)");
  return Binary("f", ty, "add(%a, %b)");
}

const std::string kLayouts3[] = {"{2,1,0}", "{0,1,2}", "{1,2,0:T(2,4)}"};
const std::string kLayouts2[] = {"{1,0}", "{0,1}", "{0,1:T(2,4)}"};

TEST_F(Reduction, ReduceEveryTypeAndLayoutMatchesReference) {
  int trial = 0;
  for (ElementType t : kAllTypes) {
    const std::string ty = TypeName(t);
    for (int l = 0; l < 3; ++l) {
      const std::string text = "HloModule reduce_" + ty + "\n" + CombinerFor(t) + "ENTRY %e {\n  %x = " + ty + "[6,70,5]" +
                               kLayouts3[l] + " parameter(0)\n  %i = " + ty + "[] parameter(1)\n"
                               "  %a = " + ty + "[6,5]" + kLayouts2[(l + 1) % 3] + " reduce(%x, %i), dimensions={1}, to_apply=%f\n"
                               "  %b = " + ty + "[70] reduce(%x, %i), dimensions={0,2}, to_apply=%f\n"
                               "  %c = " + ty + "[6,70]" + kLayouts2[l] + " reduce(%x, %i), dimensions={2}, to_apply=%f\n"
                               "  ROOT %t = (" + ty + "[6,5], " + ty + "[70], " + ty + "[6,70]) tuple(%a, %b, %c)\n}\n";
      SCOPED_TRACE(text);
      std::mt19937_64 rng(++trial);
      const bool exact_sum = IsComplex(t);
      Literal x = exact_sum ? SmallIntegers(Shape(t, {6, 70, 5}), rng) : RandomLiteral(Shape(t, {6, 70, 5}), rng, Opcode::kAdd);
      Literal init = exact_sum ? SmallIntegers(Shape(t, {}), rng) : RandomLiteral(Shape(t, {}), rng, Opcode::kAdd);
      RunText(text, {x, init}, 3);
    }
  }
}

// Float sums in any order are exact on small integers: the tree's answer.
TEST_F(Reduction, FloatSumsOfRowsAndColumns) {
  for (const std::string ty : {"f32", "f16", "bf16"}) {
    const std::string text = "HloModule sums\n" + Binary("add", ty, "add(%a, %b)") + "ENTRY %e {\n  %x = " + ty +
                             "[40,300] parameter(0)\n  %z = " + ty + "[] constant(0)\n"
                             "  %rows = " + ty + "[40] reduce(%x, %z), dimensions={1}, to_apply=%add\n"
                             "  %cols = " + ty + "[300] reduce(%x, %z), dimensions={0}, to_apply=%add\n"
                             "  ROOT %t = (" + ty + "[40], " + ty + "[300]) tuple(%rows, %cols)\n}\n";
    std::mt19937_64 rng(3);
    auto m = ParseAndVerifyHlo(text);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Shape s = (*m)->EntryProgramShape().parameters[0];
    Literal x(Shape(s.element_type(), s.dims()));
    for (int64_t i = 0; i < x.element_count(); ++i) x.Set(i, Scalar::Float(s.element_type(), double(rng() % 3) - 1));
    RunAndCompareWith(**m, {x});
  }
}

// The page's ReduceWindow examples: 2x3 max pooling, the dilated and
// padded s32 case, and min over [10000, 1000, 100, 10, 1] VALID and SAME.
TEST_F(Reduction, ReduceWindowSpecExamples) {
  EXPECT_EQ(RunHloText(Binary("max", "f32", "maximum(%a, %b)"),
                       "  %x = f32[4,6] constant({{7, 2, 5, 3, 10, 2}, {3, 8, 9, 3, 4, 2}, {1, 5, 7, 5, 6, 1}, {0, 6, 2, 10, 2, 4}})\n"
                       "  %i = f32[] constant(-inf)\n"
                       "  ROOT %r = f32[2,2] reduce-window(%x, %i), window={size=2x3 stride=2x3}, to_apply=%max\n"),
            "{{9, 10}, {7, 10}}");
  EXPECT_EQ(RunHloText(Binary("add", "s32", "add(%a, %b)"),
                       "  %x = s32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})\n  %z = s32[] constant(0)\n"
                       "  ROOT %r = s32[2,2] reduce-window(%x, %z), window={size=2x1 stride=4x1 pad=2_1x0_0 lhs_dilate=2x1"
                       " rhs_dilate=3x1}, to_apply=%add\n"),
            "{{0, 0}, {3, 4}}");
  const std::string min = Binary("min", "f32", "minimum(%a, %b)");
  const std::string v = "  %x = f32[5] constant({10000, 1000, 100, 10, 1})\n  %i = f32[] constant(inf)\n";
  EXPECT_EQ(RunHloText(min, v + "  ROOT %r = f32[2] reduce-window(%x, %i), window={size=3 stride=2}, to_apply=%min\n"),
            "{100, 1}");
  EXPECT_EQ(RunHloText(min, v + "  ROOT %r = f32[3] reduce-window(%x, %i), window={size=3 stride=2 pad=1_1}, to_apply=%min\n"),
            "{1000, 10, 1}");
}

TEST_F(Reduction, ReduceWindowEveryTypeAndLayoutMatchesReference) {
  int trial = 50;
  for (ElementType t : kAllTypes) {
    const std::string ty = TypeName(t);
    for (int l = 0; l < 3; ++l) {
      const std::string text = "HloModule rw_" + ty + "\n" + CombinerFor(t) + "ENTRY %e {\n  %x = " + ty + "[9,10]" +
                               kLayouts2[l] + " parameter(0)\n  %i = " + ty + "[] parameter(1)\n  ROOT %r = " + ty + "[4,7]" +
                               kLayouts2[(l + 1) % 3] + " reduce-window(%x, %i), window={size=3x2 stride=2x3 pad=1_2x0_1"
                               " lhs_dilate=1x2 rhs_dilate=2x1}, to_apply=%f\n}\n";
      SCOPED_TRACE(text);
      std::mt19937_64 rng(++trial);
      RunText(text, {RandomLiteral(Shape(t, {9, 10}), rng, Opcode::kAdd), RandomLiteral(Shape(t, {}), rng, Opcode::kAdd)}, 1);
    }
  }
}

// Windows over a broadcast constant: the kernel's loop carries
// acc = max(acc, 5). The SPIR-V optimizer's constant propagation once made
// that acc its initial value (every integer type stored 0 here; found by
// a random program, tests/random_programs_test.cc).
TEST_F(Reduction, ReduceWindowOverAConstantKeepsItsValue) {
  for (const char* ty : {"s32", "u16", "s8", "u64", "f32", "f16"})
    for (const auto& [op, init, want] : {std::tuple<std::string, std::string, std::string>{"maximum", "0", "5"},
                                         {"minimum", "100", "5"}, {"add", "1", "11"}}) {
      const std::string t = ty;
      SCOPED_TRACE(t + " " + op);
      EXPECT_EQ(RunHloText(Binary("f", t, op + "(%a, %b)"), "  %c = " + t + "[] constant(5)\n  %x = " + t +
                                                                "[3,3] broadcast(%c), dimensions={}\n  %i = " + t + "[] constant(" +
                                                                init + ")\n  ROOT %r = " + t +
                                                                "[3,1] reduce-window(%x, %i), window={size=1x2 stride=1x2}, "
                                                                "to_apply=%f\n"),
                "{{" + want + "}, {" + want + "}, {" + want + "}}");
    }
}

const char* kSelectAndScatterOperand =
    "  %x = f32[4,6] constant({{7, 2, 5, 3, 10, 2}, {3, 8, 9, 3, 4, 2}, {1, 5, 7, 5, 6, 3}, {0, 6, 2, 7, 2, 8}})\n"
    "  %z = f32[] constant(0)\n";

// The page's figure: max-pool gradient, windows 2x3 with strides 2x3; and
// overlapping windows (stride 2 of 3), where 9 collects 2 + 6.
TEST_F(Reduction, SelectAndScatterSpecExamples) {
  const std::string fns = Comparator("ge", "f32", "GE") + Binary("add", "f32", "add(%a, %b)");
  EXPECT_EQ(RunHloText(fns, std::string(kSelectAndScatterOperand) + "  %s = f32[2,2] constant({{2, 6}, {3, 1}})\n"
                            "  ROOT %r = f32[4,6] select-and-scatter(%x, %s, %z), window={size=2x3 stride=2x3},"
                            " select=%ge, scatter=%add\n"),
            "{{0, 0, 0, 0, 6, 0}, {0, 0, 2, 0, 0, 0}, {0, 0, 3, 0, 0, 0}, {0, 0, 0, 0, 0, 1}}");
  EXPECT_EQ(RunHloText(fns, "  %x = f32[1,5] constant({{1, 9, 3, 9, 2}})\n  %z = f32[] constant(0)\n"
                            "  %s = f32[1,2] constant({{2, 6}})\n"
                            "  ROOT %r = f32[1,5] select-and-scatter(%x, %s, %z), window={size=1x3 stride=1x2},"
                            " select=%ge, scatter=%add\n"),
            "{{0, 2, 0, 6, 0}}");
}

TEST_F(Reduction, SelectAndScatterMatchesReference) {
  int trial = 80;
  for (ElementType t : {ElementType::kF32, ElementType::kS32, ElementType::kF16, ElementType::kU8}) {
    const std::string ty = TypeName(t);
    for (int l = 0; l < 3; ++l) {
      const std::string text = "HloModule sas_" + ty + "\n" + Comparator("ge", ty, "GE") + Binary("add", ty, "add(%a, %b)") +
                               "ENTRY %e {\n  %x = " + ty + "[7,9]" + kLayouts2[l] + " parameter(0)\n  %s = " + ty + "[4,4]" +
                               kLayouts2[(l + 1) % 3] + " parameter(1)\n  %z = " + ty + "[] parameter(2)\n  ROOT %r = " + ty +
                               "[7,9]" + kLayouts2[(l + 2) % 3] + " select-and-scatter(%x, %s, %z), window={size=3x3 stride=2x2"
                               " pad=1_1x0_0}, select=%ge, scatter=%add\n}\n";
      SCOPED_TRACE(text);
      std::mt19937_64 rng(++trial);
      // Two kernels: each window's selection, then each element's sum.
      RunText(text, {SmallIntegers(Shape(t, {7, 9}), rng), SmallIntegers(Shape(t, {4, 4}), rng),
                     SmallIntegers(Shape(t, {}), rng)}, 2);
    }
  }
}

const char* kCumulativeSum =
    "%f (x: f32[], c: f32[]) -> (f32[], f32[]) {\n  %x = f32[] parameter(0)\n  %c = f32[] parameter(1)\n"
    "  %s = f32[] add(%c, %x)\n  ROOT %t = (f32[], f32[]) tuple(%s, %s)\n}\n";

// The page's example with f(x, c) = (c + x, c + x); forwards, backwards,
// and with the operator not declared associative (the sequential kernel).
TEST_F(Reduction, ScanSpecExample) {
  const std::string body = "  %x = f32[3] constant({1, 2, 3})\n  %i = f32[] constant(10)\n";
  EXPECT_EQ(RunHloText(kCumulativeSum, body + "  ROOT %s = (f32[3], f32[]) scan(%x, %i), scan_dimension=0,"
                                              " is_reverse=false, is_associative=true, to_apply=%f\n"),
            "({11, 13, 16}, 16)");
  EXPECT_EQ(RunHloText(kCumulativeSum, body + "  ROOT %s = (f32[3], f32[]) scan(%x, %i), scan_dimension=0,"
                                              " is_reverse=true, to_apply=%f\n"),
            "({16, 15, 13}, 16)");
  EXPECT_EQ(RunHloText(kCumulativeSum, body + "  ROOT %s = (f32[3], f32[]) scan(%x, %i), scan_dimension=0,"
                                              " is_associative=false, to_apply=%f\n"),
            "({11, 13, 16}, 16)");
}

// Parallel (associative add) and sequential (a recurrence that is not
// associative) scans over slices, in several layouts, against the reference.
TEST_F(Reduction, ScanMatchesReference) {
  const std::string sum = "%sum (x: s32[5], c: s32[5]) -> (s32[5], s32[5]) {\n  %x = s32[5] parameter(0)\n"
                          "  %c = s32[5] parameter(1)\n  %s = s32[5] add(%c, %x)\n  ROOT %t = (s32[5], s32[5]) tuple(%s, %s)\n}\n";
  const std::string rec = "%rec (x: f32[5], c: f32[5]) -> (f32[5], f32[5]) {\n  %x = f32[5] parameter(0)\n"
                          "  %c = f32[5] parameter(1)\n  %h = f32[] constant(0.5)\n  %hb = f32[5] broadcast(%h), dimensions={}\n"
                          "  %m = f32[5] multiply(%c, %hb)\n  %n = f32[5] add(%m, %x)\n  %o = f32[5] subtract(%n, %c)\n"
                          "  ROOT %t = (f32[5], f32[5]) tuple(%o, %n)\n}\n";
  int trial = 0;
  for (int l = 0; l < 3; ++l) {
    for (const bool reverse : {false, true}) {
      const std::string flags = std::string(", is_reverse=") + (reverse ? "true" : "false");
      const std::string text = "HloModule scan_" + std::to_string(l) + "\n" + sum + rec +
                               "ENTRY %e {\n  %x = s32[700,5]" + kLayouts2[l] + " parameter(0)\n  %c = s32[5] parameter(1)\n"
                               "  %y = f32[40,5]" + kLayouts2[(l + 1) % 3] + " parameter(2)\n  %d = f32[5] parameter(3)\n"
                               "  %p = (s32[700,5], s32[5]) scan(%x, %c), scan_dimension=0" + flags + ", to_apply=%sum\n"
                               "  %q = (f32[40,5], f32[5]) scan(%y, %d), scan_dimension=0" + flags + ", to_apply=%rec\n"
                               "  ROOT %t = ((s32[700,5], s32[5]), (f32[40,5], f32[5])) tuple(%p, %q)\n}\n";
      SCOPED_TRACE(text);
      std::mt19937_64 rng(++trial);
      RunText(text, {RandomLiteral(Shape(ElementType::kS32, {700, 5}), rng, Opcode::kAdd),
                     RandomLiteral(Shape(ElementType::kS32, {5}), rng, Opcode::kAdd), SmallIntegers(Shape(ElementType::kF32, {40, 5}), rng),
                     SmallIntegers(Shape(ElementType::kF32, {5}), rng)},
              2);  // one kernel per scan writes its results and carries
    }
  }
}

// The page's example: three operands sorted by the first.
TEST_F(Reduction, SortSpecExample) {
  const std::string cmp = "%lt (a: s32[], b: s32[], c: s32[], d: s32[], e: f32[], f: f32[]) -> pred[] {\n"
                          "  %a = s32[] parameter(0)\n  %b = s32[] parameter(1)\n  %c = s32[] parameter(2)\n  %d = s32[] parameter(3)\n"
                          "  %e = f32[] parameter(4)\n  %f = f32[] parameter(5)\n  ROOT %r = pred[] compare(%a, %b), direction=LT\n}\n";
  EXPECT_EQ(RunHloText(cmp, "  %o0 = s32[2] constant({3, 1})\n  %o1 = s32[2] constant({42, 50})\n  %o2 = f32[2] constant({-3, 1.1})\n"
                            "  ROOT %s = (s32[2], s32[2], f32[2]) sort(%o0, %o1, %o2), dimensions={0}, to_apply=%lt\n"),
            "({1, 3}, {50, 42}, {1.1, -3})");
  // Along dimension 0 each column sorts on its own; stable ties keep order.
  const std::string key = "%k (a: s32[], b: s32[], c: s32[], d: s32[]) -> pred[] {\n  %a = s32[] parameter(0)\n"
                          "  %b = s32[] parameter(1)\n  %c = s32[] parameter(2)\n  %d = s32[] parameter(3)\n"
                          "  ROOT %r = pred[] compare(%a, %b), direction=LT\n}\n";
  EXPECT_EQ(RunHloText(key, "  %x = s32[4,2] constant({{2, 1}, {1, 1}, {2, 0}, {1, 0}})\n  %i = s32[4,2] iota(), iota_dimension=0\n"
                            "  ROOT %s = (s32[4,2], s32[4,2]) sort(%x, %i), dimensions={0}, is_stable=true, to_apply=%k\n"),
            "({{1, 0}, {1, 0}, {2, 1}, {2, 1}}, {{1, 2}, {3, 3}, {0, 0}, {2, 1}})");
}

// NaN in a comparator: with TOTALORDER, -NaN first and NaN last, -0 before 0.
TEST_F(Reduction, SortTotalOrderPlacesNaN) {
  EXPECT_EQ(RunHloText(Comparator("lt", "f32", "LT", ", type=TOTALORDER"),
                       "  %x = f32[7] constant({3, nan, -0, -inf, 0, -nan, 1})\n"
                       "  ROOT %s = f32[7] sort(%x), dimensions={0}, to_apply=%lt\n"),
            "{-nan, -inf, -0, 0, 1, 3, nan}");
}

// Keys of every type, a payload, lines long enough for the passes through
// memory, against std::stable_sort in the reference.
TEST_F(Reduction, SortEveryTypeMatchesReference) {
  int trial = 0;
  for (ElementType t : kAllTypes) {
    if (IsComplex(t)) continue;
    const std::string ty = TypeName(t);
    const std::string cmp = "%lt (a: " + ty + "[], b: " + ty + "[], c: s32[], d: s32[]) -> pred[] {\n  %a = " + ty +
                            "[] parameter(0)\n  %b = " + ty + "[] parameter(1)\n  %c = s32[] parameter(2)\n  %d = s32[] parameter(3)\n"
                            "  ROOT %r = pred[] compare(%a, %b), direction=LT" + (IsFloat(t) ? ", type=TOTALORDER" : "") + "\n}\n";
    const int l = trial % 3;
    const std::string text = "HloModule sort_" + ty + "\n" + cmp + "ENTRY %e {\n  %x = " + ty + "[3,2500]" + kLayouts2[l] +
                             " parameter(0)\n  %i = s32[3,2500] iota(), iota_dimension=1\n  ROOT %s = (" + ty + "[3,2500], s32[3,2500]" +
                             kLayouts2[(l + 1) % 3] + ") sort(%x, %i), dimensions={1}, to_apply=%lt\n}\n";
    SCOPED_TRACE(text);
    std::mt19937_64 rng(++trial);
    RunText(text, {RandomLiteral(Shape(t, {3, 2500}), rng, Opcode::kAdd)});
  }
  // Along the major dimension, a comparator on both operands (descending
  // key, ascending payload as the tie-break).
  const std::string two = "%gt (a: s8[], b: s8[], c: f32[], d: f32[]) -> pred[] {\n  %a = s8[] parameter(0)\n  %b = s8[] parameter(1)\n"
                          "  %c = f32[] parameter(2)\n  %d = f32[] parameter(3)\n  %g = pred[] compare(%a, %b), direction=GT\n"
                          "  %e = pred[] compare(%a, %b), direction=EQ\n  %l = pred[] compare(%c, %d), direction=LT\n"
                          "  %el = pred[] and(%e, %l)\n  ROOT %r = pred[] or(%g, %el)\n}\n";
  const std::string text = "HloModule sort_major\n" + two + "ENTRY %e {\n  %x = s8[1100,3] parameter(0)\n  %y = f32[1100,3]{0,1} parameter(1)\n"
                           "  ROOT %s = (s8[1100,3], f32[1100,3]) sort(%x, %y), dimensions={0}, to_apply=%gt\n}\n";
  std::mt19937_64 rng(9);
  // No NaN payloads: `c < d` with a NaN is no strict weak order, and then
  // any order of equal keys is as right as another.
  Literal y = RandomLiteral(Shape(ElementType::kF32, {1100, 3}), rng, Opcode::kAdd);
  for (int64_t i = 0; i < y.element_count(); ++i)
    if (std::isnan(y.Get(i).re)) y.Set(i, Scalar::Float(ElementType::kF32, 1000.0 + static_cast<double>(i)));
  RunText(text, {SmallIntegers(Shape(ElementType::kS8, {1100, 3}), rng), y});
}

// The page: the k largest (or smallest) of each row, equal values in
// index order; NaN counts as the largest.
TEST_F(Reduction, TopK) {
  EXPECT_EQ(RunHloText("", "  %x = f32[2,6] constant({{3, 1, 4, 1, 5, 9}, {2, nan, 2, -inf, 7, 2}})\n"
                           "  ROOT %t = (f32[2,3], s32[2,3]) topk(%x), k=3, largest=true\n"),
            "({{9, 5, 4}, {nan, 7, 2}}, {{5, 4, 2}, {1, 4, 0}})");
  EXPECT_EQ(RunHloText("", "  %x = s32[7] constant({5, -2, 5, 0, -2, 8, 0})\n"
                           "  ROOT %t = (s32[4], s32[4]) topk(%x), k=4, largest=false\n"),
            "({-2, -2, 0, 0}, {1, 4, 3, 6})");
  int trial = 0;
  for (ElementType t : {ElementType::kF32, ElementType::kBF16, ElementType::kS16, ElementType::kU32}) {
    const std::string ty = TypeName(t);
    const std::string text = "HloModule topk_" + ty + "\nENTRY %e {\n  %x = " + ty + "[4,1500] parameter(0)\n"
                             "  ROOT %t = (" + ty + "[4,20], s32[4,20]) topk(%x), k=20, largest=" + (trial % 2 ? "false" : "true") + "\n}\n";
    SCOPED_TRACE(text);
    std::mt19937_64 rng(++trial);
    RunText(text, {RandomLiteral(Shape(t, {4, 1500}), rng, Opcode::kAdd)});
  }
}

// Lines of 4 blocks of 1024 or more run as a tournament of per-block topk
// rounds (plan/topk_expansion.h): one and two rounds, batched rows, both
// directions, NaN and infinities among random floats, and small integers
// so that many values tie and the lowest index must win.
TEST_F(Reduction, TopKOverLongLinesAsRounds) {
  struct Case {
    ElementType t;
    std::vector<int64_t> dims;
    int64_t k;
    bool largest, ties;
  };
  const std::vector<Case> cases = {{ElementType::kF32, {8192}, 64, true, false},
                                   {ElementType::kF32, {3, 5120}, 7, false, false},
                                   {ElementType::kS32, {2, 262144}, 16, true, true},  // 262144 -> 4096 -> 64
                                   {ElementType::kBF16, {4096}, 256, false, true},
                                   {ElementType::kU8, {2, 2, 4096}, 3, true, true}};
  int trial = 0;
  for (const Case& c : cases) {
    const std::string ty = TypeName(c.t);
    std::vector<int64_t> out = c.dims;
    out.back() = c.k;
    const std::string x = Shape(c.t, c.dims).ToString(false), v = Shape(c.t, out).ToString(false),
                      i = Shape(ElementType::kS32, out).ToString(false);
    const std::string text = "HloModule long_topk_" + ty + "\nENTRY %e {\n  %x = " + x + " parameter(0)\n  ROOT %t = (" + v +
                             ", " + i + ") topk(%x), k=" + std::to_string(c.k) + ", largest=" + (c.largest ? "true" : "false") +
                             "\n}\n";
    SCOPED_TRACE(text);
    std::mt19937_64 rng(++trial);
    auto m = ParseAndVerifyHlo(text);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    auto exe = Executable::Compile(**m, TestDevice());
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    EXPECT_GT((*exe)->program().groups.size(), 1u) << "expected rounds, not one topk";
    RunText(text, {c.ties ? SmallIntegers(Shape(c.t, c.dims), rng) : RandomLiteral(Shape(c.t, c.dims), rng, Opcode::kAdd)});
  }
}

TEST_F(Reduction, MapEveryTypeMatchesReference) {
  int trial = 0;
  for (ElementType t : kAllTypes) {
    const std::string ty = TypeName(t);
    const std::string fn = "%f (a: " + ty + "[], b: " + ty + "[]) -> pred[] {\n  %a = " + ty + "[] parameter(0)\n  %b = " + ty +
                           "[] parameter(1)\n  ROOT %r = pred[] compare(%a, %b), direction=" + (IsComplex(t) ? "EQ" : "LT") + "\n}\n";
    const int l = trial % 3;
    const std::string text = "HloModule map_" + ty + "\n" + fn + "ENTRY %e {\n  %x = " + ty + "[6,7]" + kLayouts2[l] +
                             " parameter(0)\n  %y = " + ty + "[6,7]" + kLayouts2[(l + 1) % 3] +
                             " parameter(1)\n  ROOT %m = pred[6,7] map(%x, %y), dimensions={0,1}, to_apply=%f\n}\n";
    SCOPED_TRACE(text);
    std::mt19937_64 rng(++trial);
    RunText(text, {RandomLiteral(Shape(t, {6, 7}), rng, Opcode::kAdd), RandomLiteral(Shape(t, {6, 7}), rng, Opcode::kAdd)}, 1);
  }
}

XlaComputation BinaryComputation(const std::string& name, ElementType t, const std::function<XlaOp(XlaOp, XlaOp)>& op) {
  XlaBuilder b(name);
  XlaOp x = b.Parameter(0, Shape::Scalar(t), "a");
  XlaOp y = b.Parameter(1, Shape::Scalar(t), "b");
  auto c = b.BuildComputation(op(x, y));
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? *c : XlaComputation();
}

XlaOp Less(XlaOp a, XlaOp b) { return Lt(a, b); }
XlaOp GreaterEqual(XlaOp a, XlaOp b) { return Ge(a, b); }
XlaOp Minimum(XlaOp a, XlaOp b) { return Min(a, b); }
XlaOp Sum(XlaOp a, XlaOp b) { return Add(a, b); }

// The builder: the page's SAME/VALID min example, a reduce, the max-pool
// gradient with VALID padding (windows [10000, 1000] and [100, 10] pick
// elements 0 and 2), a sort, topk, map and a scan.
TEST_F(Reduction, BuilderBuildsTheSameOps) {
  XlaBuilder b("builder_reductions");
  XlaOp x = b.Parameter(0, Shape(ElementType::kF32, {5}), "x");
  const XlaComputation min = BinaryComputation("min", ElementType::kF32, Minimum);
  const XlaComputation add = BinaryComputation("add", ElementType::kF32, Sum);
  XlaOp inf = b.ConstantLiteral(Literal::ScalarOf(Scalar::Float(ElementType::kF32, INFINITY)));
  XlaOp zero = b.ConstantLiteral(Literal::ScalarOf(Scalar::Float(ElementType::kF32, 0)));
  XlaOp valid = b.ReduceWindow({x}, {inf}, min, {3}, {2}, Padding::kValid);  // {100, 1}
  XlaOp same = b.ReduceWindow({x}, {inf}, min, {3}, {2}, Padding::kSame);    // {1000, 10, 1}
  XlaOp total = b.Reduce({x}, {zero}, add, {0});
  XlaOp pool = b.SelectAndScatter(b.Reshape(x, {1, 5}), BinaryComputation("ge", ElementType::kF32, GreaterEqual), {1, 2}, {1, 2},
                                  Padding::kValid, b.Reshape(valid, {1, 2}), zero, add);
  XlaOp sorted = b.Sort({x}, BinaryComputation("lt", ElementType::kF32, Less));
  XlaOp top = b.GetTupleElement(b.TopK(x, 2, /*largest=*/false), 1);
  XlaOp doubled = b.Map({x, x}, add, {0});
  XlaBuilder step("cumulative");
  XlaOp sx = step.Parameter(0, Shape::Scalar(ElementType::kF32), "x");
  XlaOp sc = step.Parameter(1, Shape::Scalar(ElementType::kF32), "c");
  XlaOp sum = Add(sc, sx);
  auto cumulative = step.BuildComputation(step.Tuple({sum, sum}));
  ASSERT_TRUE(cumulative.ok()) << cumulative.status().ToString();
  XlaOp scanned = b.GetTupleElement(b.Scan({x}, {zero}, *cumulative, 0, /*is_reverse=*/true), 0);
  auto m = b.Build(b.Tuple({valid, same, total, pool, sorted, top, doubled, scanned}));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Literal in(Shape(ElementType::kF32, {5}));
  const double values[] = {10000, 1000, 100, 10, 1};
  for (int i = 0; i < 5; ++i) in.Set(i, Scalar::Float(ElementType::kF32, values[i]));
  Literal got = RunAndCompareWith(**m, {in});
  EXPECT_EQ(got.ValuesToString(),
            "({100, 1}, {1000, 10, 1}, 11111, {{100, 0, 1, 0, 0}}, {1, 10, 100, 1000, 10000}, {4, 3},"
            " {20000, 2000, 200, 20, 2}, {11111, 1111, 111, 11, 1})");
}

TEST(ReductionErrors, QuoteTheShapesAndSignatures) {
  const std::string x = "  %x = f32[4,6] parameter(0)\n  %z = f32[] constant(0)\n";
  ExpectHloError(Binary("add", "s32", "add(%a, %b)"), x + "  ROOT %r = f32[4] reduce(%x, %z), dimensions={1}, to_apply=%add\n",
                 {"reduce", "reduction computation %add", "(s32[], s32[]) -> s32[]", "expected (f32[], f32[]) -> f32[]"});
  ExpectHloError("%three (a: f32[], b: f32[], c: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
                 "  %c = f32[] parameter(2)\n  ROOT %r = f32[] add(%a, %b)\n}\n",
                 x + "  ROOT %r = f32[4] reduce(%x, %z), dimensions={1}, to_apply=%three\n",
                 {"reduction computation %three", "(f32[], f32[], f32[])"});
  ExpectHloError(Binary("add", "f32", "add(%a, %b)"),
                 x + "  %v = f32[2] constant({0, 0})\n  ROOT %r = f32[4] reduce(%x, %v), dimensions={1}, to_apply=%add\n",
                 {"init value 0", "f32[2]", "scalar", "f32[4,6]"});
  ExpectHloError(Binary("add", "f32", "add(%a, %b)"), x + "  ROOT %r = f32[4] reduce(%x, %z), dimensions={1,7}, to_apply=%add\n",
                 {"dimensions={1,7}", "f32[4,6]"});
  ExpectHloError(Binary("add", "f32", "add(%a, %b)"), x + "  ROOT %r = f32[4] reduce(%x, %z, %z), dimensions={1}, to_apply=%add\n",
                 {"N operands and N init values", "3"});
  ExpectHloError(Binary("max", "f32", "maximum(%a, %b)"),
                 x + "  ROOT %r = f32[2,2] reduce-window(%x, %z), window={size=2 stride=2}, to_apply=%max\n",
                 {"reduce-window", "window={size=2 stride=2}", "rank 2"});
  ExpectHloError(Binary("max", "f32", "maximum(%a, %b)"),
                 x + "  ROOT %r = f32[2,2] reduce-window(%x, %z), window={size=2x0}, to_apply=%max\n", {"window size below 1"});
  ExpectHloError(Comparator("ge", "f32", "GE") + Binary("add", "f32", "add(%a, %b)"),
                 x + "  %s = f32[3,3] parameter(1)\n  ROOT %r = f32[4,6] select-and-scatter(%x, %s, %z), window={size=2x3 stride=2x3},"
                     " select=%ge, scatter=%add\n",
                 {"select-and-scatter", "source f32[3,3]", "f32[2,2]", "f32[4,6]"});
  ExpectHloError(Binary("add", "f32", "add(%a, %b)"),
                 x + "  %s = f32[2,2] parameter(1)\n  ROOT %r = f32[4,6] select-and-scatter(%x, %s, %z), window={size=2x3 stride=2x3},"
                     " select=%add, scatter=%add\n",
                 {"select computation %add", "-> f32[]", "-> pred[]"});
  ExpectHloError(Binary("add", "f32", "add(%a, %b)"), x + "  ROOT %s = f32[4,6] sort(%x), dimensions={1}, to_apply=%add\n",
                 {"sort", "comparator %add", "expected (f32[], f32[]) -> pred[]"});
  ExpectHloError(Comparator("lt", "f32", "LT"), x + "  ROOT %s = f32[4,6] sort(%x), dimensions={2}, to_apply=%lt\n",
                 {"sort", "dimensions={d}", "f32[4,6]"});
  ExpectHloError("", x + "  ROOT %t = (f32[4,9], s32[4,9]) topk(%x), k=9, largest=true\n", {"topk", "k=9", "[0, 6]", "f32[4,6]"});
  ExpectHloError(Binary("add", "f32", "add(%a, %b)"), x + "  ROOT %m = f32[4,6] map(%x), dimensions={0,1}, to_apply=%add\n",
                 {"map", "mapped computation %add", "expected (f32[]) -> f32[]"});
  ExpectHloError(kCumulativeSum, "  %x = f32[3] parameter(0)\n  %i = s32[] constant(1)\n"
                                 "  ROOT %s = (f32[3], s32[]) scan(%x, %i), scan_dimension=0, to_apply=%f\n",
                 {"scan", "scan computation %f", "expected (f32[], s32[])"});
  ExpectHloError(kCumulativeSum, "  %x = f32[3] parameter(0)\n  %i = f32[] constant(1)\n"
                                 "  ROOT %s = (f32[3], f32[]) scan(%x, %i), scan_dimension=1, to_apply=%f\n",
                 {"scan", "scan_dimension", "f32[3]"});
}

}  // namespace
}  // namespace vkxla
