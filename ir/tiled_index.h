// XLA's placement of an array in memory (shared/spec/tiled_layout.ja.txt):
// minor_to_major, then each tile in turn applied to the minor-most
// dimensions of what the previous step produced ('*' folds a dimension into
// the next minor one first), with padding up to whole tiles.
//
// This is the one implementation of that index arithmetic. It is written
// once over an arithmetic "backend": with IntArithmetic it computes offsets
// on the host (literal relayout); codegen instantiates it with a backend
// that builds GLSL expressions, so kernels index exactly as the host does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/shape.h"
#include "vkxla/status.h"

namespace vkxla {

class TiledIndexMap {
 public:
  // Validates the layout against the shape; `shape` must carry a layout
  // (or gets the default one).
  static StatusOr<TiledIndexMap> Create(const Shape& shape);

  // Elements the array occupies physically, padding included.
  int64_t physical_element_count() const;
  // The physical dimensions, major to minor, after the last tiling.
  const std::vector<int64_t>& physical_dims() const { return levels_.empty() ? dims0_ : levels_.back().after; }
  bool has_padding() const { return physical_element_count() != logical_count_; }
  bool is_tiled() const { return !levels_.empty(); }

  // The logical dimension d along which every aligned run of `run`
  // consecutive physical elements lies (physical p + k holds logical e + k
  // along d, for p a multiple of `run` and k < run), or -1 when runs cross
  // dimensions or tiles. Kernels use it to move whole vectors.
  int64_t UnitStrideDimension(int64_t run) const;

  // Logical multi-index -> physical linear element index.
  template <class A>
  typename A::Value ToPhysical(const std::vector<typename A::Value>& logical, A& a) const;

  // Physical linear element index (< physical_element_count) -> logical
  // multi-index; `valid` becomes false for padding elements, which have none.
  template <class A>
  std::vector<typename A::Value> FromPhysical(const typename A::Value& physical, A& a, typename A::Bool& valid) const;

 private:
  // One tile application: first the '*' merges (position j folds into j+1,
  // whose size before the merge was `minor_size`), then tiling of the last
  // tile.size() dimensions of `before`.
  struct Merge {
    size_t position;
    int64_t minor_size;
  };
  struct Level {
    std::vector<Merge> merges;
    std::vector<int64_t> before;  // dims after the merges, before tiling
    std::vector<int64_t> tile;    // sizes for the minor-most tile.size() dims
    std::vector<int64_t> after;   // prefix, tile counts, tile sizes
  };
  std::vector<int64_t> minor_to_major_;
  std::vector<int64_t> dims0_;  // logical dims in physical order, major first
  std::vector<Level> levels_;
  int64_t logical_count_ = 0;
};

// Host arithmetic on int64.
struct IntArithmetic {
  using Value = int64_t;
  using Bool = bool;
  Value Constant(int64_t c) { return c; }
  Value Add(Value a, Value b) { return a + b; }
  Value MulConstant(Value a, int64_t c) { return a * c; }
  Value DivConstant(Value a, int64_t c) { return a / c; }
  Value ModConstant(Value a, int64_t c) { return a % c; }
  Bool True() { return true; }
  Bool AndLess(Bool b, Value a, int64_t c) { return b && a < c; }
};

// ---- implementation of the templates ----

template <class A>
typename A::Value TiledIndexMap::ToPhysical(const std::vector<typename A::Value>& logical, A& a) const {
  std::vector<typename A::Value> e;
  for (size_t i = minor_to_major_.size(); i-- > 0;) e.push_back(logical[minor_to_major_[i]]);
  std::vector<int64_t> dims = dims0_;
  for (const Level& level : levels_) {
    for (const Merge& m : level.merges) {
      e[m.position + 1] = a.Add(a.MulConstant(e[m.position], m.minor_size), e[m.position + 1]);
      e.erase(e.begin() + static_cast<std::ptrdiff_t>(m.position));
    }
    const size_t k = level.tile.size(), prefix = level.before.size() - k;
    std::vector<typename A::Value> next(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(prefix));
    for (size_t j = 0; j < k; ++j) next.push_back(a.DivConstant(e[prefix + j], level.tile[j]));
    for (size_t j = 0; j < k; ++j) next.push_back(a.ModConstant(e[prefix + j], level.tile[j]));
    e = std::move(next);
    dims = level.after;
  }
  // A sum of coordinate * stride rather than Horner's nesting: the terms
  // that do not change between neighbouring elements stay separate, so a
  // kernel's compiler shares them (8x8 relayout on lavapipe: 0.80 of the
  // stream kernel nested, 0.92 as a sum).
  std::vector<int64_t> strides(e.size(), 1);
  for (size_t i = e.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  typename A::Value linear = a.Constant(0);
  for (size_t i = 0; i < e.size(); ++i) linear = a.Add(linear, a.MulConstant(e[i], strides[i]));
  return linear;
}

template <class A>
std::vector<typename A::Value> TiledIndexMap::FromPhysical(const typename A::Value& physical, A& a,
                                                           typename A::Bool& valid) const {
  const std::vector<int64_t>& dims = physical_dims();
  std::vector<typename A::Value> e(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    typename A::Value q = a.DivConstant(physical, stride);
    e[i] = i == 0 ? q : a.ModConstant(q, dims[i]);
    stride *= dims[i];
  }
  valid = a.True();
  for (size_t l = levels_.size(); l-- > 0;) {
    const Level& level = levels_[l];
    const size_t k = level.tile.size(), prefix = level.before.size() - k;
    std::vector<typename A::Value> prev(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(prefix));
    for (size_t j = 0; j < k; ++j) {
      typename A::Value x = a.Add(a.MulConstant(e[prefix + j], level.tile[j]), e[prefix + k + j]);
      // A coordinate past the size before padding is a padding element.
      if (level.before[prefix + j] % level.tile[j] != 0) valid = a.AndLess(valid, x, level.before[prefix + j]);
      prev.push_back(x);
    }
    for (size_t m = level.merges.size(); m-- > 0;) {
      const Merge& merge = level.merges[m];
      typename A::Value combined = prev[merge.position];
      prev.insert(prev.begin() + static_cast<std::ptrdiff_t>(merge.position), a.DivConstant(combined, merge.minor_size));
      prev[merge.position + 1] = a.ModConstant(combined, merge.minor_size);
    }
    e = std::move(prev);
  }
  std::vector<typename A::Value> logical(e.size());
  for (size_t i = 0; i < e.size(); ++i) logical[minor_to_major_[e.size() - 1 - i]] = e[i];
  return logical;
}

}  // namespace vkxla
