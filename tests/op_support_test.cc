// docs/ops.md is the output of `vkxla ops`: the table people read is the
// code's own answer, and a few of its cells are what the spec says.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tools/op_support.h"

namespace vkxla {
namespace {

std::string Row(const std::string& table, const std::string& op) {
  const size_t at = table.find("\n| " + op + " |");
  return at == std::string::npos ? "" : table.substr(at + 1, table.find('\n', at + 1) - at - 1);
}

TEST(OpSupport, DocsOpsMdIsTheCodesOwnTable) {
  const std::string table = OpSupportMarkdown();
  std::ifstream in(std::string(VKXLA_SOURCE_DIR) + "/docs/ops.md");
  std::stringstream file;
  file << in.rdbuf();
  EXPECT_EQ(file.str(), table) << "docs/ops.md is stale: run build/vkxla ops --markdown docs/ops.md";
  // Columns: pred s2 s4 s8 s16 s32 s64 u2 u4 u8 u16 u32 u64 f16 bf16 f32 f64,
  // the eleven f8/f6/f4 types, c64 c128.
  const std::string narrow_all = " ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ |", narrow_none = "  |  |  |  |  |  |  |  |  |  |  |";
  // Every f64/c128 entry runs on a phone too (software doubles).
  EXPECT_EQ(Row(table, "add"), "| add | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ |" + narrow_all + " ✓ | ✓ |");
  // Bitwise ops take integers and pred only; fft complex only.
  EXPECT_EQ(Row(table, "xor"), "| xor | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ |  |  |  |  |" + narrow_none + "  |  |");
  EXPECT_EQ(Row(table, "fft (FFT)"), "| fft (FFT) |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |" + narrow_none + " ✓ | ✓ |");
  // Collectives move every type (host-staged); a 64-bit value's copies need no 64-bit shader.
  for (const char* row : {"all-reduce (add)", "all-gather", "all-to-all", "collective-permute", "collective-broadcast"})
    EXPECT_EQ(Row(table, row).find("✗"), std::string::npos) << Row(table, row);
  EXPECT_NE(Row(table, "convolution").find("| ✓"), std::string::npos);
}

}  // namespace
}  // namespace vkxla
