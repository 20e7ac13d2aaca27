#include "frontends/sdy_sharding.h"

#include <cctype>

#include "ir/numbers.h"

namespace vkxla {
namespace {

// A small cursor over attribute text: no input it reads may run past its end.
struct Scan {
  const std::string& s;
  size_t p = 0;
  void Space() {
    while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  }
  bool Eat(char c) {
    Space();
    if (p < s.size() && s[p] == c) {
      ++p;
      return true;
    }
    return false;
  }
  bool Eat(const std::string& word) {
    Space();
    if (s.compare(p, word.size(), word) == 0) {
      p += word.size();
      return true;
    }
    return false;
  }
  StatusOr<std::string> Quoted() {
    Space();
    if (p >= s.size() || s[p] != '"') return InvalidArgument("expected a quoted axis name in " + s);
    const size_t close = s.find('"', p + 1);
    if (close == std::string::npos) return InvalidArgument("an unterminated axis name in " + s);
    std::string name = s.substr(p + 1, close - p - 1);
    p = close + 1;
    return name;
  }
  StatusOr<int64_t> Integer() {
    Space();
    const size_t begin = p;
    if (p < s.size() && s[p] == '-') ++p;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) ++p;
    std::optional<int64_t> v = ParseInt64(s.substr(begin, p - begin));
    if (!v) return InvalidArgument("expected an integer at \"" + s.substr(begin, 16) + "\" in " + s);
    return *v;
  }
  // Past the bracketed group opening here (`open` already eaten).
  Status Skip(char open, char close) {
    int depth = 1;
    while (p < s.size() && depth > 0) {
      if (s[p] == open) ++depth;
      if (s[p] == close) --depth;
      ++p;
    }
    if (depth != 0) return InvalidArgument("unbalanced " + std::string(1, open) + " in " + s);
    return OkStatus();
  }
};

// {"x", "y", ?} -> {"x", "y"}; sub-axes ("x":(1)2) are refused.
StatusOr<std::vector<std::string>> AxisList(Scan& c) {
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
  Scan c{raw};
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
  Scan c{raw};
  std::vector<TensorSharding> out;
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
  return out;
}

}  // namespace vkxla
