#include "vkxla/array.h"

#include <cstring>

#include "api/array_literal.h"
#include "ir/element_type.h"
#include "ir/literal.h"

namespace vkxla {

StatusOr<Array> Array::FromBytes(ElementType type, std::vector<int64_t> dims, std::vector<uint8_t> bytes) {
  if (!IsArrayType(type) || type == ElementType::kInvalid)
    return InvalidArgument("an array cannot hold elements of type " + std::string(ElementTypeName(type)));
  const std::string shape = Shape(type, dims).ToString();
  if (static_cast<int64_t>(dims.size()) > kMaxRank)
    return InvalidArgument(shape + " has more than " + std::to_string(kMaxRank) + " dimensions");
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument(shape + " has a negative dimension");
    if (d != 0 && count > kMaxLiteralBytes / d) return ResourceExhausted(shape + " holds more elements than a host array may");
    count *= d;
  }
  const uint64_t needed = static_cast<uint64_t>(count) * ByteWidth(type);
  if (needed > static_cast<uint64_t>(kMaxLiteralBytes))
    return ResourceExhausted(shape + " takes " + std::to_string(needed >> 20) + " MiB, more than a host array may");
  if (bytes.size() != needed)
    return InvalidArgument(shape + " needs " + std::to_string(needed) + " bytes (" + std::to_string(count) +
                           " elements), " + std::to_string(bytes.size()) + " were given");
  VKXLA_RETURN_IF_ERROR(CheckOneByteValues(type, bytes.data(), bytes.size(), shape));
  Array a;
  a.type_ = type;
  a.dims_ = std::move(dims);
  a.bytes_ = std::move(bytes);
  return a;
}

int64_t Array::element_count() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

StatusOr<Array> Array::Converted(ElementType type) const {
  if (!IsArrayType(type) || type == ElementType::kInvalid)
    return InvalidArgument("cannot convert " + ShapeString() + " to " + std::string(ElementTypeName(type)));
  const Literal from = ToLiteral(*this);
  Literal to(Shape(type, dims_));
  const int64_t n = element_count();
  for (int64_t i = 0; i < n; ++i) to.Set(i, from.Get(i));
  return FromLiteral(std::move(to));
}

std::string Array::ShapeString() const { return Shape(type_, dims_).ToString(); }

Status Array::TypeMismatch(ElementType asked) const {
  return InvalidArgument("the array is " + ShapeString() + ", its values are not " +
                         std::string(ElementTypeName(asked)));
}

}  // namespace vkxla
