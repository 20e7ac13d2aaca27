#include "vkxla/array.h"

#include <cstring>


#include "api/array_literal.h"
#include "ir/element_type.h"
#include "ir/literal.h"


namespace vkxla {
namespace {

std::string ShapeText(ElementType type, const std::vector<int64_t>& dims) {
  std::string s(ElementTypeName(type));
  s += "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// Sub-byte and pred elements travel one per byte; a byte that is not a
// value of the type would be read differently by the device than the caller
// meant, so it is an error rather than a silent wrap.
Status CheckElementBytes(ElementType type, const std::vector<uint8_t>& bytes, const std::string& shape) {
  if (type != ElementType::kPred && !(IsInteger(type) && BitWidth(type) < 8)) return OkStatus();
  const int64_t lo = IntegerMin(type), hi = static_cast<int64_t>(IntegerMax(type));
  for (size_t i = 0; i < bytes.size(); ++i) {
    const int64_t v = lo < 0 ? static_cast<int8_t>(bytes[i]) : bytes[i];
    if (v < lo || v > hi)
      return InvalidArgument(shape + " element " + std::to_string(i) + " is " + std::to_string(v) + ", outside " +
                             std::string(ElementTypeName(type)) + "'s range [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "]");
  }
  return OkStatus();
}

}  // namespace

StatusOr<Array> Array::FromBytes(ElementType type, std::vector<int64_t> dims, std::vector<uint8_t> bytes) {
  if (!IsArrayType(type) || type == ElementType::kInvalid)
    return InvalidArgument("an array cannot hold elements of type " + std::string(ElementTypeName(type)));
  const std::string shape = ShapeText(type, dims);
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
  VKXLA_RETURN_IF_ERROR(CheckElementBytes(type, bytes, shape));
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

std::string Array::ShapeString() const { return ShapeText(type_, dims_); }

Status Array::TypeMismatch(ElementType asked) const {
  return InvalidArgument("the array is " + ShapeString() + ", its values are not " +
                         std::string(ElementTypeName(asked)));
}

}  // namespace vkxla
