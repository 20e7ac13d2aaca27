#include "ir/layout_index.h"

#include <algorithm>
#include <cstring>

namespace vkxla {

std::vector<int64_t> PhysicalStrides(const Shape& shape, const Layout& layout) {
  std::vector<int64_t> stride(shape.rank(), 0);
  int64_t s = 1;
  for (int64_t d : layout.minor_to_major) {
    stride[d] = s;
    s *= shape.dim(d);
  }
  return stride;
}

int64_t PhysicalByteSize(const Shape& shape) {
  int64_t bytes = shape.element_count() * ByteWidth(shape.element_type());
  return std::max<int64_t>(4, (bytes + 3) / 4 * 4);
}

namespace {

Status CheckUntiled(const Shape& shape, const Layout& layout) {
  RETURN_IF_ERROR(layout.Validate(shape.rank()));
  if (!layout.tiles.empty() || layout.element_size_in_bits != 0)
    return Unimplemented("layout " + layout.ToString() + " of " + shape.ToString() +
                         ": tiled and sub-byte layouts are not supported on the device yet");
  return OkStatus();
}

// Calls f(logical_linear, physical_linear) for every element.
template <typename F>
void ForEachPlacement(const Shape& shape, const Layout& layout, F f) {
  const std::vector<int64_t> stride = PhysicalStrides(shape, layout);
  const int64_t n = shape.element_count();
  std::vector<int64_t> index(shape.rank(), 0);
  int64_t physical = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(i, physical);
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {  // row-major increment
      physical += stride[d];
      if (++index[d] < shape.dim(d)) break;
      physical -= stride[d] * index[d];
      index[d] = 0;
    }
  }
}

}  // namespace

StatusOr<std::vector<uint8_t>> ToPhysical(const Literal& literal, const Layout& layout) {
  const Shape& shape = literal.shape();
  RETURN_IF_ERROR(CheckUntiled(shape, layout));
  std::vector<uint8_t> out(PhysicalByteSize(shape), 0);
  const int w = ByteWidth(shape.element_type());
  if (layout.IsDescending()) {
    std::memcpy(out.data(), literal.bytes().data(), literal.bytes().size());
    return out;
  }
  ForEachPlacement(shape, layout, [&](int64_t logical, int64_t physical) {
    std::memcpy(out.data() + physical * w, literal.bytes().data() + logical * w, w);
  });
  return out;
}

StatusOr<Literal> FromPhysical(const uint8_t* data, const Shape& shape) {
  const Layout layout = shape.layout_or_default();
  RETURN_IF_ERROR(CheckUntiled(shape, layout));
  Literal lit(Shape(shape.element_type(), shape.dims()));
  lit.set_layout(layout);
  const int w = ByteWidth(shape.element_type());
  if (layout.IsDescending()) {
    std::memcpy(lit.bytes().data(), data, lit.bytes().size());
    return lit;
  }
  ForEachPlacement(shape, layout, [&](int64_t logical, int64_t physical) {
    std::memcpy(lit.bytes().data() + logical * w, data + physical * w, w);
  });
  return lit;
}

}  // namespace vkxla
