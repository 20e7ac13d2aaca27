#include "ir/layout_index.h"

#include <algorithm>
#include <cstring>

#include "ir/tiled_index.h"

namespace vkxla {

StatusOr<int> ElementStorageBits(ElementType type, const Layout& layout) {
  const int natural = (type == ElementType::kPred || BitWidth(type) < 8) ? 8 : BitWidth(type);
  if (layout.element_size_in_bits == 0 || layout.element_size_in_bits == natural) return natural;
  if (layout.element_size_in_bits == 4 && BitWidth(type) == 4) return 4;
  return Unimplemented("layout " + layout.ToString() + ": elements of " + std::string(ElementTypeName(type)) + " stored in " +
                       std::to_string(layout.element_size_in_bits) + " bits are not supported (only E(4) on s4/u4)");
}

StatusOr<int64_t> PhysicalByteSize(const Shape& shape) {
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(shape));
  VKXLA_ASSIGN_OR_RETURN(int bits, ElementStorageBits(shape.element_type(), shape.layout_or_default()));
  const int64_t bytes = (map.physical_element_count() * bits + 7) / 8;
  return std::max<int64_t>(4, (bytes + 3) / 4 * 4);
}

namespace {

// Calls f(logical_linear, physical_element) for every logical element.
template <typename F>
void ForEachPlacement(const Shape& shape, const TiledIndexMap& map, F f) {
  const int64_t n = shape.element_count();
  std::vector<int64_t> index(shape.rank(), 0);
  IntArithmetic a;
  if (!map.is_tiled()) {
    // Without tiles the placement is linear: step by each dimension's
    // stride instead of evaluating the map per element.
    std::vector<int64_t> stride(shape.rank(), 0);
    for (int64_t d = 0; d < shape.rank(); ++d) {
      std::vector<int64_t> unit(shape.rank(), 0);
      unit[d] = 1;
      stride[d] = shape.dim(d) > 1 ? map.ToPhysical(unit, a) : 0;
    }
    int64_t physical = 0;
    for (int64_t i = 0; i < n; ++i) {
      f(i, physical);
      for (int64_t d = shape.rank() - 1; d >= 0; --d) {
        physical += stride[d];
        if (++index[d] < shape.dim(d)) break;
        physical -= stride[d] * index[d];
        index[d] = 0;
      }
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    f(i, map.ToPhysical(index, a));
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {  // row-major increment
      if (++index[d] < shape.dim(d)) break;
      index[d] = 0;
    }
  }
}

// Packed 4-bit elements follow XLA's PackIntN: the first of a byte's two
// elements sits in its high-order nibble.
int NibbleShift(int64_t physical) { return physical % 2 == 0 ? 4 : 0; }

}  // namespace

Status ToPhysicalInto(const Literal& literal, const Layout& layout, uint8_t* out, int64_t size) {
  Shape shape = literal.shape();
  shape.set_layout(layout);
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(shape));
  VKXLA_ASSIGN_OR_RETURN(int bits, ElementStorageBits(shape.element_type(), layout));
  VKXLA_ASSIGN_OR_RETURN(int64_t needed, PhysicalByteSize(shape));
  if (size < needed)
    return Internal("placing " + shape.ToString() + " needs " + std::to_string(needed) + " bytes, the buffer holds " + std::to_string(size));
  const uint8_t* src = literal.bytes().data();
  const int64_t logical = static_cast<int64_t>(literal.bytes().size());
  if (layout.IsDescending() && bits >= 8 && logical <= needed) {
    if (logical > 0) std::memcpy(out, src, static_cast<size_t>(logical));  // data() may be null
    std::memset(out + logical, 0, static_cast<size_t>(needed - logical));  // the word padding
    return OkStatus();
  }
  std::memset(out, 0, static_cast<size_t>(needed));
  const int w = bits / 8;
  ForEachPlacement(shape, map, [&](int64_t logical, int64_t physical) {
    if (bits == 4) out[physical / 2] |= static_cast<uint8_t>((src[logical] & 0xF) << NibbleShift(physical));
    else std::memcpy(out + physical * w, src + logical * w, w);
  });
  return OkStatus();
}

StatusOr<std::vector<uint8_t>> ToPhysical(const Literal& literal, const Layout& layout) {
  Shape shape = literal.shape();
  shape.set_layout(layout);
  VKXLA_ASSIGN_OR_RETURN(int64_t size, PhysicalByteSize(shape));
  std::vector<uint8_t> out(size, 0);
  VKXLA_RETURN_IF_ERROR(ToPhysicalInto(literal, layout, out.data(), size));
  return out;
}

StatusOr<Literal> FromPhysical(const uint8_t* data, const Shape& shape) {
  const Layout layout = shape.layout_or_default();
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(shape));
  VKXLA_ASSIGN_OR_RETURN(int bits, ElementStorageBits(shape.element_type(), layout));
  Literal lit(Shape(shape.element_type(), shape.dims()));
  lit.set_layout(layout);
  uint8_t* dst = lit.bytes().data();
  if (layout.IsDescending() && bits >= 8) {
    if (!lit.bytes().empty()) std::memcpy(dst, data, lit.bytes().size());  // dst may be null
    return lit;
  }
  const int w = bits / 8;
  ForEachPlacement(shape, map, [&](int64_t logical, int64_t physical) {
    if (bits == 4) {
      dst[logical] = (data[physical / 2] >> NibbleShift(physical)) & 0xF;
    } else {
      std::memcpy(dst + logical * w, data + physical * w, w);
    }
  });
  return lit;
}

}  // namespace vkxla
