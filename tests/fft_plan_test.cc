// The FFT's plan without a device: the step's configuration (lengths in
// VkFFT's order, batches, the temporary's bound, one launch per batch
// element where VkFFT batches wrongly), its text round trip, and the
// expansion of RFFT and IRFFT into complex transforms with the ops around
// them fused.
#include <gtest/gtest.h>

#include "frontends/hlo_text.h"
#include "plan/dft_expansion.h"
#include "plan/fft_config.h"
#include "plan/fft_expansion.h"
#include "plan/planner.h"
#include "plan/target_profiles.h"

namespace vkxla {
namespace {

std::unique_ptr<Module> Parse(const std::string& entry) {
  auto m = ParseAndVerifyHlo("HloModule f\n\n" + entry);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(m).value() : nullptr;
}

TEST(FftPlan, BluesteinLengths) {
  for (int64_t n : {1, 2, 8, 1000, 1024, 3 * 5 * 7 * 11 * 13, 4096}) EXPECT_FALSE(NeedsBluestein(n)) << n;
  for (int64_t n : {17, 1009, 4099, 2 * 17, 13 * 19}) EXPECT_TRUE(NeedsBluestein(n)) << n;
}

TEST(FftPlan, ConfigsFollowTheShape) {
  auto m = Parse("ENTRY main {\n  x = c64[3,4,1009] parameter(0)\n  ROOT f = c64[3,4,1009] fft(x), fft_type=IFFT, fft_length={4,1009}\n}\n");
  ASSERT_TRUE(m);
  StatusOr<FftConfig> c = ChooseFftConfig(*m->entry()->root(), LavapipeTarget());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->inverse);
  EXPECT_FALSE(c->double_precision);
  EXPECT_EQ(c->lengths, (std::vector<int64_t>{1009, 4}));  // innermost first
  EXPECT_EQ(c->batch, 3);
  EXPECT_FALSE(c->per_batch);
  EXPECT_EQ(c->array_bytes, 1009u * 4 * 8);
  // Bluestein pads 1009 below 4 * 1009: the bound covers every batch.
  EXPECT_EQ(c->temp_bytes, 4u * 1009 * 4 * 8 * 3);
  StatusOr<FftConfig> back = FftConfig::Parse(c->ToString());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, *c);
  EXPECT_FALSE(FftConfig::Parse("inverse=1 lengths=8").ok());
  EXPECT_FALSE(FftConfig::Parse("inverse=1 double=0 lengths=x batch=1 per_batch=0 array=64 temp=64").ok());

  // 3-D with batches and a Bluestein dim: one launch per batch element, a
  // temporary for one.
  auto m3 = Parse("ENTRY main {\n  x = c128[2,257,4,4] parameter(0)\n  ROOT f = c128[2,257,4,4] fft(x), fft_type=FFT, fft_length={257,4,4}\n}\n");
  ASSERT_TRUE(m3);
  StatusOr<FftConfig> c3 = ChooseFftConfig(*m3->entry()->root(), LavapipeTarget());
  ASSERT_TRUE(c3.ok()) << c3.status().ToString();
  EXPECT_TRUE(c3->double_precision);
  EXPECT_TRUE(c3->per_batch);
  EXPECT_EQ(c3->temp_bytes, 4u * 257 * 4 * 4 * 16);
  // Without f64: an error naming the op, the type and the feature.
  StatusOr<FftConfig> phone = ChooseFftConfig(*m3->entry()->root(), PhoneTarget());
  ASSERT_FALSE(phone.ok());
  EXPECT_NE(phone.status().message().find("c128[2,257,4,4]"), std::string::npos) << phone.status().message();
  EXPECT_NE(phone.status().message().find("shaderFloat64"), std::string::npos) << phone.status().message();
}

TEST(FftPlan, RealTransformsExpandIntoComplexOnes) {
  auto m = Parse("ENTRY main {\n  x = f32[2,9] parameter(0)\n  s = c64[2,5] fft(x), fft_type=RFFT, fft_length={9}\n"
                 "  ROOT y = f32[2,9] fft(s), fft_type=IRFFT, fft_length={9}\n}\n");
  ASSERT_TRUE(m);
  StatusOr<std::shared_ptr<const Module>> expanded = ExpandRealFfts(*m);
  ASSERT_TRUE(expanded.ok()) << expanded.status().ToString();
  ASSERT_TRUE(*expanded);
  int ffts = 0, slices = 0, reals = 0;
  for (const auto& inst : (*expanded)->entry()->instructions()) {
    if (inst->opcode == Opcode::kFft) {
      ++ffts;
      EXPECT_TRUE(IsComplex(inst->operands[0]->shape.element_type())) << inst->name;
    }
    slices += inst->opcode == Opcode::kSlice;
    reals += inst->opcode == Opcode::kReal;
  }
  EXPECT_EQ(ffts, 2);
  EXPECT_GE(slices, 2);  // RFFT's truncation, IRFFT's mirrored run
  EXPECT_GE(reals, 1);
  EXPECT_EQ((*expanded)->entry()->root()->shape, m->entry()->root()->shape);
  // A 1-D RFFT of a power of two is VkFFT's own R2C: a step of its own.
  auto r = Parse("ENTRY main {\n  x = f64[3,16] parameter(0)\n  ROOT s = c128[3,9] fft(x), fft_type=RFFT, fft_length={16}\n}\n");
  ASSERT_TRUE(r);
  EXPECT_TRUE(VkfftTakesRfft(*r->entry()->root()));
  StatusOr<std::shared_ptr<const Module>> kept = ExpandRealFfts(*r);
  ASSERT_TRUE(kept.ok());
  EXPECT_FALSE(*kept);
  StatusOr<FftConfig> rc = ChooseFftConfig(*r->entry()->root(), LavapipeTarget());
  ASSERT_TRUE(rc.ok()) << rc.status().ToString();
  EXPECT_TRUE(rc->real_input);
  EXPECT_TRUE(rc->double_precision);
  EXPECT_EQ(rc->batch, 3);
  EXPECT_EQ(rc->temp_bytes, (16u + 2) * 16 * 3);
  // Nothing to expand: no copy.
  auto c = Parse("ENTRY main {\n  x = c64[8] parameter(0)\n  ROOT f = c64[8] fft(x), fft_type=FFT, fft_length={8}\n}\n");
  ASSERT_TRUE(c);
  StatusOr<std::shared_ptr<const Module>> none = ExpandRealFfts(*c);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(*none);
  // Planned: the conversion fuses into the kernel writing the first step's
  // operand, the slice and mirror into the one writing the second's, the
  // real part into the result's: three kernels, two external steps.
  StatusOr<Program> p = PlanModule(*m, LavapipeTarget());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->groups.size(), 3u) << p->ToString();
  int external = 0;
  for (const Step& s : p->steps) external += std::holds_alternative<ExternalStep>(s.op);
  EXPECT_EQ(external, 2) << p->ToString();
}

// VkFFT binds each arena from its start: an FFT buffer that ends past
// maxStorageBufferRange within its arena is an error naming the sizes,
// though each buffer alone would fit.
TEST(FftPlan, BuffersMustEndWithinOneBinding) {
  auto m = Parse("ENTRY main {\n  x = c64[2,64] parameter(0)\n  ROOT f = c64[2,64] fft(x), fft_type=FFT, fft_length={64}\n}\n");
  ASSERT_TRUE(m);
  TargetFeatures small = LavapipeTarget();
  small.max_storage_buffer_range = 2048;  // each of the step's buffers holds 1024 bytes
  StatusOr<Program> p = PlanModule(*m, small);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("vkfft step"), std::string::npos) << p.status().message();
  EXPECT_NE(p.status().message().find("maxStorageBufferRange (2048)"), std::string::npos) << p.status().message();
  EXPECT_TRUE(PlanModule(*m, LavapipeTarget()).ok());
}

// Without shaderFloat64 a c128 transform is a product with the DFT matrix
// of each transformed dim (its dim moved back after each), and a VkFFT-sized
// f64 RFFT is expanded around a complex one first; with it nothing changes.
TEST(FftPlan, DoubleTransformsBecomeProductsWithoutF64) {
  auto m = Parse("ENTRY main {\n  x = c128[3,4,5] parameter(0)\n  ROOT f = c128[3,4,5] fft(x), fft_type=IFFT, fft_length={4,5}\n}\n");
  ASSERT_TRUE(m);
  StatusOr<std::shared_ptr<const Module>> kept = ExpandDoubleFftsAsProducts(*m, LavapipeTarget());
  ASSERT_TRUE(kept.ok());
  EXPECT_FALSE(*kept);
  StatusOr<std::shared_ptr<const Module>> products = ExpandDoubleFftsAsProducts(*m, PhoneTarget());
  ASSERT_TRUE(products.ok()) << products.status().ToString();
  ASSERT_TRUE(*products);
  int dots = 0, transposes = 0, ffts = 0;
  for (const auto& inst : (*products)->entry()->instructions()) {
    ffts += inst->opcode == Opcode::kFft;
    transposes += inst->opcode == Opcode::kTranspose;
    if (inst->opcode != Opcode::kDot) continue;
    ++dots;
    const Literal& w = *inst->operands[1]->literal;
    const int64_t n = w.shape().dim(0);
    // The inverse's matrix: e^(2 pi i jk / n) / n; entry (1, 1).
    EXPECT_NEAR(w.Get(n + 1).c().real(), std::cos(2 * M_PI / n) / n, 1e-16);
    EXPECT_NEAR(w.Get(n + 1).c().imag(), std::sin(2 * M_PI / n) / n, 1e-16);
  }
  EXPECT_EQ(ffts, 0);
  EXPECT_EQ(dots, 2);
  EXPECT_EQ(transposes, 2);
  EXPECT_EQ((*products)->entry()->root()->shape, m->entry()->root()->shape);
  auto r = Parse("ENTRY main {\n  x = f64[3,16] parameter(0)\n  ROOT s = c128[3,9] fft(x), fft_type=RFFT, fft_length={16}\n}\n");
  ASSERT_TRUE(r);
  StatusOr<std::shared_ptr<const Module>> real = ExpandRealFfts(*r, /*every_double=*/true);
  ASSERT_TRUE(real.ok() && *real) << real.status().ToString();
  StatusOr<Program> plan = PlanModule(*r, PhoneTarget());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
}

}  // namespace
}  // namespace vkxla
