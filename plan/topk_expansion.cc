#include "plan/topk_expansion.h"

#include <numeric>

#include "ops/attributes.h"
#include "ops/gather_scatter_plan.h"
#include "ops/reduction_shapes.h"
#include "ops/shape_inference.h"
#include "plan/module_rewrite.h"
#include "plan/sort_config.h"

namespace vkxla {
namespace {

constexpr int64_t kBlock = 1024;

// How many candidates a line of n leaves after one round, or 0 when the
// line is too short (or not whole blocks) for another.
int64_t AfterRound(int64_t n, int64_t k) {
  if (n < 4 * kBlock || n % kBlock != 0 || k < 1 || 4 * k > kBlock) return 0;
  return n / kBlock * k;
}

bool IsLongTopK(const Instruction& i) {
  if (i.opcode != Opcode::kTopK || i.operands.size() != 1 || !InferShape(i).ok()) return false;
  if (UsesRadixSelect(i)) return false;  // selected whole (plan/sort_config.h)
  const Shape& x = i.operands[0]->shape;
  StatusOr<TopKPlan> plan = PlanTopK(i);
  if (!plan.ok() || !x.IsArray() || x.rank() < 1) return false;
  // A bounded dynamic line keeps its one sort, which knows the run-time size.
  for (int64_t d = 0; d < x.rank(); ++d)
    if (x.is_dynamic_dim(d)) return false;
  return AfterRound(x.dims().back(), plan->k) > 0;
}

class TopKExpander {
 public:
  TopKExpander(Computation& c, const Instruction& topk) : w_(c, topk, "topk"), topk_(topk) {}

  StatusOr<Instruction*> Expand(Instruction* x) {
    VKXLA_ASSIGN_OR_RETURN(const TopKPlan plan, PlanTopK(topk_));
    k_ = plan.k;
    largest_ = plan.largest;
    std::vector<int64_t> batch = x->shape.dims();
    int64_t n = batch.back();
    batch.pop_back();
    const ElementType t = x->shape.element_type();
    Instruction* values = x;
    Instruction* indices = nullptr;  // candidate -> index in the line (null: the identity)
    for (int64_t m = AfterRound(n, k_); m > 0; n = m, m = AfterRound(n, k_)) {
      const int64_t blocks = n / kBlock;
      std::vector<int64_t> blocked = batch, picked = batch, flat = batch;
      blocked.insert(blocked.end(), {blocks, kBlock});
      picked.insert(picked.end(), {blocks, k_});
      flat.push_back(m);
      auto [v, local] = TopK(w_.Add(Opcode::kReshape, Shape(t, blocked), {values}));
      // The pick's place among this round's candidates: block * kBlock + local.
      Instruction* block = w_.Add(Opcode::kIota, Shape(ElementType::kS32, picked), {});
      block->iota_dimension = static_cast<int64_t>(batch.size());
      Instruction* offset = w_.Add(Opcode::kMultiply, Shape(ElementType::kS32, picked),
                                   {block, w_.Filled(Scalar::Int(ElementType::kS32, kBlock), picked)});
      Instruction* place = w_.Add(Opcode::kReshape, Shape(ElementType::kS32, flat),
                                  {w_.Add(Opcode::kAdd, Shape(ElementType::kS32, picked), {local, offset})});
      indices = indices ? TakeAlongLastDim(indices, place) : place;
      values = w_.Add(Opcode::kReshape, Shape(t, flat), {v});
    }
    auto [v, local] = TopK(values);
    Instruction* picks = indices ? TakeAlongLastDim(indices, local) : local;
    return w_.Add(Opcode::kTuple, topk_.shape, {v, picks});
  }

 private:
  // The values and indices of topk(x) along x's last dim.
  std::pair<Instruction*, Instruction*> TopK(Instruction* x) {
    std::vector<int64_t> dims = x->shape.dims();
    dims.back() = k_;
    const Shape values(x->shape.element_type(), dims), indices(ElementType::kS32, dims);
    Instruction* t = w_.Add(Opcode::kTopK, Shape::Tuple({values, indices}), {x});
    SetAttribute(*t, "k", std::to_string(k_));
    SetAttribute(*t, "largest", largest_ ? "true" : "false");
    Instruction* v = w_.Add(Opcode::kGetTupleElement, values, {t});
    v->tuple_index = 0;
    Instruction* i = w_.Add(Opcode::kGetTupleElement, indices, {t});
    i->tuple_index = 1;
    return {v, i};
  }

  // table[..., at[..., j]] for each j: a gather batched over the leading dims.
  Instruction* TakeAlongLastDim(Instruction* table, Instruction* at) {
    const int64_t r = table->shape.rank();
    GatherDimensions d;
    d.operand_batching_dims.resize(r - 1);
    std::iota(d.operand_batching_dims.begin(), d.operand_batching_dims.end(), 0);
    d.start_indices_batching_dims = d.operand_batching_dims;
    d.collapsed_slice_dims = {r - 1};
    d.start_index_map = {r - 1};
    d.index_vector_dim = at->shape.rank();
    d.slice_sizes.assign(r, 1);
    Instruction* g = w_.Add(Opcode::kGather, Shape(table->shape.element_type(), at->shape.dims()), {table, at});
    SetGatherDimensions(*g, d);
    return g;
  }

  ExpansionWriter w_;
  const Instruction& topk_;
  int64_t k_ = 0;
  bool largest_ = true;
};

}  // namespace

StatusOr<std::shared_ptr<const Module>> ExpandLongTopKs(const Module& module) {
  return RewriteModule(module, IsLongTopK,
                       [](Computation& c, const Instruction& inst, const std::vector<Instruction*>& operands) {
                         return TopKExpander(c, inst).Expand(operands.at(0));
                       });
}

}  // namespace vkxla
