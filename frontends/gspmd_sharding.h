// XLA's HLO sharding as GSPMD programs write it (`mhlo.sharding` in
// StableHLO, `sharding=` in HLO text): `{replicated}`, `{manual}`,
// `{maximal device=3}`, and tile assignments `{devices=[2,1]0,1}`,
// `{devices=[2,2]<=[2,2]T(1,0)}`, `{devices=[2,1,2]<=[4]
// last_tile_dim_replicate}`. A tile assignment is read as a mesh of its own
// (one axis per tiled dimension, the devices in its order) so that
// frontends/spmd_expansion.h can slice by it like a Shardy sharding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontends/sdy_sharding.h"
#include "vkxla/status.h"

namespace vkxla {

struct GspmdSharding {
  enum class Kind { kReplicated, kManual, kMaximal, kTiled };
  Kind kind = Kind::kReplicated;
  std::vector<int64_t> tiles;    // kTiled: tiles along each dimension, then the trailing subgroup dimensions
  std::vector<int64_t> devices;  // kTiled: the device of each tile, row-major over `tiles`; kMaximal: the one device
  int64_t replicated_subgroups = 0;  // trailing dimensions of `tiles` whose devices hold the same tile
  bool partly_manual = false;        // last_tile_dims names manual: some mesh axes manual, others not
  std::string ToString() const;
};

// `text`: the sharding between its braces (quotes already taken off).
StatusOr<GspmdSharding> ParseGspmdSharding(const std::string& text);

// `s` over an array of rank `rank` on `devices` devices, as a mesh of its
// own and the tensor sharding on it. Manual, maximal and partly manual
// shardings are errors (no shard of a global array).
struct MeshSharding {
  SdyMesh mesh;
  TensorSharding sharding;
};
StatusOr<MeshSharding> AsMeshSharding(const GspmdSharding& s, int64_t rank, int64_t devices);

}  // namespace vkxla
