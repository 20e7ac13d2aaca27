// The runtime under stress and faults: a lost device (or a submission that
// never finishes) is an error that stays, naming what happened; too little
// memory is an error naming the sizes; eight threads compile and run side
// by side (sharing one executable too) with exact results; thousands of runs
// of one executable leave memory and Vulkan object counts flat.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "codegen/spirv_compiler.h"
#include "codegen/spirv_demands.h"
#include "codegen/spirv_float_controls.h"
#include "frontends/hlo_text.h"
#include "runtime/capabilities.h"
#include "runtime/executable.h"
#include "runtime/live_objects.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

// Counts the instructions with `opcode` whose operand `operand` is `value`
// (any operand when operand is 0).
int CountInstructions(const std::vector<uint32_t>& spirv, uint32_t opcode, size_t operand = 0, uint32_t value = 0) {
  int n = 0;
  for (size_t at = 5; at < spirv.size() && (spirv[at] >> 16) != 0; at += spirv[at] >> 16)
    if ((spirv[at] & 0xffff) == opcode && (operand == 0 || (operand < (spirv[at] >> 16) && spirv[at + operand] == value))) ++n;
  return n;
}

// `a * b + c` stays two roundings: SPIRV-Tools' folding would make it one
// Fma (and NVIDIA's compiler contracts it when not told otherwise), which
// the reference does not. The float controls' modes are declared once, for
// the widths asked, and a second application changes nothing.
TEST(FloatControls, MultiplyAddStaysTwoRoundingsAndModesAreDeclaredOnce) {
  const std::string glsl =
      "#version 450\nlayout(local_size_x = 64) in;\n"
      "layout(std430, binding = 0) buffer B { float v[]; } b;\n"
      "void main() {\n  uint i = gl_GlobalInvocationID.x;\n  float a = b.v[i], c = b.v[i + 64u];\n"
      "  b.v[i] = a * a + c;\n}\n";
  constexpr uint32_t kOpExtInst = 12, kOpExecutionMode = 16, kOpCapability = 17, kOpDecorate = 71;
  constexpr uint32_t kNoContraction = 42, kDenormPreserve = 4459, kRoundingModeRTE = 4462;
  const uint32_t vk12 = (1u << 22) | (2u << 12);
  auto fused = CompileGlslToSpirv(glsl, vk12, true, FloatControls{});
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  EXPECT_EQ(CountInstructions(*fused, kOpExtInst), 1) << "without NoContraction the optimizer folds the pair into an Fma";

  FloatControls controls{.denorm_preserve = FloatControls::Bit(32), .rounding_rte = FloatControls::Bit(32) | FloatControls::Bit(64),
                         .no_contraction = true};
  auto kept = CompileGlslToSpirv(glsl, vk12, true, controls);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(CountInstructions(*kept, kOpExtInst), 0);
  EXPECT_EQ(CountInstructions(*kept, kOpDecorate, 2, kNoContraction), 2);  // the multiply and the add
  EXPECT_EQ(CountInstructions(*kept, kOpExecutionMode, 2, kDenormPreserve), 1);
  EXPECT_EQ(CountInstructions(*kept, kOpExecutionMode, 2, kRoundingModeRTE), 1);  // 32 only: no f64 in the kernel
  EXPECT_EQ(CountInstructions(*kept, kOpCapability, 1, 4464), 1);                 // DenormPreserve
  auto again = ApplyFloatControls(*kept, controls);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *kept);
  // Widths that are not independent are declared together.
  controls.independent_widths = false;
  controls.rounding_rte = 7;
  auto together = CompileGlslToSpirv(glsl, vk12, true, controls);
  ASSERT_TRUE(together.ok()) << together.status().ToString();
  EXPECT_EQ(CountInstructions(*together, kOpExecutionMode, 2, kRoundingModeRTE), 3);
  EXPECT_FALSE(ApplyFloatControls({1, 2, 3}, controls).ok());
}

// A kernel's workgroup size and shared memory are read from its SPIR-V and
// checked against the target before a pipeline exists: a kernel sized for a
// desktop is a clear error on a phone, not a driver failure.
TEST(KernelDemands, WorkgroupAndSharedMemoryReadFromSpirv) {
  auto spirv = CompileGlslToSpirv(
      "#version 450\nlayout(local_size_x = 64, local_size_y = 2) in;\n"
      "layout(std430, binding = 0) buffer B { uint v[]; } b;\n"
      "shared vec4 tile[256];\nshared uint counts[3];\nshared double wide[2];\n"
      "void main() {\n  tile[gl_LocalInvocationIndex] = vec4(1.0);\n  counts[gl_LocalInvocationIndex % 3u] = 1u;\n"
      "  wide[gl_LocalInvocationIndex % 2u] = 2.0lf;\n  barrier();\n"
      "  b.v[gl_GlobalInvocationID.x] = counts[0] + uint(tile[1].x) + uint(wide[1]);\n}\n",
      0, /*optimize=*/false);
  ASSERT_TRUE(spirv.ok()) << spirv.status().ToString();
  auto d = ReadKernelDemands(*spirv);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->local_size[0], 64u);
  EXPECT_EQ(d->local_size[1], 2u);
  EXPECT_EQ(d->invocations(), 128u);
  EXPECT_EQ(d->shared_bytes, 256u * 16 + 3 * 4 + 2 * 8);
  TargetFeatures phone;
  phone.device_name = "phone";
  phone.max_workgroup_invocations = 256;
  phone.max_shared_memory_bytes = 16384;
  EXPECT_TRUE(CheckKernelFits(*d, phone, "kernel k").ok());
  phone.max_shared_memory_bytes = 4096;
  Status s = CheckKernelFits(*d, phone, "kernel k");
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("kernel k: 4124 bytes of shared memory exceed phone's maxComputeSharedMemorySize (4096)"), std::string::npos)
      << s.message();
  phone.max_workgroup_invocations = 64;
  s = CheckKernelFits(*d, phone, "kernel k");
  EXPECT_NE(s.message().find("a workgroup of 64x2x1 invocations exceeds phone's maxComputeWorkGroupInvocations (64)"), std::string::npos)
      << s.message();
  // Not SPIR-V, or cut short: an error, not a read past the end.
  EXPECT_FALSE(ReadKernelDemands({1, 2, 3}).ok());
  std::vector<uint32_t> cut(spirv->begin(), spirv->begin() + 6);
  cut[5] = (50u << 16) | 16u;  // an instruction claiming 50 words
  EXPECT_FALSE(ReadKernelDemands(cut).ok());
}

// VKXLA_PROFILE=mobile lowers a desktop's limits to a phone's and hides what
// phones lack; an unknown profile is an error naming the known ones.
TEST(DeviceProfile, MobileLowersLimitsAndHidesFeatures) {
  DeviceInfo info;
  info.name = "desk";
  info.target.device_name = "desk";
  info.target.float64 = info.target.int64 = info.target.float16 = info.target.int8 = true;
  info.target.subgroup_arithmetic = true;
  info.target.subgroup_size = 32;
  info.target.max_shared_memory_bytes = 49152;
  info.target.max_workgroup_invocations = 1024;
  info.target.max_storage_buffer_range = uint64_t{1} << 32;
  info.hardware = info.target;
  ASSERT_TRUE(ApplyProfile("mobile", info).ok());
  EXPECT_FALSE(info.target.float64 || info.target.int64 || info.target.float16 || info.target.int8 || info.target.subgroup_arithmetic);
  EXPECT_EQ(info.target.max_shared_memory_bytes, 16384u);
  EXPECT_EQ(info.target.max_workgroup_invocations, 256u);
  EXPECT_EQ(info.target.max_storage_buffer_range, uint64_t{128} << 20);
  EXPECT_EQ(info.target.device_name, "desk (profile: mobile)");
  EXPECT_NE(info.Table().find("max shared memory: 16384 bytes (profile mobile)"), std::string::npos) << info.Table();
  // The watchdog budget: milliseconds, positive.
  ASSERT_TRUE(ApplySubmissionBudget("250", info).ok());
  EXPECT_EQ(info.target.submission_budget_ms, 250);
  for (const char* wrong : {"0", "-5", "fast", "inf"}) {
    Status s = ApplySubmissionBudget(wrong, info);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << wrong;
    EXPECT_NE(s.message().find("VKXLA_SUBMISSION_BUDGET_MS: expected a positive number of milliseconds"), std::string::npos) << s.message();
  }
  EXPECT_EQ(info.target.submission_budget_ms, 250);
  // The matmul tuning: four counts, powers of two for the invocations.
  ASSERT_TRUE(ApplyMatmulTuning("", info).ok());
  EXPECT_EQ(info.target.matmul_tuning.threads_m, 0);
  ASSERT_TRUE(ApplyMatmulTuning("32,16,16,256", info).ok());
  EXPECT_EQ(info.target.matmul_tuning.threads_m * 1000 + info.target.matmul_tuning.threads_n, 32016);
  EXPECT_EQ(info.target.matmul_tuning.tile_k * 1000 + info.target.matmul_tuning.groups, 16256);
  for (const char* wrong : {"32,16,16", "32,16,16,256,1", "24,16,8,256", "64,32,8,256", "4,4,8,256", "16,16,12,256",
                            "16,16,8,0", "16,16,8,x", "64,16,16,256", "16,16,4,256", "16,16,8,99999999999999999999", ",,,"}) {
    Status s = ApplyMatmulTuning(wrong, info);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << wrong;
    EXPECT_NE(s.message().find("VKXLA_MATMUL_TILES: expected threads_m,threads_n,tile_k,groups"), std::string::npos)
        << s.message();
  }
  EXPECT_EQ(info.target.matmul_tuning.threads_m, 32);
  Status bad = ApplyProfile("tablet", info);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("unknown profile 'tablet'; known: mobile"), std::string::npos) << bad.message();
}

class RuntimeRobustness : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};
using Concurrency = RuntimeRobustness;

const char* kScale = "HloModule scale\nENTRY e {\n  x = f32[64] parameter(0)\n  k = f32[] parameter(1)\n"
                     "  kb = f32[64] broadcast(k), dimensions={}\n  ROOT y = f32[64] multiply(x, kb)\n}\n";

Literal Iota(int64_t n, double scale) {
  Literal l(Shape(ElementType::kF32, {n}));
  for (int64_t i = 0; i < n; ++i) l.Set(i, Scalar::Float(ElementType::kF32, static_cast<double>(i) * scale));
  return l;
}

Literal Scalar32(double v) { return Literal::ScalarOf(Scalar::Float(ElementType::kF32, v)); }

void ExpectScaled(const Literal& got, double k) {
  for (int64_t i = 0; i < 64; ++i) ASSERT_EQ(got.Get(i).re, static_cast<double>(i) * k) << "element " << i;
}

// A device of its own: a lost one must not take the shared test device along.
TEST_F(RuntimeRobustness, ALostDeviceStaysLost) {
  for (const VkResult fault : {VK_ERROR_DEVICE_LOST, VK_TIMEOUT}) {
    auto device = Device::Open();
    ASSERT_TRUE(device.ok()) << device.status().ToString();
    auto m = ParseAndVerifyHlo(kScale);
    ASSERT_TRUE(m.ok());
    auto exe = Executable::Compile(**m, **device);
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    auto before = (*exe)->Run({Iota(64, 1), Scalar32(2)});
    ASSERT_TRUE(before.ok()) << before.status().ToString();
    ExpectScaled(*before, 2);
    (*device)->InjectSubmitResultForTesting(fault);
    auto lost = (*exe)->Run({Iota(64, 1), Scalar32(3)});
    ASSERT_FALSE(lost.ok());
    EXPECT_EQ(lost.status().code(), StatusCode::kUnavailable);
    EXPECT_NE(lost.status().message().find(fault == VK_TIMEOUT ? "VK_TIMEOUT" : "VK_ERROR_DEVICE_LOST"), std::string::npos)
        << lost.status().ToString();
    EXPECT_NE(lost.status().message().find("is lost"), std::string::npos) << lost.status().ToString();
    // Everything after fails the same way, naming the first cause.
    auto again = (*exe)->Run({Iota(64, 1), Scalar32(3)});
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status().code(), StatusCode::kUnavailable);
    EXPECT_EQ(again.status().message(), lost.status().message());
    EXPECT_EQ((*device)->CreateBuffer(64, Device::Memory::kDeviceLocal).status().code(), StatusCode::kUnavailable);
    auto recompiled = Executable::Compile(**m, **device);
    ASSERT_FALSE(recompiled.ok());
    EXPECT_EQ(recompiled.status().code(), StatusCode::kUnavailable);
  }
  // The shared device was never touched.
  auto m = ParseAndVerifyHlo(kScale);
  ASSERT_TRUE(m.ok());
  auto ok = CompileAndRun(**m, {Iota(64, 1), Scalar32(5)});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ExpectScaled(*ok, 5);
}

TEST_F(RuntimeRobustness, TooLittleMemoryNamesTheSizes) {
  // 2^31 f32 = 8 GiB in one buffer: over what one binding may cover.
  auto m = ParseAndVerifyHlo("HloModule big\nENTRY e {\n  x = f32[2147483648] parameter(0)\n  ROOT y = f32[2147483648] negate(x)\n}\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto exe = Executable::Compile(**m, TestDevice());
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), StatusCode::kResourceExhausted) << exe.status().ToString();
  EXPECT_NE(exe.status().message().find("8589934592 bytes"), std::string::npos) << exe.status().ToString();
  // Forty 100 MiB results: each binds, but together they pass one allocation.
  std::string text = "HloModule many\nENTRY e {\n  x = f32[26214400] parameter(0)\n";
  std::string tuple;
  for (int i = 0; i < 48; ++i) {
    text += "  y" + std::to_string(i) + " = f32[26214400] add(x, x)\n";
    tuple += std::string(i ? ", " : "") + "y" + std::to_string(i);
  }
  std::string types;
  for (int i = 0; i < 48; ++i) types += std::string(i ? ", " : "") + "f32[26214400]";
  text += "  ROOT t = (" + types + ") tuple(" + tuple + ")\n}\n";
  auto many = ParseAndVerifyHlo(text);
  ASSERT_TRUE(many.ok()) << many.status().ToString();
  auto arena = Executable::Compile(**many, TestDevice());
  ASSERT_FALSE(arena.ok());
  EXPECT_EQ(arena.status().code(), StatusCode::kResourceExhausted) << arena.status().ToString();
  EXPECT_NE(arena.status().message().find("exceeds maxMemoryAllocationSize"), std::string::npos) << arena.status().ToString();
}

// Eight threads at once: each compiles its own executable (a module of its
// own: kernels differ) and runs it many times, two more share one
// executable; every result is exact.
TEST_F(Concurrency, EightThreadsCompileAndRun) {
  auto shared_module = ParseAndVerifyHlo(kScale);
  ASSERT_TRUE(shared_module.ok());
  auto shared = Executable::Compile(**shared_module, TestDevice());
  ASSERT_TRUE(shared.ok()) << shared.status().ToString();
  std::vector<std::string> failures(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::unique_ptr<Module> own;
      std::unique_ptr<Executable> exe;
      Executable* run = shared->get();
      if (t < 6) {
        // Each its own op chain, so the kernels (and cache entries) differ.
        std::string text = "HloModule t" + std::to_string(t) + "\nENTRY e {\n  x = f32[64] parameter(0)\n  k = f32[] parameter(1)\n"
                           "  kb = f32[64] broadcast(k), dimensions={}\n  y0 = f32[64] multiply(x, kb)\n";
        for (int i = 1; i <= t; ++i) text += "  y" + std::to_string(i) + " = f32[64] negate(y" + std::to_string(i - 1) + ")\n";
        text += "  ROOT r = f32[64] copy(y" + std::to_string(t) + ")\n}\n";
        auto m = ParseAndVerifyHlo(text);
        if (!m.ok()) return void(failures[t] = m.status().ToString());
        own = std::move(*m);
        auto e = Executable::Compile(*own, TestDevice());
        if (!e.ok()) return void(failures[t] = e.status().ToString());
        exe = std::move(*e);
        run = exe.get();
      }
      const double sign = t < 6 && t % 2 == 1 ? -1 : 1;
      for (int r = 0; r < 50; ++r) {
        const double k = t * 100 + r;
        auto got = run->Run({Iota(64, 1), Scalar32(k)});
        if (!got.ok()) return void(failures[t] = got.status().ToString());
        for (int64_t i = 0; i < 64; ++i)
          if (got->Get(i).re != sign * static_cast<double>(i) * k)
            return void(failures[t] = "run " + std::to_string(r) + " element " + std::to_string(i) + ": " +
                                      std::to_string(got->Get(i).re));
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

int64_t ResidentKiB() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * 4;
}

// Thousands of runs of one executable: host memory and Vulkan objects stay
// where the first runs left them.
TEST_F(RuntimeRobustness, SoakRunsLeaveMemoryAndObjectsFlat) {
  auto m = ParseAndVerifyHlo(kScale);
  ASSERT_TRUE(m.ok());
  auto exe = Executable::Compile(**m, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  const Literal x = Iota(64, 1);
  for (int r = 0; r < 100; ++r) ASSERT_TRUE((*exe)->Run({x, Scalar32(r)}).ok());
  const auto objects = LiveVulkanObjects();
  const std::string objects_text = LiveVulkanObjectsText();
  // Two windows of runs: a driver may grow its own pools in the first
  // (NVIDIA 580's grew about 3 MiB over 3000 runs) and then stays; a leak
  // of ours grows both alike (half a KiB a run is 1 MiB a window).
  int64_t rss[3] = {ResidentKiB(), 0, 0};
  for (int window = 1; window <= 2; ++window) {
    for (int r = 0; r < 2000; ++r) {
      auto got = (*exe)->Run({x, Scalar32(r)});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      if (r % 500 == 0) ExpectScaled(*got, r);
    }
    rss[window] = ResidentKiB();
  }
  EXPECT_EQ(LiveVulkanObjects(), objects) << "before: " << objects_text << "; after: " << LiveVulkanObjectsText();
  // Under AddressSanitizer freed memory sits in its quarantine (up to
  // 256 MiB), so resident memory grows without a leak; LeakSanitizer checks
  // leaks at exit there instead.
  if (!kAddressSanitizer) {
    EXPECT_LT(rss[2] - rss[1], 1024) << "resident memory: " << rss[0] << " KiB, after a window of runs " << rss[1]
                                     << " KiB, after another " << rss[2] << " KiB";
  }
}

}  // namespace
}  // namespace vkxla
