#include "ir/tiled_index.h"

namespace vkxla {

StatusOr<TiledIndexMap> TiledIndexMap::Create(const Shape& shape) {
  const Layout layout = shape.layout_or_default();
  RETURN_IF_ERROR(layout.Validate(shape.rank()));
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
        cur[pos + 1] *= cur[pos];
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
  return m;
}

int64_t TiledIndexMap::physical_element_count() const {
  int64_t n = 1;
  for (int64_t d : physical_dims()) n *= d;
  return n;
}

}  // namespace vkxla
