#include "tools/module_file.h"

#include <filesystem>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"

namespace vkxla {

StatusOr<std::unique_ptr<Module>> LoadModuleFile(const std::string& path, const std::string& function) {
  if (std::filesystem::path(path).extension() != ".mlir") {
    if (!function.empty())
      return InvalidArgument("--function " + function + " names a StableHLO function, but " + path + " is HLO text");
    return LoadHloFile(path);
  }
  VKXLA_ASSIGN_OR_RETURN(StablehloProgram program, LoadStablehloFile(path, function));
  return std::move(program.module);
}

}  // namespace vkxla
