// Host data for one shape. Array data is kept in logical row-major order,
// one element per ByteWidth() bytes (S4/U4 take a byte each), whatever the
// shape's layout says: the runtime lays it out on upload and back on
// download, so host code never deals with device placement.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/scalar.h"
#include "ir/shape.h"
#include "vkxla/status.h"

namespace vkxla {

// Host memory one literal read from text or a file may take (4 GiB): a
// reader checks before it allocates (CheckLiteralBytes).
inline constexpr int64_t kMaxLiteralBytes = int64_t{1} << 32;
// An error naming the shape and its size when a literal of `shape` (its
// tuple elements summed) would take more than kMaxLiteralBytes.
Status CheckLiteralBytes(const Shape& shape);

class Literal {
 public:
  Literal() = default;
  // Zero-filled array (or tuple of zero-filled arrays) of `shape`.
  explicit Literal(Shape shape);
  static Literal Tuple(std::vector<Literal> elements);
  static Literal ScalarOf(const Scalar& v);

  const Shape& shape() const { return shape_; }
  // Changes the declared layout; the (logical) data is unaffected.
  void set_layout(Layout l) { shape_.set_layout(std::move(l)); }
  int64_t element_count() const { return shape_.element_count(); }

  Scalar Get(int64_t linear_index) const;
  void Set(int64_t linear_index, const Scalar& v);  // converts v's type if it differs
  Scalar GetAt(const std::vector<int64_t>& index) const;

  std::vector<uint8_t>& bytes() { return bytes_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

  const std::vector<Literal>& tuple_elements() const { return tuple_; }
  // The arrays of a tuple, depth first (the literal itself when it is an
  // array); TakeLeaves moves them out and leaves this literal empty.
  std::vector<const Literal*> Leaves() const;
  std::vector<Literal> TakeLeaves() &&;
  std::vector<Literal>& mutable_tuple_elements() { return tuple_; }

  // XLA literal syntax without the shape: "{ {1, 2}, {3, 4} }", "5", "(1, 2)".
  std::string ValuesToString() const;
  // Shape then values: "f32[2,2] { {1, 2}, {3, 4} }".
  std::string ToString() const;

  // Same shape (layout ignored) and bitwise-equal values.
  bool Equal(const Literal& other) const;

 private:
  Shape shape_;
  std::vector<uint8_t> bytes_;
  std::vector<Literal> tuple_;
};

// A literal of `shape` from its array leaves (ArrayLeafShapes' order),
// taken from `leaves` from `next` on; tokens are made, not taken.
StatusOr<Literal> LiteralFromArrayLeaves(const Shape& shape, std::vector<Literal>& leaves, size_t& next);

// The elements of `l` at the indices that fit `dims`, zero elsewhere: grows
// a value to its bounds, or cuts it to its run-time sizes.
Literal Resized(const Literal& l, const std::vector<int64_t>& dims);

// Row-major linear index <-> multi-index over `dims`.
int64_t LinearIndex(const std::vector<int64_t>& dims, const std::vector<int64_t>& index);
std::vector<int64_t> MultiIndex(const std::vector<int64_t>& dims, int64_t linear);

}  // namespace vkxla
