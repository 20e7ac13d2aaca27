// relu(x · w + b) through vkxla's public API from HLO text, then its row
// sums from a computation made with vkxla::Builder, both checked against
// the same sums computed here. Exits 0 when the device's answers match.
#include <cmath>
#include <cstdio>
#include <vector>

#include <vkxla/vkxla.h>

namespace {

constexpr const char* kLayer = R"(HloModule dense_relu
ENTRY main {
  x = f32[2,3] parameter(0)
  w = f32[3,4] parameter(1)
  b = f32[4] parameter(2)
  xw = f32[2,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[2,4] broadcast(b), dimensions={1}
  sum = f32[2,4] add(xw, bb)
  zero = f32[] constant(0)
  zeros = f32[2,4] broadcast(zero), dimensions={}
  ROOT y = f32[2,4] maximum(sum, zeros)
})";

vkxla::Status Run() {
  VKXLA_ASSIGN_OR_RETURN(vkxla::Runtime runtime, vkxla::Runtime::Open());
  std::printf("device: %s (%s)\n", runtime.device().name.c_str(), runtime.device().driver.c_str());
  VKXLA_ASSIGN_OR_RETURN(vkxla::CompiledModule layer, runtime.Compile(kLayer));

  const std::vector<float> x = {1, -2, 3, 0.5f, 0, -1};
  const std::vector<float> w = {1, 0, -1, 2, 0.5f, 1, 0, -1, -2, 1, 3, 0};
  const std::vector<float> b = {0.25f, -0.5f, 1, 0};
  VKXLA_ASSIGN_OR_RETURN(vkxla::Array xa, vkxla::Array::FromValues(x, {2, 3}));
  VKXLA_ASSIGN_OR_RETURN(vkxla::Array wa, vkxla::Array::FromValues(w, {3, 4}));
  VKXLA_ASSIGN_OR_RETURN(vkxla::Array ba, vkxla::Array::FromValues(b, {4}));
  VKXLA_ASSIGN_OR_RETURN(std::vector<vkxla::Array> results, layer.Run({xa, wa, ba}));
  VKXLA_ASSIGN_OR_RETURN(std::span<const float> y, results.at(0).values<float>());

  std::printf("%s:", results[0].ShapeString().c_str());
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      float expected = b[j];
      for (int k = 0; k < 3; ++k) expected += x[i * 3 + k] * w[k * 4 + j];
      expected = std::fmax(expected, 0.0f);
      std::printf(" %g", y[i * 4 + j]);
      if (std::fabs(y[i * 4 + j] - expected) > 1e-5f)
        return vkxla::Internal("y[" + std::to_string(i) + "," + std::to_string(j) + "] is " +
                               std::to_string(y[i * 4 + j]) + ", expected " + std::to_string(expected));
    }
  }
  std::printf("\n");

  // The same layer's output through a computation made with the Builder:
  // the sum of each row.
  vkxla::Builder builder("row_sums");
  const vkxla::Op in = builder.Parameter(0, vkxla::ElementType::kF32, {2, 4});
  const vkxla::Op sums = builder.Reduce(in, builder.Constant(vkxla::Array::Scalar(0.0f)), "add", {1});
  VKXLA_ASSIGN_OR_RETURN(vkxla::BuiltModule built, builder.Build(sums));
  VKXLA_ASSIGN_OR_RETURN(vkxla::CompiledModule row_sums, runtime.Compile(built));
  VKXLA_ASSIGN_OR_RETURN(std::vector<vkxla::Array> summed, row_sums.Run({results[0]}));
  VKXLA_ASSIGN_OR_RETURN(std::span<const float> s, summed.at(0).values<float>());
  for (int i = 0; i < 2; ++i) {
    const float expected = y[i * 4] + y[i * 4 + 1] + y[i * 4 + 2] + y[i * 4 + 3];
    if (std::fabs(s[i] - expected) > 1e-5f)
      return vkxla::Internal("row sum " + std::to_string(i) + " is " + std::to_string(s[i]) + ", expected " +
                             std::to_string(expected));
  }
  std::printf("row sums (Builder): %g %g\n", s[0], s[1]);

  // Errors are values: a wrong argument says what it got and what it needs.
  vkxla::StatusOr<std::vector<vkxla::Array>> wrong = layer.Run({wa, xa, ba});
  if (wrong.ok()) return vkxla::Internal("a swapped argument list ran");
  std::printf("swapped arguments: %s\n", wrong.status().message().c_str());
  return vkxla::OkStatus();
}

}  // namespace

int main() {
  const vkxla::Status status = Run();
  if (!status.ok()) {
    std::fprintf(stderr, "vkxla_consumer: %s\n", status.message().c_str());
    return 1;
  }
  std::printf("ok: vkxla %s\n", std::string(vkxla::Version()).c_str());
  return 0;
}
