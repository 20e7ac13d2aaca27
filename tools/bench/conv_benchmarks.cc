#include "tools/bench/conv_benchmarks.h"

#include <filesystem>
#include <map>

#include "frontends/module_file.h"
#include "tools/bench/device_limits.h"
#include "tools/bench/module_timing.h"

namespace vkxla {
namespace {

std::string Nhwc(int64_t n, int64_t h, int64_t w, int64_t c) {
  return "f32[" + std::to_string(n) + "," + std::to_string(h) + "," + std::to_string(w) + "," + std::to_string(c) + "]";
}

// y = conv(x, w), NHWC input, HWIO kernel, 3x3 "same" padding; `extra`
// attributes (the highest precision keeps Winograd out).
std::string ConvModule(int64_t n, int64_t hw, int64_t cin, int64_t cout, int64_t groups, const std::string& extra = "") {
  return "HloModule conv\n\nENTRY main {\n  x = " + Nhwc(n, hw, hw, cin) + " parameter(0)\n  w = " + Nhwc(3, 3, cin / groups, cout) +
         " parameter(1)\n  ROOT y = " + Nhwc(n, hw, hw, cout) +
         " convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f" +
         (groups > 1 ? ", feature_group_count=" + std::to_string(groups) : "") + extra + "\n}\n";
}

std::string MatmulModule(int64_t m, int64_t k, int64_t n) {
  const std::string ms = std::to_string(m), ks = std::to_string(k), ns = std::to_string(n);
  return "HloModule matmul\n\nENTRY main {\n  x = f32[" + ms + "," + ks + "] parameter(0)\n  w = f32[" + ks + "," + ns +
         "] parameter(1)\n  ROOT d = f32[" + ms + "," + ns + "] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
}

// The kind of a kernel from its name ("matmul_conv.3.conv12 (%..)").
std::string KernelKindOfName(const std::string& name) {
  if (name.rfind("matmul", 0) == 0) return "matmul";
  if (name.rfind("reduce", 0) == 0) return "reduce";
  if (name.rfind("row", 0) == 0) return "row (softmax, layer norm)";
  if (name.rfind("sort", 0) == 0) return "sort";
  if (name.rfind("fusion", 0) == 0) return "elementwise (depthwise, residual)";
  return "other";
}

// A sample module run with random arguments (weights in [-1, 1]): runs a
// second, and the device time by kernel kind.
Status SampleModelRow(Device& device, const std::string& path, const std::string& name, const std::string& unit, uint64_t seed,
                      BenchReport& report) {
  if (!std::filesystem::exists(path)) {
    report.rows.push_back({name, "-", "", 0, 0, path + " not found: run vkxla bench from the source tree"});
    return OkStatus();
  }
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, LoadModuleFile(path));
  std::vector<Literal> args;
  for (const Instruction* p : module->entry()->parameters()) args.push_back(RandomBenchLiteral(p->shape, seed++));
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, Executable::Compile(*module, device));
  VKXLA_RETURN_IF_ERROR(exe->Run(args).status());
  VKXLA_ASSIGN_OR_RETURN(Timing whole, BestTiming(3, [&] { return exe->TimeKernels(2); }));
  std::map<std::string, double> by_kind;
  double total = 0;
  StatusOr<std::vector<Executable::KernelTime>> each = exe->TimeEachKernel();
  if (each.ok())
    for (const Executable::KernelTime& k : *each) {
      by_kind[KernelKindOfName(k.name)] += k.seconds;
      total += k.seconds;
    }
  std::string shares;
  for (const auto& [kind, seconds] : by_kind)
    shares += (shares.empty() ? "" : ", ") + kind + Format(" %.0f%%", total > 0 ? 100 * seconds / total : 0);
  report.rows.push_back({name, Format("%.2f ", 1.0 / whole.seconds) + unit, "", 0, 0,
                         Format("%.1f ms each, ", whole.seconds * 1e3) + std::to_string(exe->kernel_count()) +
                             " kernels; device time by kernel kind: " + (shares.empty() ? "no timestamps" : shares)});
  return OkStatus();
}

}  // namespace

Status RunConvBenchmarks(Device& device, const std::string& samples, BenchReport& report) {
  // Dense 3x3: Winograd (what the plan picks) and the implicit GEMM (kept
  // by the highest precision), each against the matmul of the direct
  // flops, all timed alternately.
  for (int64_t n : {1, 8}) {
    const int64_t hw = 56, c = 64;
    const Literal x = RandomBenchLiteral(Shape(ElementType::kF32, {n, hw, hw, c}), 21);
    const Literal w = RandomBenchLiteral(Shape(ElementType::kF32, {3, 3, c, c}), 22);
    const int64_t m = n * hw * hw, k = 9 * c;
    const Literal a = RandomBenchLiteral(Shape(ElementType::kF32, {m, k}), 23);
    const Literal b = RandomBenchLiteral(Shape(ElementType::kF32, {k, c}), 24);
    VKXLA_ASSIGN_OR_RETURN(std::vector<ModuleTiming> times,
                           TimeModulesInterleaved(device,
                                                  {{ConvModule(n, hw, c, c, 1), {x, w}},
                                                   {ConvModule(n, hw, c, c, 1, ", operand_precision={highest,highest}"), {x, w}},
                                                   {MatmulModule(m, k, c), {a, b}}},
                                                  n == 1 ? 6 : 4, 2));
    const double flops = 2.0 * static_cast<double>(m * k * c);
    const double matmul = flops / times[2].kernels.seconds * 1e-9;
    const char* names[2] = {"Winograd F(2x2,3x3)", "implicit GEMM"};
    for (int i = 0; i < 2; ++i) {
      const double conv = flops / times[i].kernels.seconds * 1e-9;
      report.rows.push_back({"conv 3x3 56x56x64->64, N=" + std::to_string(n) + " (" + names[i] + ")",
                             Format("%.1f GFLOP/s", conv),
                             "same-flop matmul " + std::to_string(m) + "x" + std::to_string(k) + "x64 " +
                                 Format("%.1f GFLOP/s", matmul),
                             conv / matmul, 0.7,
                             Format("%.2f ms", times[i].kernels.seconds * 1e3) + ", " + std::to_string(times[i].kernel_count) +
                                 " kernel(s), direct flops; timed alternately with the matmul"});
    }
  }
  // Depthwise 3x3: the direct kernel, bytes of input and output.
  {
    const int64_t hw = 112, c = 32;
    const Literal x = RandomBenchLiteral(Shape(ElementType::kF32, {1, hw, hw, c}), 25);
    const Literal w = RandomBenchLiteral(Shape(ElementType::kF32, {3, 3, 1, c}), 26);
    VKXLA_ASSIGN_OR_RETURN(ModuleTiming t, TimeModuleKernels(device, ConvModule(1, hw, c, c, c), {x, w}, 7, 4));
    const double gbps = 2.0 * hw * hw * c * 4 / t.kernels.seconds * 1e-9;
    report.rows.push_back(LimitRow("depthwise conv 3x3 112x112x32 (direct kernel)", Format("%.1f GB/s", gbps), gbps,
                                   BenchLimit::kStream, 0.6,
                                   Format("%.3f ms", t.kernels.seconds * 1e3) + ", " + std::to_string(t.kernel_count) +
                                       " kernel(s); bytes: one read of x, one write"));
  }
  // The same in bf16 with a bias and relu6 after it, as TensorFlow's
  // mixed-precision MobileNets write it (XLA's SSD-MobileNet benchmark
  // dump): one kernel, its operands widened inside the products.
  {
    const int64_t hw = 112, c = 32;
    const std::string y = "bf16[1," + std::to_string(hw) + "," + std::to_string(hw) + "," + std::to_string(c) + "]";
    const std::string text = "HloModule dw\n\nENTRY main {\n  x = " + y + " parameter(0)\n  w = bf16[3,3,1," + std::to_string(c) +
                             "] parameter(1)\n  b = bf16[" + std::to_string(c) + "] parameter(2)\n  d = " + y +
                             " convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=" +
                             std::to_string(c) + "\n  bb = " + y + " broadcast(b), dimensions={3}\n  a = " + y +
                             " add(d, bb)\n  z = bf16[] constant(0)\n  zb = " + y + " broadcast(z), dimensions={}\n  s = bf16[] constant(6)\n  sb = " +
                             y + " broadcast(s), dimensions={}\n  ROOT r = " + y + " clamp(zb, a, sb)\n}\n";
    const Literal x = RandomBenchLiteral(Shape(ElementType::kBF16, {1, hw, hw, c}), 27);
    const Literal w = RandomBenchLiteral(Shape(ElementType::kBF16, {3, 3, 1, c}), 28);
    const Literal b = RandomBenchLiteral(Shape(ElementType::kBF16, {c}), 29);
    VKXLA_ASSIGN_OR_RETURN(ModuleTiming t, TimeModuleKernels(device, text, {x, w, b}, 7, 4));
    const double gbps = 2.0 * hw * hw * c * 2 / t.kernels.seconds * 1e-9;
    report.rows.push_back(LimitRow("depthwise conv 3x3 112x112x32 bf16, bias and relu6 (direct kernel)", Format("%.1f GB/s", gbps),
                                   gbps, BenchLimit::kStream, 0,
                                   Format("%.3f ms", t.kernels.seconds * 1e3) + ", " + std::to_string(t.kernel_count) +
                                       " kernel(s); bytes: one read of x, one write"));
  }
  // Whole models from samples/ with random weights.
  VKXLA_RETURN_IF_ERROR(SampleModelRow(device, samples + "/mobilenet_v2_224_parameters.hlo",
                                       "MobileNet-v2 224x224 width 1.0, batch 1 (random weights)", "images/s", 30, report));
  VKXLA_RETURN_IF_ERROR(SampleModelRow(device, samples + "/transformer_encoder.hlo",
                                       "BERT encoder layer, 128 tokens, hidden 256, 4 heads, ffn 1024 (random weights)", "layers/s",
                                       40, report));
  return OkStatus();
}

}  // namespace vkxla
