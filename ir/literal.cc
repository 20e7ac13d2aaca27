#include "ir/literal.h"

#include <cstring>

namespace vkxla {

namespace {

int64_t LiteralBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t total = 0;
    for (const Shape& s : shape.tuple_shapes())
      if (__builtin_add_overflow(total, LiteralBytes(s), &total)) return INT64_MAX;
    return total;
  }
  if (!shape.IsArray()) return 0;
  int64_t bytes = 0;
  if (__builtin_mul_overflow(shape.element_count(), int64_t{ByteWidth(shape.element_type())}, &bytes)) return INT64_MAX;
  return bytes;
}

}  // namespace

Status CheckLiteralBytes(const Shape& shape) {
  VKXLA_RETURN_IF_ERROR(CheckShapeBounds(shape));
  const int64_t bytes = LiteralBytes(shape);
  if (bytes > kMaxLiteralBytes)
    return ResourceExhausted("a literal of " + shape.ToString(false) + " would take " + std::to_string(bytes >> 20) +
                             " MiB; at most " + std::to_string(kMaxLiteralBytes >> 30) + " GiB is read into host memory");
  return OkStatus();
}

Literal::Literal(Shape shape) : shape_(std::move(shape)) {
  if (shape_.IsTuple()) {
    for (const Shape& s : shape_.tuple_shapes()) tuple_.emplace_back(s);
  } else if (shape_.IsArray()) {
    bytes_.assign(static_cast<size_t>(shape_.element_count()) * ByteWidth(shape_.element_type()), 0);
  }
}

Literal Literal::Tuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal& l : elements) shapes.push_back(l.shape());
  Literal t;
  t.shape_ = Shape::Tuple(std::move(shapes));
  t.tuple_ = std::move(elements);
  return t;
}

Literal Literal::ScalarOf(const Scalar& v) {
  Literal l(Shape::Scalar(v.type));
  l.Set(0, v);
  return l;
}

Scalar Literal::Get(int64_t i) const {
  const ElementType t = shape_.element_type();
  if (IsComplex(t)) {
    Scalar s;
    s.type = t;
    if (t == ElementType::kC64) {
      float p[2];
      std::memcpy(p, bytes_.data() + i * 8, 8);
      s.re = p[0];
      s.im = p[1];
    } else {
      double p[2];
      std::memcpy(p, bytes_.data() + i * 16, 16);
      s.re = p[0];
      s.im = p[1];
    }
    return s;
  }
  const int w = ByteWidth(t);
  uint64_t bits = 0;
  std::memcpy(&bits, bytes_.data() + i * w, w);
  return Scalar::FromBits(shape_.element_type(), bits);
}

void Literal::Set(int64_t i, const Scalar& v) {
  const ElementType t = shape_.element_type();
  const int w = ByteWidth(t);
  if (IsComplex(t)) {
    Scalar c = v.type == t ? v : Scalar::Convert(v, t);
    if (t == ElementType::kC64) {
      float parts[2] = {static_cast<float>(c.re), static_cast<float>(c.im)};
      std::memcpy(bytes_.data() + i * w, parts, 8);
    } else {
      double parts[2] = {c.re, c.im};
      std::memcpy(bytes_.data() + i * w, parts, 16);
    }
    return;
  }
  uint64_t bits = (v.type == t ? v : Scalar::Convert(v, t)).Bits();
  std::memcpy(bytes_.data() + i * w, &bits, w);
}

Scalar Literal::GetAt(const std::vector<int64_t>& index) const {
  return Get(LinearIndex(shape_.dims(), index));
}

namespace {

void AppendValues(const Literal& l, int64_t dim, int64_t& next, std::string& out) {
  const auto& dims = l.shape().dims();
  if (dim == static_cast<int64_t>(dims.size())) {
    out += l.Get(next++).ToString();
    return;
  }
  out += "{";
  for (int64_t i = 0; i < dims[dim]; ++i) {
    if (i) out += ", ";
    AppendValues(l, dim + 1, next, out);
  }
  out += "}";
}

}  // namespace

std::string Literal::ValuesToString() const {
  if (shape_.IsTuple()) {
    std::string s = "(";
    for (size_t i = 0; i < tuple_.size(); ++i) {
      if (i) s += ", ";
      s += tuple_[i].ValuesToString();
    }
    return s + ")";
  }
  if (shape_.IsToken()) return "token";
  std::string out;
  int64_t next = 0;
  AppendValues(*this, 0, next, out);
  return out;
}

std::string Literal::ToString() const {
  if (shape_.IsTuple()) {
    std::string s = "(\n";
    for (const Literal& e : tuple_) s += e.ToString() + ",\n";
    return s + ")";
  }
  return shape_.ToString(/*print_layout=*/false) + " " + ValuesToString();
}

namespace {

// The array leaves under `root`, depth first, walked with an explicit stack
// (a tuple's nesting is the input's to choose); `elements` gives a tuple's
// elements, const or not.
template <typename L, typename Elements>
std::vector<L*> CollectLeaves(L* root, Elements elements) {
  std::vector<L*> out, stack = {root};
  while (!stack.empty()) {
    L* l = stack.back();
    stack.pop_back();
    if (!l->shape().IsTuple()) {
      out.push_back(l);
      continue;
    }
    auto& tuple = elements(*l);
    for (auto it = tuple.rbegin(); it != tuple.rend(); ++it) stack.push_back(&*it);
  }
  return out;
}

}  // namespace

std::vector<const Literal*> Literal::Leaves() const {
  return CollectLeaves(this, [](const Literal& l) -> const std::vector<Literal>& { return l.tuple_elements(); });
}

std::vector<Literal> Literal::TakeLeaves() && {
  std::vector<Literal> out;
  for (Literal* leaf : CollectLeaves(this, [](Literal& l) -> std::vector<Literal>& { return l.mutable_tuple_elements(); }))
    out.push_back(std::move(*leaf));
  *this = Literal();
  return out;
}

bool Literal::Equal(const Literal& other) const {
  if (!shape_.Compatible(other.shape_)) return false;
  if (shape_.IsTuple()) {
    for (size_t i = 0; i < tuple_.size(); ++i)
      if (!tuple_[i].Equal(other.tuple_[i])) return false;
    return true;
  }
  return bytes_ == other.bytes_;
}

int64_t LinearIndex(const std::vector<int64_t>& dims, const std::vector<int64_t>& index) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + index[d];
  return linear;
}

std::vector<int64_t> MultiIndex(const std::vector<int64_t>& dims, int64_t linear) {
  std::vector<int64_t> index(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    index[d] = dims[d] ? linear % dims[d] : 0;
    linear = dims[d] ? linear / dims[d] : 0;
  }
  return index;
}

StatusOr<Literal> LiteralFromArrayLeaves(const Shape& shape, std::vector<Literal>& leaves, size_t& next) {
  if (shape.IsToken()) return Literal(shape);
  if (shape.IsTuple()) {  // nesting bounded by kMaxTupleDepth (CheckShapeBounds)
    std::vector<Literal> elements;
    for (const Shape& e : shape.tuple_shapes()) {
      VKXLA_ASSIGN_OR_RETURN(Literal l, LiteralFromArrayLeaves(e, leaves, next));
      elements.push_back(std::move(l));
    }
    return Literal::Tuple(std::move(elements));
  }
  if (next >= leaves.size())
    return InvalidArgument("a value of " + shape.ToString() + " is missing: " + std::to_string(leaves.size()) + " arrays were given");
  return std::move(leaves[next++]);
}

Literal Resized(const Literal& l, const std::vector<int64_t>& dims) {
  if (l.shape().dims() == dims && l.shape().is_static()) return l;
  Literal out(Shape(l.shape().element_type(), dims));
  for (int64_t i = 0; i < out.element_count(); ++i) {
    const std::vector<int64_t> at = MultiIndex(dims, i);
    bool inside = true;
    for (size_t d = 0; d < at.size(); ++d) inside = inside && at[d] < l.shape().dim(static_cast<int64_t>(d));
    if (inside) out.Set(i, l.GetAt(at));
  }
  return out;
}

}  // namespace vkxla
