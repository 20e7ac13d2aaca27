#include "tools/npy.h"

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

namespace vkxla {
namespace {

struct Dtype {
  ElementType type;
  const char* descr;
};

constexpr Dtype kDtypes[] = {
    {ElementType::kPred, "|b1"}, {ElementType::kS8, "|i1"},  {ElementType::kS16, "<i2"}, {ElementType::kS32, "<i4"},
    {ElementType::kS64, "<i8"},  {ElementType::kU8, "|u1"},  {ElementType::kU16, "<u2"}, {ElementType::kU32, "<u4"},
    {ElementType::kU64, "<u8"},  {ElementType::kF16, "<f2"}, {ElementType::kF32, "<f4"}, {ElementType::kF64, "<f8"},
    {ElementType::kC64, "<c8"},  {ElementType::kC128, "<c16"}, {ElementType::kBF16, "<V2"},
    {ElementType::kF8E4M3FN, "|V1"}, {ElementType::kF8E5M2, "|V1"}, {ElementType::kS4, "|i1"}, {ElementType::kU4, "|u1"},
};

}  // namespace

StatusOr<Literal> ReadNpy(const std::string& path, ElementType expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path);
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) return InvalidArgument(path + ": not a .npy file (bad magic)");
  uint32_t header_len = 0;
  if (magic[6] == 1) {
    uint16_t h;
    in.read(reinterpret_cast<char*>(&h), 2);
    header_len = h;
  } else {
    in.read(reinterpret_cast<char*>(&header_len), 4);
  }
  if (!in || header_len > (1u << 20)) return InvalidArgument(path + ": truncated .npy header");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) return InvalidArgument(path + ": truncated .npy header");
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr':\\s*'([^']*)'"))) return InvalidArgument(path + ": .npy header has no descr");
  std::string descr = m[1];
  if (std::regex_search(header, std::regex("'fortran_order':\\s*True")))
    return InvalidArgument(path + ": Fortran-ordered .npy arrays are not supported; save with np.ascontiguousarray");
  if (!std::regex_search(header, m, std::regex("'shape':\\s*\\(([^)]*)\\)"))) return InvalidArgument(path + ": .npy header has no shape");
  std::vector<int64_t> dims;
  std::stringstream ss(m[1].str());
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    if (item.empty()) continue;
    dims.push_back(std::stoll(item));
  }
  if (descr == "<b1") descr = "|b1";
  if (descr == "<i1") descr = "|i1";
  if (descr == "<u1") descr = "|u1";
  ElementType type = ElementType::kInvalid;
  for (const Dtype& d : kDtypes) {
    if (descr != d.descr) continue;
    if (descr[1] == 'V' || ((descr == "|i1" || descr == "|u1") && (expected == ElementType::kS4 || expected == ElementType::kU4))) {
      if (expected != ElementType::kInvalid && ByteWidth(expected) == ByteWidth(d.type)) type = expected;
      else if (descr[1] != 'V') type = d.type;
      else continue;
    } else {
      type = d.type;
    }
    break;
  }
  if (type == ElementType::kInvalid) return InvalidArgument(path + ": unsupported .npy dtype '" + descr + "'");
  Literal lit(Shape(type, dims));
  if (!in.read(reinterpret_cast<char*>(lit.bytes().data()), static_cast<std::streamsize>(lit.bytes().size())))
    return InvalidArgument(path + ": .npy data is shorter than its shape " + lit.shape().ToString() + " needs");
  return lit;
}

Status WriteNpy(const std::string& path, const Literal& literal) {
  const Shape& s = literal.shape();
  if (!s.IsArray()) return InvalidArgument("only arrays can be written as .npy, not " + s.ToString());
  const char* descr = nullptr;
  for (const Dtype& d : kDtypes)
    if (d.type == s.element_type()) {
      descr = d.descr;
      break;
    }
  std::string shape = "(";
  for (int64_t d : s.dims()) shape += std::to_string(d) + ",";
  if (s.rank() > 1) shape.pop_back();
  shape += ")";
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) return InvalidArgument("cannot write " + path);
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  out.write(reinterpret_cast<const char*>(&len), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(literal.bytes().data()), static_cast<std::streamsize>(literal.bytes().size()));
  return out ? OkStatus() : InvalidArgument("write to " + path + " failed");
}

}  // namespace vkxla
