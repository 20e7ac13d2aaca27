// What a device offers the plan and the code generator: pure data, filled
// by runtime/capabilities.cc from Vulkan queries (minus VKXLA_MASK), or
// canned (plan/target_profiles.h) so every planning decision is tested
// without a device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vkxla {

// Vulkan 1.2's float controls the driver honours, per width (Bit(16),
// Bit(32), Bit(64)), and whether float arithmetic is kept apart from fma
// contraction (codegen/spirv_float_controls.h applies them).
struct FloatControls {
  static constexpr uint8_t Bit(uint32_t width) { return width == 16 ? 1 : width == 32 ? 2 : width == 64 ? 4 : 0; }
  // The widths a mask names, narrowest first.
  static std::vector<uint32_t> Widths(uint8_t mask);
  uint8_t denorm_preserve = 0;
  uint8_t signed_zero_inf_nan_preserve = 0;
  uint8_t rounding_rte = 0;
  bool no_contraction = false;
  // The driver lets each width take its own modes (denormBehavior- and
  // roundingModeIndependence ALL); otherwise a mode is declared for all
  // three widths together, and only where all three honour it.
  bool independent_widths = true;
  std::string CacheKey() const;
};

struct TargetFeatures {
  std::string device_name = "unknown";
  // A CPU driver (lavapipe): access patterns are sized for its caches and
  // 8-wide SIMD rather than for a GPU's coalescing.
  bool cpu = false;
  bool float64 = false;          // shaderFloat64
  // Where float64 is false: doubles computed as pairs of f32
  // (shaders/float64_pairs.glsl: about 48 bits, f32's exponent range),
  // not IEEE binary64 in software. The user's choice (VKXLA_F64=pairs),
  // never the default: faster, not the same answers.
  bool float64_pairs = false;
  bool int64 = false;            // shaderInt64
  bool float16 = false;          // shaderFloat16 arithmetic (we compute f16 in f32 regardless)
  bool int8 = false;             // shaderInt8
  bool subgroup_arithmetic = false;
  // Subgroup ballot operations in compute shaders (subgroupBroadcast): a
  // CPU driver's matmul shares operand rows across its SIMD lanes.
  bool subgroup_broadcast = false;
  // VK_EXT_shader_atomic_float's shaderBufferFloat32AtomicAdd: scatter-add
  // of f32 runs as one pass of atomics over the updates.
  bool float32_atomic_add = false;
  // shaderBufferInt64Atomics (with shaderInt64): scatter combiners on 64-bit
  // elements (f64, s64, u64, c64) swap whole words in one pass.
  bool int64_atomics = false;
  // bufferDeviceAddress (Vulkan 1.2): an array past max_storage_buffer_range
  // is reached through its device address instead of a binding.
  bool buffer_device_address = false;
  // VK_NV_cooperative_matrix with 16 x 16 x 16 f16 products summed in f32
  // per subgroup of 32 (and the f16 arithmetic and Vulkan memory model it
  // needs): staged matmul tiles of f16 operands run on the matrix units.
  bool cooperative_matrix_f16 = false;
  // > 0: kernels read their inputs (whole vectors and single words)
  // through uniform texel buffers (RGBA32UI views of their bindings), each
  // view at most this many texels; 0: through storage buffers. For CPU
  // drivers: llvmpipe fetches a texel for all 8 lanes as 8 vector loads and
  // a transpose, where each lane's storage-buffer load is a branch of a
  // loop over the lanes (f32 matmul 1024^3 in a standalone test: 1.3
  // GFLOP/s with storage vectors, 10 with texel vectors, same kernel).
  uint64_t max_texel_buffer_elements = 0;
  // The driver rounds f32 and f64 division and square root correctly
  // (llvmpipe: LLVM's fdiv and sqrt, which x86 computes exactly; checked
  // bit for bit against the host on 4M random bit patterns of each width),
  // so the math library takes the quotient and root as they come instead
  // of correcting them (shaders/real_math.glsl): Vulkan only promises 2.5
  // ulp for division. Softmax 4096x4096 spent a fifth of its time there.
  bool exact_div_sqrt = false;
  // The driver widens f16 to f32 exactly with unpackHalf2x16 (llvmpipe:
  // the CPU's conversion, checked on all 65536 patterns; it quiets
  // signaling NaNs, so only operands of arithmetic take it, a matmul's:
  // f16 matmul 1024^3 65 -> 26 ms against the integer decoding that keeps
  // every bit). Elsewhere a GPU may flush f16 subnormals in conversions.
  bool exact_half_widen = false;
  // The software-double library (shaders/float64_soft.glsl) reaches the
  // driver as functions the kernel calls, not inlined copies: llvmpipe
  // inlines them itself, and spirv-opt optimizes each once (an f64 exp
  // kernel: 3.5 s to compile instead of 5.8). Only there: on NVIDIA 580
  // the same kernels gave wrong compares and selects (a bool returned by a
  // called function came back wrong) and were right inlined.
  bool soft_float_calls = false;
  // The device keeps f32 subnormals (the types computed in f32 too): it
  // honours DenormPreserve for 32 bits, or keeps them unasked (llvmpipe).
  // Elsewhere (NVIDIA, phones) its arithmetic flushes them, as Vulkan
  // allows, and the math library's operands are flushed to match.
  bool f32_subnormals_kept = false;
  // The driver folds float arithmetic on a literal +0 whatever the
  // shader's float controls: llvmpipe's IR builder (gallivm) returns 0 for
  // x * 0 (inf * 0 and NaN * 0 came out 0), x for x + 0 (-0 stayed -0) and
  // 0 for x / 0 and 0 / x (1 / 0 and 0 / 0 came out 0). Constants of the
  // program that are +0 are then read as a zero the driver cannot see
  // (codegen/glsl_types.h's GlslLiteral).
  bool literal_zeros_folded = false;
  FloatControls float_controls;
  uint32_t subgroup_size = 1;
  uint32_t max_workgroup_invocations = 128;
  uint32_t max_workgroup_count_x = 65535;
  uint32_t max_shared_memory_bytes = 16384;  // maxComputeSharedMemorySize
  uint64_t max_storage_buffer_range = 1u << 27;
  uint32_t min_storage_buffer_offset_alignment = 256;  // slices of an arena start at multiples of this
  uint64_t max_memory_allocation_size = uint64_t{1} << 30;  // one arena at most this
  uint32_t vulkan_api_version = 0;  // VK_MAKE_API_VERSION packed
  // Loop iterations one invocation may run, all loops together. Mesa's
  // llvmpipe silently ends a shader's loops after 65535 trips in total
  // (gallivm's loop limiter is one counter per invocation), and GPU drivers
  // reset devices whose submissions run too long; the plan splits longer
  // work across workgroups and passes. A quarter of llvmpipe's count leaves
  // room for the loops inside the math library.
  uint32_t max_loop_trips = 16384;
  // Dispatches one submission records at most: a long program is submitted
  // in parts, so no single submission runs long enough to trip a driver's
  // watchdog.
  uint32_t max_dispatches_per_submission = 2048;
  // Estimated device time one submission may take (plan/submission_split.h):
  // under the watchdogs of desktop (2 s) and phone drivers.
  // VKXLA_SUBMISSION_BUDGET_MS sets it.
  double submission_budget_ms = 500;
  // Conservative throughput for those estimates, per device type
  // (runtime/capabilities.cc): memory traffic and simple operations.
  double estimated_bytes_per_second = 5e9;
  double estimated_ops_per_second = 2e10;

  // Tuning of the staged GPU matmul (plan/matmul_config.h), 0 where the
  // plan chooses: invocations along m and n, the depth of a staged slice,
  // and the workgroups split-K aims for. VKXLA_MATMUL_TILES=m,n,k,groups
  // sets them, for measuring a new device's best shape.
  struct MatmulTuning {
    int threads_m = 0, threads_n = 0, tile_k = 0, groups = 0;
  } matmul_tuning;

  // Stable text for cache keys: changes whenever generated code could.
  std::string CacheKey() const;
};

}  // namespace vkxla
