#include "tools/bench/matmul_benchmarks.h"

#include "tools/bench/module_timing.h"

namespace vkxla {
namespace {

std::string Dims(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// [batch,] m x k times k x n, row-major operands; `epilogue`: + b, relu.
std::string MatmulModule(const std::string& in, const std::string& out, int64_t batch, int64_t m, int64_t k, int64_t n,
                         bool epilogue = false) {
  std::vector<int64_t> x = {m, k}, w = {k, n}, r = {m, n};
  std::string numbers = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  if (batch > 1) {
    x.insert(x.begin(), batch);
    w.insert(w.begin(), batch);
    r.insert(r.begin(), batch);
    numbers = "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}";
  }
  if (n == 1) {  // a matrix-vector product
    w = {k};
    r = {m};
  }
  std::string text = "HloModule matmul\n\nENTRY main {\n  x = " + in + Dims(x) + " parameter(0)\n  w = " + in + Dims(w) +
                     " parameter(1)\n";
  const std::string rs = out + Dims(r);
  if (!epilogue) return text + "  ROOT d = " + rs + " dot(x, w), " + numbers + "\n}\n";
  return text + "  b = " + out + Dims({n}) + " parameter(2)\n  d = " + rs + " dot(x, w), " + numbers + "\n  bb = " + rs +
         " broadcast(b), dimensions={1}\n  s = " + rs + " add(d, bb)\n  z = " + out + "[] constant(0)\n  zb = " + rs +
         " broadcast(z), dimensions={}\n  ROOT y = " + rs + " maximum(s, zb)\n}\n";
}

}  // namespace

Status RunMatmulBenchmarks(Device& device, const DeviceLimits& limits, BenchReport& report) {
  struct Case {
    std::string name, in, out;
    int64_t batch, m, k, n;
    double target;
    int trials, runs;
    std::string note;
  };
  const std::vector<Case> cases = {
      {"f32 matmul 256^3", "f32", "f32", 1, 256, 256, 256, 0, 7, 4, "ggml-vulkan on the CI machine's lavapipe: 8.6 GFLOP/s"},
      {"f32 matmul 1024^3", "f32", "f32", 1, 1024, 1024, 1024, 0.5, 5, 2,
       "ggml-vulkan on the CI machine's lavapipe: 6.9 GFLOP/s"},
      {"f32 matmul 4096^3", "f32", "f32", 1, 4096, 4096, 4096, 0, 1, 1, "one run"},
      {"f16 matmul 1024^3 (f32 accumulation)", "f16", "f16", 1, 1024, 1024, 1024, 0, 3, 1, ""},
      {"bf16 matmul 1024^3 -> f32", "bf16", "f32", 1, 1024, 1024, 1024, 0, 3, 1, ""},
      {"s8 matmul 1024^3 -> s32 (GOP/s)", "s8", "s32", 1, 1024, 1024, 1024, 0, 3, 1, ""},
      {"f32 matrix-vector 4096x4096 . 4096", "f32", "f32", 1, 4096, 4096, 1, 0, 5, 2, ""},
      {"f32 batched matmul 64 x 128^3", "f32", "f32", 64, 128, 128, 128, 0, 5, 2, ""},
  };
  const auto element = [](const std::string& t) {
    return t == "f16" ? ElementType::kF16 : t == "bf16" ? ElementType::kBF16 : t == "s8" ? ElementType::kS8 : ElementType::kF32;
  };
  for (const Case& c : cases) {
    std::vector<int64_t> x = {c.m, c.k}, w = {c.k, c.n};
    if (c.batch > 1) {
      x.insert(x.begin(), c.batch);
      w.insert(w.begin(), c.batch);
    }
    if (c.n == 1) w = {c.k};
    const std::vector<Literal> args = {RandomBenchLiteral(Shape(element(c.in), x), 11),
                                       RandomBenchLiteral(Shape(element(c.in), w), 12)};
    StatusOr<ModuleTiming> t = TimeModuleKernels(device, MatmulModule(c.in, c.out, c.batch, c.m, c.k, c.n), args, c.trials, c.runs);
    if (!t.ok()) {  // a type the device lacks: say so in the row
      report.rows.push_back({c.name, "-", "", 0, 0, t.status().message().substr(0, 120)});
      continue;
    }
    const double gflops = 2.0 * c.batch * c.m * c.k * c.n / t->kernels.seconds * 1e-9;
    std::string note = Format("%.2f ms", t->kernels.seconds * 1e3);
    if (c.n == 1) note += Format(", %.1f GB/s of the matrix", 4.0 * c.m * c.k / t->kernels.seconds * 1e-9);
    if (!c.note.empty()) note += "; " + c.note;
    report.rows.push_back(LimitRow(c.name, Format("%.1f GFLOP/s", gflops), gflops, BenchLimit::kFma, c.target, note));
  }
  // relu(x.W + b): one kernel; its cost over the bare product, the two
  // timed in alternation.
  const Literal x = RandomBenchLiteral(Shape(ElementType::kF32, {1024, 1024}), 11);
  const Literal w = RandomBenchLiteral(Shape(ElementType::kF32, {1024, 1024}), 12);
  const Literal b = RandomBenchLiteral(Shape(ElementType::kF32, {1024}), 13);
  VKXLA_ASSIGN_OR_RETURN(std::vector<ModuleTiming> pair,
                   TimeModulesInterleaved(device,
                                          {{MatmulModule("f32", "f32", 1, 1024, 1024, 1024), {x, w}},
                                           {MatmulModule("f32", "f32", 1, 1024, 1024, 1024, true), {x, w, b}}},
                                          6, 2));
  const double gflops = 2.0 * 1024 * 1024 * 1024 / pair[1].kernels.seconds * 1e-9;
  report.rows.push_back(LimitRow("relu(x.W + b), f32 1024^3", Format("%.1f GFLOP/s", gflops), gflops, BenchLimit::kFma, 0,
                                 std::to_string(pair[1].kernel_count) + " kernel(s); " +
                                     Format("%+.1f%% over the bare product timed alternately with it",
                                            (pair[1].kernels.seconds / pair[0].kernels.seconds - 1) * 100)));
  return OkStatus();
}

}  // namespace vkxla
