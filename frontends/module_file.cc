#include "frontends/module_file.h"

#include "frontends/mlir_types.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"

namespace vkxla {

StatusOr<std::string> ReadModuleText(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return NotFound("cannot open " + path + ": " + ec.message());
  if (size > static_cast<uint64_t>(kMaxModuleFileBytes))
    return ResourceExhausted(path + ": " + std::to_string(size >> 20) + " MiB is more than a module file may hold (" +
                             std::to_string(kMaxModuleFileBytes >> 20) + " MiB)");
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return InvalidArgument("cannot read " + path);
  return text.str();
}

bool IsStablehloPath(const std::string& path) { return std::filesystem::path(path).extension() == ".mlir"; }

StatusOr<std::unique_ptr<Module>> LoadModuleFile(const std::string& path, const std::string& function, bool stablehlo,
                                                 const std::vector<Shape>* argument_shapes) {
  if (!stablehlo) {
    if (!function.empty())
      return InvalidArgument("function " + function + " picks a StableHLO entry, but " + path + " is HLO text");
    return LoadHloFile(path);
  }
  VKXLA_ASSIGN_OR_RETURN(StablehloProgram program, LoadStablehloFile(path, function, argument_shapes));
  return std::move(program.module);
}

StatusOr<std::vector<Shape>> PolymorphicEntryArguments(const std::string& path, const std::string& function) {
  if (!IsStablehloPath(path)) return std::vector<Shape>();
  VKXLA_ASSIGN_OR_RETURN(std::string text, ReadModuleText(path));
  StatusOr<std::vector<Shape>> types = StablehloEntryArgumentTypes(text, function);
  if (!types.ok()) return Status(types.status().code(), path + ":" + types.status().message());
  for (const Shape& t : *types)
    if (HasUnknownDims(t)) return types;
  return std::vector<Shape>();
}

}  // namespace vkxla
