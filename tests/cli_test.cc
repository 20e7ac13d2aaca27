// The CLI on bad input: every input of the hardening issue given to
// `vkxla run` ends with exit status 1 and a message, never a signal (134
// abort, 139 segfault) or a hang (each run is bounded by timeout(1)).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace vkxla {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;
};

Outcome RunCli(const std::string& args) {
  const std::string command = "timeout 60 " + std::string(VKXLA_CLI) + " " + args + " 2>&1";
  Outcome o;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return o;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) o.output.append(buf, n);
  const int status = pclose(pipe);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return o;
}

std::string Write(const std::string& name, const std::string& bytes) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "vkxla_cli_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string Npy(const std::string& shape) {
  std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + ",), }";
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(h.size()) + '\0' + h;
}

void ExpectCleanFailure(const std::string& args, const std::string& words) {
  const Outcome o = RunCli(args);
  EXPECT_EQ(o.exit_code, 1) << args << "\n" << o.output;
  EXPECT_NE(o.output.find("vkxla: error"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find(words), std::string::npos) << words << " not in: " << o.output;
}

TEST(Cli, BadInputsExitOneWithAMessage) {
  const std::string module = Write("neg.hlo", "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n");
  for (const std::string dims : {"abc", "12345678901234567890123", "-1", "1e12"})
    ExpectCleanFailure("run " + module + " --input " + Write("bad_" + std::to_string(dims.size()) + ".npy", Npy(dims)),
                       "shape entry");
  ExpectCleanFailure("run " + Write("big.hlo", "HloModule m\nENTRY e {\n  ROOT c = f32[100000,100000] constant({1})\n}\n"),
                     "3:41");
  ExpectCleanFailure("run " + Write("hang.mlir", "func.func @main() -> \"abc"), "1:");
  ExpectCleanFailure("run " + Write("splat.mlir", "func.func @main() -> tensor<100000x100000xf32> {\n"
                                                  "  %c = stablehlo.constant dense<1.0> : tensor<100000x100000xf32>\n"
                                                  "  func.return %c : tensor<100000x100000xf32>\n}\n"),
                     "4 GiB");
  std::string open(100000, '('), close(100000, ')');
  ExpectCleanFailure("run " + Write("nested.hlo", "HloModule m\nENTRY e {\n  ROOT p = " + open + "f32[]" + close + " parameter(0)\n}\n"),
                     "nest deeper");
  ExpectCleanFailure("run " + module + " --device abc", "--device takes a whole number");
  ExpectCleanFailure("run " + Write("cut.hlo", "HloModule m\nENTRY e {\n  ROOT x = f32[] add("), "3:");
}

}  // namespace
}  // namespace vkxla

namespace vkxla {
namespace {

// --infeed files feed the program's infeed ops in order; --outfeed files
// receive what its outfeed ops write.
TEST(Cli, InfeedAndOutfeedFiles) {
  std::string data = Npy("2");
  const float values[2] = {1.5f, -4.0f};
  data.append(reinterpret_cast<const char*>(values), sizeof values);
  const std::string in = Write("infeed0.npy", data);
  const std::string module = Write("feeds.hlo",
                                   "HloModule m\nENTRY e {\n  tok = token[] after-all()\n  in = (f32[2], token[]) infeed(tok)\n"
                                   "  x = f32[2] get-tuple-element(in), index=0\n  t = token[] get-tuple-element(in), index=1\n"
                                   "  y = f32[2] multiply(x, x)\n  o = token[] outfeed(y, t)\n  ROOT n = f32[2] negate(x)\n}\n");
  const std::string out = (std::filesystem::temp_directory_path() / "vkxla_cli_test" / "outfeed0.npy").string();
  std::filesystem::remove(out);
  const Outcome o = RunCli("run " + module + " --infeed " + in + " --outfeed " + out + " --print");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("{-1.5, 4}"), std::string::npos) << o.output;
  std::ifstream f(out, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_GE(bytes.size(), 8u);
  float got[2];
  std::memcpy(got, bytes.data() + bytes.size() - 8, 8);
  EXPECT_EQ(got[0], 2.25f);
  EXPECT_EQ(got[1], 16.0f);
  ExpectCleanFailure("run " + module, "infeed queue is empty");
}

}  // namespace
}  // namespace vkxla
