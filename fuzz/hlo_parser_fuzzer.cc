// libFuzzer target: any bytes as HLO text through the parser and verifier.
// Every input must end in a module or an error; a crash, a hang, a
// sanitizer report or an allocation past libFuzzer's limit is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frontends/hlo_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)vkxla::ParseAndVerifyHlo(text);
  return 0;
}
