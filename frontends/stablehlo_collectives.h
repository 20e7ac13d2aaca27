// StableHLO's collective ops (all_reduce, all_gather, reduce_scatter,
// all_to_all, collective_permute, collective_broadcast, replica_id,
// partition_id) as the HLO ops ops/collectives.h reads: the opcode and the
// attributes in HLO's spelling (replica_groups={{0,1}}, channel_id=N,
// use_global_device_ids=true, dimensions={d}, source_target_pairs=...).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/opcode.h"
#include "vkxla/status.h"

namespace vkxla {

// The opcode of a StableHLO op name without "stablehlo.", if it is a collective.
std::optional<Opcode> StablehloCollectiveOpcode(std::string_view name);

struct CollectiveAttributes {
  std::optional<std::vector<int64_t>> dimensions;
  std::vector<std::pair<std::string, std::string>> attributes;
};
// `attributes` as the statement wrote them (name -> raw text).
StatusOr<CollectiveAttributes> TranslateCollectiveAttributes(Opcode op, const std::map<std::string, std::string>& attributes);

// mhlo.num_replicas / mhlo.num_partitions of a module's attribute
// dictionary (1 when absent). The reader keeps the replicas only.
StatusOr<std::pair<int64_t, int64_t>> ModuleProcessGrid(std::string_view text);

}  // namespace vkxla
