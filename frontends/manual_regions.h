// Manual regions written between boundary custom calls rather than as an
// sdy.manual_computation: the GSPMD form jax.shard_map exported before
// Shardy (SPMDFullToShardShape ... SPMDShardToFullShape, the global
// operands' shardings on the Sharding custom calls before them, in
// mhlo.sharding), and Shardy's round trip through HLO
// (xla.sdy.GlobalToLocalShape, a call of xla.sdy.manual_computation_body,
// xla.sdy.LocalToGlobalShape, the shardings in their
// mhlo.frontend_attributes). The instructions between a region's entries
// and exits are its body; values from outside that it reads unsharded
// reach every device whole. Each region is then written out per device by
// frontends/spmd_expansion.h, its exits' users reading the results.
//
// Errors: a region's value used outside it, an entry with no sharding
// known for its operand, a partly manual sharding, and what
// ExpandManualComputation does not support.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "frontends/array_ops.h"
#include "ir/module.h"

namespace vkxla {

struct ManualRegionContext {
  std::map<std::string, std::string> meshes;  // "@name" -> "<[...]>": the module's sdy.mesh and xla.sdy.meshes
  int64_t partitions = 1;                     // devices of a region whose shardings are all replicated (num_partitions)
};

// Expands every manual region of `c`, whose new instructions `b` makes in
// `c`; returns the computations no longer used (each region's body).
StatusOr<std::vector<const Computation*>> ExpandManualRegions(Computation& c, const ManualRegionContext& context,
                                                               const ComputationBuilders& b);

// Of `consumed`, those that no instruction of the other computations of
// `all` calls: what a module may drop once its regions are written out (a
// body two regions share is consumed by both).
std::vector<const Computation*> DroppableComputations(const std::vector<const Computation*>& consumed,
                                                      const std::vector<const Computation*>& all);

// Whether `inst` is a region's entry or exit.
bool IsManualRegionBoundary(const Instruction& inst);

}  // namespace vkxla
