// libFuzzer target: any bytes as a .npy file, with and without an expected
// element type (void-typed bf16 data, range-checked s4), and as an inline
// --input value ("2x3xf32=1,2,...").
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tools/inline_input.h"
#include "tools/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)vkxla::ParseNpy(bytes, "fuzz.npy");
  (void)vkxla::ParseNpy(bytes, "fuzz.npy", vkxla::ElementType::kBF16);
  (void)vkxla::ParseNpy(bytes, "fuzz.npy", vkxla::ElementType::kS4);
  (void)vkxla::ParseInlineInput(std::string(bytes));
  return 0;
}
