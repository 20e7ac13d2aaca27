// An XLA shape: an array (element type, dimensions, optional bounds and
// layout), a tuple of shapes, or a token.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/element_type.h"
#include "ir/layout.h"
#include "vkxla/status.h"

namespace vkxla {

// What a shape may describe, so that no size computed from one overflows
// and no reader allocates without bound: ranks, tuple nesting, and element
// counts far beyond any device, yet small enough that count x 16 bytes fits
// an int64.
inline constexpr int64_t kMaxRank = 64;
inline constexpr int kMaxTupleDepth = 64;
inline constexpr int64_t kMaxElements = int64_t{1} << 48;

class Shape {
 public:
  Shape() = default;
  // An array shape with no layout given.
  Shape(ElementType type, std::vector<int64_t> dims);
  static Shape Scalar(ElementType type) { return Shape(type, {}); }
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token();

  ElementType element_type() const { return type_; }
  bool IsArray() const { return IsArrayType(type_); }
  bool IsTuple() const { return type_ == ElementType::kTuple; }
  bool IsToken() const { return type_ == ElementType::kToken; }

  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t dim(int64_t i) const { return dims_[i]; }
  // Bounded dynamic dimension ("<=10"): dims()[i] is the bound.
  bool is_dynamic_dim(int64_t i) const { return !dynamic_.empty() && dynamic_[i]; }
  void set_dynamic_dim(int64_t i, bool dynamic);
  bool is_static() const;
  // The product of the dims (saturating at INT64_MAX for shapes that
  // CheckShapeBounds would reject).
  int64_t element_count() const;

  bool has_layout() const { return layout_.has_value(); }
  // The layout given, or the descending default.
  Layout layout_or_default() const;
  const std::optional<Layout>& layout() const { return layout_; }
  void set_layout(Layout l) { layout_ = std::move(l); }
  void clear_layout();

  const std::vector<Shape>& tuple_shapes() const { return tuple_; }
  std::vector<Shape>& mutable_tuple_shapes() { return tuple_; }

  // XLA spelling: "f32[3,5]{1,0}", "(f32[], s32[2])", "token[]".
  std::string ToString(bool print_layout = true) const;

  // Same type and dimensions; layouts ignored.
  bool Compatible(const Shape& other) const;
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }
  Shape WithElementType(ElementType t) const;

 private:
  ElementType type_ = ElementType::kInvalid;
  std::vector<int64_t> dims_;
  std::vector<bool> dynamic_;
  std::optional<Layout> layout_;
  std::vector<Shape> tuple_;
};

// The arrays of a (possibly tuple) shape, depth first; tokens hold no
// data and have none. What a program's values and arguments are made of.
std::vector<Shape> ArrayLeafShapes(const Shape& shape);

// An error naming the shape when it breaks a bound above (checked by every
// reader and the verifier before anything is sized from it).
Status CheckShapeBounds(const Shape& shape);

}  // namespace vkxla
