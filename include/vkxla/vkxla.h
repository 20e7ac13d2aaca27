// The vkxla public API: open a Vulkan device, compile an XLA program (HLO
// text, StableHLO, or a computation made with vkxla::Builder) for it, run it
// on host arrays.
//
//   VKXLA_ASSIGN_OR_RETURN(vkxla::Runtime rt, vkxla::Runtime::Open());
//   VKXLA_ASSIGN_OR_RETURN(vkxla::CompiledModule m, rt.CompileFile("model.hlo"));
//   VKXLA_ASSIGN_OR_RETURN(std::vector<vkxla::Array> out, m.Run({x, y}));
//
// Everything here is a value type: copies share the device and the compiled
// kernels, which live while any copy does. Part of the installed public API.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vkxla/array.h"
#include "vkxla/builder.h"
#include "vkxla/element_type.h"
#include "vkxla/status.h"

namespace vkxla {

// "0.4.0": the library's version.
std::string_view Version();

// One Vulkan device as `vkxla devices` lists it.
struct DeviceDescription {
  int index = 0;
  std::string name;          // "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string type;          // "cpu", "discrete-gpu", "integrated-gpu", ...
  std::string driver;        // driver name and version
  std::string api_version;   // "1.3.255"
  std::string capabilities;  // the human-readable feature table
};
StatusOr<std::vector<DeviceDescription>> ListDevices();

struct RuntimeOptions {
  int device = -1;  // an index from ListDevices(); -1: $VKXLA_DEVICE, else 0
};

enum class SourceFormat {
  kDetect,     // StableHLO when the text holds `func.func`, else HLO text
  kHloText,
  kStablehlo,  // MLIR text of the stablehlo and chlo dialects
};

// The element type and dimensions of one parameter or result.
struct ArraySpec {
  ElementType type = ElementType::kF32;
  std::vector<int64_t> dims;
  std::string ToString() const;  // "f32[2,3]"
};

struct CompileOptions {
  SourceFormat format = SourceFormat::kDetect;
  std::string function;  // StableHLO: the function to run (default @main, else the first)
  // StableHLO whose entry leaves dimensions open (tensor<?x4xf32>, as a
  // shape-polymorphic jax.export writes): the arguments it is compiled
  // for, one per argument. Each compile fixes the shapes, as XLA does.
  std::vector<ArraySpec> argument_specs;
};

class CompiledModule {
 public:
  // The arrays the entry takes and gives, in order: a tuple parameter or
  // result has one per array it holds, a token none (the module makes its
  // tokens; they carry no data).
  const std::vector<ArraySpec>& parameters() const;
  const std::vector<ArraySpec>& results() const;

  // Runs on the device; one argument per parameter, of its type and
  // dimensions. Safe to call from several threads.
  StatusOr<std::vector<Array>> Run(std::span<const Array> arguments) const;
  StatusOr<std::vector<Array>> Run(std::initializer_list<Array> arguments) const {
    return Run(std::span<const Array>(arguments.begin(), arguments.size()));
  }

  // A replicated module (replica_count × num_partitions processes, as HLO's
  // header or StableHLO's mhlo.num_replicas say) runs as that many
  // processes meeting at their collectives: arguments[p] are process p's
  // (p = replica * num_partitions + partition), and each process's results
  // come back. Run is for modules of one process.
  int64_t processes() const;
  StatusOr<std::vector<std::vector<Array>>> RunProcesses(std::span<const std::vector<Array>> arguments) const;

  struct State;

 private:
  friend class Runtime;
  explicit CompiledModule(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  std::shared_ptr<const State> state_;
};

class Runtime {
 public:
  static StatusOr<Runtime> Open(const RuntimeOptions& options = {});

  const DeviceDescription& device() const;

  StatusOr<CompiledModule> Compile(std::string_view source, const CompileOptions& options = {}) const;
  // Reads the file; `.mlir` files are StableHLO unless the options say otherwise.
  StatusOr<CompiledModule> CompileFile(const std::string& path, const CompileOptions& options = {}) const;
  // A computation made with vkxla::Builder (vkxla/builder.h).
  StatusOr<CompiledModule> Compile(const BuiltModule& built) const;

  struct State;

 private:
  explicit Runtime(std::shared_ptr<State> state) : state_(std::move(state)) {}
  StatusOr<CompiledModule> Compile(std::shared_ptr<const Module> module) const;
  std::shared_ptr<State> state_;
};

}  // namespace vkxla
