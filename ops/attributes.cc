#include "ops/attributes.h"

#include <cctype>

#include "ir/numbers.h"

namespace vkxla {

const std::string* FindAttribute(const Instruction& inst, const std::string& key) {
  for (const auto& [k, v] : inst.other_attributes)
    if (k == key) return &v;
  return nullptr;
}

void SetAttribute(Instruction& inst, const std::string& key, std::string text) {
  for (auto& [k, v] : inst.other_attributes)
    if (k == key) {
      v = std::move(text);
      return;
    }
  inst.other_attributes.emplace_back(key, std::move(text));
}

Status BadAttribute(const Instruction& inst, const std::string& key, const std::string& text, const std::string& expected) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": cannot read " + key + "=" +
                         text + "; expected " + expected);
}

bool ReadIntAt(const std::string& text, size_t& pos, int64_t& out) {
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;  // as strtoll skipped them
  return ReadInt64At(text, pos, out);
}

StatusOr<std::vector<int64_t>> IntListAttribute(const Instruction& inst, const std::string& key, bool required) {
  const std::string* text = FindAttribute(inst, key);
  if (!text) {
    if (required) return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": needs " + key + "={...}");
    return std::vector<int64_t>{};
  }
  const std::string& t = *text;
  std::vector<int64_t> values;
  size_t pos = 0;
  while (pos < t.size() && t[pos] == ' ') ++pos;
  if (pos >= t.size() || t[pos++] != '{') return BadAttribute(inst, key, t, "{n,n,...}");
  while (true) {
    while (pos < t.size() && t[pos] == ' ') ++pos;
    if (pos < t.size() && t[pos] == '}') break;
    int64_t v = 0;
    if (!ReadIntAt(t, pos, v)) return BadAttribute(inst, key, t, "{n,n,...}");
    values.push_back(v);
    while (pos < t.size() && t[pos] == ' ') ++pos;
    if (pos < t.size() && t[pos] == ',') ++pos;
    else if (pos >= t.size() || t[pos] != '}') return BadAttribute(inst, key, t, "{n,n,...}");
  }
  if (t.find_first_not_of(' ', pos + 1) != std::string::npos) return BadAttribute(inst, key, t, "{n,n,...}");
  return values;
}

StatusOr<int64_t> IntAttribute(const Instruction& inst, const std::string& key) {
  const std::string* text = FindAttribute(inst, key);
  if (!text) return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": needs " + key + "=n");
  size_t pos = 0;
  int64_t v = 0;
  if (!ReadIntAt(*text, pos, v) || pos != text->size()) return BadAttribute(inst, key, *text, "an integer");
  return v;
}

StatusOr<bool> BoolAttribute(const Instruction& inst, const std::string& key) {
  const std::string* text = FindAttribute(inst, key);
  if (!text || *text == "false") return false;
  if (*text == "true") return true;
  return BadAttribute(inst, key, *text, "true or false");
}

std::string IntListText(const std::vector<int64_t>& values) {
  std::string t = "{";
  for (size_t i = 0; i < values.size(); ++i) t += (i ? "," : "") + std::to_string(values[i]);
  return t + "}";
}

}  // namespace vkxla
