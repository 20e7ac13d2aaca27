#include "plan/module_rewrite.h"

#include <map>

#include "ops/slice_and_padding.h"

namespace vkxla {

Instruction* AddDerived(Computation& c, const Instruction& origin, const std::string& suffix, int& counter, Opcode op,
                        Shape shape, std::vector<Instruction*> operands) {
  auto inst = std::make_unique<Instruction>();
  inst->name = origin.name + "." + suffix + std::to_string(counter++);
  inst->opcode = op;
  inst->shape = std::move(shape);
  inst->operands = std::move(operands);
  inst->location = origin.location;
  return c.AddInstruction(std::move(inst));
}

Instruction* ExpansionWriter::Constant(const Scalar& v) {
  Instruction* k = Add(Opcode::kConstant, Shape::Scalar(v.type), {});
  k->literal = Literal::ScalarOf(v);
  return k;
}

Instruction* ExpansionWriter::Filled(const Scalar& v, const std::vector<int64_t>& dims) {
  Instruction* b = Add(Opcode::kBroadcast, Shape(v.type, dims), {Constant(v)});
  b->dimensions = std::vector<int64_t>{};
  return b;
}

Instruction* ExpansionWriter::Slice(Instruction* x, int64_t dim, int64_t start, int64_t limit) {
  std::vector<SliceDimension> slice;
  std::vector<int64_t> dims = x->shape.dims();
  for (int64_t d = 0; d < x->shape.rank(); ++d) slice.push_back(d == dim ? SliceDimension{start, limit, 1} : SliceDimension{0, dims[d], 1});
  dims[dim] = limit - start;
  Instruction* s = Add(Opcode::kSlice, Shape(x->shape.element_type(), dims), {x});
  s->other_attributes.emplace_back("slice", SliceText(slice));
  return s;
}

Instruction* ExpansionWriter::Reverse(Instruction* x, int64_t dim) {
  Instruction* r = Add(Opcode::kReverse, x->shape, {x});
  r->dimensions = std::vector<int64_t>{dim};
  return r;
}

Instruction* ExpansionWriter::Concatenate(std::vector<Instruction*> parts, int64_t dim) {
  if (parts.size() == 1) return parts[0];
  std::vector<int64_t> dims = parts[0]->shape.dims();
  dims[dim] = 0;
  for (const Instruction* p : parts) dims[dim] += p->shape.dim(dim);
  const Shape shape(parts[0]->shape.element_type(), dims);
  Instruction* c = Add(Opcode::kConcatenate, shape, std::move(parts));
  c->dimensions = std::vector<int64_t>{dim};
  return c;
}

Instruction* ExpansionWriter::Conjugate(Instruction* z) {
  const Shape real(ComplexComponentType(z->shape.element_type()), z->shape.dims());
  Instruction* re = Add(Opcode::kReal, real, {z});
  Instruction* im = Add(Opcode::kImag, real, {z});
  return Add(Opcode::kComplex, Shape(z->shape.element_type(), z->shape.dims()), {re, Add(Opcode::kNegate, real, {im})});
}

Instruction* ExpansionWriter::ConjugateIfComplex(Instruction* x) {
  return IsComplex(x->shape.element_type()) ? Conjugate(x) : x;
}

StatusOr<std::shared_ptr<const Module>> RewriteModule(const Module& module, const std::function<bool(const Instruction&)>& wants,
                                                      const Expansion& expand, const ProgramShape* entry_signature) {
  bool any = false;
  for (const auto& c : module.computations())
    for (const auto& inst : c->instructions()) any = any || wants(*inst);
  if (!any) return std::shared_ptr<const Module>();
  auto out = std::make_shared<Module>(module.name());
  std::map<const Computation*, Computation*> copies;
  for (const auto& c : module.computations()) {
    auto copy = std::make_unique<Computation>(c->name());
    std::map<const Instruction*, Instruction*> remap;
    for (const auto& inst : c->instructions()) {
      std::vector<Instruction*> operands;
      for (const Instruction* o : inst->operands) operands.push_back(remap.at(o));
      if (wants(*inst)) {
        VKXLA_ASSIGN_OR_RETURN(Instruction * expanded, expand(*copy, *inst, operands));
        remap[inst.get()] = expanded;
        continue;
      }
      auto i = std::make_unique<Instruction>(*inst);
      i->operands = std::move(operands);
      remap[inst.get()] = copy->AddInstruction(std::move(i));
    }
    if (c->root()) copy->set_root(remap.at(c->root()));
    copies[c.get()] = out->AddComputation(std::move(copy));
  }
  for (const auto& c : out->computations())
    for (const auto& inst : c->instructions())
      for (auto& [key, callee] : inst->called_computations) callee = copies.at(callee);
  out->set_entry(copies.at(module.entry()));
  if (entry_signature) {
    out->set_entry_layout(*entry_signature);
  } else if (module.entry_layout()) {
    out->set_entry_layout(*module.entry_layout());
  }
  out->set_replica_count(module.replica_count());
  out->set_num_partitions(module.num_partitions());
  return std::shared_ptr<const Module>(std::move(out));
}

}  // namespace vkxla
