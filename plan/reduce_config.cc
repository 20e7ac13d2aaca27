#include "plan/reduce_config.h"

#include <algorithm>

#include "ir/layout_index.h"
#include "ir/module.h"
#include "ir/tiled_index.h"
#include "ops/op_traits.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

int64_t PowerOfTwoAtLeast(int64_t x) {
  int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

int64_t Log2(int64_t x) {
  int64_t l = 0;
  while ((int64_t{1} << l) < x) ++l;
  return l;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

uint64_t ReduceConfig::FirstPassInvocations() const {
  if (mode == Mode::kColumnBlocks) return static_cast<uint64_t>(slots * chunks);
  return static_cast<uint64_t>(groups) * 256;
}

uint64_t ReduceConfig::FoldPassInvocations(size_t pass) const {
  return static_cast<uint64_t>(parts[pass] * (fold_vectors ? physical / 4 : physical));
}

StatusOr<ReduceConfig> ChooseReduceConfig(const Instruction& reduce, const Shape& out, int64_t fold_trips,
                                          const MaterializedLayoutFn& materialized, const TargetFeatures& target) {
  VKXLA_ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(reduce));
  ReduceConfig c;
  c.arity = plan.arity;
  const Shape& xs = reduce.operands[0]->shape;
  for (int64_t d : plan.reduced) c.K *= xs.dim(d);
  for (int64_t d : plan.kept) c.outputs *= xs.dim(d);
  c.x_layout = LeafLayout(reduce.operands[0], nullptr, Layout(), materialized);
  c.unit = xs.rank() == 0 ? -1 : c.x_layout.minor_to_major.empty() ? xs.rank() - 1 : c.x_layout.minor_to_major[0];
  const bool rows = c.unit < 0 || std::find(plan.reduced.begin(), plan.reduced.end(), c.unit) != plan.reduced.end();
  c.mode = rows ? ReduceConfig::Mode::kRows : ReduceConfig::Mode::kColumns;

  // Whole-vector reads where the operands are 32-bit and their unit-stride
  // dim runs 4 at a time: along a reduced row, or across 4 result elements.
  bool all32 = true;
  for (int64_t i = 0; i < plan.arity; ++i) {
    const ElementType ti = reduce.operands[i]->shape.element_type();
    all32 = all32 && BitWidth(ti) == 32 && !IsComplex(ti);
  }
  const bool x_plain = all32 && c.unit >= 0 && c.x_layout.tiles.empty() && !c.x_layout.minor_to_major.empty() &&
                       c.x_layout.minor_to_major[0] == c.unit && xs.dim(c.unit) % 4 == 0;
  c.row_vectors = rows && x_plain && plan.reduced.size() == 1;
  int64_t out_unit_pos = -1;  // the result dim that is the operand's unit dim
  for (size_t k = 0; k < plan.kept.size(); ++k)
    if (plan.kept[k] == c.unit) out_unit_pos = static_cast<int64_t>(k);
  const Layout result_layout = out.layout_or_default();
  VKXLA_ASSIGN_OR_RETURN(const int result_bits, ElementStorageBits(out.element_type(), result_layout));
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out));
  const int words = std::max(1, BitWidth(out.element_type()) / 32);
  c.column_vectors = !rows && x_plain && result_bits == 32 && words == 1 && !out_map.is_tiled() &&
                     !out_map.has_padding() && out_unit_pos >= 0 && !result_layout.minor_to_major.empty() &&
                     result_layout.minor_to_major[0] == out_unit_pos;
  c.physical = out_map.physical_element_count();
  const int per_word = result_bits >= 32 ? 1 : 32 / result_bits;
  c.E = per_word * 4 / words;
  c.vectors = CeilDiv(c.physical, c.E);
  c.G = c.column_vectors ? 4 : 1;
  c.steps = c.row_vectors ? c.K / 4 : c.K;
  c.slots = c.column_vectors ? c.vectors : c.physical;
  const Computation* f = reduce.called_computations[0].second;
  c.strided = rows && plan.arity == 1 && IsOneCommutativeOp(*f);
  c.fold_vectors = c.physical % 4 == 0;
  for (int64_t i = 0; i < plan.arity; ++i)
    c.fold_vectors = c.fold_vectors && BitWidth(reduce.operands[i]->shape.element_type()) <= 32 &&
                     !IsComplex(reduce.operands[i]->shape.element_type());

  if (c.column_vectors && c.K >= 4 * kPartialsPerFold) {
    // Long column reductions fold blocks of 16 rows per invocation (split-K):
    // one lane per result vector walking thousands of rows has too little
    // parallelism for a GPU and, on a CPU driver, strides out of reach of
    // the prefetchers (f32[4096,4096] column sums on lavapipe: 0.41 of the
    // stream kernel walking rows in lockstep, 0.8 in blocks of 16, about
    // 1.0 with 64-bit words).
    c.mode = ReduceConfig::Mode::kColumnBlocks;
    c.L = 1;
    c.P = 256;
    c.chunk_steps = kPartialsPerFold;
    c.chunks = CeilDiv(c.K, kPartialsPerFold);
  } else {
    if (rows) {
      c.L = std::min<int64_t>(256 / c.E, PowerOfTwoAtLeast(c.steps));
      // A CPU driver streams memory best with one lane per row; lanes share
      // a row only when there are too few rows to keep the cores busy
      // (f32[4096,4096] row sums: 0.95 of the stream kernel at L = 1
      // against 0.2 at 64 on lavapipe).
      if (target.cpu) c.L = std::min<int64_t>(c.L, PowerOfTwoAtLeast(std::max<int64_t>(1, 4096 / std::max<int64_t>(c.outputs, 1))));
    } else {
      const int64_t P = std::clamp<int64_t>(PowerOfTwoAtLeast(c.outputs / c.G), c.column_vectors ? 1 : c.E, 64);
      c.L = std::min<int64_t>(256 / P, PowerOfTwoAtLeast(c.steps));
    }
    c.L = std::max<int64_t>(c.L, 1);
    // Column vectors on a CPU driver (fewer than 64 rows): one lane per
    // result vector, and the workgroup walks the rows in step, so its
    // invocations read each row as one contiguous run.
    c.lockstep = c.column_vectors && target.cpu;
    if (c.lockstep) c.L = 1;
    c.P = 256 / c.L;
    // Chunks: as many as the loop budget needs (each lane's steps times
    // what a step costs, plus the tree and the stores), and more where too
    // few workgroups would occupy the device, as long as each lane keeps
    // at least 256 steps.
    const int64_t per_step = 1 + fold_trips * (c.row_vectors ? 4 : c.G);
    const int64_t fixed = Log2(c.L) + c.E + 16;
    const int64_t lane_steps = std::max<int64_t>(1, (static_cast<int64_t>(target.max_loop_trips) - fixed) / per_step);
    const int64_t budget_chunks = CeilDiv(std::max<int64_t>(c.steps, 1), lane_steps * c.L);
    const int64_t target_groups = target.cpu ? 8 : 256;
    int64_t parallel_chunks = 1;
    if (CeilDiv(c.slots, c.P) < target_groups && !c.lockstep)
      parallel_chunks = std::min(CeilDiv(target_groups * c.P, std::max<int64_t>(c.slots, 1)),
                                 std::max<int64_t>(1, c.steps / (c.L * 256)));
    c.chunks = std::max<int64_t>({1, budget_chunks, parallel_chunks});
    c.chunk_steps = CeilDiv(std::max<int64_t>(c.steps, 1), c.chunks);
    c.chunks = CeilDiv(std::max<int64_t>(c.steps, 1), c.chunk_steps);
    c.groups = CeilDiv(c.slots * c.chunks, c.P);
  }
  if (c.chunks > 1) {
    c.parts.push_back(c.chunks);
    while (c.parts.back() > kPartialsPerFold) c.parts.push_back(CeilDiv(c.parts.back(), kPartialsPerFold));
  } else {
    c.parts = {1};
  }
  return c;
}

}  // namespace vkxla
