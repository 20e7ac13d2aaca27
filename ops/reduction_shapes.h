// Shape rules of the ops that combine elements through a called
// computation: reduce, reduce-window, select-and-scatter, scan, sort, topk
// and map. Each checks its operands, attributes and computation signature
// (errors quote the shapes) and gives the result shape; the small plans here
// are what the reference evaluator and the code generator read.
#pragma once

#include <optional>
#include <vector>

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

// Reduce and reduce-window: N operands, then N init values.
struct ReducePlan {
  int64_t arity = 0;
  std::vector<int64_t> reduced;  // reduce: ascending dims to reduce
  std::vector<int64_t> kept;     // the others, ascending (result dim i is operand dim kept[i])
};
StatusOr<ReducePlan> PlanReduce(const Instruction& inst);
// Whether `c` is one associative and commutative op (add, maximum, ...) of
// its two parameters: a fold that may take the elements in any order.
bool IsOneCommutativeOp(const Computation& c);

// Whether `inst` is a reduce or reduce-window of operands with bounded
// dynamic dimensions (the form vkxla runs: plan/dynamic_padder.h). The dims
// a reduce keeps stay dynamic in its results; a reduce-window's results
// are dynamic where its operands are, sized by their windows.
bool IsDynamicReduce(const Instruction& inst);

// Scan: `inputs` arrays then `carries` init values; to_apply gives
// `outputs` arrays and the new carries.
struct ScanPlan {
  int64_t inputs = 0, carries = 0, outputs = 0;
  int64_t dimension = 0;
  bool reverse = false;
  std::optional<bool> associative;  // absent: not said
  // Whether the scan is a prefix of one associative operator: inputs,
  // carries and outputs pair up (same types), and output i is carry i.
  bool prefix_form = false;
};
StatusOr<ScanPlan> PlanScan(const Instruction& inst);

// Sort's dimension (topk: the last).
StatusOr<int64_t> SortDimension(const Instruction& inst);

// TopK's k and largest (k=, largest=; largest defaults to true).
struct TopKPlan {
  int64_t k = 0;
  bool largest = true;
};
StatusOr<TopKPlan> PlanTopK(const Instruction& inst);

// The result shape of these ops, or nullopt for other opcodes.
std::optional<StatusOr<Shape>> InferReductionShape(const Instruction& inst);

}  // namespace vkxla
