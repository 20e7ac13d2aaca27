// XLA's array layout: minor_to_major order, tiles and element size.
// See shared/spec/tiled_layout.ja.txt. Placing data through tiles happens in
// ir/tiled_index.h; this type only holds and validates the description.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkxla/status.h"

namespace vkxla {

// One tile: sizes of the minor-most dimensions it covers. kCombine ('*')
// folds that dimension into the next minor one before tiling.
struct Tile {
  static constexpr int64_t kCombine = -1;
  std::vector<int64_t> dims;
  bool operator==(const Tile&) const = default;
  std::string ToString() const;  // "(2,*,3)"
};

struct Layout {
  std::vector<int64_t> minor_to_major;
  std::vector<Tile> tiles;
  int64_t element_size_in_bits = 0;  // 0: the element type's natural size
  int64_t memory_space = 0;

  bool operator==(const Layout&) const = default;
  // "{1,0:T(2,2)E(4)}"; "{}" for rank 0.
  std::string ToString() const;
  // {rank-1, ..., 0}: row-major, what XLA picks when a shape has none.
  static Layout Descending(int64_t rank);
  bool IsDescending() const;
  // Checks the layout against an array of `rank` dimensions.
  Status Validate(int64_t rank) const;
};

}  // namespace vkxla
