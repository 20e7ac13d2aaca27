#include "plan/dynamic_reduce_expansion.h"

#include "ops/reduction_shapes.h"
#include "plan/module_rewrite.h"

namespace vkxla {

StatusOr<std::shared_ptr<const Module>> ExpandDynamicReduces(const Module& module) {
  return RewriteModule(module, ReducesOnlyDynamicDims,
                       [](Computation& c, const Instruction& reduce, const std::vector<Instruction*>& operands) -> StatusOr<Instruction*> {
                         ExpansionWriter w(c, reduce, "dynamic");
                         const size_t n = operands.size() / 2;
                         const Shape& x = operands[0]->shape;
                         const std::vector<int64_t> bounds = x.dims();
                         // The positions below every reduced dim's run-time size.
                         Instruction* inside = nullptr;
                         for (int64_t d : *reduce.dimensions) {
                           if (!x.is_dynamic_dim(d)) continue;
                           Instruction* size = w.Add(Opcode::kGetDimensionSize, Shape::Scalar(ElementType::kS32), {operands[0]});
                           size->dimensions = std::vector<int64_t>{d};
                           Instruction* sizes = w.Add(Opcode::kBroadcast, Shape(ElementType::kS32, bounds), {size});
                           sizes->dimensions = std::vector<int64_t>{};
                           Instruction* at = w.Add(Opcode::kIota, Shape(ElementType::kS32, bounds), {});
                           at->iota_dimension = d;
                           Instruction* below = w.Add(Opcode::kCompare, Shape(ElementType::kPred, bounds), {at, sizes});
                           below->direction = ComparisonDirection::kLt;
                           inside = inside ? w.Add(Opcode::kAnd, Shape(ElementType::kPred, bounds), {inside, below}) : below;
                         }
                         std::vector<Instruction*> padded;
                         for (size_t i = 0; i < n; ++i) {
                           const ElementType t = operands[i]->shape.element_type();
                           Instruction* init = w.Add(Opcode::kBroadcast, Shape(t, bounds), {operands[n + i]});
                           init->dimensions = std::vector<int64_t>{};
                           padded.push_back(w.Add(Opcode::kSelect, Shape(t, bounds), {inside, operands[i], init}));
                         }
                         for (size_t i = 0; i < n; ++i) padded.push_back(operands[n + i]);
                         Instruction* r = w.Add(Opcode::kReduce, reduce.shape, padded);
                         r->dimensions = reduce.dimensions;
                         r->called_computations = reduce.called_computations;
                         return r;
                       });
}

}  // namespace vkxla
