#include "plan/entry_parameters.h"

#include <map>

#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

// Builds a value of `shape` from new parameters numbered from `next` on,
// whose shapes (layouts included) are `declared`'s leaves.
class LeafParameters {
 public:
  LeafParameters(Computation& into, const Instruction& origin, int64_t& next) : writer_(into, origin, "leaf"), next_(next) {}

  Instruction* Build(const Shape& declared) {
    if (declared.IsToken()) return writer_.Add(Opcode::kAfterAll, declared, {});
    if (declared.IsTuple()) {  // nesting bounded by kMaxTupleDepth
      std::vector<Instruction*> elements;
      for (const Shape& e : declared.tuple_shapes()) elements.push_back(Build(e));
      return writer_.Add(Opcode::kTuple, declared, std::move(elements));
    }
    Instruction* p = writer_.Add(Opcode::kParameter, declared, {});
    p->parameter_number = next_++;
    return p;
  }

 private:
  ExpansionWriter writer_;
  int64_t& next_;
};

}  // namespace

StatusOr<std::shared_ptr<const Module>> FlattenEntryParameters(const Module& module) {
  const Computation* entry = module.entry();
  const ProgramShape signature = module.EntryProgramShape();
  const std::vector<Instruction*> params = entry->parameters();
  bool any = false;
  for (const Shape& s : signature.parameters) any = any || !s.IsArray();
  if (!any || params.size() != signature.parameters.size()) return std::shared_ptr<const Module>();
  // Every entry parameter is written again: the ones after a tuple move up.
  std::map<const Instruction*, size_t> position;
  for (size_t i = 0; i < params.size(); ++i) position[params[i]] = i;
  std::vector<int64_t> first(params.size());
  ProgramShape flat;
  flat.result = signature.result;
  for (size_t i = 0; i < params.size(); ++i) {
    first[i] = static_cast<int64_t>(flat.parameters.size());
    for (const Shape& leaf : ArrayLeafShapes(signature.parameters[i])) flat.parameters.push_back(leaf);
  }
  return RewriteModule(
          module, [&](const Instruction& i) { return position.count(&i) > 0; },
          [&](Computation& into, const Instruction& original, const std::vector<Instruction*>&) -> StatusOr<Instruction*> {
            const size_t i = position.at(&original);
            int64_t next = first[i];
            if (signature.parameters[i].IsArray()) {  // the same parameter, numbered again
              auto p = std::make_unique<Instruction>(original);
              p->parameter_number = next;
              return into.AddInstruction(std::move(p));
            }
            return LeafParameters(into, original, next).Build(signature.parameters[i]);
          },
      &flat);
}

}  // namespace vkxla
