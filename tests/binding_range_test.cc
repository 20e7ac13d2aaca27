// Arrays past the device's binding range (maxStorageBufferRange: 128 MiB on
// many phones) are reached through their device addresses
// (plan/buffer_assignment.h). The tests plan for this device with a phone's
// 128 MiB range, so the large arrays here take that path on lavapipe, and
// compare every element with the reference evaluator.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "plan/planner.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class BindingRange : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

TargetFeatures PhoneRange() {
  TargetFeatures t = TestDevice().target();
  t.max_storage_buffer_range = 128u << 20;
  return t;
}

// The names of the buffers `module`'s plan for `target` reaches by address.
std::vector<std::string> AddressedBuffers(const Module& module, const TargetFeatures& target) {
  std::vector<std::string> names;
  StatusOr<Program> p = PlanModule(module, target);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  if (p.ok())
    for (const BufferDecl& b : p->buffers)
      if (b.addressed) names.push_back(b.name);
  return names;
}

// Fills a 4-byte-element literal with small random integers (as f32 or
// s32) quickly: the arrays here hold tens of millions.
Literal SmallValues(const Shape& shape, int64_t lo, int64_t hi, uint64_t seed) {
  Literal l(shape);
  std::mt19937_64 rng(seed);
  const bool is_float = shape.element_type() == ElementType::kF32;
  for (int64_t i = 0; i < l.element_count(); ++i) {
    const int32_t v = static_cast<int32_t>(lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1)));
    const float f = static_cast<float>(v);
    std::memcpy(l.bytes().data() + 4 * i, is_float ? static_cast<const void*>(&f) : static_cast<const void*>(&v), 4);
  }
  return l;
}

// A 40M-element f32 array (160 MB) produced by an elementwise kernel and
// reduced, both by address; values -1, 0, 1, so every partial sum is exact
// in any order and the sum matches to the last bit.
TEST_F(BindingRange, ProducesAndReducesA160MBArray) {
  const std::string text =
      "HloModule big\n%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(%a, %b)\n}\nENTRY %e {\n  %x = f32[40000000] parameter(0)\n  %y = f32[40000000] parameter(1)\n"
      "  %p = f32[40000000] multiply(%x, %y)\n  %z = f32[] constant(0)\n  %r = f32[] reduce(%p, %z), dimensions={0}, to_apply=%add\n"
      "  ROOT %t = (f32[40000000], f32[]) tuple(%p, %r)\n}\n";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  const TargetFeatures target = PhoneRange();
  // Both parameters and the product are past 128 MiB.
  EXPECT_GE(AddressedBuffers(*m, target).size(), 3u);
  const Shape s(ElementType::kF32, {40000000});
  const Literal x = SmallValues(s, -1, 1, 1), y = SmallValues(s, -1, 1, 2);
  // The reference here is direct (the evaluator takes half a minute on
  // 40M elements): products and an integer sum, exact.
  auto exe = Executable::Compile(*m, TestDevice(), target);
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  StatusOr<Literal> got = (*exe)->Run({x, y});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->tuple_elements().size(), 2u);
  const float* xs = reinterpret_cast<const float*>(x.bytes().data());
  const float* ys = reinterpret_cast<const float*>(y.bytes().data());
  const float* ps = reinterpret_cast<const float*>(got->tuple_elements()[0].bytes().data());
  int64_t sum = 0, wrong = 0;
  for (int64_t i = 0; i < s.element_count(); ++i) {
    const float p = xs[i] * ys[i];
    sum += static_cast<int64_t>(p);
    if (ps[i] != p && wrong++ < 5) ADD_FAILURE() << "element " << i << ": " << ps[i] << ", want " << p;
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(got->tuple_elements()[1].Get(0).re, static_cast<double>(sum));
}

// Rows of a 96 MB and a 64 MB array joined into 160 MB (f32[40000,1000]),
// their vectors read whole (LoopKernelBuilder::LoadConcatenate), the
// result by address; every element checked directly.
TEST_F(BindingRange, JoinsRowsInto160MB) {
  const std::string text =
      "HloModule join\nENTRY %e {\n  %a = f32[24000,1000] parameter(0)\n  %b = f32[16000,1000] parameter(1)\n"
      "  ROOT %c = f32[40000,1000] concatenate(%a, %b), dimensions={0}\n}\n";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  const TargetFeatures target = PhoneRange();
  EXPECT_EQ(AddressedBuffers(*m, target), std::vector<std::string>{"%c"});
  const Literal a = SmallValues(Shape(ElementType::kF32, {24000, 1000}), -1000000, 1000000, 5);
  const Literal b = SmallValues(Shape(ElementType::kF32, {16000, 1000}), -1000000, 1000000, 6);
  auto exe = Executable::Compile(*m, TestDevice(), target);
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  EXPECT_NE((*exe)->kernel_sources()[0].find("hoisted"), std::string::npos);
  StatusOr<Literal> got = (*exe)->Run({a, b});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->bytes().size(), a.bytes().size() + b.bytes().size());
  EXPECT_EQ(std::memcmp(got->bytes().data(), a.bytes().data(), a.bytes().size()), 0);
  EXPECT_EQ(std::memcmp(got->bytes().data() + a.bytes().size(), b.bytes().data(), b.bytes().size()), 0);
}

// Rows gathered from a 300 MB table (f32[300000,256]), the first and the
// last rows among them; indices past the end clamp as the spec says.
TEST_F(BindingRange, GathersFromA300MBTable) {
  const std::string text =
      "HloModule table\nENTRY %e {\n  %t = f32[300000,256] parameter(0)\n  %i = s32[1000,1] parameter(1)\n"
      "  ROOT %g = f32[1000,256] gather(%t, %i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
      "index_vector_dim=1, slice_sizes={1,256}\n}\n";
  std::unique_ptr<Module> m = ParseOrFail(text);
  ASSERT_TRUE(m);
  const TargetFeatures target = PhoneRange();
  const std::vector<std::string> addressed = AddressedBuffers(*m, target);
  ASSERT_EQ(addressed.size(), 1u);
  EXPECT_EQ(addressed[0], "%t");
  Literal indices = SmallValues(Shape(ElementType::kS32, {1000, 1}), 0, 300010, 3);
  int32_t ends[] = {0, 299999, 300005};
  std::memcpy(indices.bytes().data(), ends, sizeof(ends));
  RunAndCompareWith(*m, {SmallValues(Shape(ElementType::kF32, {300000, 256}), -1000000, 1000000, 4), indices}, -1, &target);
}

// Without device addresses an array past the range is a clear error that
// names it, its size, the limit and the missing feature.
TEST_F(BindingRange, WithoutDeviceAddressesIsAClearError) {
  std::unique_ptr<Module> m = ParseOrFail(
      "HloModule big\nENTRY %e {\n  %x = f32[40000000] parameter(0)\n  ROOT %n = f32[40000000] negate(%x)\n}\n");
  ASSERT_TRUE(m);
  TargetFeatures target = PhoneRange();
  target.buffer_device_address = false;
  StatusOr<Program> p = PlanModule(*m, target);
  ASSERT_FALSE(p.ok());
  for (const char* word : {"f32[40000000]", "160000000 bytes", "maxStorageBufferRange (134217728)", "bufferDeviceAddress"})
    EXPECT_NE(p.status().message().find(word), std::string::npos) << p.status().ToString();
}

}  // namespace
}  // namespace vkxla
