#include "tools/bench/foundation_benchmarks.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "codegen/kernel_cache.h"
#include "runtime/bound_kernel.h"
#include "tools/bench/module_timing.h"

namespace vkxla {
namespace {

// Eight elementwise ops over two inputs and a broadcast constant; reads 2
// arrays and writes 1, the same traffic as the reference kernel.
std::string Fused8Module(uint64_t elements) {
  const std::string s = "f32[" + std::to_string(elements) + "]";
  return "HloModule fused8\n\nENTRY main {\n"
         "  a = " + s + " parameter(0)\n"
         "  b = " + s + " parameter(1)\n"
         "  half = f32[] constant(0.5)\n"
         "  h = " + s + " broadcast(half), dimensions={}\n"
         "  t1 = " + s + " add(a, b)\n"
         "  t2 = " + s + " multiply(t1, h)\n"
         "  t3 = " + s + " subtract(t2, b)\n"
         "  t4 = " + s + " abs(t3)\n"
         "  t5 = " + s + " maximum(t4, a)\n"
         "  t6 = " + s + " negate(t5)\n"
         "  t7 = " + s + " multiply(t6, t1)\n"
         "  ROOT t8 = " + s + " minimum(t7, b)\n"
         "}\n";
}

Status FusedElementwise(Device& device, const DeviceLimits& limits, uint64_t elements, BenchReport& report) {
  const Shape shape(ElementType::kF32, {static_cast<int64_t>(elements)});
  std::vector<Literal> args = {RandomBenchLiteral(shape, 1), RandomBenchLiteral(shape, 2)};
  VKXLA_ASSIGN_OR_RETURN(ModuleTiming m, TimeModuleKernels(device, Fused8Module(elements), args));
  const double gbps = 3.0 * elements * 4 / m.kernels.seconds * 1e-9;
  const std::string n = std::to_string(elements / (1 << 20)) + "M";
  report.rows.push_back(LimitRow("fused 8-op elementwise, " + n + " f32 (" + std::to_string(m.kernel_count) + " kernel)",
                                 Format("%.1f GB/s", gbps), gbps, BenchLimit::kStream, 0.9,
                                 Format("%.3f ms", m.kernels.seconds * 1e3)));
  report.rows.push_back(LimitRow("fused 8-op elementwise vs copy", Format("%.1f GB/s", gbps), gbps, BenchLimit::kCopy, 0));
  return OkStatus();
}

// The real math library's functions one at a time over arguments in
// [-4, 4] (log of |x|), one read and one write an element: what a model's
// activations (gelu's erf or tanh, swish's logistic), positional encodings
// (sin) and losses (log) cost beside a plain stream.
Status Transcendentals(Device& device, uint64_t elements, BenchReport& report) {
  const std::string s = "f32[" + std::to_string(elements) + "]";
  Literal x = RandomBenchLiteral(Shape(ElementType::kF32, {static_cast<int64_t>(elements)}), 3);
  float* p = reinterpret_cast<float*>(x.bytes().data());
  for (uint64_t i = 0; i < elements; ++i) p[i] *= 4;
  const std::string n = std::to_string(elements / (1 << 20)) + "M";
  for (const char* op : {"exponential", "log", "sine", "erf", "tanh", "logistic"}) {
    const bool log = std::string(op) == "log";
    const std::string text = "HloModule " + std::string(op) + "\n\nENTRY main {\n  x = " + s + " parameter(0)\n" +
                             (log ? "  a = " + s + " abs(x)\n  ROOT y = " + s + " log(a)\n" : "  ROOT y = " + s + " " + op + "(x)\n") +
                             "}\n";
    VKXLA_ASSIGN_OR_RETURN(ModuleTiming m, TimeModuleKernels(device, text, {x}));
    const double gbps = 2.0 * elements * 4 / m.kernels.seconds * 1e-9;
    report.rows.push_back(LimitRow(std::string(op) + (log ? " of |x|" : "") + ", " + n + " f32 in [-4, 4]", Format("%.1f GB/s", gbps),
                                   gbps, BenchLimit::kStream, 0, Format("%.3f ms; bytes: one read, one write", m.kernels.seconds * 1e3)));
  }
  return OkStatus();
}

std::string AddModule(int64_t n) {
  const std::string s = "f32[" + std::to_string(n) + "]";
  return "HloModule add\n\nENTRY main {\n  a = " + s + " parameter(0)\n  b = " + s + " parameter(1)\n  ROOT c = " + s + " add(a, b)\n}\n";
}

// c = a + b over 40M f32: 160 MB arrays, past the binding range of phones
// and of lavapipe (128 MiB), so all three are reached through device
// addresses; against 32M (128 MiB arrays, bound as usual) in the same rounds.
Status AddressedElementwise(Device& device, BenchReport& report) {
  const int64_t big = 40000000, small = int64_t{1} << 25;
  TargetFeatures target = device.target();
  target.max_storage_buffer_range = std::min<uint64_t>(target.max_storage_buffer_range, uint64_t{128} << 20);
  if (!target.buffer_device_address) return OkStatus();
  std::vector<Literal> big_args = {RandomBenchLiteral(Shape(ElementType::kF32, {big}), 1), RandomBenchLiteral(Shape(ElementType::kF32, {big}), 2)};
  std::vector<Literal> small_args = {RandomBenchLiteral(Shape(ElementType::kF32, {small}), 1),
                                     RandomBenchLiteral(Shape(ElementType::kF32, {small}), 2)};
  // The same 32M through addresses (planned for a 64 MiB range): the cost of the path itself.
  TargetFeatures narrow = target;
  narrow.max_storage_buffer_range = uint64_t{64} << 20;
  VKXLA_ASSIGN_OR_RETURN(std::vector<ModuleTiming> t,
                         TimeModulesInterleaved(device, {{AddModule(big), big_args}, {AddModule(small), small_args}, {AddModule(small), small_args}},
                                                5, 4, {target, target, narrow}));
  auto gbps = [&](int64_t n, const ModuleTiming& m) { return 3.0 * n * 4 / m.kernels.seconds * 1e-9; };
  const double addressed = gbps(big, t[0]);
  report.rows.push_back(LimitRow("elementwise add, 40M f32 (160 MB arrays past a 128 MiB binding range: through device addresses)",
                                 Format("%.1f GB/s", addressed), addressed, BenchLimit::kStream, 0.8,
                                 Format("%.3f ms; in the same rounds 32M (128 MiB arrays) ", t[0].kernels.seconds * 1e3) +
                                     Format("bound as usual %.1f GB/s, ", gbps(small, t[1])) +
                                     Format("through addresses %.1f GB/s", gbps(small, t[2]))));
  return OkStatus();
}

// s64 add and multiply over 8M elements as pairs of 32-bit words, and f64
// add, multiply, divide and exp as software floats and as pairs of f32
// (the kernels planned for a target without shaderInt64 / shaderFloat64,
// or with VKXLA_F64=pairs), against the same kernels on the device's own
// 64-bit types, timed in alternation.
Status Emulated64BitTypes(Device& device, BenchReport& report) {
  const int64_t n = int64_t{1} << 23;
  struct Case {
    ElementType type;
    const char* op;
    bool pairs = false;
  };
  for (const Case& c : {Case{ElementType::kS64, "add"}, Case{ElementType::kS64, "multiply"}, Case{ElementType::kF64, "add"},
                        Case{ElementType::kF64, "multiply"}, Case{ElementType::kF64, "divide"}, Case{ElementType::kF64, "exponential"},
                        Case{ElementType::kF64, "add", true}, Case{ElementType::kF64, "multiply", true},
                        Case{ElementType::kF64, "divide", true}, Case{ElementType::kF64, "exponential", true}}) {
    const bool integer = c.type == ElementType::kS64;
    TargetFeatures emulated = device.target();
    (integer ? emulated.int64 : emulated.float64) = false;
    if (integer) emulated.int64_atomics = false;
    emulated.float64_pairs = c.pairs;
    const bool unary = std::string(c.op) == "exponential";
    const bool native = integer ? device.target().int64 : device.target().float64;
    const Shape shape(c.type, {n});
    const std::vector<Literal> args = {RandomBenchLiteral(shape, 1), RandomBenchLiteral(shape, 2)};
    const std::string s = std::string(ElementTypeName(c.type)) + "[" + std::to_string(n) + "]";
    const std::string hlo = "HloModule m\n\nENTRY main {\n  a = " + s + " parameter(0)\n  b = " + s + " parameter(1)\n  ROOT c = " + s +
                            " " + c.op + (unary ? "(a)" : "(a, b)") + "\n}\n";
    const std::string name = std::string(ElementTypeName(c.type)) + " " + c.op + ", 8M, " +
                             (integer  ? "as pairs of 32-bit words"
                              : c.pairs ? "as pairs of f32 (VKXLA_F64=pairs: about 48 bits)"
                                        : "in software (IEEE binary64 on word pairs)");
    const char* feature = integer ? "shaderInt64" : "shaderFloat64";
    auto gbps = [&](const ModuleTiming& m) { return (unary ? 2.0 : 3.0) * n * 8 / m.kernels.seconds * 1e-9; };
    if (!native) {
      VKXLA_ASSIGN_OR_RETURN(ModuleTiming m, TimeModuleKernels(device, hlo, args));
      report.rows.push_back(LimitRow(name, Format("%.1f GB/s", gbps(m)), gbps(m), BenchLimit::kStream, 0,
                                     std::string("the device has no ") + feature + " to compare with"));
      continue;
    }
    VKXLA_ASSIGN_OR_RETURN(std::vector<ModuleTiming> t,
                           TimeModulesInterleaved(device, {{hlo, args}, {hlo, args}}, 5, 4, {emulated, device.target()}));
    report.rows.push_back({name, Format("%.1f GB/s", gbps(t[0])), "native " + std::string(feature) + Format(" %.1f GB/s", gbps(t[1])),
                           gbps(t[0]) / gbps(t[1]), 0, Format("%.3f ms against ", t[0].kernels.seconds * 1e3) + Format("%.3f ms", t[1].kernels.seconds * 1e3)});
  }
  return OkStatus();
}

// 1000 small dispatches in one command buffer: independent ones (no
// barrier between them) against a dependent chain (each reads what the
// previous wrote, so each follows a barrier).
Status DispatchCost(Device& device, BenchReport& report) {
  constexpr int kDispatches = 1000;
  constexpr uint32_t kWords = 64;
  const std::string glsl =
      "#version 450\nlayout(local_size_x = 64) in;\n"
      "layout(std430, binding = 0) readonly buffer In { uint w[]; } src;\n"
      "layout(std430, binding = 1) writeonly buffer Out { uint w[]; } dst;\n"
      "void main() { uint i = gl_GlobalInvocationID.x; if (i < 64u) dst.w[i] = src.w[i] + 1u; }\n";
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<ComputePipeline> p, ComputePipeline::FromGlsl(device, glsl, 2));
  std::shared_ptr<ComputePipeline> pipeline = std::move(p);
  std::vector<Buffer> buffers;
  for (int i = 0; i <= kDispatches; ++i) {
    VKXLA_ASSIGN_OR_RETURN(Buffer b, device.CreateBuffer(kWords * 4, Device::Memory::kDeviceLocal));
    buffers.push_back(std::move(b));
  }
  VKXLA_RETURN_IF_ERROR(TimeCommands(device, [&](Scheduler& s) {
    vkCmdFillBuffer(s.command_buffer(), buffers[0].handle(), 0, VK_WHOLE_SIZE, 0);
    return OkStatus();
  }).status());
  auto time_chain = [&](bool dependent, int& barriers) -> StatusOr<Timing> {
    std::vector<BoundKernel> kernels;
    for (int i = 0; i < kDispatches; ++i) {
      VKXLA_ASSIGN_OR_RETURN(BoundKernel k, BoundKernel::Create(device, pipeline, {Whole(buffers[dependent ? i : 0]),
                                                                             Whole(buffers[i + 1])}, kWords, 64));
      kernels.push_back(std::move(k));
    }
    return BestTiming(5, [&]() -> StatusOr<Timing> {
      return TimeCommands(device, [&](Scheduler& s) {
        for (size_t i = 0; i < kernels.size(); ++i) {
          if (dependent && i > 0) s.Barrier();
          kernels[i].Record(s);
        }
        barriers = s.barriers();
        return OkStatus();
      });
    });
  };
  int independent_barriers = 0, dependent_barriers = 0;
  VKXLA_ASSIGN_OR_RETURN(Timing independent, time_chain(false, independent_barriers));
  VKXLA_ASSIGN_OR_RETURN(Timing dependent, time_chain(true, dependent_barriers));
  const double us = independent.seconds / kDispatches * 1e6, chained_us = dependent.seconds / kDispatches * 1e6;
  report.rows.push_back({"per dispatch, 1000 independent small dispatches in one command buffer",
                         Format("%.2f µs", us), Format("dependent chain (a barrier each) %.2f µs", chained_us),
                         us / chained_us, 0,
                         std::to_string(independent_barriers) + " vs " + std::to_string(dependent_barriers) + " barriers recorded"});
  return OkStatus();
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// GLSL -> SPIR-V (glslang, SPIRV-Tools validate and optimize) with nothing
// cached, then the same kernel from a fresh process's view of the disk
// cache; and the driver's pipeline compile without and with VkPipelineCache.
Status CompileTime(Device& device, BenchReport& report) {
  const Shape small(ElementType::kF32, {1024});
  VKXLA_ASSIGN_OR_RETURN(ModuleTiming m, TimeModuleKernels(device, Fused8Module(1024),
                                                     {RandomBenchLiteral(small, 1), RandomBenchLiteral(small, 2)}));
  // A unique comment makes the source new to every cache keyed by text.
  const std::string token = "// bench " + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "\n";
  const std::string glsl = m.first_kernel_source + token;
  const std::string dir = (std::filesystem::temp_directory_path() / ("vkxla-bench-cache-" + ContentHash(glsl))).string();
  // glslang builds its symbol tables on the first compile of a process;
  // measure that once, apart from the per-kernel figure.
  auto start = std::chrono::steady_clock::now();
  KernelCache memory_only("");
  VKXLA_RETURN_IF_ERROR(memory_only.GetOrCompile("#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n" + token,
                                           device.target()).status());
  const double init_s = Seconds(start);
  start = std::chrono::steady_clock::now();
  KernelCache cold(dir);
  VKXLA_ASSIGN_OR_RETURN(std::vector<uint32_t> spirv, cold.GetOrCompile(glsl, device.target()));
  const double cold_s = Seconds(start);
  start = std::chrono::steady_clock::now();
  KernelCache warm(dir);
  VKXLA_RETURN_IF_ERROR(warm.GetOrCompile(glsl, device.target()).status());
  const double disk_s = Seconds(start);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (warm.stats().disk_hits != 1) return Internal("compile benchmark: the disk cache did not hit");

  const uint32_t bindings = 3;  // a, b and the result
  start = std::chrono::steady_clock::now();
  VKXLA_RETURN_IF_ERROR(ComputePipeline::Create(device, spirv, bindings, /*use_pipeline_cache=*/false).status());
  const double pipeline_cold_s = Seconds(start);
  VKXLA_RETURN_IF_ERROR(ComputePipeline::Create(device, spirv, bindings).status());  // fills the cache
  start = std::chrono::steady_clock::now();
  VKXLA_RETURN_IF_ERROR(ComputePipeline::Create(device, spirv, bindings).status());
  const double pipeline_warm_s = Seconds(start);

  report.rows.push_back({"kernel compile from the disk cache (fused 8-op)", Format("%.2f ms", disk_s * 1e3),
                         Format("cold GLSL → optimized SPIR-V %.2f ms", cold_s * 1e3), disk_s / cold_s, 0,
                         Format("host time; the first compile of a process adds %.0f ms of glslang set-up", init_s * 1e3)});
  report.rows.push_back({"pipeline creation with a warm VkPipelineCache", Format("%.2f ms", pipeline_warm_s * 1e3),
                         Format("without cache %.2f ms", pipeline_cold_s * 1e3), pipeline_warm_s / pipeline_cold_s, 0,
                         "host time, driver compile"});
  return OkStatus();
}

}  // namespace

Status RunFoundationBenchmarks(Device& device, const DeviceLimits& limits, uint64_t elements, BenchReport& report) {
  VKXLA_RETURN_IF_ERROR(FusedElementwise(device, limits, elements, report));
  VKXLA_RETURN_IF_ERROR(Transcendentals(device, elements, report));
  VKXLA_RETURN_IF_ERROR(AddressedElementwise(device, report));
  VKXLA_RETURN_IF_ERROR(Emulated64BitTypes(device, report));
  VKXLA_RETURN_IF_ERROR(DispatchCost(device, report));
  VKXLA_RETURN_IF_ERROR(CompileTime(device, report));
  return OkStatus();
}

}  // namespace vkxla
