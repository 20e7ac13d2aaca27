// libFuzzer target: any bytes as StableHLO text through the reader (with
// the conformance checks read too) and the verifier it ends with.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frontends/stablehlo_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)vkxla::ReadStablehlo(text, /*with_checks=*/true);
  return 0;
}
