#include "frontends/gspmd_sharding.h"

#include "frontends/attribute_scan.h"

namespace vkxla {
namespace {

constexpr int64_t kMaxShardingDevices = 4096;

// [a, b, ...]: positive sizes whose product stays within kMaxShardingDevices.
StatusOr<std::vector<int64_t>> Sizes(AttributeScan& c) {
  std::vector<int64_t> sizes;
  if (!c.Eat('[')) return InvalidArgument("expected [sizes] in the sharding " + c.s);
  int64_t product = 1;
  do {
    VKXLA_ASSIGN_OR_RETURN(int64_t n, c.Integer());
    if (n < 1 || n > kMaxShardingDevices || product * n > kMaxShardingDevices)
      return InvalidArgument("the sharding " + c.s + " has more than " + std::to_string(kMaxShardingDevices) + " devices or a size below 1");
    product *= n;
    sizes.push_back(n);
  } while (c.Eat(','));
  if (!c.Eat(']')) return InvalidArgument("expected ] closing the sizes in the sharding " + c.s);
  return sizes;
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// <=[dims]T(perm): the iota over dims, transposed by perm, in row-major order.
StatusOr<std::vector<int64_t>> IotaDevices(AttributeScan& c) {
  VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dims, Sizes(c));
  std::vector<int64_t> perm(dims.size());
  for (size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int64_t>(k);
  if (c.Eat('T')) {
    if (!c.Eat('(')) return InvalidArgument("expected T(permutation) in the sharding " + c.s);
    std::vector<bool> seen(dims.size(), false);
    for (size_t k = 0; k < perm.size(); ++k) {
      if (k > 0 && !c.Eat(',')) return InvalidArgument("expected , in T(...) of the sharding " + c.s);
      VKXLA_ASSIGN_OR_RETURN(perm[k], c.Integer());
      if (perm[k] < 0 || perm[k] >= static_cast<int64_t>(dims.size()) || seen[static_cast<size_t>(perm[k])])
        return InvalidArgument("T(...) of the sharding " + c.s + " is no permutation of its " + std::to_string(dims.size()) + " dimensions");
      seen[static_cast<size_t>(perm[k])] = true;
    }
    if (!c.Eat(')')) return InvalidArgument("expected ) closing T(...) in the sharding " + c.s);
  }
  // Row-major strides of the source; walk the transposed index in order.
  std::vector<int64_t> stride(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) stride[k - 1] = stride[k] * dims[k];
  std::vector<int64_t> index(dims.size(), 0), devices;
  const int64_t n = Product(dims);
  for (int64_t i = 0; i < n; ++i) {
    int64_t source = 0;
    for (size_t k = 0; k < dims.size(); ++k) source += index[k] * stride[static_cast<size_t>(perm[k])];
    devices.push_back(source);
    for (size_t k = dims.size(); k-- > 0;) {
      if (++index[k] < dims[static_cast<size_t>(perm[k])]) break;
      index[k] = 0;
    }
  }
  return devices;
}

// last_tile_dims={manual, replicated}: the subgroup dimensions' kinds.
Status SubgroupKinds(AttributeScan& c, GspmdSharding& s) {
  if (!c.Eat('=') || !c.Eat('{')) return InvalidArgument("expected last_tile_dims={...} in the sharding " + c.s);
  do {
    if (c.Eat("manual")) {
      s.partly_manual = true;
    } else if (c.Eat("replicated")) {
      ++s.replicated_subgroups;
    } else {
      return InvalidArgument("expected manual or replicated in last_tile_dims of the sharding " + c.s);
    }
  } while (c.Eat(','));
  if (!c.Eat('}')) return InvalidArgument("expected } closing last_tile_dims in the sharding " + c.s);
  return OkStatus();
}

}  // namespace

std::string GspmdSharding::ToString() const {
  switch (kind) {
    case Kind::kReplicated: return "{replicated}";
    case Kind::kManual: return "{manual}";
    case Kind::kMaximal: return "{maximal device=" + std::to_string(devices.empty() ? 0 : devices[0]) + "}";
    case Kind::kTiled: break;
  }
  std::string t = "{devices=[";
  for (size_t k = 0; k < tiles.size(); ++k) t += (k ? "," : "") + std::to_string(tiles[k]);
  t += "]";
  for (size_t k = 0; k < devices.size(); ++k) t += (k ? "," : "") + std::to_string(devices[k]);
  if (replicated_subgroups > 0) t += " last_tile_dim_replicate";
  return t + "}";
}

StatusOr<GspmdSharding> ParseGspmdSharding(const std::string& text) {
  AttributeScan c{text};
  GspmdSharding s;
  if (!c.Eat('{')) return InvalidArgument("expected {sharding}, got " + text);
  c.Space();
  if (c.p < text.size() && text[c.p] == '{') return Unimplemented("the tuple sharding " + text + ": one array's sharding is expected");
  if (c.Eat("replicated")) {
    s.kind = GspmdSharding::Kind::kReplicated;
  } else if (c.Eat("manual")) {
    s.kind = GspmdSharding::Kind::kManual;
  } else if (c.Eat("maximal")) {
    s.kind = GspmdSharding::Kind::kMaximal;
    if (!c.Eat("device") || !c.Eat('=')) return InvalidArgument("expected maximal device=N in the sharding " + text);
    VKXLA_ASSIGN_OR_RETURN(int64_t d, c.Integer());
    s.devices.push_back(d);
  } else if (c.Eat("devices")) {
    s.kind = GspmdSharding::Kind::kTiled;
    if (!c.Eat('=')) return InvalidArgument("expected devices=[...] in the sharding " + text);
    VKXLA_ASSIGN_OR_RETURN(s.tiles, Sizes(c));
    const int64_t n = Product(s.tiles);
    if (c.Eat("<=")) {
      VKXLA_ASSIGN_OR_RETURN(s.devices, IotaDevices(c));
    } else {
      do {
        VKXLA_ASSIGN_OR_RETURN(int64_t d, c.Integer());
        s.devices.push_back(d);
        if (static_cast<int64_t>(s.devices.size()) > n) break;
      } while (c.Eat(','));
    }
    if (static_cast<int64_t>(s.devices.size()) != n)
      return InvalidArgument("the sharding " + text + " lists " + std::to_string(s.devices.size()) + " devices for " + std::to_string(n) + " tiles");
    std::vector<bool> seen(static_cast<size_t>(n), false);
    for (int64_t d : s.devices) {
      if (d < 0 || d >= n || seen[static_cast<size_t>(d)])
        return InvalidArgument("the devices of the sharding " + text + " are no permutation of 0.." + std::to_string(n - 1));
      seen[static_cast<size_t>(d)] = true;
    }
    if (c.Eat("last_tile_dim_replicate")) s.replicated_subgroups = 1;
    if (c.Eat("last_tile_dims")) VKXLA_RETURN_IF_ERROR(SubgroupKinds(c, s));
    if (s.replicated_subgroups + (s.partly_manual ? 1 : 0) > static_cast<int64_t>(s.tiles.size()))
      return InvalidArgument("the sharding " + text + " has more subgroup dimensions than tile dimensions");
  } else {
    return Unimplemented("the sharding " + text + ": replicated, manual, maximal and devices=[...] are read");
  }
  if (c.Eat("metadata")) {  // metadata={op_name="..."}: where it came from
    if (!c.Eat('=') || !c.Eat('{')) return InvalidArgument("expected metadata={...} in the sharding " + text);
    VKXLA_RETURN_IF_ERROR(c.Skip('{', '}'));
  }
  if (!c.Eat('}')) return InvalidArgument("expected } closing the sharding " + text);
  c.Space();
  if (c.p != text.size()) return InvalidArgument("unexpected text after the sharding " + text);
  return s;
}

StatusOr<MeshSharding> AsMeshSharding(const GspmdSharding& s, int64_t rank, int64_t devices) {
  MeshSharding out;
  switch (s.kind) {
    case GspmdSharding::Kind::kReplicated:
      out.mesh.axes.emplace_back("replicas", devices);
      out.sharding.dims.assign(static_cast<size_t>(rank), {});
      return out;
    case GspmdSharding::Kind::kManual:
    case GspmdSharding::Kind::kMaximal:
      return Unimplemented("the sharding " + s.ToString() + " of a global array: a tiled or replicated one is expected");
    case GspmdSharding::Kind::kTiled:
      break;
  }
  if (s.partly_manual)
    return Unimplemented("the sharding " + s.ToString() + " manual over some devices only: only fully manual regions are written out per device");
  const int64_t subgroups = s.replicated_subgroups;
  if (static_cast<int64_t>(s.tiles.size()) != rank + subgroups)
    return InvalidArgument("the sharding " + s.ToString() + " tiles " + std::to_string(s.tiles.size() - static_cast<size_t>(subgroups)) +
                           " dimensions of an array of rank " + std::to_string(rank));
  if (static_cast<int64_t>(s.devices.size()) != devices)
    return InvalidArgument("the sharding " + s.ToString() + " spans " + std::to_string(s.devices.size()) + " devices, the region " +
                           std::to_string(devices));
  for (size_t k = 0; k < s.tiles.size(); ++k) out.mesh.axes.emplace_back("tiles" + std::to_string(k), s.tiles[k]);
  out.mesh.device_ids = s.devices;
  for (int64_t k = 0; k < rank; ++k) out.sharding.dims.push_back({"tiles" + std::to_string(k)});
  return out;
}

}  // namespace vkxla
