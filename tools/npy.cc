#include "tools/npy.h"

#include <cstring>
#include <fstream>

#include "ir/element_type.h"
#include "ir/numbers.h"

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
    {ElementType::kF8E4M3FN, "|V1"}, {ElementType::kF8E5M2, "|V1"}, {ElementType::kF8E4M3, "|V1"}, {ElementType::kF8E3M4, "|V1"},
    {ElementType::kF8E4M3FNUZ, "|V1"}, {ElementType::kF8E5M2FNUZ, "|V1"}, {ElementType::kF8E4M3B11FNUZ, "|V1"}, {ElementType::kF8E8M0FNU, "|V1"},
    {ElementType::kF4E2M1FN, "|V1"}, {ElementType::kF6E2M3FN, "|V1"}, {ElementType::kF6E3M2FN, "|V1"},
    {ElementType::kS4, "|i1"}, {ElementType::kU4, "|u1"}, {ElementType::kS2, "|i1"}, {ElementType::kU2, "|u1"},
};

}  // namespace

namespace {

// The text after `key` in a .npy header dict ("'descr': '<f4', ..."),
// spaces skipped; npos when the key is missing.
size_t ValueAt(std::string_view header, std::string_view key) {
  size_t at = header.find(key);
  if (at == std::string_view::npos) return at;
  at += key.size();
  while (at < header.size() && header[at] == ' ') ++at;
  return at;
}

}  // namespace

StatusOr<Literal> ParseNpy(std::string_view bytes, const std::string& name, ElementType expected) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY") return InvalidArgument(name + ": not a .npy file (bad magic)");
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8;
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return InvalidArgument(name + ": truncated .npy header");
    for (int i = 3; i >= 0; --i) header_len = header_len << 8 | static_cast<uint8_t>(bytes[8 + i]);
    offset = 12;
  } else {
    return InvalidArgument(name + ": .npy format version " + std::to_string(major) + " is not supported");
  }
  if (header_len > (1u << 20) || bytes.size() - offset < header_len) return InvalidArgument(name + ": truncated .npy header");
  const std::string_view header = bytes.substr(offset, header_len);
  const std::string_view data = bytes.substr(offset + header_len);

  size_t at = ValueAt(header, "'descr':");
  if (at == std::string_view::npos || at >= header.size() || header[at] != '\'')
    return InvalidArgument(name + ": .npy header has no descr");
  const size_t close = header.find('\'', at + 1);
  if (close == std::string_view::npos) return InvalidArgument(name + ": .npy header has no descr");
  std::string descr(header.substr(at + 1, close - at - 1));
  at = ValueAt(header, "'fortran_order':");
  if (at != std::string_view::npos && header.substr(at, 4) == "True")
    return InvalidArgument(name + ": Fortran-ordered .npy arrays are not supported; save with np.ascontiguousarray");
  at = ValueAt(header, "'shape':");
  const size_t shape_end = at == std::string_view::npos ? at : header.find(')', at);
  if (at == std::string_view::npos || at >= header.size() || header[at] != '(' || shape_end == std::string_view::npos)
    return InvalidArgument(name + ": .npy header has no shape");
  std::vector<int64_t> dims;
  const std::string_view items = header.substr(at + 1, shape_end - at - 1);
  for (size_t i = 0; i <= items.size();) {
    size_t comma = items.find(',', i);
    if (comma == std::string_view::npos) comma = items.size();
    std::string_view item = items.substr(i, comma - i);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) {
      const std::optional<int64_t> d = ParseInt64(item);
      if (!d || *d < 0) return InvalidArgument(name + ": .npy shape entry '" + std::string(item) + "' is not a size");
      if (static_cast<int64_t>(dims.size()) == kMaxRank)
        return InvalidArgument(name + ": .npy shape has more than " + std::to_string(kMaxRank) + " dimensions");
      dims.push_back(*d);
    }
    i = comma + 1;
  }
  // One-byte types have no byte order: numpy writes '|', others may write
  // '<' (or '|V2' for a two-byte void, which is as little-endian as ours).
  if (descr == "<b1") descr = "|b1";
  if (descr == "<i1") descr = "|i1";
  if (descr == "<u1") descr = "|u1";
  if (descr == "<V1") descr = "|V1";
  if (descr == "|V2") descr = "<V2";
  ElementType type = ElementType::kInvalid;
  for (const Dtype& d : kDtypes) {
    if (descr != d.descr) continue;
    if (descr[1] == 'V' || ((descr == "|i1" || descr == "|u1") && (expected == ElementType::kS4 || expected == ElementType::kU4 || expected == ElementType::kS2 ||
                                                         expected == ElementType::kU2))) {
      if (expected != ElementType::kInvalid && ByteWidth(expected) == ByteWidth(d.type)) type = expected;
      else if (descr[1] != 'V') type = d.type;
      else continue;
    } else {
      type = d.type;
    }
    break;
  }
  if (type == ElementType::kInvalid) return InvalidArgument(name + ": unsupported .npy dtype '" + descr + "'");
  const Shape shape(type, dims);
  Status bounded = CheckLiteralBytes(shape);
  if (!bounded.ok()) return InvalidArgument(name + ": " + bounded.message());
  // The data must be there before anything is allocated for it.
  const uint64_t needed = static_cast<uint64_t>(shape.element_count()) * ByteWidth(type);
  if (data.size() != needed)
    return InvalidArgument(name + ": .npy data is " + std::to_string(data.size()) + " bytes, " +
                           (data.size() < needed ? "shorter than" : "longer than") + " the " + std::to_string(needed) +
                           " its shape " + shape.ToString() + " needs");
  // pred and s4/u4/s2/u2 travel one per byte (bool, int8, uint8): a value
  // outside the type is an error, not a silent wrap; the literal keeps the
  // raw low bits.
  VKXLA_RETURN_IF_ERROR(CheckOneByteValues(type, reinterpret_cast<const uint8_t*>(data.data()), needed, name + ":"));
  Literal lit(shape);
  if (needed > 0) std::memcpy(lit.bytes().data(), data.data(), needed);
  if (IsInteger(type) && BitWidth(type) < 8) {
    const uint8_t mask = static_cast<uint8_t>((1u << BitWidth(type)) - 1);
    for (uint8_t& b : lit.bytes()) b &= mask;
  }
  return lit;
}

StatusOr<Literal> ReadNpy(const std::string& path, ElementType expected) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return NotFound("cannot open " + path);
  const std::streamoff size = in.tellg();
  if (size < 0 || size > kMaxLiteralBytes + (int64_t{1} << 21))
    return ResourceExhausted(path + ": " + std::to_string(size >> 20) + " MiB is more than an input may hold");
  std::string bytes(static_cast<size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), size)) return InvalidArgument(path + ": cannot read");
  return ParseNpy(bytes, path, expected);
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
  std::vector<uint8_t> data = literal.bytes();
  if (IsSignedInt(s.element_type()) && BitWidth(s.element_type()) < 8) {
    // Literals keep s4/s2 as raw low bits; numpy's int8 needs them sign-extended.
    const int shift = 8 - BitWidth(s.element_type());
    for (uint8_t& b : data) b = static_cast<uint8_t>(static_cast<int8_t>(static_cast<uint8_t>(b << shift)) >> shift);
  }
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  return out ? OkStatus() : InvalidArgument("write to " + path + " failed");
}

}  // namespace vkxla
