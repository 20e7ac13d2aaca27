// libFuzzer target: any bytes as a .npy file, with and without an expected
// element type for void-typed data.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tools/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)vkxla::ParseNpy(bytes, "fuzz.npy");
  (void)vkxla::ParseNpy(bytes, "fuzz.npy", vkxla::ElementType::kBF16);
  return 0;
}
