// Shardy's mesh and tensor-sharding attributes as JAX exports write them:
// `sdy.mesh @m = <["x"=2, "y"=4], device_ids=[...]>` and a manual
// computation's `in_shardings=[<@m, [{"x"}, {}], replicated={"y"}>, ...]`.
// Only what says which shard of an array a device holds is kept.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vkxla/status.h"

namespace vkxla {

struct SdyMesh {
  std::vector<std::pair<std::string, int64_t>> axes;  // in order, the first the most major
  std::vector<int64_t> device_ids;                    // the device at each position of the mesh, row-major; empty: the iota
  int64_t devices() const;
  // The index of axis `name`, or -1.
  int64_t AxisIndex(const std::string& name) const;
  // The device at mesh position `coordinates` (one per axis).
  int64_t DeviceAt(const std::vector<int64_t>& coordinates) const;
};

// `raw`: the mesh's `<...>` (with or without the brackets around its axes).
StatusOr<SdyMesh> ParseSdyMesh(const std::string& raw);

struct TensorSharding {
  std::string mesh;     // "@name", or empty where the mesh is written in line
  std::string inline_mesh;  // the `mesh<...>` text where it is
  std::vector<std::vector<std::string>> dims;  // per dimension, the axes splitting it, the most major first
  bool unreduced = false;  // some axes hold partial values still to be reduced
};

// `raw`: a list `[<@m, [{"x"}, {}]>, ...]` as the shardings attributes write
// it, or wrapped as Shardy's round trip through HLO writes it:
// `#sdy.sharding_per_value<[...]>`.
StatusOr<std::vector<TensorSharding>> ParseShardingList(const std::string& raw);

// `{"x", "y"}`, or `#sdy<manual_axes{"x", "y"}>`.
StatusOr<std::vector<std::string>> ParseManualAxes(const std::string& raw);

// The meshes of Shardy's round trip through HLO (the module's
// xla.sdy.meshes): `{mesh = #sdy.mesh<["x"=2]>, ...}` -> ("@mesh", "<["x"=2]>").
StatusOr<std::vector<std::pair<std::string, std::string>>> ParseMeshDictionary(const std::string& raw);

}  // namespace vkxla
