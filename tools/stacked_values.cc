#include "tools/stacked_values.h"

namespace vkxla {

StatusOr<std::vector<Literal>> UnstackLiteral(const Literal& stacked, int64_t count, const std::string& what) {
  const Shape& s = stacked.shape();
  if (!s.IsArray() || s.rank() == 0 || s.dim(0) != count)
    return InvalidArgument(what + " is " + s.ToString() + "; a run of " + std::to_string(count) +
                           " processes takes each process's value stacked on a leading axis of " + std::to_string(count));
  const std::vector<int64_t> dims(s.dims().begin() + 1, s.dims().end());
  std::vector<Literal> out;
  for (int64_t p = 0; p < count; ++p) {
    Literal slice(Shape(s.element_type(), dims));
    const int64_t n = slice.element_count();
    for (int64_t i = 0; i < n; ++i) slice.Set(i, stacked.Get(p * n + i));
    out.push_back(std::move(slice));
  }
  return out;
}

StatusOr<Literal> StackLiterals(const std::vector<const Literal*>& slices) {
  if (slices.empty()) return InvalidArgument("nothing to stack");
  const Shape& first = slices[0]->shape();
  for (const Literal* l : slices)
    if (!l->shape().IsArray() || l->shape().dims() != first.dims() || l->shape().element_type() != first.element_type())
      return InvalidArgument("the processes gave different shapes, " + first.ToString() + " and " + l->shape().ToString() +
                             ", which do not stack");
  std::vector<int64_t> dims{static_cast<int64_t>(slices.size())};
  dims.insert(dims.end(), first.dims().begin(), first.dims().end());
  Literal out(Shape(first.element_type(), dims));
  const int64_t n = slices[0]->element_count();
  for (size_t p = 0; p < slices.size(); ++p)
    for (int64_t i = 0; i < n; ++i) out.Set(static_cast<int64_t>(p) * n + i, slices[p]->Get(i));
  return out;
}

}  // namespace vkxla
