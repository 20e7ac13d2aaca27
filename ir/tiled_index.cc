#include "ir/tiled_index.h"

namespace vkxla {

StatusOr<TiledIndexMap> TiledIndexMap::Create(const Shape& shape) {
  const Layout layout = shape.layout_or_default();
  VKXLA_RETURN_IF_ERROR(layout.Validate(shape.rank()));
  TiledIndexMap m;
  m.minor_to_major_ = layout.minor_to_major;
  m.logical_count_ = shape.element_count();
  for (size_t i = layout.minor_to_major.size(); i-- > 0;) m.dims0_.push_back(shape.dim(layout.minor_to_major[i]));
  std::vector<int64_t> cur = m.dims0_;
  for (const Tile& tile : layout.tiles) {
    const size_t k = tile.dims.size();
    if (k > cur.size())
      return InvalidArgument("layout " + layout.ToString() + " of " + shape.ToString() + ": tile " + tile.ToString() +
                             " has more dimensions than the " + std::to_string(cur.size()) + " it applies to");
    Level level;
    const size_t base = cur.size() - k;
    size_t removed = 0;
    for (size_t j = 0; j < k; ++j) {
      const size_t pos = base + j - removed;
      if (tile.dims[j] == Tile::kCombine) {
        // Validate() already rejects '*' in the minor-most position.
        level.merges.push_back({pos, cur[pos + 1]});
        if (__builtin_mul_overflow(cur[pos + 1], cur[pos], &cur[pos + 1])) cur[pos + 1] = INT64_MAX;
        cur.erase(cur.begin() + static_cast<std::ptrdiff_t>(pos));
        ++removed;
      } else {
        level.tile.push_back(tile.dims[j]);
      }
    }
    level.before = cur;
    const size_t prefix = cur.size() - level.tile.size();
    level.after.assign(cur.begin(), cur.begin() + static_cast<std::ptrdiff_t>(prefix));
    for (size_t j = 0; j < level.tile.size(); ++j)
      level.after.push_back((cur[prefix + j] + level.tile[j] - 1) / level.tile[j]);
    for (int64_t t : level.tile) level.after.push_back(t);
    cur = level.after;
    m.levels_.push_back(std::move(level));
  }
  // Padding to whole tiles may grow an array past any size we can index.
  int64_t physical = 1;
  for (int64_t d : cur)
    if (__builtin_mul_overflow(physical, d, &physical) || physical > kMaxElements) physical = kMaxElements + 1;
  if (physical > kMaxElements && m.logical_count_ > 0)
    return InvalidArgument("layout " + layout.ToString() + " pads " + shape.ToString(false) + " to more than 2^48 elements");
  return m;
}

int64_t TiledIndexMap::UnitStrideDimension(int64_t run) const {
  // Follow the minor-most physical dimension back through each level; a run
  // stays unit-stride only through intra-tile coordinates and merge minors
  // whose sizes are multiples of the run (no carry inside the run).
  if (physical_dims().empty()) return -1;  // a scalar
  size_t pos = physical_dims().size() - 1;
  if (physical_dims()[pos] % run != 0) return -1;
  for (size_t l = levels_.size(); l-- > 0;) {
    const Level& level = levels_[l];
    const size_t k = level.tile.size(), prefix = level.before.size() - k;
    if (pos < prefix + k) return -1;  // a tile-count coordinate: steps of a whole tile
    pos = prefix + (pos - prefix - k);
    for (size_t m = level.merges.size(); m-- > 0;) {
      const Merge& merge = level.merges[m];
      if (pos == merge.position) {
        if (merge.minor_size % run != 0) return -1;
        pos = merge.position + 1;  // the minor part of the combined coordinate
      } else if (pos > merge.position) {
        ++pos;  // undoing the merge re-inserts a dimension before pos
      }
    }
  }
  if (dims0_[pos] % run != 0) return -1;
  return minor_to_major_[dims0_.size() - 1 - pos];
}

int64_t TiledIndexMap::physical_element_count() const {
  int64_t n = 1;
  for (int64_t d : physical_dims()) n *= d;
  return n;
}

}  // namespace vkxla
