#include "frontends/hlo_text.h"

#include "frontends/module_file.h"

#include <fstream>
#include <sstream>

#include "frontends/async_collectives.h"
#include "frontends/chlo_decompositions.h"
#include "frontends/frontend_attributes.h"
#include "frontends/manual_regions.h"
#include "frontends/module_builders.h"
#include "frontends/sdy_sharding.h"
#include "ir/hlo_parser.h"
#include "ops/collectives.h"
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

// The manual regions of a global program (jax.shard_map in a dump before
// SPMD partitioning), each written out per device in it.
Status ExpandManualRegionsIn(Module& m, std::string_view text) {
  std::vector<Computation*> bounded;
  for (const auto& c : m.computations())
    for (const auto& inst : c->instructions())
      if (IsManualRegionBoundary(*inst)) {
        bounded.push_back(c.get());
        break;
      }
  if (bounded.empty()) return OkStatus();
  ManualRegionContext context;
  context.partitions = m.num_partitions();
  // Shardy's meshes, in the module's frontend_attributes on its first line.
  const std::string_view head = text.substr(0, text.find('\n'));
  if (const size_t at = head.find("frontend_attributes="); at != std::string_view::npos)
    if (std::optional<std::string> meshes = FrontendAttribute(head.substr(at), "xla.sdy.meshes")) {
      VKXLA_ASSIGN_OR_RETURN(auto parsed, ParseMeshDictionary(*meshes));
      for (auto& [name, mesh] : parsed) context.meshes[name] = mesh;
    }
  std::vector<const Computation*> consumed;
  for (Computation* c : bounded) {
    VKXLA_ASSIGN_OR_RETURN(std::vector<const Computation*> done, ExpandManualRegions(*c, context, BuildersInModule(m, c, "manual", {})));
    consumed.insert(consumed.end(), done.begin(), done.end());
  }
  std::vector<const Computation*> all;
  for (const auto& c : m.computations()) all.push_back(c.get());
  m.RemoveComputations(DroppableComputations(consumed, all));
  // What ran as partitions now runs as one program, unless ops that meet
  // other processes are left outside the regions.
  bool meets = false;
  for (const auto& c : m.computations())
    for (const auto& inst : c->instructions()) meets = meets || IsProcessOpcode(inst->opcode);
  if (!meets) m.set_num_partitions(1);
  return OkStatus();
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
  VKXLA_RETURN_IF_ERROR(ExpandManualRegionsIn(*module, text));
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
