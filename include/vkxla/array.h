// A host array: an element type, dimensions and the values in row-major
// order. What the public API passes in and gets back. Part of the installed
// public API.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "vkxla/element_type.h"
#include "vkxla/status.h"

namespace vkxla {

// The element type a C++ value type stores. Types without a C++ counterpart
// (f16, bf16, the f8 types, s4/u4, s2/u2) go through Array::FromBytes.
template <typename T>
constexpr ElementType ElementTypeOf() {
  if constexpr (std::is_same_v<T, bool>) return ElementType::kPred;
  else if constexpr (std::is_same_v<T, int8_t>) return ElementType::kS8;
  else if constexpr (std::is_same_v<T, int16_t>) return ElementType::kS16;
  else if constexpr (std::is_same_v<T, int32_t>) return ElementType::kS32;
  else if constexpr (std::is_same_v<T, int64_t>) return ElementType::kS64;
  else if constexpr (std::is_same_v<T, uint8_t>) return ElementType::kU8;
  else if constexpr (std::is_same_v<T, uint16_t>) return ElementType::kU16;
  else if constexpr (std::is_same_v<T, uint32_t>) return ElementType::kU32;
  else if constexpr (std::is_same_v<T, uint64_t>) return ElementType::kU64;
  else if constexpr (std::is_same_v<T, float>) return ElementType::kF32;
  else if constexpr (std::is_same_v<T, double>) return ElementType::kF64;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return ElementType::kC64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return ElementType::kC128;
  else static_assert(sizeof(T) == 0, "no vkxla element type stores this C++ type; use Array::FromBytes");
}

class Array {
 public:
  Array() = default;  // an f32 scalar holding 0

  // An array of `dims` holding `values` in row-major order; an error when
  // the count does not match the dimensions or a dimension is negative.
  template <typename T>
  static StatusOr<Array> FromValues(std::span<const T> values, std::vector<int64_t> dims) {
    constexpr ElementType type = ElementTypeOf<T>();
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return FromBytes(type, std::move(dims), std::move(bytes));
  }
  template <typename T>
  static StatusOr<Array> FromValues(const std::vector<T>& values, std::vector<int64_t> dims) {
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> packs bits
      std::vector<uint8_t> bytes(values.begin(), values.end());
      return FromBytes(ElementType::kPred, std::move(dims), std::move(bytes));
    } else {
      return FromValues(std::span<const T>(values), std::move(dims));
    }
  }
  template <typename T>
  static Array Scalar(T value) {
    return std::move(FromValues(std::span<const T>(&value, 1), {})).value();
  }
  // `bytes` holds element_count × ByteWidth(type) bytes in row-major order,
  // little-endian; s4/u4 and s2/u2 take one byte per element (sign- or
  // zero-extended), pred one byte (0 or 1).
  static StatusOr<Array> FromBytes(ElementType type, std::vector<int64_t> dims, std::vector<uint8_t> bytes);

  ElementType type() const { return type_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t element_count() const;
  std::span<const uint8_t> bytes() const { return bytes_; }
  std::span<uint8_t> mutable_bytes() { return bytes_; }

  // The values as T; an error naming both types when T does not store the
  // array's element type.
  template <typename T>
  StatusOr<std::span<const T>> values() const {
    static_assert(!std::is_same_v<T, bool>, "read pred arrays as uint8_t through bytes()");
    if (ElementTypeOf<T>() != type_) return TypeMismatch(ElementTypeOf<T>());
    return std::span<const T>(reinterpret_cast<const T*>(bytes_.data()), bytes_.size() / sizeof(T));
  }

  // The same values as `type`, converted as XLA's ConvertElementType does:
  // floats round to nearest even, a float to an integer truncates and
  // saturates (NaN gives 0), an integer to a narrower one wraps.
  StatusOr<Array> Converted(ElementType type) const;

  // "f32[2,3]": the element type and dimensions.
  std::string ShapeString() const;

 private:
  Status TypeMismatch(ElementType asked) const;

  ElementType type_ = ElementType::kF32;
  std::vector<int64_t> dims_;
  std::vector<uint8_t> bytes_ = std::vector<uint8_t>(4, 0);
};

}  // namespace vkxla
