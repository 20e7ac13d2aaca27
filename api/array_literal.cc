#include "api/array_literal.h"

#include <cstring>

#include "ir/element_type.h"

namespace vkxla {
namespace {

bool IsSubByteInteger(ElementType t) { return IsInteger(t) && BitWidth(t) < 8; }

}  // namespace

Literal ToLiteral(const Array& array) {
  Literal literal(Shape(array.type(), array.dims()));
  std::vector<uint8_t>& bytes = literal.bytes();
  if (!bytes.empty()) std::memcpy(bytes.data(), array.bytes().data(), bytes.size());
  if (IsSubByteInteger(array.type())) {
    const uint8_t mask = static_cast<uint8_t>((1u << BitWidth(array.type())) - 1);
    for (uint8_t& b : bytes) b &= mask;
  }
  return literal;
}

StatusOr<Array> FromLiteral(Literal literal) {
  const ElementType type = literal.shape().element_type();
  std::vector<uint8_t> bytes = std::move(literal.bytes());
  if (IsSubByteInteger(type) && IsSignedInt(type)) {
    const int shift = 8 - BitWidth(type);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(static_cast<int8_t>(static_cast<uint8_t>(b << shift)) >> shift);
  }
  return Array::FromBytes(type, literal.shape().dims(), std::move(bytes));
}

}  // namespace vkxla
