// Gather's and scatter's dimension numbers, checked against the operand
// shapes and turned into a wiring plan: for each operand dimension, which
// result (or update) dimension and which start-index component make up its
// index. The shape rules, the reference evaluator and the code generator all
// follow the same plan, so they agree on the semantics by construction.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/instruction.h"
#include "vkxla/status.h"

namespace vkxla {

struct GatherDimensions {
  std::vector<int64_t> offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
      start_indices_batching_dims, slice_sizes;
  int64_t index_vector_dim = 0;
  bool indices_are_sorted = false;
};

struct ScatterDimensions {
  std::vector<int64_t> update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims, input_batching_dims,
      scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
  bool indices_are_sorted = false, unique_indices = false;
};

StatusOr<GatherDimensions> GatherDimensionsOf(const Instruction& inst);
StatusOr<ScatterDimensions> ScatterDimensionsOf(const Instruction& inst);
// Writes the dimension numbers as attributes (for the builders).
void SetGatherDimensions(Instruction& inst, const GatherDimensions& d);
void SetScatterDimensions(Instruction& inst, const ScatterDimensions& d);

// Where an index vector of the start indices is read: for each dim of the
// start-indices array, the result/update dim that indexes it, or -1 for
// index_vector_dim (which runs over the vector's components).
struct StartIndexWiring {
  std::vector<int64_t> from_outer;
  int64_t components = 1;  // size of the index vector
};

// operand[d] = clamp(start[start_component[d]]) + outer[batch_from[d]] + outer[window_from[d]]
// with absent terms (-1) contributing 0. For gather "outer" is the result
// index; for scatter it is the update index.
struct OperandIndexWiring {
  std::vector<int64_t> start_component, batch_from, window_from;
  std::vector<int64_t> window_size;  // slice size (gather) or update window extent (scatter) per operand dim
};

struct GatherPlan {
  StartIndexWiring indices;
  OperandIndexWiring operand;
  std::vector<int64_t> result_dims;
};

struct ScatterPlan {
  int64_t arity = 1;  // N operands and N updates
  StartIndexWiring indices;
  OperandIndexWiring operand;
  std::vector<int64_t> update_scatter_dims;  // update dims that pick a scatter index, ascending
  ScatterDimensions dims;
};

// Checks gather's operands and dimension numbers; errors quote the shapes.
StatusOr<GatherPlan> PlanGather(const Instruction& inst);
// Checks scatter's operands, dimension numbers and update computation.
StatusOr<ScatterPlan> PlanScatter(const Instruction& inst);

}  // namespace vkxla
