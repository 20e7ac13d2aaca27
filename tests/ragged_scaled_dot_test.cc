// RaggedDot in its three modes and ScaledDot with block scales: worked
// examples, random operands against the reference over element types,
// group-size prefixes, operand layouts and fused producers, the builder,
// and errors quoting the shapes.
#include <gtest/gtest.h>

#include "frontends/xla_builder.h"
#include "plan/planner.h"
#include "plan/target_profiles.h"
#include "tests/dot_test_util.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class RaggedDot : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};
using ScaledDot = RaggedDot;

TEST_F(RaggedDot, EachModeByHand) {
  // Non-contracting: rows [0, 1) take rhs matrix 0, rows [1, 3) matrix 1,
  // row 3 is in no group and comes out zero.
  EXPECT_EQ(RunHloText("", "  %a = f32[4,2] constant({{1, 2}, {3, 4}, {5, 6}, {7, 8}})\n"
                           "  %b = f32[2,2,3] constant({{{1, 0, 0}, {0, 1, 0}}, {{0, 0, 1}, {1, 1, 1}}})\n"
                           "  %g = s32[2] constant({1, 2})\n"
                           "  ROOT %d = f32[4,3] ragged-dot(%a, %b, %g), lhs_contracting_dims={1}, rhs_contracting_dims={1},"
                           " lhs_ragged_dims={0}, rhs_group_dims={0}\n"),
            "{{1, 2, 0}, {4, 4, 7}, {6, 6, 11}, {0, 0, 0}}");
  // Contracting: group 0 sums k in [0, 1), group 1 k in [1, 4).
  EXPECT_EQ(RunHloText("", "  %a = f32[2,4] constant({{1, 2, 3, 4}, {5, 6, 7, 8}})\n"
                           "  %b = f32[4,1] constant({{1}, {1}, {1}, {1}})\n"
                           "  %g = s16[2] constant({1, 3})\n"
                           "  ROOT %d = f32[2,2,1] ragged-dot(%a, %b, %g), lhs_contracting_dims={1}, rhs_contracting_dims={0},"
                           " lhs_ragged_dims={1}\n"),
            "{{{1}, {5}}, {{9}, {21}}}");
  // Batch: the batched dot itself.
  EXPECT_EQ(RunHloText("", "  %a = f32[2,1,2] constant({{{1, 2}}, {{3, 4}}})\n"
                           "  %b = f32[2,2,1] constant({{{1}, {1}}, {{2}, {0}}})\n"
                           "  %g = u32[2] constant({1, 1})\n"
                           "  ROOT %d = f32[2,1,1] ragged-dot(%a, %b, %g), lhs_batch_dims={0}, rhs_batch_dims={0},"
                           " lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}\n"),
            "{{{3}}, {{6}}}");
  // Sizes past the extent are cut at it; negative sizes count as empty.
  EXPECT_EQ(RunHloText("", "  %a = s32[3,1] constant({{1}, {2}, {3}})\n"
                           "  %b = s32[3,1,1] constant({{{10}}, {{100}}, {{1000}}})\n"
                           "  %g = s32[3] constant({-4, 1, 9})\n"
                           "  ROOT %d = s32[3,1] ragged-dot(%a, %b, %g), lhs_contracting_dims={1}, rhs_contracting_dims={1},"
                           " lhs_ragged_dims={0}, rhs_group_dims={0}\n"),
            "{{100}, {2000}, {3000}}");
}

struct RaggedCase {
  std::string name;
  int ragged;  // the lhs's ragged dim
  std::vector<int64_t> lhs, rhs, sizes;
  std::string numbers;  // dimension numbers, ragged and group dims
  std::vector<int64_t> out;
  std::string lhs_layout = "";
  bool negate_rhs = false;  // a fused producer on the rhs
};

const std::vector<RaggedCase>& RaggedCases() {
  static const std::vector<RaggedCase> cases = {
      {"rows", 0, {11, 5}, {3, 5, 7}, {3}, "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}", {11, 7}},
      {"rows batched, sizes per batch", 1, {2, 11, 5}, {3, 2, 5, 7}, {2, 3},
       "lhs_batch_dims={0}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={2}, lhs_ragged_dims={1},"
       " rhs_group_dims={0}",
       {2, 11, 7}},
      {"rows after a free dim, column-major lhs, negated rhs", 1, {3, 6, 4}, {4, 2, 5}, {3, 2},
       "lhs_contracting_dims={2}, rhs_contracting_dims={0}, lhs_ragged_dims={1}, rhs_group_dims={1}", {3, 6, 5}, "{0,1,2}", true},
      {"contraction, ragged dim outermost", 2, {2, 3, 12}, {2, 12, 4}, {2, 4},
       "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={2}",
       {4, 2, 3, 4}},
      {"contraction, ragged dim inner, sizes per outer index", 2, {3, 4, 5}, {4, 5, 6}, {4, 2},
       "lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}, lhs_ragged_dims={2}", {2, 3, 6}},
      {"batch", 0, {4, 3, 5}, {4, 5, 2}, {2},
       "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}",
       {4, 3, 2}},
  };
  return cases;
}

// Group sizes from 0 to about half the ragged extent (some lists end
// early, some run past the end).
Literal RandomSizes(const Shape& shape, int64_t extent, std::mt19937_64& rng) {
  Literal l(shape);
  for (int64_t i = 0; i < l.element_count(); ++i)
    l.Set(i, Scalar::Convert(Scalar::Int(ElementType::kS64, static_cast<int64_t>(rng() % (extent / 2 + 2))), shape.element_type()));
  return l;
}

TEST_F(RaggedDot, EveryModeAndTypeMatchesTheReference) {
  struct Types {
    ElementType lhs, rhs, out, sizes;
  };
  const Types types[] = {{ElementType::kF32, ElementType::kF32, ElementType::kF32, ElementType::kS32},
                         {ElementType::kBF16, ElementType::kBF16, ElementType::kF32, ElementType::kS64},
                         {ElementType::kF16, ElementType::kF16, ElementType::kF16, ElementType::kU32},
                         {ElementType::kS8, ElementType::kS8, ElementType::kS32, ElementType::kS32},
                         {ElementType::kS32, ElementType::kS32, ElementType::kS32, ElementType::kU8},
                         {ElementType::kF64, ElementType::kF64, ElementType::kF64, ElementType::kS32},
                         {ElementType::kC64, ElementType::kC64, ElementType::kC64, ElementType::kS32}};
  int seed = 0;
  for (const Types& t : types) {
    for (const RaggedCase& c : RaggedCases()) {
      SCOPED_TRACE(c.name + ": " + Type(t.lhs) + " -> " + Type(t.out) + ", sizes " + Type(t.sizes));
      std::string text = "HloModule ragged\nENTRY %e {\n  %x = " + ShapeText(t.lhs, c.lhs, c.lhs_layout) +
                         " parameter(0)\n  %y = " + ShapeText(t.rhs, c.rhs) + " parameter(1)\n  %g = " +
                         ShapeText(t.sizes, c.sizes) + " parameter(2)\n";
      std::string rhs = "%y";
      if (c.negate_rhs) {
        text += "  %ny = " + ShapeText(t.rhs, c.rhs) + " negate(%y)\n";
        rhs = "%ny";
      }
      text += "  ROOT %d = " + ShapeText(t.out, c.out) + " ragged-dot(%x, " + rhs + ", %g), " + c.numbers + "\n}\n";
      auto module = Parse(text);
      ASSERT_TRUE(module);
      std::mt19937_64 rng(++seed);
      const int64_t extent = c.lhs[c.ragged];
      RunAndCompareWith(*module, {SmallIntegers(Shape(t.lhs, c.lhs), rng), SmallIntegers(Shape(t.rhs, c.rhs), rng),
                                  RandomSizes(Shape(t.sizes, c.sizes), extent, rng)});
    }
  }
}

TEST_F(RaggedDot, TooManyGroupsForOneInvocationIsAnError) {
  auto module = Parse("HloModule many\nENTRY %e {\n  %x = f32[8,4] parameter(0)\n  %y = f32[20000,4,2] parameter(1)\n"
                      "  %g = s32[20000] parameter(2)\n  ROOT %d = f32[8,2] ragged-dot(%x, %y, %g), lhs_contracting_dims={1},"
                      " rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}\n}\n");
  ASSERT_TRUE(module);
  auto program = PlanModule(*module, LavapipeTarget());
  ASSERT_FALSE(program.ok());
  EXPECT_NE(program.status().message().find("ragged-dot"), std::string::npos) << program.status().message();
  EXPECT_NE(program.status().message().find("20000 groups"), std::string::npos) << program.status().message();
}

TEST_F(RaggedDot, BadNumbersQuoteTheShapes) {
  const std::string ops = "  %a = f32[4,2] parameter(0)\n  %b = f32[3,2,5] parameter(1)\n  %g = s32[3] parameter(2)\n";
  const std::string dot = " ragged-dot(%a, %b, %g), lhs_contracting_dims={1}, rhs_contracting_dims={1}";
  ExpectHloError("", ops + "  ROOT %d = f32[4,5]" + dot + ", rhs_group_dims={0}\n", {"ragged-dot", "exactly one lhs ragged dim"});
  ExpectHloError("", ops + "  ROOT %d = f32[4,5]" + dot + ", lhs_ragged_dims={0,1}, rhs_group_dims={0}\n",
                 {"exactly one lhs ragged dim", "{0,1}"});
  ExpectHloError("", ops + "  ROOT %d = f32[4,5]" + dot + ", lhs_ragged_dims={0}\n", {"rhs group dim", "f32[4,2]"});
  ExpectHloError("", ops + "  ROOT %d = f32[3,4,3,5]" + dot + ", lhs_ragged_dims={1}, rhs_group_dims={0}\n",
                 {"rhs_group_dims={0}", "must be empty", "f32[4,2]"});
  ExpectHloError("", ops + "  ROOT %d = f32[4,5]" + dot + ", lhs_ragged_dims={0}, rhs_group_dims={1}\n",
                 {"rhs group dim 1", "f32[3,2,5]", "batch or contracting"});
  ExpectHloError("", "  %a = f32[4,2] parameter(0)\n  %b = f32[3,2,5] parameter(1)\n  %g = s32[2] parameter(2)\n"
                     "  ROOT %d = f32[4,5]" + dot + ", lhs_ragged_dims={0}, rhs_group_dims={0}\n",
                 {"has size 3", "s32[2]", "2 groups"});
  ExpectHloError("", "  %a = f32[4,2] parameter(0)\n  %b = f32[3,2,5] parameter(1)\n  %g = f32[3] parameter(2)\n"
                     "  ROOT %d = f32[4,5]" + dot + ", lhs_ragged_dims={0}, rhs_group_dims={0}\n",
                 {"group_sizes", "integer", "f32[3]"});
  ExpectHloError("", "  %a = f32[2,4,2] parameter(0)\n  %b = f32[3,2,2,5] parameter(1)\n  %g = s32[3,3] parameter(2)\n"
                     "  ROOT %d = f32[2,4,5] ragged-dot(%a, %b, %g), lhs_batch_dims={0}, rhs_batch_dims={1},"
                     " lhs_contracting_dims={2}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}\n",
                 {"[2,3]", "s32[3,3]"});
}

TEST_F(ScaledDot, BlocksScaleTheirElements) {
  // lhs scaled by 2 over k in [0, 2) and 10 over [2, 4); rhs row 1 by 3.
  EXPECT_EQ(RunHloText("", "  %a = f32[1,4] constant({{1, 2, 3, 4}})\n  %as = f32[1,2] constant({{2, 10}})\n"
                           "  %b = f32[2,4] constant({{1, 1, 1, 1}, {1, 0, 0, 0}})\n  %bs = f32[2,1] constant({{1}, {3}})\n"
                           "  ROOT %d = f32[1,2] scaled-dot(%a, %b, %as, %bs), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"),
            "{{76, 6}}");
  // A scalar scale leaves its operand as it is (XLA's rule).
  EXPECT_EQ(RunHloText("", "  %a = bf16[1,2] constant({{1, 2}})\n  %as = bf16[] constant(1)\n"
                           "  %b = bf16[2,1] constant({{3}, {4}})\n  %bs = bf16[1,1] constant({{0.5}})\n"
                           "  ROOT %d = f32[1,1] scaled-dot(%a, %b, %as, %bs), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"),
            "{{5.5}}");
}

TEST_F(ScaledDot, NarrowFloatsWithBlockScalesMatchTheReference) {
  const ElementType operands[] = {ElementType::kF8E4M3FN, ElementType::kF8E5M2, ElementType::kBF16, ElementType::kF16,
                                  ElementType::kF32};
  int seed = 0;
  for (ElementType t : operands)
    for (ElementType s : {ElementType::kF32, ElementType::kBF16}) {
      SCOPED_TRACE(Type(t) + " scaled by " + Type(s));
      const std::string text =
          "HloModule scaled\nENTRY %e {\n  %x = " + ShapeText(t, {2, 5, 64}) + " parameter(0)\n  %y = " +
          ShapeText(t, {2, 64, 7}) + " parameter(1)\n  %xs = " + ShapeText(s, {2, 5, 2}) + " parameter(2)\n  %ys = " +
          ShapeText(s, {2, 2, 7}) + " parameter(3)\n  ROOT %d = f32[2,5,7] scaled-dot(%x, %y, %xs, %ys), lhs_batch_dims={0},"
          " rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}\n}\n";
      auto module = Parse(text);
      ASSERT_TRUE(module);
      std::mt19937_64 rng(++seed);
      auto powers = [&](const Shape& shape) {  // 2^-3 .. 2^3: exact products
        Literal l(shape);
        for (int64_t i = 0; i < l.element_count(); ++i)
          l.Set(i, Scalar::Float(shape.element_type(), std::ldexp(1.0, static_cast<int>(rng() % 7) - 3)));
        return l;
      };
      RunAndCompareWith(*module, {SmallIntegers(Shape(t, {2, 5, 64}), rng), SmallIntegers(Shape(t, {2, 64, 7}), rng),
                                  powers(Shape(s, {2, 5, 2})), powers(Shape(s, {2, 2, 7}))});
    }
}

TEST_F(ScaledDot, BadScalesQuoteTheShapes) {
  const std::string ops = "  %a = f32[2,4] parameter(0)\n  %b = f32[4,3] parameter(1)\n";
  const std::string dot = " scaled-dot(%a, %b, %as, %bs), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
  ExpectHloError("", ops + "  %as = f32[2,3] parameter(2)\n  %bs = f32[] parameter(3)\n  ROOT %d = f32[2,3]" + dot,
                 {"scaled-dot", "f32[2,3]", "does not divide", "f32[2,4]"});
  ExpectHloError("", ops + "  %as = f32[2] parameter(2)\n  %bs = f32[] parameter(3)\n  ROOT %d = f32[2,3]" + dot,
                 {"f32[2]", "rank of f32[2,4]"});
  ExpectHloError("", ops + "  %as = s32[2,2] parameter(2)\n  %bs = f32[] parameter(3)\n  ROOT %d = f32[2,3]" + dot,
                 {"s32[2,2]", "floating point"});
}

TEST_F(RaggedDot, TheBuilderReachesBoth) {
  std::mt19937_64 rng(3);
  XlaBuilder b("builder_ragged");
  XlaOp x = b.Parameter(0, Shape(ElementType::kF32, {3, 2}), "x");
  XlaOp w = b.Parameter(1, Shape(ElementType::kF32, {2, 2, 1}), "w");
  XlaOp sizes = b.ConstantLiteral(SmallIntegers(Shape(ElementType::kS32, {2}), rng));
  DotDimensions d;
  d.lhs_contracting = {1};
  d.rhs_contracting = {1};
  XlaOp ragged = b.RaggedDot(x, w, sizes, d, 0, 0);
  XlaOp scale = b.ConstantLiteral(Literal::ScalarOf(Scalar::Float(ElementType::kF32, 1)));
  XlaOp wide = b.Parameter(2, Shape(ElementType::kF32, {1, 2}), "wide");
  DotDimensions plain;
  plain.lhs_contracting = {1};
  plain.rhs_contracting = {1};
  XlaOp scaled = b.ScaledDot(x, scale, wide, b.ConstantLiteral(SmallIntegers(Shape(ElementType::kF32, {1, 1}), rng)),
                             plain, ElementType::kF32);
  auto m = b.Build(b.Tuple({ragged, scaled}));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  RunAndCompareWith(**m, {SmallIntegers(Shape(ElementType::kF32, {3, 2}), rng), SmallIntegers(Shape(ElementType::kF32, {2, 2, 1}), rng),
                          SmallIntegers(Shape(ElementType::kF32, {1, 2}), rng)});
  XlaBuilder bad("builder_ragged_bad");
  x = bad.Parameter(0, Shape(ElementType::kF32, {3, 2}), "x");
  w = bad.Parameter(1, Shape(ElementType::kF32, {2, 2, 1}), "w");
  EXPECT_FALSE(bad.RaggedDot(x, w, bad.Parameter(2, Shape(ElementType::kS32, {5}), "g"), d, 0, 0).valid());
  EXPECT_NE(bad.first_error().message().find("f32[2,2,1]"), std::string::npos) << bad.first_error().ToString();
}

}  // namespace
}  // namespace vkxla
