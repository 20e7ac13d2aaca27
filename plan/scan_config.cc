#include "plan/scan_config.h"

#include <algorithm>

#include "ir/module.h"
#include "ops/op_traits.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

// Whether each carry i is add/multiply/max/min/and/or/xor of input i and
// carry i (parameters i and m + i): associative without being told.
bool IsKnownAssociative(const Computation& c, int64_t carries) {
  const Instruction* r = c.root();
  const auto params = c.parameters();
  if (r->opcode != Opcode::kTuple) return false;
  for (int64_t i = 0; i < carries; ++i) {
    const Instruction* op = r->operands[r->operands.size() - carries + i];
    if (!IsAssociativeAndCommutative(op->opcode) || op->operands.size() != 2) return false;
    const Instruction* x = params[i];
    const Instruction* carry = params[carries + i];
    if (!((op->operands[0] == x && op->operands[1] == carry) || (op->operands[0] == carry && op->operands[1] == x)))
      return false;
  }
  return true;
}

}  // namespace

StatusOr<ScanConfig> ChooseScanConfig(const Instruction& scan, int64_t step_trips, const TargetFeatures& target) {
  VKXLA_ASSIGN_OR_RETURN(ScanPlan plan, PlanScan(scan));
  ScanConfig c;
  const Shape& xs = scan.operands[0]->shape;
  c.dim = plan.dimension;
  c.length = xs.dim(c.dim);
  for (int64_t d = 0; d < xs.rank(); ++d)
    if (d != c.dim) c.lines *= xs.dim(d);
  const Computation* f = scan.called_computations[0].second;
  c.parallel = plan.prefix_form && plan.associative.value_or(IsKnownAssociative(*f, plan.carries));
  const int64_t budget = static_cast<int64_t>(target.max_loop_trips) - 16;
  if (c.parallel) {
    c.L = 1;
    while (c.L < 256 && c.L < c.length) c.L <<= 1;
    c.P = 256 / c.L;
    c.groups = (c.lines + c.P - 1) / c.P;
    // Each chunk of L positions: a load, log2(L) tree steps (each applying
    // the computation) and the carry update.
    int64_t log_l = 0;
    while ((int64_t{1} << log_l) < c.L) ++log_l;
    const int64_t per_chunk = 2 + (log_l + 2) * (1 + step_trips);
    c.segment = std::max<int64_t>(1, budget / per_chunk) * c.L;
  } else {
    c.segment = std::max<int64_t>(1, budget / (1 + step_trips));
  }
  c.segment = std::min(c.segment, std::max<int64_t>(c.length, 1));
  c.passes = std::max<int64_t>(1, (c.length + c.segment - 1) / c.segment);
  return c;
}

}  // namespace vkxla
