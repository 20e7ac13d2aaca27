// A manual computation over sharded mesh axes (sdy.manual_computation, what
// jax.shard_map exports) run on one device: its body is a program for each
// device of the mesh, on that device's shard of every operand, meeting the
// others in collectives. Here the body is written out once per device in
// the computation being read: each copy takes its shards (slices of the
// global operands, by the in_shardings), partition-id is the copy's device,
// and every collective becomes the element moves and folds between the
// copies that it means (ops/collectives.h's groups and moves: all-reduce a
// fold of the group's values in group order, all-gather and all-to-all
// concatenations of blocks, collective-permute the source's value or
// zeros, reduce-scatter a fold then the member's block). The copies'
// results are put together again by the out_shardings. Ops whose operands
// are the same in every copy are written once.
//
// A while loop whose condition or body meets other devices becomes one
// loop over every device's state, running while any device's condition
// holds (a device whose own fails keeps its state); a call of a computation
// that meets them is written in line. Mesh axes left automatic (a partly
// manual computation, shard_map's auto axes) split nothing on one device:
// there is a copy for each position on the manual axes, the device at the
// automatic axes' first positions, and collectives' groups and pairs are
// read over those. Not supported, each a clear error: a collective or
// partition-id inside a conditional or other called computation of the
// body, a collective crossing an automatic axis, sub-axes, unreduced
// results, more than 64 devices.
#pragma once

#include <vector>

#include "frontends/array_ops.h"
#include "frontends/sdy_sharding.h"
#include "ir/module.h"

namespace vkxla {

struct ManualComputation {
  const Computation* body = nullptr;  // parameters: the local operands; root: the local results (a tuple for several)
  SdyMesh mesh;
  std::vector<std::string> manual_axes;
  std::vector<TensorSharding> in_shardings, out_shardings;
  // Where each sharding lies on a mesh of its own (a GSPMD tile assignment
  // over the same devices): one per sharding; empty: all on `mesh`.
  std::vector<SdyMesh> in_meshes, out_meshes;
  std::vector<Shape> result_types;  // global
};

inline constexpr int64_t kMaxManualDevices = 64;

// The global results of `m` over `operands` (global arrays), built with
// `b` (a lockstep loop's condition and body are new computations).
StatusOr<std::vector<Instruction*>> ExpandManualComputation(const ManualComputation& m, const std::vector<Instruction*>& operands,
                                                             const ComputationBuilders& b);

// Whether `c` or a computation it calls holds a collective, replica-id or
// partition-id: whether it meets other devices.
bool CallsProcessOps(const Computation* c);

// What no copy refers to once `body` is written out: the body, and each
// computation it calls that meets other devices (a lockstep loop's
// condition and body are new ones); the module drops them.
std::vector<const Computation*> ConsumedComputations(const Computation* body);

}  // namespace vkxla
