// No invocation loops unboundedly: Mesa's llvmpipe silently ends a shader's
// loops after 65535 trips in all (and GPU drivers reset devices whose
// submissions run too long), which once turned long sums into wrong
// answers with exit code 0. Every kernel kind whose loops grow with the
// input is run here past that count, and each answer is exact.
#include <gtest/gtest.h>

#include <functional>

#include "frontends/hlo_text.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class LongLoops : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

const char* kAddF32 = "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
                      "  ROOT %r = f32[] add(%a, %b)\n}\n";
const char* kAddS32 = "%add (a: s32[], b: s32[]) -> s32[] {\n  %a = s32[] parameter(0)\n  %b = s32[] parameter(1)\n"
                      "  ROOT %r = s32[] add(%a, %b)\n}\n";

Literal RunModule(const std::string& text, const std::vector<Literal>& args = {}) {
  auto m = ParseAndVerifyHlo(text);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return Literal();
  auto r = CompileAndRun(**m, args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : Literal();
}

// Expects `n` elements, element i equal to want(i) (integers, or floats exactly).
void ExpectEach(const Literal& r, int64_t n, const std::function<double(int64_t)>& want) {
  ASSERT_EQ(r.element_count(), n);
  for (int64_t i = 0; i < n; ++i) {
    const Scalar v = r.Get(i);
    const double got = IsFloat(v.type) ? v.re : static_cast<double>(v.s);
    if (got != want(i)) {
      ADD_FAILURE() << "element " << i << ": " << got << ", want " << want(i);
      return;
    }
  }
}

Literal Ones(ElementType t, int64_t n) {
  Literal l(Shape(t, {n}));
  const Scalar one = t == ElementType::kF32 ? Scalar::Float(t, 1) : Scalar::Int(t, 1);
  for (int64_t i = 0; i < n; ++i) l.Set(i, one);
  return l;
}

TEST_F(LongLoops, FullSumsOfMillionsAreExact) {
  // From parameters (read as whole vectors along the row) ...
  for (const int64_t n : {int64_t{4194303}, int64_t{16777215}}) {
    SCOPED_TRACE(n);
    const std::string text = "HloModule sum\n" + std::string(kAddF32) + "ENTRY %e {\n  %x = f32[" + std::to_string(n) +
                             "] parameter(0)\n  %z = f32[] constant(0)\n  ROOT %r = f32[] reduce(%x, %z), dimensions={0}, to_apply=%add\n}\n";
    const Literal r = RunModule(text, {Ones(ElementType::kF32, n)});
    ASSERT_EQ(r.element_count(), 1);
    EXPECT_EQ(r.Get(0).re, static_cast<double>(n));
  }
  // ... and computed inline: 30M, and 40M past a binding's range.
  for (const int64_t n : {int64_t{30000000}, int64_t{40000000}}) {
    SCOPED_TRACE(n);
    const std::string text = "HloModule sum\n" + std::string(kAddS32) + "ENTRY %e {\n  %one = s32[] constant(1)\n  %x = s32[" +
                             std::to_string(n) + "] broadcast(%one), dimensions={}\n  %z = s32[] constant(0)\n"
                             "  ROOT %r = s32[] reduce(%x, %z), dimensions={0}, to_apply=%add\n}\n";
    const Literal r = RunModule(text);
    ASSERT_EQ(r.element_count(), 1);
    EXPECT_EQ(r.Get(0).s, n);
  }
}

TEST_F(LongLoops, RowsOfTenMillionAreExact) {
  const std::string text = "HloModule rows\n" + std::string(kAddS32) +
                           "ENTRY %e {\n  %x = s32[3,10000000] iota(), iota_dimension=0\n  %one = s32[] constant(1)\n"
                           "  %ob = s32[3,10000000] broadcast(%one), dimensions={}\n  %y = s32[3,10000000] add(%x, %ob)\n"
                           "  %z = s32[] constant(0)\n  ROOT %r = s32[3] reduce(%y, %z), dimensions={1}, to_apply=%add\n}\n";
  ExpectEach(RunModule(text), 3, [](int64_t i) { return (i + 1) * 10000000.0; });
  // Columns of ten million (each result folds a column of 10M rows).
  const std::string cols = "HloModule cols\n" + std::string(kAddS32) +
                           "ENTRY %e {\n  %one = s32[] constant(1)\n  %x = s32[10000000,3] broadcast(%one), dimensions={}\n"
                           "  %z = s32[] constant(0)\n  ROOT %r = s32[3] reduce(%x, %z), dimensions={0}, to_apply=%add\n}\n";
  ExpectEach(RunModule(cols), 3, [](int64_t) { return 10000000.0; });
}

TEST_F(LongLoops, NonCommutativeFoldKeepsItsOrderAcrossPasses) {
  // "The last non-zero" over 5M elements: only element 4999999 - 17 is
  // non-zero past the first, so any reordering of chunks shows.
  const std::string last = "%last (a: s32[], b: s32[]) -> s32[] {\n  %a = s32[] parameter(0)\n  %b = s32[] parameter(1)\n"
                           "  %zero = s32[] constant(0)\n  %nz = pred[] compare(%b, %zero), direction=NE\n"
                           "  ROOT %r = s32[] select(%nz, %b, %a)\n}\n";
  const std::string text = "HloModule last\n" + last +
                           "ENTRY %e {\n  %i = s32[5000000] iota(), iota_dimension=0\n  %k = s32[] constant(4999983)\n"
                           "  %kb = s32[5000000] broadcast(%k), dimensions={}\n  %hit = pred[5000000] compare(%i, %kb), direction=EQ\n"
                           "  %first = s32[] constant(3)\n  %fb = s32[5000000] broadcast(%first), dimensions={}\n"
                           "  %zero = s32[] constant(0)\n  %zb = s32[5000000] broadcast(%zero), dimensions={}\n"
                           "  %at0 = s32[] constant(0)\n  %ab = s32[5000000] broadcast(%at0), dimensions={}\n"
                           "  %is0 = pred[5000000] compare(%i, %ab), direction=EQ\n  %f = s32[5000000] select(%is0, %fb, %zb)\n"
                           "  %x = s32[5000000] select(%hit, %i, %f)\n"
                           "  ROOT %r = s32[] reduce(%x, %zero), dimensions={0}, to_apply=%last\n}\n";
  ExpectEach(RunModule(text), 1, [](int64_t) { return 4999983.0; });
}

TEST_F(LongLoops, WindowsOfHundredThousandAreExact) {
  const std::string text = "HloModule window\n" + std::string(kAddF32) +
                           "ENTRY %e {\n  %one = f32[] constant(1)\n  %x = f32[100010] broadcast(%one), dimensions={}\n"
                           "  %z = f32[] constant(0)\n  ROOT %r = f32[11] reduce-window(%x, %z), window={size=100000}, to_apply=%add\n}\n";
  ExpectEach(RunModule(text), 11, [](int64_t) { return 100000.0; });
}

TEST_F(LongLoops, SelectAndScatterOverHugeWindows) {
  // Windows of 100k (three, stride 50k): the selection folds each window in
  // passes, and each element visits only the two windows that may hold it.
  const std::string ge = "%ge (a: f32[], b: f32[]) -> pred[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
                         "  ROOT %r = pred[] compare(%a, %b), direction=GE\n}\n";
  const std::string text = "HloModule sas\n" + ge + kAddF32 +
                           "ENTRY %e {\n  %x = f32[200000] iota(), iota_dimension=0\n  %s = f32[3] constant({10, 20, 30})\n"
                           "  %z = f32[] constant(0)\n  ROOT %r = f32[200000] select-and-scatter(%x, %s, %z), "
                           "window={size=100000 stride=50000}, select=%ge, scatter=%add\n}\n";
  // Window k covers [50000k, 50000k + 100000) and selects its maximum, the last element.
  ExpectEach(RunModule(text), 200000, [](int64_t i) { return i == 99999 ? 10 : i == 149999 ? 20 : i == 199999 ? 30 : 0; });
}

TEST_F(LongLoops, ScansOfTenMillion) {
  const std::string f = "%f (x: s32[], c: s32[]) -> (s32[], s32[]) {\n  %x = s32[] parameter(0)\n  %c = s32[] parameter(1)\n"
                        "  %s = s32[] add(%c, %x)\n  ROOT %t = (s32[], s32[]) tuple(%s, %s)\n}\n";
  for (const char* associative : {"true", "false"}) {
    SCOPED_TRACE(associative);
    const std::string text = "HloModule scan\n" + f +
                             "ENTRY %e {\n  %one = s32[] constant(1)\n  %x = s32[10000000] broadcast(%one), dimensions={}\n"
                             "  %z = s32[] constant(0)\n  ROOT %r = (s32[10000000], s32[]) scan(%x, %z), scan_dimension=0,"
                             " is_reverse=false, is_associative=" + associative + ", to_apply=%f\n}\n";
    const Literal r = RunModule(text);
    ASSERT_EQ(r.tuple_elements().size(), 2u);
    const Literal& out = r.tuple_elements()[0];
    EXPECT_EQ(r.tuple_elements()[1].Get(0).s, 10000000);
    for (int64_t i : {int64_t{0}, int64_t{65535}, int64_t{65536}, int64_t{4999999}, int64_t{9999999}})
      EXPECT_EQ(out.Get(i).s, i + 1) << i;
  }
}

TEST_F(LongLoops, ScatterOfHundredThousandUpdates) {
  // 100k updates of 1 into 10 elements, index i % 10.
  const std::string text = "HloModule scatter\n" + std::string(kAddS32) +
                           "ENTRY %e {\n  %x = s32[10] constant({0, 0, 0, 0, 0, 0, 0, 0, 0, 0})\n"
                           "  %i = s32[100000,1] iota(), iota_dimension=0\n  %ten = s32[] constant(10)\n"
                           "  %tb = s32[100000,1] broadcast(%ten), dimensions={}\n  %idx = s32[100000,1] remainder(%i, %tb)\n"
                           "  %one = s32[] constant(1)\n  %u = s32[100000] broadcast(%one), dimensions={}\n"
                           "  ROOT %s = s32[10] scatter(%x, %idx, %u), update_window_dims={}, inserted_window_dims={0},"
                           " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add\n}\n";
  ExpectEach(RunModule(text), 10, [](int64_t) { return 10000.0; });
}

TEST_F(LongLoops, SortAndGatherOfLongLines) {
  // A line of 300k keys sorts through 19 stages of the network, each pass
  // bounded; a gather of 4M indices has no loop at all. Both exact.
  const std::string text = "HloModule sort\n%lt (a: s32[], b: s32[]) -> pred[] {\n  %a = s32[] parameter(0)\n"
                           "  %b = s32[] parameter(1)\n  ROOT %r = pred[] compare(%a, %b), direction=LT\n}\n"
                           "ENTRY %e {\n  %i = s32[300000] iota(), iota_dimension=0\n  %n = s32[] constant(299999)\n"
                           "  %nb = s32[300000] broadcast(%n), dimensions={}\n  %x = s32[300000] subtract(%nb, %i)\n"
                           "  ROOT %s = s32[300000] sort(%x), dimensions={0}, to_apply=%lt\n}\n";
  ExpectEach(RunModule(text), 300000, [](int64_t i) { return double(i); });
  const std::string gather = "HloModule gather\nENTRY %e {\n  %t = s32[1000] iota(), iota_dimension=0\n"
                             "  %i = s32[4000000,1] iota(), iota_dimension=0\n  %m = s32[] constant(1000)\n"
                             "  %mb = s32[4000000,1] broadcast(%m), dimensions={}\n  %idx = s32[4000000,1] remainder(%i, %mb)\n"
                             "  ROOT %g = s32[4000000] gather(%t, %idx), offset_dims={}, collapsed_slice_dims={0},"
                             " start_index_map={0}, index_vector_dim=1, slice_sizes={1}\n}\n";
  ExpectEach(RunModule(gather), 4000000, [](int64_t i) { return double(i % 1000); });
}

}  // namespace
}  // namespace vkxla
