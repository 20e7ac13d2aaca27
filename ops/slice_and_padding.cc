#include "ops/slice_and_padding.h"

#include "ops/attributes.h"

#include <sstream>

namespace vkxla {

StatusOr<std::vector<SliceDimension>> SliceOf(const Instruction& inst) {
  const std::string* text = FindAttribute(inst, "slice");
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
    if (!ReadIntAt(t, pos, d.start) || pos >= t.size() || t[pos++] != ':' || !ReadIntAt(t, pos, d.limit)) return fail();
    if (pos < t.size() && t[pos] == ':') {
      ++pos;
      if (!ReadIntAt(t, pos, d.stride)) return fail();
    }
    if (pos >= t.size() || t[pos++] != ']') return fail();
    dims.push_back(d);
  }
  return dims;
}

StatusOr<std::vector<PaddingDimension>> PaddingOf(const Instruction& inst) {
  const std::string* text = FindAttribute(inst, "padding");
  if (!text) return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": needs padding=low_high[_interior]x...");
  std::vector<PaddingDimension> dims;
  const std::string& t = *text;
  size_t pos = 0;
  auto fail = [&] { return BadAttribute(inst, "padding", t, "low_high or low_high_interior per dimension, joined by x"); };
  while (pos < t.size()) {
    PaddingDimension d;
    if (!ReadIntAt(t, pos, d.low) || pos >= t.size() || t[pos++] != '_' || !ReadIntAt(t, pos, d.high)) return fail();
    if (pos < t.size() && t[pos] == '_') {
      ++pos;
      if (!ReadIntAt(t, pos, d.interior)) return fail();
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
