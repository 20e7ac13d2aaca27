// The public API (include/vkxla/vkxla.h) over the engine: frontends read the
// text, runtime::Executable compiles and runs it; arrays become literals
// and back (both are logical row-major data, so this is a copy).
#include <cstdio>

#include "api/array_literal.h"
#include "frontends/hlo_text.h"
#include "frontends/module_file.h"
#include "frontends/shape_refinement.h"
#include "frontends/stablehlo_reader.h"
#include "ir/hlo_parser.h"
#include "ir/literal.h"
#include "ops/evaluator.h"
#include "runtime/device.h"
#include "runtime/executable.h"
#include "runtime/replicated_executable.h"
#include "runtime/vulkan_context.h"
#include "vkxla/vkxla.h"

#ifndef VKXLA_VERSION
#error "the build defines VKXLA_VERSION (CMakeLists.txt: project VERSION)"
#endif

namespace vkxla {

struct Runtime::State {
  std::unique_ptr<Device> device;
  DeviceDescription description;
};

struct CompiledModule::State {
  std::shared_ptr<Runtime::State> runtime;  // the device outlives the kernels
  std::shared_ptr<const Module> module;     // the executable points into it
  std::unique_ptr<Executable> executable;             // a module of one process
  std::unique_ptr<ReplicatedExecutable> replicated;  // or of several
  std::vector<Shape> parameter_shapes;      // as declared (tuples and tokens too)
  std::vector<Shape> leaf_shapes;           // their array leaves: what Run takes
  std::vector<ArraySpec> parameters, results;
};

namespace {

DeviceDescription Describe(const DeviceInfo& info) {
  DeviceDescription d;
  d.index = static_cast<int>(info.index);
  d.name = info.name;
  d.type = info.type;
  d.driver = info.driver_name + (info.driver_info.empty() ? "" : " " + info.driver_info);
  d.api_version = VulkanVersionString(info.api_version);
  d.capabilities = info.Table();
  return d;
}

void AppendLeafSpecs(const Shape& shape, std::vector<ArraySpec>& out) {
  for (const Shape& leaf : ArrayLeafShapes(shape)) out.push_back(ArraySpec{leaf.element_type(), leaf.dims()});
}

// The literal for the array leaf `index` of the parameters.
StatusOr<Literal> ToLiteral(const Array& a, const Shape& declared, size_t index) {
  const Shape given(a.type(), a.dims());
  if (!FitsShape(given, declared))
    return InvalidArgument("argument " + std::to_string(index) + " is " + a.ShapeString() + " but the parameter is " +
                           declared.ToString());
  return ToLiteral(a);
}

// The shapes a polymorphic StableHLO entry is refined with: its arrays'
// from argument_specs, its tokens as written.
StatusOr<std::vector<Shape>> ArgumentShapes(std::string_view source, const CompileOptions& options) {
  std::vector<Shape> arrays;
  for (const ArraySpec& a : options.argument_specs) arrays.push_back(Shape(a.type, a.dims));
  VKXLA_ASSIGN_OR_RETURN(std::vector<Shape> declared, StablehloEntryArgumentTypes(source, options.function));
  return ArgumentShapesFromArrays(declared, arrays);
}

bool LooksLikeStablehlo(std::string_view text) {
  return text.find("func.func") != std::string_view::npos || text.find("stablehlo.") != std::string_view::npos;
}

// A module whose text elided constants runs with zeros there: say so once.
void NoteElidedConstants(const Module& module) {
  if (const std::string note = ElidedConstantsNote(module); !note.empty()) std::fprintf(stderr, "vkxla: note: %s\n", note.c_str());
}

}  // namespace

std::string_view Version() { return VKXLA_VERSION; }

std::string ArraySpec::ToString() const { return Shape(type, dims).ToString(); }

StatusOr<std::vector<DeviceDescription>> ListDevices() {
  VKXLA_ASSIGN_OR_RETURN(VulkanContext * context, VulkanContext::Get());
  std::vector<DeviceDescription> out;
  for (const DeviceInfo& info : context->device_infos()) out.push_back(Describe(info));
  return out;
}

StatusOr<Runtime> Runtime::Open(const RuntimeOptions& options) {
  if (options.device < -1)
    return InvalidArgument("device index " + std::to_string(options.device) + " is negative (see ListDevices())");
  auto state = std::make_shared<State>();
  VKXLA_ASSIGN_OR_RETURN(state->device, Device::Open(options.device));
  state->description = Describe(state->device->info());
  return Runtime(std::move(state));
}

const DeviceDescription& Runtime::device() const { return state_->description; }

StatusOr<CompiledModule> Runtime::Compile(std::string_view source, const CompileOptions& options) const {
  const bool stablehlo = options.format == SourceFormat::kStablehlo ||
                         (options.format == SourceFormat::kDetect && LooksLikeStablehlo(source));
  if (!stablehlo && !options.function.empty())
    return InvalidArgument("CompileOptions::function ('" + options.function + "') names a StableHLO function, "
                           "but the source is HLO text");
  std::unique_ptr<Module> module;
  if (stablehlo) {
    std::vector<Shape> shapes;
    if (!options.argument_specs.empty()) {
      VKXLA_ASSIGN_OR_RETURN(shapes, ArgumentShapes(source, options));
    }
    VKXLA_ASSIGN_OR_RETURN(StablehloProgram program, ReadStablehlo(source, /*with_checks=*/false, 1, options.function,
                                                                   options.argument_specs.empty() ? nullptr : &shapes));
    module = std::move(program.module);
  } else {
    VKXLA_ASSIGN_OR_RETURN(module, ParseAndVerifyHlo(source));
  }
  NoteElidedConstants(*module);
  return Compile(std::shared_ptr<const Module>(std::move(module)));
}

StatusOr<CompiledModule> Runtime::CompileFile(const std::string& path, const CompileOptions& options) const {
  const bool stablehlo = options.format == SourceFormat::kDetect ? IsStablehloPath(path)
                                                                 : options.format == SourceFormat::kStablehlo;
  std::vector<Shape> shapes;
  if (stablehlo && !options.argument_specs.empty()) {
    VKXLA_ASSIGN_OR_RETURN(std::string text, ReadModuleText(path));
    VKXLA_ASSIGN_OR_RETURN(shapes, ArgumentShapes(text, options));
  }
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> module,
                         LoadModuleFile(path, options.function, stablehlo, shapes.empty() ? nullptr : &shapes));
  NoteElidedConstants(*module);
  return Compile(std::shared_ptr<const Module>(std::move(module)));
}

StatusOr<CompiledModule> Runtime::Compile(const BuiltModule& built) const {
  if (!built.module_) return InvalidArgument("Runtime::Compile was given an empty BuiltModule");
  return Compile(built.module_);
}

StatusOr<CompiledModule> Runtime::Compile(std::shared_ptr<const Module> module) const {
  auto state = std::make_shared<CompiledModule::State>();
  state->runtime = state_;
  state->module = std::move(module);
  const ProcessGrid grid{state->module->replica_count(), state->module->num_partitions()};
  if (grid.processes() > 1) {
    VKXLA_ASSIGN_OR_RETURN(state->replicated, ReplicatedExecutable::Compile(*state->module, {state_->device.get()}, grid));
  } else {
    VKXLA_ASSIGN_OR_RETURN(state->executable, Executable::Compile(*state->module, *state_->device));
  }
  const ProgramShape shape = state->module->EntryProgramShape();
  state->parameter_shapes = shape.parameters;
  for (const Shape& p : shape.parameters) {
    AppendLeafSpecs(p, state->parameters);
    for (const Shape& leaf : ArrayLeafShapes(p)) state->leaf_shapes.push_back(leaf);
  }
  AppendLeafSpecs(shape.result, state->results);
  return CompiledModule(std::move(state));
}

const std::vector<ArraySpec>& CompiledModule::parameters() const { return state_->parameters; }
const std::vector<ArraySpec>& CompiledModule::results() const { return state_->results; }

int64_t CompiledModule::processes() const { return state_->replicated ? state_->replicated->grid().processes() : 1; }

namespace {

StatusOr<std::vector<Literal>> ArgumentLiterals(const CompiledModule::State& state, std::span<const Array> arguments) {
  if (arguments.size() != state.parameters.size())
    return InvalidArgument("the module takes " + std::to_string(state.parameters.size()) + " arguments, " +
                           std::to_string(arguments.size()) + " were given");
  std::vector<Literal> leaves;
  for (size_t i = 0; i < arguments.size(); ++i) {
    VKXLA_ASSIGN_OR_RETURN(Literal l, ToLiteral(arguments[i], state.leaf_shapes[i], i));
    leaves.push_back(std::move(l));
  }
  std::vector<Literal> literals;
  size_t next = 0;
  for (const Shape& p : state.parameter_shapes) {
    VKXLA_ASSIGN_OR_RETURN(Literal l, LiteralFromArrayLeaves(p, leaves, next));
    literals.push_back(std::move(l));
  }
  return literals;
}

StatusOr<std::vector<Array>> ResultArrays(Literal result) {
  std::vector<Array> out;
  for (Literal& leaf : std::move(result).TakeLeaves()) {
    if (leaf.shape().IsToken()) continue;  // no data
    VKXLA_ASSIGN_OR_RETURN(Array a, FromLiteral(std::move(leaf)));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

StatusOr<std::vector<Array>> CompiledModule::Run(std::span<const Array> arguments) const {
  if (state_->replicated)
    return FailedPrecondition("the module runs as " + state_->replicated->grid().ToString() +
                              " (its replica_count and num_partitions): call RunProcesses with each process's arguments");
  VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> literals, ArgumentLiterals(*state_, arguments));
  VKXLA_ASSIGN_OR_RETURN(Literal result, state_->executable->Run(literals));
  return ResultArrays(std::move(result));
}

StatusOr<std::vector<std::vector<Array>>> CompiledModule::RunProcesses(std::span<const std::vector<Array>> arguments) const {
  if (static_cast<int64_t>(arguments.size()) != processes())
    return InvalidArgument("the module runs as " + std::to_string(processes()) + " processes, " + std::to_string(arguments.size()) +
                           " argument lists were given");
  std::vector<std::vector<Literal>> literals;
  for (const std::vector<Array>& a : arguments) {
    VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> l, ArgumentLiterals(*state_, a));
    literals.push_back(std::move(l));
  }
  std::vector<Literal> results;
  if (state_->replicated) {
    VKXLA_ASSIGN_OR_RETURN(results, state_->replicated->Run(literals));
  } else {
    VKXLA_ASSIGN_OR_RETURN(Literal r, state_->executable->Run(literals[0]));
    results.push_back(std::move(r));
  }
  std::vector<std::vector<Array>> out;
  for (Literal& r : results) {
    VKXLA_ASSIGN_OR_RETURN(std::vector<Array> a, ResultArrays(std::move(r)));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace vkxla
