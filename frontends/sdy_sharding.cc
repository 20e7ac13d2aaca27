#include "frontends/sdy_sharding.h"

#include <cctype>

#include "frontends/attribute_scan.h"

namespace vkxla {
namespace {

// {"x", "y", ?} -> {"x", "y"}; sub-axes ("x":(1)2) are refused.
StatusOr<std::vector<std::string>> AxisList(AttributeScan& c) {
  std::vector<std::string> axes;
  if (!c.Eat('{')) return InvalidArgument("expected {axes} in " + c.s);
  if (c.Eat('}')) return axes;
  do {
    if (c.Eat('?')) continue;
    VKXLA_ASSIGN_OR_RETURN(std::string a, c.Quoted());
    if (c.Eat(':')) return Unimplemented("the sub-axis \"" + a + "\":(...) of a sharding: whole mesh axes are supported");
    axes.push_back(std::move(a));
  } while (c.Eat(','));
  if (!c.Eat('}')) return InvalidArgument("expected } closing the axes in " + c.s);
  return axes;
}

}  // namespace

int64_t SdyMesh::devices() const {
  int64_t n = 1;
  for (const auto& [name, size] : axes) n *= size;
  return n;
}

int64_t SdyMesh::AxisIndex(const std::string& name) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].first == name) return static_cast<int64_t>(i);
  return -1;
}

int64_t SdyMesh::DeviceAt(const std::vector<int64_t>& coordinates) const {
  int64_t linear = 0;
  for (size_t i = 0; i < axes.size(); ++i) linear = linear * axes[i].second + coordinates[i];
  return device_ids.empty() ? linear : device_ids[static_cast<size_t>(linear)];
}

StatusOr<SdyMesh> ParseSdyMesh(const std::string& raw) {
  AttributeScan c{raw};
  SdyMesh mesh;
  c.Eat('<');
  const bool bracketed = c.Eat('[');
  c.Space();
  while (c.p < raw.size() && raw[c.p] == '"') {
    VKXLA_ASSIGN_OR_RETURN(std::string name, c.Quoted());
    if (!c.Eat('=')) return InvalidArgument("expected \"" + name + "\"=size in the mesh " + raw);
    VKXLA_ASSIGN_OR_RETURN(int64_t size, c.Integer());
    if (size < 1 || size > 4096) return InvalidArgument("the mesh axis \"" + name + "\" has size " + std::to_string(size));
    if (mesh.AxisIndex(name) >= 0) return InvalidArgument("the mesh names axis \"" + name + "\" twice");
    mesh.axes.emplace_back(std::move(name), size);
    if (mesh.devices() > 4096) return InvalidArgument("the mesh " + raw + " has more than 4096 devices");
    if (!c.Eat(',')) break;
    c.Space();
  }
  if (bracketed && !c.Eat(']')) return InvalidArgument("expected ] closing the mesh's axes in " + raw);
  c.Eat(',');
  if (c.Eat("device_ids")) {
    if (!c.Eat('=') || !c.Eat('[')) return InvalidArgument("expected device_ids=[...] in the mesh " + raw);
    if (!c.Eat(']')) {
      do {
        VKXLA_ASSIGN_OR_RETURN(int64_t id, c.Integer());
        mesh.device_ids.push_back(id);
        if (static_cast<int64_t>(mesh.device_ids.size()) > mesh.devices()) break;
      } while (c.Eat(','));
      if (!c.Eat(']')) return InvalidArgument("expected ] closing the device_ids in " + raw);
    }
    // A permutation of the mesh's devices (a maximal mesh's one id is no manual mesh).
    std::vector<bool> seen(static_cast<size_t>(mesh.devices()), false);
    bool permutation = static_cast<int64_t>(mesh.device_ids.size()) == mesh.devices();
    for (int64_t id : mesh.device_ids) {
      if (!permutation || id < 0 || id >= mesh.devices() || seen[static_cast<size_t>(id)]) {
        permutation = false;
        break;
      }
      seen[static_cast<size_t>(id)] = true;
    }
    if (!permutation) return InvalidArgument("the mesh's device_ids in " + raw + " are no permutation of its devices");
  }
  return mesh;
}

StatusOr<std::vector<TensorSharding>> ParseShardingList(const std::string& raw) {
  AttributeScan c{raw};
  std::vector<TensorSharding> out;
  const bool wrapped = c.Eat("#sdy.sharding_per_value<");
  if (!c.Eat('[')) return InvalidArgument("expected [shardings] in " + raw);
  if (c.Eat(']')) return out;
  do {
    TensorSharding t;
    if (!c.Eat('<')) return InvalidArgument("expected <mesh, [dims]> in " + raw);
    c.Space();
    if (c.Eat('@')) {
      const size_t begin = c.p;
      while (c.p < raw.size() && (std::isalnum(static_cast<unsigned char>(raw[c.p])) || raw[c.p] == '_' || raw[c.p] == '.' || raw[c.p] == '$')) ++c.p;
      t.mesh = "@" + raw.substr(begin, c.p - begin);
    } else if (c.Eat("mesh<")) {
      const size_t begin = c.p - 1;
      VKXLA_RETURN_IF_ERROR(c.Skip('<', '>'));
      t.inline_mesh = raw.substr(begin, c.p - begin);
    } else {
      return InvalidArgument("expected @mesh or mesh<...> in " + raw);
    }
    if (!c.Eat(',') || !c.Eat('[')) return InvalidArgument("expected , [dims] after the mesh in " + raw);
    if (!c.Eat(']')) {
      do {
        VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> axes, AxisList(c));
        t.dims.push_back(std::move(axes));
        if (c.Eat('p')) VKXLA_RETURN_IF_ERROR(c.Integer().status());  // a priority
      } while (c.Eat(','));
      if (!c.Eat(']')) return InvalidArgument("expected ] closing the dims in " + raw);
    }
    while (c.Eat(',')) {  // replicated={...}, unreduced={...}
      const bool unreduced = c.Eat("unreduced");
      if (!unreduced && !c.Eat("replicated")) return InvalidArgument("expected replicated= or unreduced= in " + raw);
      if (!c.Eat('=')) return InvalidArgument("expected = after replicated/unreduced in " + raw);
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> axes, AxisList(c));
      t.unreduced = t.unreduced || (unreduced && !axes.empty());
    }
    if (!c.Eat('>')) return InvalidArgument("expected > closing a sharding in " + raw);
    out.push_back(std::move(t));
  } while (c.Eat(','));
  if (!c.Eat(']')) return InvalidArgument("expected ] closing the shardings in " + raw);
  if (wrapped && !c.Eat('>')) return InvalidArgument("expected > closing #sdy.sharding_per_value in " + raw);
  return out;
}

StatusOr<std::vector<std::string>> ParseManualAxes(const std::string& raw) {
  AttributeScan c{raw};
  const bool wrapped = c.Eat("#sdy<manual_axes");
  VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> axes, AxisList(c));
  if (wrapped && !c.Eat('>')) return InvalidArgument("expected > closing #sdy<manual_axes in " + raw);
  return axes;
}

StatusOr<std::vector<std::pair<std::string, std::string>>> ParseMeshDictionary(const std::string& raw) {
  AttributeScan c{raw};
  std::vector<std::pair<std::string, std::string>> meshes;
  if (!c.Eat('{')) return InvalidArgument("expected {name = #sdy.mesh<...>, ...} in " + raw);
  if (c.Eat('}')) return meshes;
  do {
    c.Space();
    const size_t begin = c.p;
    while (c.p < raw.size() && (std::isalnum(static_cast<unsigned char>(raw[c.p])) || raw[c.p] == '_' || raw[c.p] == '.' || raw[c.p] == '$')) ++c.p;
    const std::string name = raw.substr(begin, c.p - begin);
    if (name.empty() || !c.Eat('=') || !c.Eat("#sdy.mesh<")) return InvalidArgument("expected name = #sdy.mesh<...> in " + raw);
    const size_t open = c.p - 1;
    VKXLA_RETURN_IF_ERROR(c.Skip('<', '>'));
    meshes.emplace_back("@" + name, raw.substr(open, c.p - open));
  } while (c.Eat(','));
  if (!c.Eat('}')) return InvalidArgument("expected } closing the meshes in " + raw);
  return meshes;
}

}  // namespace vkxla
