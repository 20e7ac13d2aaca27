#include "frontends/stablehlo_collectives.h"

#include <algorithm>
#include <cctype>

#include "frontends/stablehlo_syntax.h"
#include "ir/numbers.h"
#include "ops/collectives.h"

namespace vkxla {
namespace {

// dense<[[0, 1], [2, 3]]> : tensor<2x2xi64> as {{0,1},{2,3}}; dense<> is {}.
StatusOr<std::string> DenseGroups(const std::string& key, const std::string& raw) {
  const size_t open = raw.find("dense<");
  const size_t close = raw.find('>', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos)
    return InvalidArgument(key + " must be a dense<[[...]]> constant, got \"" + raw + "\"");
  std::string body = raw.substr(open + 6, close - open - 6);
  for (char& ch : body) ch = ch == '[' ? '{' : ch == ']' ? '}' : ch;
  if (body.find_first_not_of(" \t\n") == std::string::npos) body = "{}";
  VKXLA_ASSIGN_OR_RETURN(auto groups, ParseIdGroups(body));
  // A dense tensor pads groups of fewer members with -1.
  for (auto& g : groups) g.erase(std::remove(g.begin(), g.end(), -1), g.end());
  return IdGroupsText(groups);
}

StatusOr<int64_t> IntegerOf(const std::string& key, const std::string& raw) {
  std::optional<std::string> bad = FirstBadInteger(raw);
  const std::vector<int64_t> v = bad ? std::vector<int64_t>{} : Integers(raw);
  if (v.size() != 1) return InvalidArgument(key + " must be one integer, got \"" + raw + "\"");
  return v[0];
}

}  // namespace

std::optional<Opcode> StablehloCollectiveOpcode(std::string_view name) {
  if (name == "all_reduce") return Opcode::kAllReduce;
  if (name == "all_gather") return Opcode::kAllGather;
  if (name == "reduce_scatter") return Opcode::kReduceScatter;
  if (name == "all_to_all") return Opcode::kAllToAll;
  if (name == "collective_permute") return Opcode::kCollectivePermute;
  if (name == "collective_broadcast") return Opcode::kCollectiveBroadcast;
  if (name == "collective_reduce") return Opcode::kAllReduce;  // with vkxla_reduce_to_root
  if (name == "replica_id") return Opcode::kReplicaId;
  if (name == "partition_id") return Opcode::kPartitionId;
  return std::nullopt;
}

StatusOr<CollectiveAttributes> TranslateCollectiveAttributes(Opcode op, const std::map<std::string, std::string>& attributes) {
  CollectiveAttributes out;
  auto find = [&](const char* key) -> const std::string* {
    auto it = attributes.find(key);
    return it == attributes.end() ? nullptr : &it->second;
  };
  if (const std::string* g = find("replica_groups")) {
    VKXLA_ASSIGN_OR_RETURN(std::string groups, DenseGroups("replica_groups", *g));
    out.attributes.emplace_back("replica_groups", groups);
  }
  if (const std::string* p = find("source_target_pairs")) {
    VKXLA_ASSIGN_OR_RETURN(std::string pairs, DenseGroups("source_target_pairs", *p));
    out.attributes.emplace_back("source_target_pairs", pairs);
  }
  if (const std::string* h = find("channel_handle")) {
    const size_t at = h->find("handle");
    const size_t end = at == std::string::npos ? at : h->find_first_of(",>", at);
    VKXLA_ASSIGN_OR_RETURN(int64_t channel, IntegerOf("channel_handle", at == std::string::npos ? *h : h->substr(at + 6, end - at - 6)));
    if (channel > 0) out.attributes.emplace_back("channel_id", std::to_string(channel));
  }
  if (const std::string* r = find("has_dynamic_root"))
    if (r->find("false") == std::string::npos) out.attributes.emplace_back("has_dynamic_root", "true");
  if (const std::string* u = find("use_global_device_ids"))
    if (u->find("false") == std::string::npos) out.attributes.emplace_back("use_global_device_ids", "true");
  const char* dimension = op == Opcode::kAllGather ? "all_gather_dim" : op == Opcode::kReduceScatter ? "scatter_dimension" : nullptr;
  if (dimension) {
    const std::string* d = find(dimension);
    if (!d) return InvalidArgument(std::string(dimension) + " is required");
    VKXLA_ASSIGN_OR_RETURN(int64_t v, IntegerOf(dimension, *d));
    out.dimensions = std::vector<int64_t>{v};
  }
  if (op == Opcode::kAllToAll) {
    for (const char* key : {"split_dimension", "concat_dimension", "split_count"}) {
      const std::string* v = find(key);
      if (!v) return InvalidArgument(std::string(key) + " is required");
      VKXLA_ASSIGN_OR_RETURN(int64_t n, IntegerOf(key, *v));
      out.attributes.emplace_back(key, std::to_string(n));
    }
  }
  return out;
}

StatusOr<std::pair<int64_t, int64_t>> ModuleProcessGrid(std::string_view text) {
  // Only the module's own attribute dictionary: before its first function.
  const size_t first = text.find("func.func");
  const std::string_view head = text.substr(0, first);
  std::pair<int64_t, int64_t> grid{1, 1};
  for (int k = 0; k < 2; ++k) {
    const std::string key = k == 0 ? "mhlo.num_replicas" : "mhlo.num_partitions";
    const size_t at = head.find(key);
    if (at == std::string_view::npos) continue;
    size_t pos = head.find('=', at);
    if (pos == std::string_view::npos) return InvalidArgument(key + " needs a value");
    ++pos;
    while (pos < head.size() && std::isspace(static_cast<unsigned char>(head[pos]))) ++pos;
    size_t end = pos;
    while (end < head.size() && std::isdigit(static_cast<unsigned char>(head[end]))) ++end;
    std::optional<int64_t> n = ParseInt64(head.substr(pos, end - pos));
    if (!n || *n < 1 || *n > (int64_t{1} << 31))
      return InvalidArgument(key + " must be a positive integer, got \"" +
                             std::string(head.substr(pos, std::min<size_t>(20, head.size() - pos))) + "\"");
    (k == 0 ? grid.first : grid.second) = *n;
  }
  return grid;
}

}  // namespace vkxla
