#include "ops/window.h"

#include "ops/attributes.h"

namespace vkxla {
namespace {

std::string Joined(const std::vector<int64_t>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

bool AllEqual(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t e : v)
    if (e != x) return false;
  return true;
}

// "2x3" into {2, 3}; "0_1x1_1" into lows {0, 1} and highs {1, 1}.
bool ReadDims(const std::string& text, std::vector<int64_t>& out, std::vector<int64_t>* high) {
  size_t pos = 0;
  while (pos < text.size()) {
    int64_t v = 0;
    if (!ReadIntAt(text, pos, v)) return false;
    out.push_back(v);
    if (high) {
      int64_t h = 0;
      if (pos >= text.size() || text[pos] != '_') return false;
      ++pos;
      if (!ReadIntAt(text, pos, h)) return false;
      high->push_back(h);
    }
    if (pos < text.size()) {
      if (text[pos] != 'x') return false;
      ++pos;
    }
  }
  return true;
}

}  // namespace

std::string Window::ToString() const {
  std::string s = "{size=" + Joined(size, "x");
  if (!AllEqual(stride, 1)) s += " stride=" + Joined(stride, "x");
  if (!AllEqual(pad_low, 0) || !AllEqual(pad_high, 0)) {
    s += " pad=";
    for (size_t i = 0; i < size.size(); ++i)
      s += (i ? "x" : "") + std::to_string(pad_low[i]) + "_" + std::to_string(pad_high[i]);
  }
  if (!AllEqual(base_dilation, 1)) s += " lhs_dilate=" + Joined(base_dilation, "x");
  if (!AllEqual(window_dilation, 1)) s += " rhs_dilate=" + Joined(window_dilation, "x");
  if (!AllEqual(reversal, 0)) s += " rhs_reversal=" + Joined(reversal, "x");
  return s + "}";
}

Window UnitWindow(const std::vector<int64_t>& size) {
  Window w;
  w.size = size;
  w.stride.assign(size.size(), 1);
  w.pad_low.assign(size.size(), 0);
  w.pad_high.assign(size.size(), 0);
  w.base_dilation.assign(size.size(), 1);
  w.window_dilation.assign(size.size(), 1);
  w.reversal.assign(size.size(), 0);
  return w;
}

StatusOr<Window> WindowOf(const Instruction& inst, int64_t rank, WindowUse use) {
  const std::string* text = FindAttribute(inst, "window");
  const bool convolution = use == WindowUse::kConvolution;
  const std::string expected = std::string("{size=AxB stride=AxB pad=lo_hixlo_hi lhs_dilate=AxB rhs_dilate=AxB") +
                               (convolution ? " rhs_reversal=0x1}" : "}");
  if (!text) {
    if (rank == 0) return UnitWindow({});
    return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": needs window=" + expected);
  }
  std::string body = *text;
  if (body.size() < 2 || body.front() != '{' || body.back() != '}') return BadAttribute(inst, "window", *text, expected);
  body = body.substr(1, body.size() - 2);
  std::vector<int64_t> size;
  Window w;
  size_t pos = 0;
  while (pos < body.size()) {
    while (pos < body.size() && body[pos] == ' ') ++pos;
    if (pos >= body.size()) break;
    const size_t eq = body.find('=', pos);
    if (eq == std::string::npos) return BadAttribute(inst, "window", *text, expected);
    size_t end = body.find(' ', eq);
    if (end == std::string::npos) end = body.size();
    const std::string key = body.substr(pos, eq - pos), value = body.substr(eq + 1, end - eq - 1);
    bool ok = true;
    if (key == "size") ok = ReadDims(value, w.size, nullptr);
    else if (key == "stride") ok = ReadDims(value, w.stride, nullptr);
    else if (key == "pad") ok = ReadDims(value, w.pad_low, &w.pad_high);
    else if (key == "lhs_dilate") ok = ReadDims(value, w.base_dilation, nullptr);
    else if (key == "rhs_dilate") ok = ReadDims(value, w.window_dilation, nullptr);
    else if (key == "rhs_reversal") ok = ReadDims(value, w.reversal, nullptr) && (convolution || AllEqual(w.reversal, 0));
    else ok = false;
    if (!ok) return BadAttribute(inst, "window", *text, expected);
    pos = end;
  }
  Window full = UnitWindow(w.size);
  auto take = [&](std::vector<int64_t>& from, std::vector<int64_t>& to) { if (!from.empty()) to = from; };
  take(w.stride, full.stride);
  take(w.pad_low, full.pad_low);
  take(w.pad_high, full.pad_high);
  take(w.base_dilation, full.base_dilation);
  take(w.window_dilation, full.window_dilation);
  take(w.reversal, full.reversal);
  auto bad = [&](const std::string& why) {
    return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": window=" + *text + " " + why);
  };
  for (const auto* v : {&full.stride, &full.pad_low, &full.pad_high, &full.base_dilation, &full.window_dilation, &full.reversal})
    if (v->size() != full.size.size()) return bad("gives its fields different numbers of dimensions");
  if (full.rank() != rank) return bad("has " + std::to_string(full.rank()) + " dimensions for an operand of rank " + std::to_string(rank));
  for (int64_t d = 0; d < rank; ++d) {
    if (full.size[d] < (convolution ? 0 : 1)) return bad(convolution ? "has a negative window size" : "has a window size below 1");
    if (full.reversal[d] != 0 && full.reversal[d] != 1) return bad("has an rhs_reversal other than 0 or 1");
    if (full.stride[d] < 1 || full.base_dilation[d] < 1 || full.window_dilation[d] < 1)
      return bad("has a stride or dilation below 1");
  }
  return full;
}

std::vector<int64_t> WindowedDims(const std::vector<int64_t>& operand_dims, const Window& w) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < operand_dims.size(); ++d) {
    const int64_t dilated = operand_dims[d] == 0 ? 0 : (operand_dims[d] - 1) * w.base_dilation[d] + 1;
    const int64_t padded = dilated + w.pad_low[d] + w.pad_high[d];
    const int64_t extent = (w.size[d] - 1) * w.window_dilation[d] + 1;
    out.push_back(padded < extent ? 0 : (padded - extent) / w.stride[d] + 1);
  }
  return out;
}

void SetPadding(Window& w, const std::vector<int64_t>& operand_dims, Padding padding) {
  for (size_t d = 0; d < operand_dims.size(); ++d) {
    w.pad_low[d] = w.pad_high[d] = 0;
    if (padding == Padding::kValid) continue;
    const int64_t out = (operand_dims[d] + w.stride[d] - 1) / w.stride[d];
    const int64_t extent = (w.size[d] - 1) * w.window_dilation[d] + 1;
    const int64_t total = std::max<int64_t>(0, (out - 1) * w.stride[d] + extent - operand_dims[d]);
    w.pad_low[d] = total / 2;
    w.pad_high[d] = total - total / 2;
  }
}

}  // namespace vkxla
