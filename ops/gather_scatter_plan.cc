#include "ops/gather_scatter_plan.h"

#include <algorithm>

#include "ir/module.h"
#include "ops/attributes.h"
#include "ops/computation_signature.h"

namespace vkxla {
namespace {

Status Error(const Instruction& inst, const std::string& message) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": " + message);
}

// Every value in [0, bound), none twice, and ascending when `sorted`.
bool ValidDimensionList(const std::vector<int64_t>& v, int64_t bound, bool sorted) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] < 0 || v[i] >= bound) return false;
    for (size_t j = 0; j < i; ++j)
      if (v[j] == v[i] || (sorted && v[j] > v[i])) return false;
  }
  return true;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// `of` names what the dims index ("operand f32[4,6]", "the rank-3 result").
Status ExpectDimensionList(const Instruction& inst, const char* name, const std::vector<int64_t>& v, int64_t bound,
                           bool sorted, const std::string& of) {
  if (ValidDimensionList(v, bound, sorted)) return OkStatus();
  return Error(inst, std::string(name) + "=" + IntListText(v) + " must be " + (sorted ? "ascending, " : "") +
                         "distinct dimensions in [0, " + std::to_string(bound) + ") of " + of);
}

// The index vector's size, after checking index_vector_dim and the
// batching dimension pairs shared by gather and scatter.
StatusOr<int64_t> CheckStartIndices(const Instruction& inst, const Shape& operand, const Shape& indices,
                                    int64_t index_vector_dim, const char* operand_batching_name,
                                    const std::vector<int64_t>& operand_batching, const char* indices_batching_name,
                                    const std::vector<int64_t>& indices_batching, const char* start_map_name,
                                    const std::vector<int64_t>& start_map) {
  if (!IsInteger(indices.element_type()))
    return Error(inst, "start indices " + indices.ToString() + " must have an integer element type");
  if (index_vector_dim < 0 || index_vector_dim > indices.rank())
    return Error(inst, "index_vector_dim=" + std::to_string(index_vector_dim) + " is out of range for start indices " +
                           indices.ToString() + " (0.." + std::to_string(indices.rank()) + ")");
  const int64_t components = index_vector_dim < indices.rank() ? indices.dim(index_vector_dim) : 1;
  VKXLA_RETURN_IF_ERROR(ExpectDimensionList(inst, operand_batching_name, operand_batching, operand.rank(), true, operand.ToString()));
  VKXLA_RETURN_IF_ERROR(ExpectDimensionList(inst, indices_batching_name, indices_batching, indices.rank(), false, indices.ToString()));
  if (Contains(indices_batching, index_vector_dim))
    return Error(inst, std::string(indices_batching_name) + "=" + IntListText(indices_batching) +
                           " must not contain index_vector_dim=" + std::to_string(index_vector_dim));
  if (indices_batching.size() != operand_batching.size())
    return Error(inst, std::string(indices_batching_name) + "=" + IntListText(indices_batching) + " and " +
                           operand_batching_name + "=" + IntListText(operand_batching) + " differ in length");
  for (size_t i = 0; i < operand_batching.size(); ++i)
    if (indices.dim(indices_batching[i]) != operand.dim(operand_batching[i]))
      return Error(inst, "batching dimension " + std::to_string(indices_batching[i]) + " of start indices " +
                             indices.ToString() + " and " + std::to_string(operand_batching[i]) + " of operand " +
                             operand.ToString() + " differ in size");
  if (static_cast<int64_t>(start_map.size()) != components)
    return Error(inst, std::string(start_map_name) + "=" + IntListText(start_map) + " has " +
                           std::to_string(start_map.size()) + " entries but the index vectors of " + indices.ToString() +
                           " have " + std::to_string(components));
  VKXLA_RETURN_IF_ERROR(ExpectDimensionList(inst, start_map_name, start_map, operand.rank(), false, operand.ToString()));
  for (int64_t d : start_map)
    if (Contains(operand_batching, d))
      return Error(inst, std::string(start_map_name) + "=" + IntListText(start_map) + " names batching dimension " +
                             std::to_string(d));
  return components;
}

// Start-indices dim s is indexed by the outer dim at batch position
// (s with index_vector_dim skipped) of `batch_dims`.
StartIndexWiring WireStartIndices(const Shape& indices, int64_t index_vector_dim, int64_t components,
                                  const std::vector<int64_t>& batch_dims) {
  StartIndexWiring w;
  w.components = components;
  for (int64_t s = 0; s < indices.rank(); ++s)
    w.from_outer.push_back(s == index_vector_dim ? -1 : batch_dims[s < index_vector_dim ? s : s - 1]);
  return w;
}

}  // namespace

StatusOr<GatherDimensions> GatherDimensionsOf(const Instruction& inst) {
  GatherDimensions d;
  VKXLA_ASSIGN_OR_RETURN(d.offset_dims, IntListAttribute(inst, "offset_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.collapsed_slice_dims, IntListAttribute(inst, "collapsed_slice_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.start_index_map, IntListAttribute(inst, "start_index_map", false));
  VKXLA_ASSIGN_OR_RETURN(d.operand_batching_dims, IntListAttribute(inst, "operand_batching_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.start_indices_batching_dims, IntListAttribute(inst, "start_indices_batching_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.slice_sizes, IntListAttribute(inst, "slice_sizes", true));
  VKXLA_ASSIGN_OR_RETURN(d.index_vector_dim, IntAttribute(inst, "index_vector_dim"));
  VKXLA_ASSIGN_OR_RETURN(d.indices_are_sorted, BoolAttribute(inst, "indices_are_sorted"));
  return d;
}

StatusOr<ScatterDimensions> ScatterDimensionsOf(const Instruction& inst) {
  ScatterDimensions d;
  VKXLA_ASSIGN_OR_RETURN(d.update_window_dims, IntListAttribute(inst, "update_window_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.inserted_window_dims, IntListAttribute(inst, "inserted_window_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.scatter_dims_to_operand_dims, IntListAttribute(inst, "scatter_dims_to_operand_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.input_batching_dims, IntListAttribute(inst, "input_batching_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.scatter_indices_batching_dims, IntListAttribute(inst, "scatter_indices_batching_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.index_vector_dim, IntAttribute(inst, "index_vector_dim"));
  VKXLA_ASSIGN_OR_RETURN(d.indices_are_sorted, BoolAttribute(inst, "indices_are_sorted"));
  VKXLA_ASSIGN_OR_RETURN(d.unique_indices, BoolAttribute(inst, "unique_indices"));
  return d;
}

void SetGatherDimensions(Instruction& inst, const GatherDimensions& d) {
  SetAttribute(inst, "offset_dims", IntListText(d.offset_dims));
  SetAttribute(inst, "collapsed_slice_dims", IntListText(d.collapsed_slice_dims));
  SetAttribute(inst, "start_index_map", IntListText(d.start_index_map));
  if (!d.operand_batching_dims.empty()) {
    SetAttribute(inst, "operand_batching_dims", IntListText(d.operand_batching_dims));
    SetAttribute(inst, "start_indices_batching_dims", IntListText(d.start_indices_batching_dims));
  }
  SetAttribute(inst, "index_vector_dim", std::to_string(d.index_vector_dim));
  SetAttribute(inst, "slice_sizes", IntListText(d.slice_sizes));
  if (d.indices_are_sorted) SetAttribute(inst, "indices_are_sorted", "true");
}

void SetScatterDimensions(Instruction& inst, const ScatterDimensions& d) {
  SetAttribute(inst, "update_window_dims", IntListText(d.update_window_dims));
  SetAttribute(inst, "inserted_window_dims", IntListText(d.inserted_window_dims));
  SetAttribute(inst, "scatter_dims_to_operand_dims", IntListText(d.scatter_dims_to_operand_dims));
  if (!d.input_batching_dims.empty()) {
    SetAttribute(inst, "input_batching_dims", IntListText(d.input_batching_dims));
    SetAttribute(inst, "scatter_indices_batching_dims", IntListText(d.scatter_indices_batching_dims));
  }
  SetAttribute(inst, "index_vector_dim", std::to_string(d.index_vector_dim));
  if (d.indices_are_sorted) SetAttribute(inst, "indices_are_sorted", "true");
  if (d.unique_indices) SetAttribute(inst, "unique_indices", "true");
}

StatusOr<GatherPlan> PlanGather(const Instruction& inst) {
  if (inst.operands.size() != 2) return Error(inst, "takes an operand and start indices, got " + std::to_string(inst.operands.size()) + " operands");
  const Shape& operand = inst.operands[0]->shape;
  const Shape& indices = inst.operands[1]->shape;
  if (!operand.IsArray() || !indices.IsArray()) return Error(inst, "operand and start indices must be arrays");
  VKXLA_ASSIGN_OR_RETURN(GatherDimensions d, GatherDimensionsOf(inst));
  VKXLA_ASSIGN_OR_RETURN(int64_t components,
                   CheckStartIndices(inst, operand, indices, d.index_vector_dim, "operand_batching_dims",
                                     d.operand_batching_dims, "start_indices_batching_dims",
                                     d.start_indices_batching_dims, "start_index_map", d.start_index_map));
  if (static_cast<int64_t>(d.slice_sizes.size()) != operand.rank())
    return Error(inst, "slice_sizes=" + IntListText(d.slice_sizes) + " needs one size per dimension of " + operand.ToString());
  for (int64_t k = 0; k < operand.rank(); ++k)
    if (d.slice_sizes[k] < 0 || d.slice_sizes[k] > operand.dim(k))
      return Error(inst, "slice_sizes=" + IntListText(d.slice_sizes) + " exceeds operand " + operand.ToString() +
                             " in dimension " + std::to_string(k));
  VKXLA_RETURN_IF_ERROR(ExpectDimensionList(inst, "collapsed_slice_dims", d.collapsed_slice_dims, operand.rank(), true, operand.ToString()));
  for (int64_t k : d.collapsed_slice_dims) {
    if (Contains(d.operand_batching_dims, k))
      return Error(inst, "dimension " + std::to_string(k) + " is both collapsed and batching");
    if (d.slice_sizes[k] > 1)
      return Error(inst, "collapsed dimension " + std::to_string(k) + " has slice size " + std::to_string(d.slice_sizes[k]) + "; it must be 1");
  }
  for (int64_t k : d.operand_batching_dims)
    if (d.slice_sizes[k] > 1)
      return Error(inst, "batching dimension " + std::to_string(k) + " has slice size " + std::to_string(d.slice_sizes[k]) + "; it must be 1");
  const int64_t batch_rank = indices.rank() - (d.index_vector_dim < indices.rank() ? 1 : 0);
  const int64_t result_rank = batch_rank + static_cast<int64_t>(d.offset_dims.size());
  VKXLA_RETURN_IF_ERROR(ExpectDimensionList(inst, "offset_dims", d.offset_dims, result_rank, true,
                                      "the rank-" + std::to_string(result_rank) + " result"));
  if (operand.rank() != static_cast<int64_t>(d.offset_dims.size() + d.collapsed_slice_dims.size() + d.operand_batching_dims.size()))
    return Error(inst, "operand " + operand.ToString() + " has rank " + std::to_string(operand.rank()) +
                           " but offset_dims, collapsed_slice_dims and operand_batching_dims cover " +
                           std::to_string(d.offset_dims.size() + d.collapsed_slice_dims.size() + d.operand_batching_dims.size()));
  GatherPlan plan;
  std::vector<int64_t> batch_dims;
  for (int64_t r = 0; r < result_rank; ++r)
    if (!Contains(d.offset_dims, r)) batch_dims.push_back(r);
  plan.result_dims.assign(result_rank, 0);
  for (int64_t s = 0, b = 0; s < indices.rank(); ++s)
    if (s != d.index_vector_dim) plan.result_dims[batch_dims[b++]] = indices.dim(s);
  plan.indices = WireStartIndices(indices, d.index_vector_dim, components, batch_dims);
  OperandIndexWiring& w = plan.operand;
  w.start_component.assign(operand.rank(), -1);
  w.batch_from.assign(operand.rank(), -1);
  w.window_from.assign(operand.rank(), -1);
  w.window_size = d.slice_sizes;
  for (size_t k = 0; k < d.start_index_map.size(); ++k) w.start_component[d.start_index_map[k]] = static_cast<int64_t>(k);
  for (size_t i = 0; i < d.operand_batching_dims.size(); ++i)
    w.batch_from[d.operand_batching_dims[i]] = plan.indices.from_outer[d.start_indices_batching_dims[i]];
  for (int64_t k = 0, o = 0; k < operand.rank(); ++k)
    if (!Contains(d.collapsed_slice_dims, k) && !Contains(d.operand_batching_dims, k)) {
      w.window_from[k] = d.offset_dims[o++];
      plan.result_dims[w.window_from[k]] = d.slice_sizes[k];
    }
  return plan;
}

StatusOr<ScatterPlan> PlanScatter(const Instruction& inst) {
  const size_t count = inst.operands.size();
  if (count < 3 || count % 2 == 0)
    return Error(inst, "takes N operands, the scatter indices and N updates; got " + std::to_string(count) + " operands");
  ScatterPlan plan;
  plan.arity = static_cast<int64_t>((count - 1) / 2);
  const int64_t n = plan.arity;
  const Shape& operand = inst.operands[0]->shape;
  const Shape& indices = inst.operands[n]->shape;
  const Shape& updates = inst.operands[n + 1]->shape;
  for (size_t i = 0; i < count; ++i)
    if (!inst.operands[i]->shape.IsArray()) return Error(inst, "operand " + std::to_string(i) + " " + inst.operands[i]->shape.ToString() + " is not an array");
  for (int64_t i = 0; i < n; ++i) {
    const Shape& o = inst.operands[i]->shape;
    const Shape& u = inst.operands[n + 1 + i]->shape;
    if (o.dims() != operand.dims())
      return Error(inst, "operands " + operand.ToString() + " and " + o.ToString() + " differ in dimensions");
    if (u.dims() != updates.dims())
      return Error(inst, "updates " + updates.ToString() + " and " + u.ToString() + " differ in dimensions");
    if (u.element_type() != o.element_type())
      return Error(inst, "update " + u.ToString() + " does not match the element type of operand " + o.ToString());
  }
  VKXLA_ASSIGN_OR_RETURN(plan.dims, ScatterDimensionsOf(inst));
  const ScatterDimensions& d = plan.dims;
  VKXLA_ASSIGN_OR_RETURN(int64_t components,
                   CheckStartIndices(inst, operand, indices, d.index_vector_dim, "input_batching_dims",
                                     d.input_batching_dims, "scatter_indices_batching_dims",
                                     d.scatter_indices_batching_dims, "scatter_dims_to_operand_dims",
                                     d.scatter_dims_to_operand_dims));
  VKXLA_RETURN_IF_ERROR(ExpectDimensionList(inst, "update_window_dims", d.update_window_dims, updates.rank(), true, updates.ToString()));
  VKXLA_RETURN_IF_ERROR(ExpectDimensionList(inst, "inserted_window_dims", d.inserted_window_dims, operand.rank(), true, operand.ToString()));
  for (int64_t k : d.inserted_window_dims)
    if (Contains(d.input_batching_dims, k))
      return Error(inst, "dimension " + std::to_string(k) + " is both an inserted window and a batching dimension");
  if (operand.rank() != static_cast<int64_t>(d.update_window_dims.size() + d.inserted_window_dims.size() + d.input_batching_dims.size()))
    return Error(inst, "operand " + operand.ToString() + " has rank " + std::to_string(operand.rank()) +
                           " but update_window_dims, inserted_window_dims and input_batching_dims cover " +
                           std::to_string(d.update_window_dims.size() + d.inserted_window_dims.size() + d.input_batching_dims.size()));
  const int64_t scatter_rank = indices.rank() - (d.index_vector_dim < indices.rank() ? 1 : 0);
  if (updates.rank() != static_cast<int64_t>(d.update_window_dims.size()) + scatter_rank)
    return Error(inst, "updates " + updates.ToString() + " must have rank " +
                           std::to_string(d.update_window_dims.size() + scatter_rank) +
                           " (update_window_dims plus the scatter dimensions of " + indices.ToString() + ")");
  for (int64_t u = 0; u < updates.rank(); ++u)
    if (!Contains(d.update_window_dims, u)) plan.update_scatter_dims.push_back(u);
  for (int64_t s = 0, b = 0; s < indices.rank(); ++s) {
    if (s == d.index_vector_dim) continue;
    const int64_t u = plan.update_scatter_dims[b++];
    if (updates.dim(u) != indices.dim(s))
      return Error(inst, "updates " + updates.ToString() + " dimension " + std::to_string(u) + " must match scatter indices " +
                             indices.ToString() + " dimension " + std::to_string(s));
  }
  plan.indices = WireStartIndices(indices, d.index_vector_dim, components, plan.update_scatter_dims);
  OperandIndexWiring& w = plan.operand;
  w.start_component.assign(operand.rank(), -1);
  w.batch_from.assign(operand.rank(), -1);
  w.window_from.assign(operand.rank(), -1);
  w.window_size.assign(operand.rank(), 1);
  for (size_t k = 0; k < d.scatter_dims_to_operand_dims.size(); ++k)
    w.start_component[d.scatter_dims_to_operand_dims[k]] = static_cast<int64_t>(k);
  for (size_t i = 0; i < d.input_batching_dims.size(); ++i)
    w.batch_from[d.input_batching_dims[i]] = plan.indices.from_outer[d.scatter_indices_batching_dims[i]];
  for (int64_t k = 0, o = 0; k < operand.rank(); ++k)
    if (!Contains(d.inserted_window_dims, k) && !Contains(d.input_batching_dims, k)) {
      const int64_t u = d.update_window_dims[o++];
      if (updates.dim(u) > operand.dim(k))
        return Error(inst, "update window dimension " + std::to_string(u) + " of " + updates.ToString() +
                               " is larger than dimension " + std::to_string(k) + " of operand " + operand.ToString());
      w.window_from[k] = u;
      w.window_size[k] = updates.dim(u);
    }
  // The update computation: (T_0..T_N-1, T_0..T_N-1) -> T_0 or (T_0..T_N-1).
  std::vector<const Instruction*> operands(inst.operands.begin(), inst.operands.begin() + n);
  VKXLA_ASSIGN_OR_RETURN(const Computation* c, CalledComputation(inst, "to_apply", "the update computation"));
  VKXLA_RETURN_IF_ERROR(CheckSignature(inst, *c, "update computation", ScalarsOf(operands, 2), ScalarsOf(operands, 1)));
  return plan;
}

}  // namespace vkxla
