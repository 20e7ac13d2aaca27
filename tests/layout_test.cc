// Tiled layouts (shared/spec/tiled_layout.ja.txt): the page's worked
// examples on the one index implementation, its GLSL form, layouts through
// the parser and the verifier, and kernels that read and write operands in
// different layouts, copy, bitcast and packed 4-bit elements on the device.
#include <gtest/gtest.h>

#include <random>

#include "codegen/glsl_index_arithmetic.h"
#include "frontends/hlo_text.h"
#include "ir/hlo_parser.h"
#include "ir/layout_index.h"
#include "ir/tiled_index.h"
#include "ops/evaluator.h"
#include "runtime/executable.h"
#include "tests/test_util.h"
#include "tools/layout_report.h"

namespace vkxla {
namespace {

TiledIndexMap MapOf(const std::string& shape_text) {
  auto shape = ParseShape(shape_text);
  EXPECT_TRUE(shape.ok()) << shape.status().ToString();
  auto map = TiledIndexMap::Create(*shape);
  EXPECT_TRUE(map.ok()) << map.status().ToString();
  return *map;
}

int64_t Physical(const TiledIndexMap& map, const std::vector<int64_t>& index) {
  IntArithmetic a;
  return map.ToPhysical(index, a);
}

TEST(TiledIndex, Figure1ElementTwoThreeIsAt17) {
  TiledIndexMap m = MapOf("f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(Physical(m, {2, 3}), 17);
  EXPECT_EQ(m.physical_element_count(), 24);  // padded to 4x6
  EXPECT_EQ(m.physical_dims(), (std::vector<int64_t>{2, 3, 2, 2}));
}

TEST(TiledIndex, Figure2RepeatedTiling) {
  // 4x8 tiled (2,4) then (2,1): each 2x1 pair is adjacent, tiles row-major.
  const int64_t expected[4][8] = {{0, 2, 4, 6, 8, 10, 12, 14},
                                  {1, 3, 5, 7, 9, 11, 13, 15},
                                  {16, 18, 20, 22, 24, 26, 28, 30},
                                  {17, 19, 21, 23, 25, 27, 29, 31}};
  TiledIndexMap m = MapOf("f32[4,8]{1,0:T(2,4)(2,1)}");
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 8; ++c) EXPECT_EQ(Physical(m, {r, c}), expected[r][c]) << r << "," << c;
}

TEST(TiledIndex, CombinedDimensionsPlaceLikeTheFoldedShape) {
  TiledIndexMap five = MapOf("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  TiledIndexMap two = MapOf("f32[112,110]{1,0:T(2,3)}");
  EXPECT_EQ(five.physical_element_count(), two.physical_element_count());
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 7; ++b)
      for (int64_t c = 0; c < 8; ++c)
        for (int64_t d = 0; d < 11; ++d)
          for (int64_t e = 0; e < 10; ++e)
            ASSERT_EQ(Physical(five, {a, b, c, d, e}), Physical(two, {(a * 7 + b) * 8 + c, d * 10 + e}));
}

TEST(TiledIndex, FromPhysicalInvertsToPhysicalOnRandomLayouts) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> dims;
    const int rank = 1 + static_cast<int>(rng() % 4);
    for (int d = 0; d < rank; ++d) dims.push_back(1 + static_cast<int64_t>(rng() % 6));
    Shape s(ElementType::kF32, dims);
    s.set_layout(RandomTiledLayout(dims, rng));
    auto map = TiledIndexMap::Create(s);
    ASSERT_TRUE(map.ok()) << s.ToString() << ": " << map.status().ToString();
    IntArithmetic a;
    std::vector<bool> hit(map->physical_element_count(), false);
    for (int64_t i = 0; i < s.element_count(); ++i) {
      std::vector<int64_t> index = MultiIndex(dims, i);
      const int64_t p = map->ToPhysical(index, a);
      ASSERT_LT(p, map->physical_element_count()) << s.ToString();
      ASSERT_FALSE(hit[p]) << s.ToString() << ": two elements at " << p;
      hit[p] = true;
      bool valid = false;
      EXPECT_EQ(map->FromPhysical(p, a, valid), index) << s.ToString();
      EXPECT_TRUE(valid);
    }
    int64_t padding = 0;
    for (int64_t p = 0; p < map->physical_element_count(); ++p) {
      bool valid = true;
      map->FromPhysical(p, a, valid);
      EXPECT_EQ(valid, static_cast<bool>(hit[p])) << s.ToString() << " at " << p;
      padding += !valid;
    }
    EXPECT_EQ(padding, map->physical_element_count() - s.element_count());
  }
}

TEST(TiledIndex, GlslFormHasNoDivisionForPowerOfTwoTiles) {
  TiledIndexMap m = MapOf("f32[4096,4096]{0,1:T(8,128)}");
  GlslIndexArithmetic a;
  const std::string to = m.ToPhysical<GlslIndexArithmetic>({"i0", "i1"}, a);
  std::string valid;
  std::vector<std::string> from = m.FromPhysical<GlslIndexArithmetic>("p", a, valid);
  for (const std::string& e : std::vector<std::string>{to, from[0], from[1]}) {
    EXPECT_EQ(e.find('/'), std::string::npos) << e;
    EXPECT_EQ(e.find('%'), std::string::npos) << e;
  }
  EXPECT_EQ(valid, "true");  // 4096 is a whole number of tiles: no padding test
}

TEST(TiledIndex, UnitStrideDimensionFollowsTheMinorRun) {
  EXPECT_EQ(MapOf("f32[16,12]{1,0}").UnitStrideDimension(4), 1);
  EXPECT_EQ(MapOf("f32[16,12]{0,1}").UnitStrideDimension(4), 0);
  EXPECT_EQ(MapOf("f32[4096,4096]{0,1:T(8,128)}").UnitStrideDimension(4), 0);
  EXPECT_EQ(MapOf("f32[16,12]{1,0:T(4,4)}").UnitStrideDimension(4), 1);
  EXPECT_EQ(MapOf("f32[3,5]{1,0}").UnitStrideDimension(4), -1);          // runs cross rows
  EXPECT_EQ(MapOf("f32[4,8]{1,0:T(2,4)(2,1)}").UnitStrideDimension(4), -1);  // pairs across rows
  EXPECT_EQ(MapOf("f32[16,12]{1,0:T(2,2)}").UnitStrideDimension(4), -1);  // tiles narrower than the run
  EXPECT_EQ(MapOf("f32[2,3,8]{2,1,0:T(*,4)}").UnitStrideDimension(4), 2);
}

TEST(Layouts, PackedS4ParsesPrintsAndSizes) {
  auto s = ParseShape("s4[123,456]{1,0:T(2,128)E(4)}");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->ToString(), "s4[123,456]{1,0:T(2,128)E(4)}");
  auto bytes = PhysicalByteSize(*s);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, 62 * 4 * 2 * 128 / 2);  // 62x4 tiles of 2x128 nibbles
}

TEST(Layouts, PackedNibblesFollowXlaOrder) {
  Literal l(Shape(ElementType::kU4, {3}));
  for (int i = 0; i < 3; ++i) l.Set(i, Scalar::UInt(ElementType::kU4, i + 1));
  Layout e4 = Layout::Descending(1);
  e4.element_size_in_bits = 4;
  auto bytes = ToPhysical(l, e4);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ((*bytes)[0], 0x12);  // first element in the high nibble
  EXPECT_EQ((*bytes)[1], 0x30);
}

void ExpectLayoutError(const std::string& layout, const std::string& words) {
  const std::string text = "HloModule m\nENTRY %e {\n  ROOT %p = f32[4,6]" + layout + " parameter(0)\n}\n";
  auto m = ParseAndVerifyHlo(text);
  ASSERT_FALSE(m.ok()) << layout;
  EXPECT_NE(m.status().message().find(words), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("3:"), std::string::npos) << "no line:col in " << m.status().message();
}

TEST(Layouts, BadLayoutsAreClearErrors) {
  ExpectLayoutError("{1,1}", "not a permutation");
  ExpectLayoutError("{0,2}", "not a permutation");
  ExpectLayoutError("{1,0:T(2,0)}", "dimension of size 0");
  ExpectLayoutError("{1,0:T(2,2,2)}", "more dimensions than the rank");
  ExpectLayoutError("{1,0:T(2,*)}", "minor-most");
  ExpectLayoutError("{1,0:E(3)}", "E(3)");
}

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseAndVerifyHlo(text);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(m).value() : nullptr;
}

class LayoutKernels : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

TEST_F(LayoutKernels, ThreeLayoutsInOneFusedKernel) {
  auto m = Parse(R"(HloModule three_layouts, entry_computation_layout={(f32[5,7]{0,1}, f32[5,7]{1,0:T(2,4)})->f32[5,7]{0,1:T(4,2)(2,1)}}
ENTRY %e {
  %x = f32[5,7] parameter(0)
  %y = f32[5,7] parameter(1)
  %m = f32[5,7] multiply(%x, %y)
  %i = f32[5,7] iota(), iota_dimension=1
  ROOT %r = f32[5,7] add(%m, %i)
})");
  ASSERT_TRUE(m);
  RunAndCompare(*m, 1, /*expected_kernels=*/1);
}

TEST_F(LayoutKernels, CopyThenBitcastExposesPhysicalOrder) {
  // Figure 1: f32[3,5] in 2x2 tiles occupies 24 elements; element (2,3) is 17.
  auto m = Parse(R"(HloModule expose
ENTRY %e {
  %x = f32[3,5]{1,0} parameter(0)
  %t = f32[3,5]{1,0:T(2,2)} copy(%x)
  ROOT %b = f32[24]{0} bitcast(%t)
})");
  ASSERT_TRUE(m);
  Literal x(Shape(ElementType::kF32, {3, 5}));
  for (int i = 0; i < 15; ++i) x.Set(i, Scalar::Float(ElementType::kF32, i));
  auto exe = Executable::Compile(*m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto got = (*exe)->Run({x});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->Get(17).re, 13.0);  // x[2][3]
  TiledIndexMap tiled = MapOf("f32[3,5]{1,0:T(2,2)}");
  for (int64_t i = 0; i < 15; ++i) EXPECT_EQ(got->Get(Physical(tiled, MultiIndex({3, 5}, i))).re, i);
}

TEST_F(LayoutKernels, CopyBetweenLayoutsKeepsValues) {
  auto m = Parse(R"(HloModule relayout
ENTRY %e {
  %x = s16[6,9,4]{2,1,0} parameter(0)
  %a = s16[6,9,4]{0,2,1:T(4,*,2)} copy(%x)
  ROOT %b = s16[6,9,4]{1,0,2:T(2,2)(2,1)} copy(%a)
})");
  ASSERT_TRUE(m);
  RunAndCompare(*m, 3, 1);
}

TEST_F(LayoutKernels, TransposingLayoutsUseRegisterBlocks) {
  // Output and an operand move along different dims: each invocation
  // transposes a 4x4 block in registers. Mixed with an operand in the
  // output's order, one in neither, a broadcast and an iota.
  auto m = Parse(R"(HloModule blocks
ENTRY %e {
  %x = f32[8,12,4]{2,1,0} parameter(0)
  %y = f32[8,12,4]{0,2,1:T(4,4)} parameter(1)
  %z = f32[8,12,4]{1,0,2:T(2,2)} parameter(2)
  %v = f32[12] parameter(3)
  %b = f32[8,12,4] broadcast(%v), dimensions={1}
  %i = f32[8,12,4] iota(), iota_dimension=0
  %s = f32[8,12,4] add(%x, %y)
  %t = f32[8,12,4] multiply(%s, %z)
  %u = f32[8,12,4] subtract(%t, %b)
  ROOT %r = f32[8,12,4]{0,1,2:T(4,8)} add(%u, %i)
})");
  ASSERT_TRUE(m);
  auto exe = Executable::Compile(*m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  EXPECT_NE((*exe)->kernel_sources()[0].find("block4x4"), std::string::npos);
  RunAndCompare(*m, 9, 1);
  auto back = Parse(R"(HloModule relayout_back
ENTRY %e {
  %x = s32[16,32]{0,1:T(8,16)} parameter(0)
  ROOT %y = s32[16,32]{1,0} copy(%x)
})");
  ASSERT_TRUE(back);
  RunAndCompare(*back, 10, 1);
}

TEST_F(LayoutKernels, TiledTransposesMoveEightByEightBlocks) {
  // Into and out of a tiled layout, a CPU driver with 64-bit integers moves
  // 8x8 blocks as u64vec4 words; other devices keep 4x4 blocks. The first
  // two take the tile-row invocation order (fast dim a multiple of 256),
  // the third the plain one; operands in the output's order, broadcasts and
  // a third dim ride along. A math-library op (exact division) keeps 4x4
  // blocks everywhere (8x8 blocks repeat the body 64 times).
  const TargetFeatures& target = TestDevice().target();
  const std::string wide = target.cpu && target.int64 ? "block8x8" : "block4x4";
  const std::pair<const char*, std::string> cases[] = {
      {R"(HloModule into_tiles
ENTRY %e {
  %x = f32[512,64]{1,0} parameter(0)
  %y = f32[512,64]{0,1:T(8,128)} parameter(1)
  %s = f32[512,64] add(%x, %y)
  ROOT %r = f32[512,64]{0,1:T(8,128)} multiply(%s, %x)
})", wide},
      {R"(HloModule out_of_tiles
ENTRY %e {
  %x = s32[512,64]{0,1:T(8,128)} parameter(0)
  %v = s32[64] parameter(1)
  %b = s32[512,64] broadcast(%v), dimensions={1}
  ROOT %r = s32[512,64]{1,0} subtract(%x, %b)
})", wide},
      {R"(HloModule three_dims
ENTRY %e {
  %x = u32[3,24,40]{2,1,0} parameter(0)
  ROOT %r = u32[3,24,40]{1,2,0:T(8,8)} copy(%x)
})", wide},
      {R"(HloModule math_library
ENTRY %e {
  %x = f32[64,32]{1,0} parameter(0)
  %y = f32[64,32]{1,0} parameter(1)
  ROOT %r = f32[64,32]{0,1:T(8,32)} divide(%x, %y)
})", "block4x4"}};
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    auto m = Parse(text);
    ASSERT_TRUE(m);
    auto exe = Executable::Compile(*m, TestDevice());
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    EXPECT_NE((*exe)->kernel_sources()[0].find(expected), std::string::npos);
    RunAndCompare(*m, 11, 1);
  }
}

TEST_F(LayoutKernels, BitcastWithDifferentPhysicalSizeIsAnError) {
  auto m = ParseAndVerifyHlo(R"(HloModule bad
ENTRY %e {
  %x = f32[3,5]{1,0:T(2,2)} parameter(0)
  ROOT %b = f32[15]{0} bitcast(%x)
})");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("24 physical elements"), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("f32[15]{0}"), std::string::npos) << m.status().message();
}

TEST_F(LayoutKernels, PackedS4ArrayRuns) {
  auto m = Parse(R"(HloModule packed
ENTRY %e {
  %x = s4[123,456]{1,0:T(2,128)E(4)} parameter(0)
  %y = s4[123,456]{0,1} parameter(1)
  %s = s4[123,456]{1,0:T(2,128)E(4)} add(%x, %y)
  ROOT %n = s4[123,456]{0,1:T(8,8)E(4)} negate(%s)
})");
  ASSERT_TRUE(m);
  RunAndCompare(*m, 5, 1);
}

TEST_F(LayoutKernels, RandomLayoutsGiveDefaultLayoutResults) {
  // Every operand and the result in its own random layout; the logical
  // result must equal the reference (which ignores layouts).
  std::mt19937_64 rng(7);
  const ElementType types[] = {ElementType::kF32, ElementType::kU8, ElementType::kBF16, ElementType::kS64,
                               ElementType::kPred, ElementType::kC64, ElementType::kU4};
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<int64_t> dims;
    const int rank = 1 + static_cast<int>(rng() % 3);
    for (int d = 0; d < rank; ++d) dims.push_back(1 + static_cast<int64_t>(rng() % 9));
    const ElementType t = types[trial % 7];
    auto shape = [&](ElementType et) {
      Shape s(et, dims);
      Layout l = RandomTiledLayout(dims, rng);
      if (BitWidth(et) == 4 && rng() % 2) l.element_size_in_bits = 4;
      s.set_layout(l);
      return s.ToString();
    };
    const std::string ts = std::string(ElementTypeName(t));
    std::string op = t == ElementType::kPred ? "or" : IsComplex(t) ? "add" : "maximum";
    std::string text = "HloModule random_layouts_" + std::to_string(trial) + "\nENTRY %e {\n  %x = " + shape(t) +
                       " parameter(0)\n  %y = " + shape(t) + " parameter(1)\n  %c = " + shape(t) + " copy(%y)\n  ROOT %r = " +
                       shape(t) + " " + op + "(%x, %c)\n}\n";
    SCOPED_TRACE(text);
    auto m = Parse(text);
    ASSERT_TRUE(m);
    RunAndCompare(*m, trial);
  }
}

TEST(LayoutReport, ShowsPhysicalShapesAndBytes) {
  auto m = Parse(R"(HloModule report
ENTRY %e {
  %x = f32[3,5]{1,0:T(2,2)} parameter(0)
  %y = s4[123,456]{1,0:T(2,128)E(4)} parameter(1)
  ROOT %t = (f32[3,5]{1,0:T(2,2)}, s4[123,456]{1,0:T(2,128)E(4)}) tuple(%x, %y)
})");
  ASSERT_TRUE(m);
  auto report = LayoutReport(m->EntryProgramShape());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_NE(report->find("parameter 0: f32[3,5]{1,0:T(2,2)} -> physical [2,3,2,2] = 24 elements, 96 bytes (9 padding)"),
            std::string::npos) << *report;
  EXPECT_NE(report->find("31744 bytes"), std::string::npos) << *report;
}

}  // namespace
}  // namespace vkxla
