#include "ir/shape.h"

namespace vkxla {

Shape::Shape(ElementType type, std::vector<int64_t> dims) : type_(type), dims_(std::move(dims)) {}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape s;
  s.type_ = ElementType::kTuple;
  s.tuple_ = std::move(elements);
  return s;
}

Shape Shape::Token() {
  Shape s;
  s.type_ = ElementType::kToken;
  return s;
}

void Shape::set_dynamic_dim(int64_t i, bool dynamic) {
  if (dynamic_.empty()) dynamic_.assign(dims_.size(), false);
  dynamic_[i] = dynamic;
}

bool Shape::is_static() const {
  for (bool d : dynamic_)
    if (d) return false;
  for (const Shape& s : tuple_)
    if (!s.is_static()) return false;
  return true;
}

int64_t Shape::element_count() const {
  int64_t n = 1;
  for (int64_t d : dims_)
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;
  return n;
}

namespace {

Status CheckShapeBoundsAt(const Shape& shape, int depth) {
  if (shape.IsTuple()) {
    if (depth >= kMaxTupleDepth)
      return InvalidArgument("tuple shapes nest deeper than " + std::to_string(kMaxTupleDepth) + " levels");
    for (const Shape& s : shape.tuple_shapes()) VKXLA_RETURN_IF_ERROR(CheckShapeBoundsAt(s, depth + 1));
    return OkStatus();
  }
  if (!shape.IsArray()) return OkStatus();
  if (shape.rank() > kMaxRank)
    return InvalidArgument("a shape of rank " + std::to_string(shape.rank()) + " (at most " + std::to_string(kMaxRank) +
                           " is supported)");
  int64_t n = 1;
  for (int64_t d : shape.dims()) {
    if (d < 0) return InvalidArgument("negative dimension size " + std::to_string(d));
    if (d > kMaxElements) return InvalidArgument("dimension size " + std::to_string(d) + " is over 2^48");
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxElements) n = kMaxElements + 1;
  }
  if (n > kMaxElements)
    return InvalidArgument("shape " + shape.ToString(false) + " has more than 2^48 elements");
  return OkStatus();
}

}  // namespace

Status CheckShapeBounds(const Shape& shape) { return CheckShapeBoundsAt(shape, 0); }

std::vector<Shape> ArrayLeafShapes(const Shape& shape) {
  std::vector<Shape> out;
  std::vector<const Shape*> stack = {&shape};
  while (!stack.empty()) {
    const Shape* s = stack.back();
    stack.pop_back();
    if (s->IsArray()) out.push_back(*s);
    if (!s->IsTuple()) continue;
    for (auto it = s->tuple_shapes().rbegin(); it != s->tuple_shapes().rend(); ++it) stack.push_back(&*it);
  }
  return out;
}

Layout Shape::layout_or_default() const { return layout_ ? *layout_ : Layout::Descending(rank()); }

void Shape::clear_layout() {
  layout_.reset();
  for (Shape& s : tuple_) s.clear_layout();
}

std::string Shape::ToString(bool print_layout) const {
  if (IsTuple()) {
    std::string s = "(";
    for (size_t i = 0; i < tuple_.size(); ++i) {
      if (i) s += ", ";
      s += tuple_[i].ToString(print_layout);
    }
    return s + ")";
  }
  std::string s(ElementTypeName(type_));
  s += "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    if (is_dynamic_dim(i)) s += "<=";
    s += std::to_string(dims_[i]);
  }
  s += "]";
  if (print_layout && layout_ && IsArray()) s += layout_->ToString();
  return s;
}

bool Shape::Compatible(const Shape& other) const {
  if (type_ != other.type_ || dims_ != other.dims_ || tuple_.size() != other.tuple_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (is_dynamic_dim(i) != other.is_dynamic_dim(i)) return false;
  for (size_t i = 0; i < tuple_.size(); ++i)
    if (!tuple_[i].Compatible(other.tuple_[i])) return false;
  return true;
}

bool Shape::operator==(const Shape& other) const {
  if (!Compatible(other)) return false;
  if (IsArray() && layout_or_default() != other.layout_or_default()) return false;
  for (size_t i = 0; i < tuple_.size(); ++i)
    if (tuple_[i] != other.tuple_[i]) return false;
  return true;
}

Shape Shape::WithElementType(ElementType t) const {
  Shape s = *this;
  s.type_ = t;
  return s;
}

}  // namespace vkxla
