#include "frontends/stablehlo_dot.h"

#include <cctype>

#include "frontends/stablehlo_syntax.h"
#include "ops/attributes.h"
#include "ops/dot.h"

namespace vkxla {
namespace {

std::string Trimmed(std::string t) {
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(t.begin());
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  return t;
}

// "[0, 1] x [2, 3]": the lists of lhs and rhs.
StatusOr<std::pair<std::string, std::string>> PrettyPair(const std::string& key, const std::string& raw) {
  const size_t x = raw.find(']');
  const size_t open = x == std::string::npos ? x : raw.find('[', x);
  if (raw.empty() || raw[0] != '[' || open == std::string::npos || Trimmed(raw.substr(x + 1, open - x - 1)) != "x")
    return InvalidArgument(key + " = " + raw + ": expected [lhs dims] x [rhs dims]");
  return std::make_pair(IntListText(Integers(raw.substr(0, x + 1))), IntListText(Integers(raw.substr(open))));
}

// "[DEFAULT, HIGH]" or "[#stablehlo<precision DEFAULT>, #chlo<precision HIGH>]"
// as HLO's "{default,high}".
StatusOr<std::string> Precisions(const std::string& raw) {
  if (raw.size() < 2 || raw.front() != '[' || raw.back() != ']')
    return InvalidArgument("precision = " + raw + ": expected [DEFAULT, DEFAULT]");
  std::string out, part;
  int depth = 0;
  auto flush = [&]() -> Status {
    std::string word = LastWord(part);
    for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (word != "default" && word != "high" && word != "highest")
      return InvalidArgument("precision = " + raw + ": expected DEFAULT, HIGH or HIGHEST, found '" + Trimmed(part) + "'");
    out += (out.empty() ? "" : ",") + word;
    part.clear();
    return OkStatus();
  };
  const std::string body = raw.substr(1, raw.size() - 2);
  if (Trimmed(body).empty()) return std::string();
  for (char ch : body) {
    if (ch == '<') ++depth;
    if (ch == '>') --depth;
    if (ch == ',' && depth == 0) {
      VKXLA_RETURN_IF_ERROR(flush());
    } else {
      part += ch;
    }
  }
  VKXLA_RETURN_IF_ERROR(flush());
  return "{" + out + "}";
}

const std::string* Find(const std::map<std::string, std::string>& m, const char* key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

}  // namespace

StatusOr<std::string> XlaDotAlgorithmName(const std::string& raw) {
  const std::map<std::string, std::string> f = StructFields(raw);
  auto field = [&](const char* key, const char* otherwise) {
    const std::string* v = Find(f, key);
    return v ? *v : std::string(otherwise);
  };
  const std::string lhs = field("lhs_precision_type", ""), rhs = field("rhs_precision_type", "");
  const std::string acc = field("accumulation_type", "");
  const std::string ops = field("num_primitive_operations", "1");
  const bool imprecise = field("allow_imprecise_accumulation", "false") == "true";
  const bool components_one = field("lhs_component_count", "1") == "1" && field("rhs_component_count", "1") == "1";
  auto is_f8 = [](const std::string& t) { return t.rfind("f8", 0) == 0; };
  std::string name;
  if (is_f8(lhs) && is_f8(rhs) && acc == "f32") {
    name = imprecise ? "dot_any_f8_any_f8_f32_fast_accum" : "dot_any_f8_any_f8_f32";
  } else if (lhs == rhs && components_one) {
    name = "dot_" + lhs + "_" + rhs + "_" + acc;
    if (ops != "1") name += "_x" + ops;
  }
  if (name.empty() || !ParseDotAlgorithm(name).ok())
    return InvalidArgument("dot algorithm " + raw + " is not supported (lhs " + lhs + ", rhs " + rhs + ", accumulation " + acc +
                           ", " + ops + " primitive operations)");
  return name;
}

Status ReadStablehloPrecision(const std::map<std::string, std::string>& attributes, Instruction& inst) {
  for (const char* key : {"precision", "precision_config"}) {
    if (const std::string* v = Find(attributes, key)) {
      VKXLA_ASSIGN_OR_RETURN(std::string p, Precisions(*v));
      if (!p.empty()) SetAttribute(inst, "operand_precision", p);
    }
  }
  return OkStatus();
}

Status ReadStablehloDotAttributes(const std::string& op, const std::map<std::string, std::string>& attributes,
                                  Instruction& inst) {
  // dot_general names every dimension it contracts: none written is none
  // (only stablehlo.dot, with no numbers at all, takes Dot's rule).
  if (op != "dot") {
    SetAttribute(inst, "lhs_contracting_dims", "{}");
    SetAttribute(inst, "rhs_contracting_dims", "{}");
  }
  // Pretty dot_general.
  for (const auto& [key, side_names] :
       {std::make_pair("batching_dims", std::make_pair("lhs_batch_dims", "rhs_batch_dims")),
        std::make_pair("contracting_dims", std::make_pair("lhs_contracting_dims", "rhs_contracting_dims"))}) {
    if (const std::string* v = Find(attributes, key)) {
      VKXLA_ASSIGN_OR_RETURN(auto lists, PrettyPair(key, *v));
      SetAttribute(inst, side_names.first, lists.first);
      SetAttribute(inst, side_names.second, lists.second);
    }
  }
  // Generic dot_general (#stablehlo.dot<...>) and ragged dots
  // (#chlo.ragged_dot<...>, its dot numbers inline or nested in
  // dot_dimension_numbers = <...> as MHLO writes them).
  for (const char* key : {"dot_dimension_numbers", "ragged_dot_dimension_numbers"}) {
    const std::string* v = Find(attributes, key);
    if (!v) continue;
    std::map<std::string, std::string> fields = StructFields(*v);
    if (const std::string* nested = Find(fields, "dot_dimension_numbers"))
      for (const auto& [k, value] : StructFields("<" + *nested + ">")) fields[k] = value;
    static const std::pair<const char*, const char*> kNames[] = {
        {"lhs_batching_dimensions", "lhs_batch_dims"},         {"rhs_batching_dimensions", "rhs_batch_dims"},
        {"lhs_contracting_dimensions", "lhs_contracting_dims"}, {"rhs_contracting_dimensions", "rhs_contracting_dims"},
        {"lhs_ragged_dimensions", "lhs_ragged_dims"},           {"rhs_group_dimensions", "rhs_group_dims"}};
    for (const auto& [mlir, hlo] : kNames) {
      const std::string* list = Find(fields, mlir);
      if (list) SetAttribute(inst, hlo, IntListText(Integers(*list)));
    }
  }
  VKXLA_RETURN_IF_ERROR(ReadStablehloPrecision(attributes, inst));
  if (const std::string* v = Find(attributes, "algorithm")) {
    VKXLA_ASSIGN_OR_RETURN(std::string name, XlaDotAlgorithmName(*v));
    SetAttribute(inst, "algorithm", name);
  }
  return OkStatus();
}

}  // namespace vkxla
