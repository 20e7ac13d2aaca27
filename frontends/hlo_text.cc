#include "frontends/hlo_text.h"

#include "frontends/module_file.h"

#include <fstream>
#include <sstream>

#include "ir/hlo_parser.h"
#include "ops/verifier.h"

namespace vkxla {

StatusOr<std::unique_ptr<Module>> ParseAndVerifyHlo(std::string_view text) {
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, ParseHloText(text));
  VKXLA_RETURN_IF_ERROR(VerifyModule(*module));
  return module;
}

StatusOr<std::unique_ptr<Module>> LoadHloFile(const std::string& path) {
  VKXLA_ASSIGN_OR_RETURN(std::string text, ReadModuleText(path));
  StatusOr<std::unique_ptr<Module>> m = ParseAndVerifyHlo(text);
  if (!m.ok()) return m.status().WithContext(path);
  return m;
}

}  // namespace vkxla
