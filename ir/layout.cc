#include "ir/layout.h"

#include <algorithm>

namespace vkxla {

std::string Tile::ToString() const {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i] == kCombine ? std::string("*") : std::to_string(dims[i]);
  }
  return s + ")";
}

std::string Layout::ToString() const {
  std::string s = "{";
  for (size_t i = 0; i < minor_to_major.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(minor_to_major[i]);
  }
  bool has_suffix = !tiles.empty() || element_size_in_bits != 0 || memory_space != 0;
  if (has_suffix) {
    s += ":";
    if (!tiles.empty()) {
      s += "T";
      for (const Tile& t : tiles) s += t.ToString();
    }
    if (element_size_in_bits != 0) s += "E(" + std::to_string(element_size_in_bits) + ")";
    if (memory_space != 0) s += "S(" + std::to_string(memory_space) + ")";
  }
  return s + "}";
}

Layout Layout::Descending(int64_t rank) {
  Layout l;
  for (int64_t d = rank - 1; d >= 0; --d) l.minor_to_major.push_back(d);
  return l;
}

bool Layout::IsDescending() const {
  for (size_t i = 0; i < minor_to_major.size(); ++i)
    if (minor_to_major[i] != static_cast<int64_t>(minor_to_major.size() - 1 - i)) return false;
  return tiles.empty();
}

Status Layout::Validate(int64_t rank) const {
  if (static_cast<int64_t>(minor_to_major.size()) != rank)
    return InvalidArgument("layout " + ToString() + " has " + std::to_string(minor_to_major.size()) +
                           " entries in minor_to_major for an array of rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  for (int64_t d : minor_to_major) {
    if (d < 0 || d >= rank || seen[d])
      return InvalidArgument("layout " + ToString() + ": minor_to_major is not a permutation of 0.." +
                             std::to_string(rank - 1));
    seen[d] = true;
  }
  for (const Tile& t : tiles) {
    if (t.dims.empty()) return InvalidArgument("layout " + ToString() + ": empty tile");
    if (static_cast<int64_t>(t.dims.size()) > rank && &t == &tiles.front())
      return InvalidArgument("layout " + ToString() + ": tile " + t.ToString() + " has more dimensions than the rank " +
                             std::to_string(rank));
    for (int64_t d : t.dims) {
      if (d == 0 || d < Tile::kCombine || d > (int64_t{1} << 32))
        return InvalidArgument("layout " + ToString() + ": tile " + t.ToString() + " has a dimension of size " +
                               std::to_string(d));
    }
    if (t.dims.back() == Tile::kCombine)
      return InvalidArgument("layout " + ToString() + ": tile " + t.ToString() +
                             " combines ('*') its minor-most dimension, which has nothing to fold into");
  }
  if (element_size_in_bits < 0) return InvalidArgument("layout " + ToString() + ": negative element size");
  return OkStatus();
}

}  // namespace vkxla
