// libFuzzer target: any bytes as StableHLO text through the reader (with
// the conformance checks read too) and the verifier it ends with; where
// the entry leaves dimensions open, read again refined with each open
// dimension 3 (shape refinement).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frontends/mlir_types.h"
#include "frontends/stablehlo_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)vkxla::ReadStablehlo(text, /*with_checks=*/true);
  vkxla::StatusOr<std::vector<vkxla::Shape>> types = vkxla::StablehloEntryArgumentTypes(text);
  if (!types.ok()) return 0;
  bool open = false;
  for (vkxla::Shape& t : *types) {
    open = open || vkxla::HasUnknownDims(t);
    t = vkxla::WithUnknownDimsAs(t, 3);
  }
  if (open) (void)vkxla::ReadStablehlo(text, /*with_checks=*/true, 1, {}, &*types);
  return 0;
}
