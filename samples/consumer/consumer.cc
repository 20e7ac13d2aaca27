// relu(x · w + b) through vkxla's public API, checked against the same sum
// computed here. Exits 0 when the device's answer matches.
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
