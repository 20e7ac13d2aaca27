// The CLI on bad input: every input of the hardening issue given to
// `vkxla run` ends with exit status 1 and a message, never a signal (134
// abort, 139 segfault) or a hang (each run is bounded by timeout(1)).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <zip.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

TEST(Cli, ReplicasTakeAndGiveStackedValues) {
  // 4 replicas in two groups: every input and result holds the replicas'
  // values on a leading axis, on the device, on two devices and on the host.
  const std::string module = Write("psum.hlo",
                                   "HloModule psum, replica_count=4\nsum { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
                                   " ROOT s = f32[] add(a, b) }\nENTRY e { x = f32[3] parameter(0)\n"
                                   " r = f32[3] all-reduce(x), to_apply=sum, replica_groups={{0,1},{2,3}}\n i = u32[] replica-id()\n"
                                   " ROOT t = (f32[3], u32[]) tuple(r, i) }\n");
  const std::string input = " --input 4x3xf32=1,2,3,4,5,6,7,8,9,10,11,12";
  for (const char* where : {"", " --devices 0,0", " --reference"}) {
    const Outcome o = RunCli("run " + module + input + where);
    EXPECT_EQ(o.exit_code, 0) << where << "\n" << o.output;
    EXPECT_NE(o.output.find("f32[4,3] {{5, 7, 9}, {5, 7, 9}, {17, 19, 21}, {17, 19, 21}}"), std::string::npos) << where << o.output;
    EXPECT_NE(o.output.find("u32[4] {0, 1, 2, 3}"), std::string::npos) << where << o.output;
  }
  ExpectCleanFailure("run " + module + " --input 3xf32=1,2,3", "stacked on a leading axis of 4");
  ExpectCleanFailure("run " + module + " --replicas 2 --input 2x3xf32=1,2,3,4,5,6", "replica id 2 in replica_groups {{0,1},{2,3}} is outside 0..1");
  ExpectCleanFailure("run " + module + input + " --dump-plan", "take a run of one process");
  // --time-runs repeats the run (the replicas' collectives meeting again
  // each time) and prints the best wall time of one.
  const Outcome timed = RunCli("run " + module + input + " --time-runs 3");
  EXPECT_EQ(timed.exit_code, 0) << timed.output;
  EXPECT_NE(timed.output.find("vkxla: best of 3 timed runs: "), std::string::npos) << timed.output;
  EXPECT_NE(timed.output.find("{17, 19, 21}"), std::string::npos) << timed.output;
  ExpectCleanFailure("run " + module + input + " --reference --time-runs 2", "--time-runs times device runs");
}

// A shape-polymorphic StableHLO export takes its shapes from the inputs,
// a different one on each run; without inputs it says why it needs them.
TEST(Cli, ShapePolymorphicStablehloTakesItsShapesFromTheInputs) {
  const std::string module = Write("poly.mlir",
                                   "func.func public @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {\n"
                                   "  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>\n"
                                   "  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<f32>\n"
                                   "  %2 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>\n"
                                   "  %3 = stablehlo.dynamic_broadcast_in_dim %1, %2, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>\n"
                                   "  %4 = stablehlo.add %arg0, %3 : tensor<?xf32>\n"
                                   "  return %4 : tensor<?xf32>\n}\n");
  for (const char* where : {"", " --reference"}) {
    Outcome o = RunCli("run " + module + " --input 3xf32=1,2,3" + where);
    EXPECT_EQ(o.exit_code, 0) << o.output;
    EXPECT_NE(o.output.find("f32[3] {4, 5, 6}"), std::string::npos) << o.output;
    o = RunCli("run " + module + " --input 5xf32=0" + where);
    EXPECT_NE(o.output.find("f32[5] {5, 5, 5, 5, 5}"), std::string::npos) << o.output;
  }
  EXPECT_EQ(RunCli("benchmark " + module + " --input 1000xf32=1 --repetitions 1").exit_code, 0);
  ExpectCleanFailure("run " + module, "the entry is shape-polymorphic (its argument shapes come from the inputs) and takes 1 arrays; 0");
  ExpectCleanFailure("run " + module + " --input 2x2xf32=0", "%arg0 is f32[?], but its value is f32[2,2]");
}

// A tuple parameter takes one --input per array it holds, a token none;
// on the device, on the host, replicated and in `benchmark` alike.
TEST(Cli, TupleAndTokenParametersTakeTheirArrays) {
  const std::string module = Write("tuple_param.hlo",
                                   "HloModule m\nENTRY e {\n  t = token[] parameter(0)\n  p = (f32[2], (s32[3])) parameter(1)\n"
                                   "  a = f32[2] get-tuple-element(p), index=0\n  q = (s32[3]) get-tuple-element(p), index=1\n"
                                   "  b = s32[3] get-tuple-element(q), index=0\n  n = s32[3] negate(b)\n"
                                   "  ROOT r = (f32[2], s32[3], token[]) tuple(a, n, t)\n}\n");
  const std::string inputs = " --input 2xf32=1.5,-2 --input 3xs32=1,2,3";
  for (const char* where : {"", " --reference", " --replicas 2"}) {
    const std::string stacked = std::string(where) == " --replicas 2" ? " --input 2x2xf32=1.5,-2,1.5,-2 --input 2x3xs32=1,2,3,1,2,3" : inputs;
    const Outcome o = RunCli("run " + module + stacked + where);
    EXPECT_EQ(o.exit_code, 0) << where << "\n" << o.output;
    EXPECT_NE(o.output.find("{-1, -2, -3}"), std::string::npos) << where << "\n" << o.output;
    EXPECT_NE(o.output.find("1.5, -2}"), std::string::npos) << where << "\n" << o.output;
  }
  const Outcome bench = RunCli("benchmark " + module + " --repetitions 1");
  EXPECT_EQ(bench.exit_code, 0) << bench.output;
  ExpectCleanFailure("run " + module + " --input 2xf32=1,2", "the entry takes 2 parameters holding 2 arrays (tuples give one input per array, tokens none), 1 input values were given");
  ExpectCleanFailure("run " + module + " --input 3xs32=1,2,3 --input 2xf32=1,2", "parameter 1 (%p) element {0} is f32[2] but input 0 is s32[3]");
}

}  // namespace
}  // namespace vkxla

namespace vkxla {
namespace {

// Usage errors (unknown flags, bad or missing values, no command) exit 2
// with a message; --help and --version succeed at every level.
TEST(Cli, HelpVersionAndUsageErrorsFollowTheExitCodeRule) {
  for (const std::string args : {"--help", "-h", "run --help", "benchmark -h", "conformance --help", "devices --help",
                                 "bench --help"}) {
    const Outcome o = RunCli(args);
    EXPECT_EQ(o.exit_code, 0) << args << "\n" << o.output;
    EXPECT_NE(o.output.find("Usage:"), std::string::npos) << args << "\n" << o.output;
  }
  EXPECT_NE(RunCli("--help").output.find("Exit status: 0 ok, 1 an error"), std::string::npos);
  EXPECT_NE(RunCli("run --help").output.find("--input"), std::string::npos);
  for (const std::string args : {"--version", "run --version", "conformance --version"}) {
    const Outcome o = RunCli(args);
    EXPECT_EQ(o.exit_code, 0) << args;
    EXPECT_EQ(o.output.rfind("vkxla 0.", 0), 0u) << args << "\n" << o.output;
  }
  const std::string module = Write("usage.hlo", "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  const std::vector<std::pair<std::string, std::string>> usage = {
      {"", "A subcommand is required"},
      {"frobnicate", "subcommand"},
      {"run", "module is required"},
      {"run " + module + " --bogus", "--bogus"},
      {"run " + module + " --device abc", "--device"},
      {"run " + module + " --device=-1", "--device"},
      {"run " + module + " --device", "--device"},
      {"benchmark " + module + " --repetitions 0", "--repetitions"},
      {"conformance x.mlir --device gpu", "--device takes a device index or all, not gpu"},
      {"conformance x.mlir --jobs 0", "--jobs"},
      {"bench --only everything", "--only"},
      {"bench --only fft --markdown B.md", "excludes"},
      {"bench --elements 1000", "--elements"},
  };
  for (const auto& [args, words] : usage) {
    const Outcome o = RunCli(args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.output;
    EXPECT_NE(o.output.find(words), std::string::npos) << args << ": '" << words << "' not in: " << o.output;
  }
}

std::string NpyOf(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(h.size()) + '\0' + h + data;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / "vkxla_cli_test" / name).string();
}

// An .npz archive as np.savez (stored) or np.savez_compressed (deflated) writes it.
std::string WriteNpz(const std::string& name, const std::vector<std::pair<std::string, std::string>>& members,
                     bool compressed) {
  Write(name, "");
  const std::string path = TempPath(name);
  std::filesystem::remove(path);
  int error = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  EXPECT_NE(z, nullptr);
  for (const auto& [member, bytes] : members) {
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    const zip_int64_t index = zip_file_add(z, member.c_str(), src, ZIP_FL_OVERWRITE);
    EXPECT_GE(index, 0);
    zip_set_file_compression(z, index, compressed ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
  }
  EXPECT_EQ(zip_close(z), 0);
  return path;
}

std::string Floats(std::initializer_list<float> v) {
  return std::string(reinterpret_cast<const char*>(std::data(v)), v.size() * sizeof(float));
}

const char* kAddModule = "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  y = f32[4] parameter(1)\n"
                         "  ROOT s = f32[4] add(x, y)\n}\n";

TEST(Cli, InputsAsFilesArchivesInlineValuesAndScalars) {
  const std::string module = Write("add.hlo", kAddModule);
  const std::string x = Write("x4.npy", NpyOf("<f4", "4,", Floats({1, 2, 3, 4})));
  const std::string expected = "{11, 22, 33, 44}";
  for (const std::string& inputs : {"--input " + x + " --input 4xf32=10,20,30,40",
                                   "--input=@" + x + " --input=4xf32=10,20,30,40",
                                   "-i @" + x + " -i 4xf32=10,20,30,40"}) {
    const Outcome o = RunCli("run " + module + " " + inputs);
    EXPECT_EQ(o.exit_code, 0) << inputs << "\n" << o.output;
    EXPECT_NE(o.output.find(expected), std::string::npos) << inputs << "\n" << o.output;
  }
  const std::string y = NpyOf("<f4", "4,", Floats({10, 20, 30, 40}));
  for (bool compressed : {false, true}) {
    const std::string npz = WriteNpz(compressed ? "args_z.npz" : "args.npz",
                                     {{"arr_0.npy", NpyOf("<f4", "4,", Floats({1, 2, 3, 4}))}, {"arr_1.npy", y}}, compressed);
    const Outcome o = RunCli("run " + module + " --input @" + npz);
    EXPECT_EQ(o.exit_code, 0) << o.output;
    EXPECT_NE(o.output.find(expected), std::string::npos) << o.output;
  }
  // A single inline value fills the array; bare numbers are scalars of the parameter's type.
  EXPECT_NE(RunCli("run " + module + " --input 4xf32=1.5 --input 4xf32=0x1p-1").output.find("{2, 2, 2, 2}"),
            std::string::npos);
  const std::string scale = Write("scale.hlo", "HloModule m\nENTRY e {\n  x = s8[3] parameter(0)\n  k = s8[] parameter(1)\n"
                                               "  b = s8[3] broadcast(k), dimensions={}\n  ROOT m = s8[3] multiply(x, b)\n}\n");
  Outcome o = RunCli("run " + scale + " --input=3xs8=1,-2,3 --input=-3");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("{-3, 6, -9}"), std::string::npos) << o.output;
  o = RunCli("run " + scale + " --input=3xs8=1,-2,3 --input=s8=5");
  EXPECT_NE(o.output.find("{5, -10, 15}"), std::string::npos) << o.output;
  // Bad values are input errors (exit 1) that quote the value.
  ExpectCleanFailure("run " + scale + " --input=3xs8=1,2,300 --input=1", "'300' is not an s8 (-128 to 127)");
  ExpectCleanFailure("run " + scale + " --input=3xs8=1,2 --input=1", "s8[3] holds 3 values, 2 were given");
  ExpectCleanFailure("run " + scale + " --input=3xq7=1 --input=1", "'q7' is not an element type");
  ExpectCleanFailure("run " + scale + " --input=2.5 --input=1", "a bare value is a scalar, but parameter 0 is s8[3]");
  ExpectCleanFailure("run " + scale + " --input=99999999999x99999999999xs8=1 --input=1", "has more than 2^48 elements");
  ExpectCleanFailure("run " + scale + " --input=3xs8=1,,2 --input=1", "'' is not an s8");
  ExpectCleanFailure("run " + scale + " --input=16646646x46x4xs8=8 --input=1",
                     "takes 2921 MiB, more than an inline value may (256 MiB); give a .npy file");
  // A filled array is its value everywhere; an empty one takes no values.
  EXPECT_NE(RunCli("run " + scale + " --input=3xs8=-7 --input=2").output.find("{-14, -14, -14}"), std::string::npos);
  const std::string empty = Write("empty_in.hlo", "HloModule m\nENTRY e {\n  x = f32[0,3] parameter(0)\n  ROOT n = f32[0,3] negate(x)\n}\n");
  o = RunCli("run " + empty + " --input=0x3xf32=");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("f32[0,3] {"), std::string::npos) << o.output;
  ExpectCleanFailure("run " + module + " --input @" + TempPath("missing.npz"), "not a readable .npz archive");
  ExpectCleanFailure("run " + module + " --input @" + Write("garbage.npz", "PK\x03\x04 not really a zip"),
                     "not a readable .npz archive");
  ExpectCleanFailure("run " + module + " --input @" + WriteNpz("not_npy.npz", {{"a.npy", "plain text"}}, false),
                     "not_npy.npz:a.npy: not a .npy file");
  ExpectCleanFailure("run " + module + " --input @" + x, "the entry takes 2 parameters, 1 input values were given");
}

TEST(Cli, OutputsPerResultOrInADirectory) {
  const std::string module = Write("two.hlo", "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n"
                                              "  n = f32[2] negate(x)\n  ROOT t = (f32[2], f32[2]) tuple(x, n)\n}\n");
  const std::string a = TempPath("res_a.npy"), b = TempPath("res_b.npy");
  std::filesystem::remove(a);
  std::filesystem::remove(b);
  Outcome o = RunCli("run " + module + " --input 2xf32=1,-2 --output=@" + a + " --output " + b);
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(o.output, "");  // written to files, not printed
  EXPECT_EQ(ReadFile(a).substr(ReadFile(a).size() - 8), Floats({1, -2}));
  EXPECT_EQ(ReadFile(b).substr(ReadFile(b).size() - 8), Floats({-1, 2}));
  ExpectCleanFailure("run " + module + " --input 2xf32=1,-2 -o @" + a + " -o @" + b + " -o @" + a,
                     "3 --output files were given for 2 results");
  const std::string dir = TempPath("outdir");
  std::filesystem::remove_all(dir);
  o = RunCli("run " + module + " --input 2xf32=1,-2 --output-dir=" + dir + " --print");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("f32[2] {-1, 2}"), std::string::npos) << o.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/out1.npy"));
}

TEST(Cli, FunctionPicksTheStablehloEntry) {
  const std::string module = Write("two_funcs.mlir",
                                   "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}\n"
                                   "func.func @twice(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                                   "  %y = stablehlo.add %x, %x : tensor<2xf32>\n  return %y : tensor<2xf32>\n}\n");
  EXPECT_NE(RunCli("run " + module + " --input 2xf32=1,2").output.find("{1, 2}"), std::string::npos);
  const Outcome o = RunCli("run " + module + " --function twice --input 2xf32=1,2");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("{2, 4}"), std::string::npos) << o.output;
  ExpectCleanFailure("run " + Write("f.hlo", kAddModule) + " --function twice", "function twice picks a StableHLO entry, but");
}

// --reference: the reference evaluator's answer on the host, printed and
// written as a device run's; device-only options are refused.
TEST(Cli, ReferenceRunsTheEvaluatorOnTheHost) {
  const std::string module = Write("sine.hlo", "HloModule s\nENTRY e {\n  x = f32[3] parameter(0)\n  ROOT y = f32[3] sine(x)\n}\n");
  const Outcome device = RunCli("run " + module + " --input 3xf32=0,1.5707964,1e7");
  const Outcome reference = RunCli("run " + module + " --reference --input 3xf32=0,1.5707964,1e7");
  EXPECT_EQ(reference.exit_code, 0) << reference.output;
  EXPECT_NE(reference.output.find("{0, 1, 0.4205"), std::string::npos) << reference.output;
  EXPECT_EQ(device.output, reference.output);
  ExpectCleanFailure("run " + module + " --reference --dump-plan --input 3xf32=0,1,2", "--reference runs on the host");
  ExpectCleanFailure("run " + module + " --reference --memory-report --input 3xf32=0,1,2", "--memory-report");
}

// --memory-report: each buffer class's bytes, the peaks and the device's
// heaps, printed before the run.
TEST(Cli, MemoryReportBeforeRunning) {
  const std::string module = Write("add_report.hlo", kAddModule);
  const Outcome o = RunCli("run " + module + " --memory-report --input 4xf32=1 --input 4xf32=2");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  for (const char* line : {"arguments: 32 B in 2 buffers", "results: 16 B in 1 buffer", "temporaries: ",
                           "constants: 0 B in 0 buffers", "peak device memory: ", "peak host memory: ", "heap 0: "})
    EXPECT_NE(o.output.find(line), std::string::npos) << line << "\n" << o.output;
  EXPECT_NE(o.output.find("{3, 3, 3, 3}"), std::string::npos) << o.output;  // and then it runs
}

// --constant: values for constants a dump elides as {...} (zeros
// otherwise), in any layout, on the device and the reference alike; the
// note names only the constants still zeros.
TEST(Cli, ConstantGivesAnElidedConstantItsValues) {
  const std::string module = Write("elided.hlo",
                                   "HloModule el\nENTRY e {\n  x = f32[2,3] parameter(0)\n  w = f32[2,3]{0,1} constant({...})\n"
                                   "  b = f32[2,3] constant({...})\n  s = f32[2,3] add(x, w)\n  ROOT y = f32[2,3] add(s, b)\n}\n");
  Outcome o = RunCli("run " + module + " --input 2x3xf32=1");
  EXPECT_NE(o.output.find("note: constants %w, %b elided in the text ({...}); filled with zeros"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("{{1, 1, 1}, {1, 1, 1}}"), std::string::npos) << o.output;
  for (const char* where : {"", " --reference"}) {
    o = RunCli("run " + module + " --input 2x3xf32=1 --constant %w=2x3xf32=0,1,2,3,4,5" + where);
    EXPECT_EQ(o.exit_code, 0) << o.output;
    EXPECT_NE(o.output.find("{{1, 2, 3}, {4, 5, 6}}"), std::string::npos) << where << o.output;
    EXPECT_NE(o.output.find("note: constant %b elided"), std::string::npos) << where << o.output;
    EXPECT_EQ(o.output.find("%w elided"), std::string::npos) << where << o.output;
  }
  o = RunCli("run " + module + " --input 2x3xf32=1 --constant %w=2x3xf32=0,1,2,3,4,5 --constant b=2x3xf32=1");
  EXPECT_NE(o.output.find("{{2, 3, 4}, {5, 6, 7}}"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("elided"), std::string::npos) << o.output;
  ExpectCleanFailure("run " + module + " --input 2x3xf32=1 --constant q=2x3xf32=0", "the module has no constant %q");
  ExpectCleanFailure("run " + module + " --input 2x3xf32=1 --constant w=3xf32=0", "%w is f32[2,3]{0,1} but the value is f32[3]");
  ExpectCleanFailure("run " + module + " --input 2x3xf32=1 --constant w", "expected NAME=VALUE");
}

// .npy edge cases: s4 travels as int8 with its sign, out-of-range s4 is an
// error, bf16 as '|V2' or '<V2', the f4/f6/f8 types as '|V1', and bytes
// after the data are an error.
TEST(Cli, NpySubByteBf16AndTrailingBytes) {
  const std::string neg = Write("neg_s4.hlo", "HloModule m\nENTRY e {\n  x = s4[4] parameter(0)\n  ROOT n = s4[4] negate(x)\n}\n");
  const std::string in = Write("s4.npy", NpyOf("|i1", "4,", std::string("\xF8\xFF\x01\x07", 4)));
  const std::string out = TempPath("s4_out.npy");
  Outcome o = RunCli("run " + neg + " --input @" + in + " --output @" + out);
  EXPECT_EQ(o.exit_code, 0) << o.output;
  const std::string bytes = ReadFile(out);
  ASSERT_GE(bytes.size(), 4u);
  EXPECT_EQ(bytes.substr(bytes.size() - 4), std::string("\xF8\x01\xFF\xF9", 4));  // -8, 1, -1, -7
  EXPECT_NE(bytes.find("'descr': '|i1'"), std::string::npos);
  ExpectCleanFailure("run " + neg + " --input @" + Write("s4_bad.npy", NpyOf("|i1", "4,", std::string("\x01\x02\x08\x00", 4))),
                     "element 2 is 8, outside s4's range [-8, 7]");
  const std::string bf = Write("bf.hlo", "HloModule m\nENTRY e {\n  x = bf16[2] parameter(0)\n  ROOT n = bf16[2] negate(x)\n}\n");
  for (const std::string descr : {"|V2", "<V2"}) {
    o = RunCli("run " + bf + " --input @" + Write("bf.npy", NpyOf(descr, "2,", std::string("\x80\x3F\x00\xC0", 4))));
    EXPECT_EQ(o.exit_code, 0) << descr << o.output;
    EXPECT_NE(o.output.find("{-1, 2}"), std::string::npos) << descr << o.output;
  }
  // The f4/f6/f8 types travel as ml_dtypes writes them: one byte each, '|V1'.
  const struct {
    const char* type;
    std::string in, negated;
  } narrow[] = {{"f4e2m1fn", std::string("\x07\x09", 2), std::string("\x0F\x01", 2)},  // 6, -0.5
                {"f6e3m2fn", std::string("\x1F\x20", 2), std::string("\x3F\x00", 2)},  // 28, -0
                {"f8e4m3fnuz", std::string("\x7F\x00", 2), std::string("\xFF\x00", 2)},  // 240, 0 (no -0)
                {"f8e8m0fnu", std::string("\x7F\x80", 2), std::string("\xFF\xFF", 2)}};  // 1, 2: negative is NaN
  for (const auto& n : narrow) {
    const std::string hlo = Write(std::string(n.type) + ".hlo", "HloModule m\nENTRY e {\n  x = " + std::string(n.type) +
                                                                  "[2] parameter(0)\n  ROOT n = " + n.type + "[2] negate(x)\n}\n");
    const std::string result = TempPath(std::string(n.type) + "_out.npy");
    o = RunCli("run " + hlo + " --input @" + Write(std::string(n.type) + ".npy", NpyOf("|V1", "2,", n.in)) + " --output @" + result);
    EXPECT_EQ(o.exit_code, 0) << n.type << o.output;
    const std::string got = ReadFile(result);
    ASSERT_GE(got.size(), 2u) << n.type;
    EXPECT_EQ(got.substr(got.size() - 2), n.negated) << n.type;
    EXPECT_NE(got.find("'descr': '|V1'"), std::string::npos) << n.type;
  }
  ExpectCleanFailure("run " + Write("add2.hlo", kAddModule) + " --input @" +
                         Write("long.npy", NpyOf("<f4", "4,", Floats({1, 2, 3, 4, 5}))) + " --input 4xf32=0",
                     "longer than the 16 its shape f32[4] needs");
}

// `vkxla bench --chart-from` charts what a BENCHMARKS.md records, without measuring.
TEST(Cli, BenchChartsRecordedFigures) {
  const std::string md = Write("B.md", "# Benchmarks\n\n## gpu one\n\ndetails\n\n"
                                       "| benchmark | result | limit (same run) | ratio | target | note |\n|---|---|---|---|---|---|\n"
                                       "| copy | 1 GB/s | x | 1.07 ✓ | ≥ 0.90 | n |\n| limit row | 9 GB/s |  |  |  |  |\n"
                                       "| sort <1M> | 2 s | y | 0.063 |  | |\n");
  const std::string svg = TempPath("B.svg");
  std::filesystem::remove(svg);
  const Outcome o = RunCli("bench --chart-from " + md + " --svg=" + svg);
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("chart of 2 recorded rows"), std::string::npos) << o.output;
  const std::string chart = ReadFile(svg);
  EXPECT_NE(chart.find("sort &lt;1M&gt;"), std::string::npos) << chart;
  EXPECT_NE(chart.find(">1.07<"), std::string::npos) << chart;
  EXPECT_NE(chart.find("for gpu one"), std::string::npos) << chart;
  const Outcome usage = RunCli("bench --chart-from " + md);
  EXPECT_EQ(usage.exit_code, 2) << usage.output;
  EXPECT_NE(usage.output.find("--svg"), std::string::npos) << usage.output;
  ExpectCleanFailure("bench --chart-from " + Write("empty.md", "# nothing\n") + " --svg " + svg, "holds no benchmark rows");
}

// `vkxla ops` prints the table docs/ops.md holds (no device needed).
TEST(Cli, OpsPrintsTheDocsTable) {
  const Outcome o = RunCli("ops");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(o.output, ReadFile(std::string(VKXLA_SOURCE_DIR) + "/docs/ops.md"));
  const std::string path = TempPath("ops.md");
  EXPECT_EQ(RunCli("ops --markdown=" + path).exit_code, 0);
  EXPECT_EQ(ReadFile(path), o.output);
  ExpectCleanFailure("ops --markdown /nonexistent/dir/ops.md", "cannot write /nonexistent/dir/ops.md");
}

TEST(Cli, JsonForDevicesBenchmarkAndConformance) {
  Outcome o = RunCli("devices --json");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  nlohmann::json devices = nlohmann::json::parse(o.output, nullptr, false);
  ASSERT_TRUE(devices.is_array()) << o.output;
  ASSERT_FALSE(devices.empty());
  EXPECT_TRUE(devices[0]["name"].is_string());
  EXPECT_TRUE(devices[0]["features"]["float64"]["hardware"].is_boolean());
  // 64-bit integers are word pairs exactly where the device's are not used.
  EXPECT_EQ(devices[0]["features"]["int64_emulated"], !devices[0]["features"]["int64"]["used"].get<bool>());
  {
    const char* before = std::getenv("VKXLA_MASK");
    const std::string saved = before ? before : "";
    setenv("VKXLA_MASK", (saved.empty() ? std::string("i64,f64") : saved + ",i64,f64").c_str(), 1);
    Outcome masked = RunCli("devices --json");
    Outcome text = RunCli("devices");
    if (before) setenv("VKXLA_MASK", saved.c_str(), 1); else unsetenv("VKXLA_MASK");
    nlohmann::json m = nlohmann::json::parse(masked.output, nullptr, false);
    ASSERT_TRUE(m.is_array() && !m.empty()) << masked.output;
    EXPECT_EQ(m[0]["features"]["int64_emulated"], true);
    EXPECT_EQ(m[0]["features"]["float64_emulated"], true);
    EXPECT_NE(text.output.find("i64: "), std::string::npos);
    EXPECT_NE(text.output.find("(emulated: word pairs)"), std::string::npos) << text.output;
    EXPECT_NE(text.output.find("(emulated: software floats)"), std::string::npos) << text.output;
  }

  o = RunCli("benchmark " + Write("bench_add.hlo", kAddModule) + " --repetitions=3 --warmup 1 --json");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  nlohmann::json timing = nlohmann::json::parse(o.output, nullptr, false);
  ASSERT_TRUE(timing.is_object()) << o.output;
  EXPECT_EQ(timing["repetitions"], 3);
  EXPECT_EQ(timing["dispatches"], 1);
  EXPECT_LE(timing["min_ms"].get<double>(), timing["median_ms"].get<double>());
  EXPECT_LE(timing["median_ms"].get<double>(), timing["max_ms"].get<double>());
  // Per-kernel times from timestamps: one row per dispatch, named after its group's hero.
  ASSERT_TRUE(timing["kernels"].is_array()) << o.output;
  ASSERT_EQ(timing["kernels"].size(), 1u) << o.output;
  EXPECT_NE(timing["kernels"][0]["kernel"].get<std::string>().find("(%s)"), std::string::npos) << o.output;
  EXPECT_GE(timing["kernels"][0]["median_ms"].get<double>(), 0.0);

  const std::string cases = Write("two_cases.mlir",
                                  "func.func @passes() {\n  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
                                  "  check.expect_eq_const %c, dense<[1, 2]> : tensor<2xi32>\n  func.return\n}\n"
                                  "func.func @fails() {\n  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
                                  "  check.expect_eq_const %c, dense<[1, 3]> : tensor<2xi32>\n  func.return\n}\n");
  o = RunCli("conformance " + cases + " --json --jobs 1");
  EXPECT_EQ(o.exit_code, 1) << o.output;  // a case failed
  nlohmann::json report = nlohmann::json::parse(o.output.substr(o.output.find('{')), nullptr, false);
  ASSERT_TRUE(report.is_object()) << o.output;
  EXPECT_EQ(report["devices"][0]["passed"], 1);
  EXPECT_EQ(report["devices"][0]["failed"], 1);
  EXPECT_EQ(report["devices"][0]["cases"][1]["outcome"], "failed");
  // A report that cannot be written is an error, not a silent success.
  ExpectCleanFailure("conformance " + cases + " --jobs 1 --report /nonexistent/dir/r.md", "cannot write /nonexistent/dir/r.md");
  ExpectCleanFailure("conformance " + cases + " --jobs 1 --html /nonexistent/dir/r.html", "cannot write /nonexistent/dir/r.html");
  // Bytes that are not UTF-8 in what a case reports still give valid JSON.
  const std::string odd = Write("odd_bytes.mlir", "func.func @odd() {\n  %c = stablehlo.constant dense<\xff\xfe> : tensor<f32>\n"
                                                  "  check.expect_eq_const %c, dense<1.0> : tensor<f32>\n  func.return\n}\n");
  o = RunCli("conformance " + odd + " --json --jobs 1");
  EXPECT_LE(o.exit_code, 1) << o.output;
  EXPECT_TRUE(nlohmann::json::parse(o.output.substr(o.output.find('{')), nullptr, false).is_object()) << o.output;
}

}  // namespace
}  // namespace vkxla
