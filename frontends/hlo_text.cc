#include "frontends/hlo_text.h"

#include "frontends/module_file.h"

#include <fstream>
#include <sstream>

#include "frontends/async_collectives.h"
#include "frontends/chlo_decompositions.h"
#include "ir/hlo_parser.h"
#include "ops/shape_inference.h"
#include "ops/verifier.h"

namespace vkxla {

namespace {

// XLA's HLO has opcodes of its own for these (its codegen tests write
// `acos(x)`); here they are the ops of their CHLO decompositions, as read
// from StableHLO.
// `domain` (a sharding domain's boundary) is its operand.
bool IsHloOpWrittenAsChlo(std::string_view op) {
  return op == "acos" || op == "acosh" || op == "asin" || op == "asinh" || op == "atanh" || op == "sinh" || op == "domain";
}

StatusOr<Instruction*> ExpandAsChlo(Computation& c, const std::string& op, const Instruction& written) {
  if (written.operands.size() != 1)
    return InvalidArgument("takes one operand, not " + std::to_string(written.operands.size()));
  if (op == "domain") return written.operands[0];
  int next = 0;
  auto add = [&](Opcode code, Shape shape, std::vector<Instruction*> operands, std::optional<Literal> literal) {
    auto inst = std::make_unique<Instruction>();
    inst->opcode = code;
    inst->shape = std::move(shape);
    inst->operands = std::move(operands);
    inst->literal = std::move(literal);
    inst->location = written.location;
    do inst->name = written.name + "." + op + std::to_string(next++);
    while (c.Find(inst->name));
    return c.AddInstruction(std::move(inst));
  };
  const HloMaker make = [&](Opcode code, const Shape& shape, std::vector<Instruction*> operands) {
    return add(code, shape, std::move(operands), std::nullopt);
  };
  const ConstantMaker constant = [&](Literal value) {
    Shape shape = value.shape();
    return add(Opcode::kConstant, std::move(shape), {}, std::move(value));
  };
  return LowerChlo(op, written.operands, written.shape, {}, make, constant);
}

}  // namespace

StatusOr<std::unique_ptr<Module>> ParseAndVerifyHlo(std::string_view text) {
  // Instructions written without a shape take the one their operands give.
  auto infer = [](const Instruction& inst) -> StatusOr<Shape> {
    if (!ShapeFollowsFromOperands(inst.opcode))
      return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " %" + inst.name +
                             " needs its shape written: it does not follow from its operands");
    return InferShape(inst);
  };
  const OpExpander chlo{IsHloOpWrittenAsChlo, ExpandAsChlo};
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, ParseHloText(text, infer, &chlo));
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
