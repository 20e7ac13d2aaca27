#include "frontends/hlo_text.h"

#include "frontends/module_file.h"

#include <fstream>
#include <sstream>

#include "frontends/async_collectives.h"
#include "ir/hlo_parser.h"
#include "ops/shape_inference.h"
#include "ops/verifier.h"

namespace vkxla {

StatusOr<std::unique_ptr<Module>> ParseAndVerifyHlo(std::string_view text) {
  // Instructions written without a shape take the one their operands give.
  auto infer = [](const Instruction& inst) -> StatusOr<Shape> {
    if (!ShapeFollowsFromOperands(inst.opcode))
      return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " %" + inst.name +
                             " needs its shape written: it does not follow from its operands");
    return InferShape(inst);
  };
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, ParseHloText(text, infer));
  VKXLA_RETURN_IF_ERROR(MakeAsyncCollectivesSynchronous(*module));
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
