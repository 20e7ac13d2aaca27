// Every input a fuzzer once crashed on (tests/fuzz_regressions/, by
// extension: .hlo, .mlir, .npy, .input for an inline --input value) goes
// through its reader again and must come back as a module or an error; under `./dev.sh sanitize` a memory error in
// one of them fails the run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontends/hlo_text.h"
#include "frontends/mlir_types.h"
#include "frontends/stablehlo_reader.h"
#include "tools/inline_input.h"
#include "tools/npy.h"

namespace vkxla {
namespace {

// As fuzz/stablehlo_reader_fuzzer.cc reads: where the entry leaves dims
// open, refined with each open dim 3 (a malformed file's first error
// otherwise).
Status ReadMlirAsTheFuzzerDoes(const std::string& bytes) {
  StatusOr<std::vector<Shape>> types = StablehloEntryArgumentTypes(bytes);
  bool open = false;
  if (types.ok())
    for (Shape& t : *types) {
      open = open || HasUnknownDims(t);
      t = WithUnknownDimsAs(t, 3);
    }
  return ReadStablehlo(bytes, /*with_checks=*/true, 1, {}, open ? &*types : nullptr).status();
}

TEST(FuzzRegressions, EachFindingReadsCleanly) {
  const std::filesystem::path dir = std::filesystem::path(VKXLA_SOURCE_DIR) / "tests" / "fuzz_regressions";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str(), ext = entry.path().extension().string();
    SCOPED_TRACE(entry.path().filename().string());
    Status s;
    if (ext == ".hlo") s = ParseAndVerifyHlo(bytes).status();
    else if (ext == ".mlir") s = ReadMlirAsTheFuzzerDoes(bytes);
    else if (ext == ".npy") s = ParseNpy(bytes, entry.path().filename().string()).status();
    else if (ext == ".input") s = ParseInlineInput(bytes).status();
    else continue;
    ++files;
    // Malformed on purpose: each is refused with a message.
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(s.message().empty());
  }
  EXPECT_GT(files, 0);
}

}  // namespace
}  // namespace vkxla
