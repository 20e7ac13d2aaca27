#include "ops/slice_and_padding.h"

#include <cstdlib>
#include <sstream>

namespace vkxla {
namespace {

const std::string* Attribute(const Instruction& inst, const std::string& key) {
  for (const auto& [k, v] : inst.other_attributes)
    if (k == key) return &v;
  return nullptr;
}

Status BadAttribute(const Instruction& inst, const std::string& key, const std::string& text, const std::string& expected) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": cannot read " + key + "=" +
                         text + "; expected " + expected);
}

// Reads a signed integer at text[pos], advancing pos.
bool ReadInt(const std::string& text, size_t& pos, int64_t& out) {
  const char* begin = text.c_str() + pos;
  char* end = nullptr;
  out = std::strtoll(begin, &end, 10);
  if (end == begin) return false;
  pos += static_cast<size_t>(end - begin);
  return true;
}

}  // namespace

StatusOr<std::vector<SliceDimension>> SliceOf(const Instruction& inst) {
  const std::string* text = Attribute(inst, "slice");
  if (!text) return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": needs slice={[start:limit:stride], ...}");
  std::vector<SliceDimension> dims;
  size_t pos = 0;
  const std::string& t = *text;
  auto fail = [&] { return BadAttribute(inst, "slice", t, "{[start:limit], [start:limit:stride], ...}"); };
  while (pos < t.size()) {
    const char c = t[pos];
    if (c == '{' || c == '}' || c == ',' || c == ' ') { ++pos; continue; }
    if (c != '[') return fail();
    ++pos;
    SliceDimension d;
    if (!ReadInt(t, pos, d.start) || pos >= t.size() || t[pos++] != ':' || !ReadInt(t, pos, d.limit)) return fail();
    if (pos < t.size() && t[pos] == ':') {
      ++pos;
      if (!ReadInt(t, pos, d.stride)) return fail();
    }
    if (pos >= t.size() || t[pos++] != ']') return fail();
    dims.push_back(d);
  }
  return dims;
}

StatusOr<std::vector<PaddingDimension>> PaddingOf(const Instruction& inst) {
  const std::string* text = Attribute(inst, "padding");
  if (!text) return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": needs padding=low_high[_interior]x...");
  std::vector<PaddingDimension> dims;
  const std::string& t = *text;
  size_t pos = 0;
  auto fail = [&] { return BadAttribute(inst, "padding", t, "low_high or low_high_interior per dimension, joined by x"); };
  while (pos < t.size()) {
    PaddingDimension d;
    if (!ReadInt(t, pos, d.low) || pos >= t.size() || t[pos++] != '_' || !ReadInt(t, pos, d.high)) return fail();
    if (pos < t.size() && t[pos] == '_') {
      ++pos;
      if (!ReadInt(t, pos, d.interior)) return fail();
    }
    dims.push_back(d);
    if (pos < t.size() && t[pos++] != 'x') return fail();
  }
  return dims;
}

std::string SliceText(const std::vector<SliceDimension>& dims) {
  std::ostringstream o;
  o << "{";
  for (size_t i = 0; i < dims.size(); ++i)
    o << (i ? ", " : "") << "[" << dims[i].start << ":" << dims[i].limit << ":" << dims[i].stride << "]";
  o << "}";
  return o.str();
}

std::string PaddingText(const std::vector<PaddingDimension>& dims) {
  std::ostringstream o;
  for (size_t i = 0; i < dims.size(); ++i)
    o << (i ? "x" : "") << dims[i].low << "_" << dims[i].high << "_" << dims[i].interior;
  return o.str();
}

}  // namespace vkxla
