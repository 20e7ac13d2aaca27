#include "frontends/mlir_types.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>

#include "ir/numbers.h"

namespace vkxla {

StatusOr<ElementType> ParseMlirElementType(MlirCursor& c) {
  const size_t at = c.position();
  if (c.Consume("complex<")) {  // of a float type, so no nesting
    const std::string part = c.Identifier();
    VKXLA_RETURN_IF_ERROR(c.Expect(">"));
    if (part == "f32") return ElementType::kC64;
    if (part == "f64") return ElementType::kC128;
    return c.Error(at, "complex<" + part + "> is not supported (only complex<f32> and complex<f64>)");
  }
  static const std::map<std::string, ElementType> kTypes = {
      {"i1", ElementType::kPred},    {"i2", ElementType::kS2},     {"si2", ElementType::kS2},    {"ui2", ElementType::kU2},     {"i4", ElementType::kS4},     {"i8", ElementType::kS8},
      {"i16", ElementType::kS16},    {"i32", ElementType::kS32},   {"i64", ElementType::kS64},
      {"si4", ElementType::kS4},     {"si8", ElementType::kS8},    {"si16", ElementType::kS16},
      {"si32", ElementType::kS32},   {"si64", ElementType::kS64},  {"ui4", ElementType::kU4},
      {"ui8", ElementType::kU8},     {"ui16", ElementType::kU16},  {"ui32", ElementType::kU32},
      {"ui64", ElementType::kU64},   {"f16", ElementType::kF16},   {"bf16", ElementType::kBF16},
      {"f32", ElementType::kF32},    {"f64", ElementType::kF64},   {"f8E4M3FN", ElementType::kF8E4M3FN},
      {"f8E5M2", ElementType::kF8E5M2}, {"f8E4M3", ElementType::kF8E4M3}, {"f8E3M4", ElementType::kF8E3M4},
      {"f8E4M3FNUZ", ElementType::kF8E4M3FNUZ}, {"f8E5M2FNUZ", ElementType::kF8E5M2FNUZ},
      {"f8E4M3B11FNUZ", ElementType::kF8E4M3B11FNUZ}, {"f8E8M0FNU", ElementType::kF8E8M0FNU},
      {"f4E2M1FN", ElementType::kF4E2M1FN}, {"f6E2M3FN", ElementType::kF6E2M3FN}, {"f6E3M2FN", ElementType::kF6E3M2FN}};
  if (c.rest().rfind("!quant.", 0) == 0)
    return Unimplemented(c.Where(at) + ": quantized element types (!quant.uniform) are not supported here");
  const std::string name = c.Identifier();
  auto it = kTypes.find(name);
  if (it == kTypes.end())
    return Unimplemented(c.Where(at) + ": element type " + (name.empty() ? std::string("?") : name) + " is not supported");
  return it->second;
}

std::string QuantizedType::ToString() const {
  std::string s = "!quant.uniform<" + std::string(ElementTypeName(storage)) + "<" + std::to_string(storage_min) + ":" +
                  std::to_string(storage_max) + ">:" + std::string(ElementTypeName(expressed));
  if (axis >= 0) s += ":" + std::to_string(axis);
  s += ", {";
  for (size_t i = 0; i < scales.size(); ++i) s += (i ? "," : "") + std::to_string(scales[i]) + ":" + std::to_string(zero_points[i]);
  return s + "}>";
}

namespace {

// "scale[:zero_point]": a float, then an optional integer.
Status ScaleAndZeroPoint(MlirCursor& c, QuantizedType& q) {
  c.SkipSpace();
  const size_t at = c.position();
  size_t end = 0;
  const std::string_view rest = c.rest();
  while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) || rest[end] == '.' || rest[end] == '-' ||
                               rest[end] == '+'))
    ++end;
  const std::optional<double> scale = ParseDouble(std::string(rest.substr(0, end)));
  if (!scale || !(*scale > 0) || !std::isfinite(*scale))
    return c.Error(at, "expected a positive finite scale in a quantized type, found '" + std::string(rest.substr(0, end)) + "'");
  c.set_position(at + end);
  int64_t zero_point = 0;
  if (c.Consume(":")) {
    VKXLA_ASSIGN_OR_RETURN(zero_point, c.Integer());
  }
  q.scales.push_back(*scale);
  q.zero_points.push_back(zero_point);
  return OkStatus();
}

// After "!quant.uniform<": storage[<min:max>]:expressed[:axis], then one
// scale[:zero_point] or {scale:zero_point, ...}, then '>'.
StatusOr<QuantizedType> ParseQuantizedType(MlirCursor& c) {
  const size_t at = c.position();
  QuantizedType q;
  VKXLA_ASSIGN_OR_RETURN(q.storage, ParseMlirElementType(c));
  if (!IsSignedInt(q.storage) && !IsUnsignedInt(q.storage))
    return c.Error(at, "a quantized type's storage must be an integer type, not " + std::string(ElementTypeName(q.storage)));
  q.storage_min = IntegerMin(q.storage);
  q.storage_max = static_cast<int64_t>(std::min<uint64_t>(IntegerMax(q.storage), INT64_MAX));
  if (c.Consume("<")) {
    const size_t range_at = c.position();
    VKXLA_ASSIGN_OR_RETURN(const int64_t lo, c.Integer());
    VKXLA_RETURN_IF_ERROR(c.Expect(":"));
    VKXLA_ASSIGN_OR_RETURN(const int64_t hi, c.Integer());
    VKXLA_RETURN_IF_ERROR(c.Expect(">"));
    if (lo > hi || lo < q.storage_min || hi > q.storage_max)
      return c.Error(range_at, "storage range <" + std::to_string(lo) + ":" + std::to_string(hi) + "> does not fit " + std::string(
                                   ElementTypeName(q.storage)));
    q.storage_min = lo;
    q.storage_max = hi;
  }
  VKXLA_RETURN_IF_ERROR(c.Expect(":"));
  const size_t expressed_at = c.position();
  VKXLA_ASSIGN_OR_RETURN(q.expressed, ParseMlirElementType(c));
  if (!IsFloat(q.expressed)) return c.Error(expressed_at, "a quantized type's expressed type must be a float type");
  if (c.Consume(":")) {
    VKXLA_ASSIGN_OR_RETURN(q.axis, c.Integer());
  }
  VKXLA_RETURN_IF_ERROR(c.Expect(","));
  if (c.Consume("{")) {
    do {
      VKXLA_RETURN_IF_ERROR(ScaleAndZeroPoint(c, q));
    } while (c.Consume(","));
    VKXLA_RETURN_IF_ERROR(c.Expect("}"));
  } else {
    VKXLA_RETURN_IF_ERROR(ScaleAndZeroPoint(c, q));
  }
  VKXLA_RETURN_IF_ERROR(c.Expect(">"));
  if (q.axis < 0 && q.scales.size() != 1)
    return c.Error(at, "a per-tensor quantized type has one scale, not " + std::to_string(q.scales.size()));
  for (int64_t z : q.zero_points)
    if (z < q.storage_min || z > q.storage_max)
      return c.Error(at, "zero point " + std::to_string(z) + " is outside the storage range");
  return q;
}

}  // namespace

bool HasUnknownDims(const Shape& shape) {
  for (const Shape& leaf : ArrayLeafShapes(shape))
    for (int64_t d : leaf.dims())
      if (d == kUnknownDim) return true;
  return false;
}

Shape WithUnknownDimsAs(const Shape& shape, int64_t size) {
  if (!shape.IsArray()) return shape;
  std::vector<int64_t> dims = shape.dims();
  for (int64_t& d : dims) d = d == kUnknownDim ? size : d;
  return Shape(shape.element_type(), dims);
}

std::string ShapeWithUnknownDims(const Shape& shape) {
  if (shape.IsTuple()) {
    std::string s = "(";
    for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) s += (i ? ", " : "") + ShapeWithUnknownDims(shape.tuple_shapes()[i]);
    return s + ")";
  }
  if (!shape.IsArray()) return shape.ToString(false);
  std::string s = std::string(ElementTypeName(shape.element_type())) + "[";
  for (int64_t d = 0; d < shape.rank(); ++d) s += (d ? "," : "") + (shape.dim(d) == kUnknownDim ? "?" : std::to_string(shape.dim(d)));
  return s + "]";
}

StatusOr<Shape> ParseMlirType(MlirCursor& c, int depth, std::optional<QuantizedType>* quantized, bool unknown_dims) {
  const size_t at = c.position();
  if (c.Consume("!stablehlo.token")) return Shape::Token();
  if (c.Consume("tuple<")) {
    if (depth >= kMaxTupleDepth)
      return c.Error(at, "tuple types nest deeper than " + std::to_string(kMaxTupleDepth) + " levels");
    std::vector<Shape> elements;
    if (!c.Consume(">")) {
      do {
        VKXLA_ASSIGN_OR_RETURN(Shape s, ParseMlirType(c, depth + 1, nullptr, unknown_dims));
        elements.push_back(std::move(s));
      } while (c.Consume(","));
      VKXLA_RETURN_IF_ERROR(c.Expect(">"));
    }
    return Shape::Tuple(std::move(elements));
  }
  if (!c.Consume("tensor<")) {
    VKXLA_ASSIGN_OR_RETURN(ElementType t, ParseMlirElementType(c));  // a bare scalar type
    return Shape(t, {});
  }
  std::vector<int64_t> dims;
  for (;;) {
    c.SkipSpace();
    const std::string_view rest = c.rest();
    if (unknown_dims && rest.substr(0, 2) == "?x") {
      if (static_cast<int64_t>(dims.size()) == kMaxRank) return c.Error("more than " + std::to_string(kMaxRank) + " dimensions");
      dims.push_back(kUnknownDim);
      c.set_position(c.position() + 2);
      continue;
    }
    if (!rest.empty() && (rest[0] == '?' || (rest[0] == '<' && rest.substr(0, 2) == "<=")))
      return Unimplemented(c.Where() + ": dynamic dimensions are not supported yet");
    if (rest.empty() || !std::isdigit(static_cast<unsigned char>(rest[0]))) break;
    size_t n = 0;
    while (n < rest.size() && std::isdigit(static_cast<unsigned char>(rest[n]))) ++n;
    if (n >= rest.size() || rest[n] != 'x') break;  // digits of an element type name cannot start it
    const std::optional<int64_t> d = ParseInt64(rest.substr(0, n));
    if (!d || *d > kMaxElements) return c.Error("dimension size " + std::string(rest.substr(0, n)) + " is over 2^48");
    if (static_cast<int64_t>(dims.size()) == kMaxRank)
      return c.Error("more than " + std::to_string(kMaxRank) + " dimensions");
    dims.push_back(*d);
    c.set_position(c.position() + n + 1);
  }
  ElementType t;
  c.SkipSpace();
  if (quantized && c.Consume("!quant.uniform<")) {
    VKXLA_ASSIGN_OR_RETURN(QuantizedType q, ParseQuantizedType(c));
    if (q.axis >= static_cast<int64_t>(dims.size()) || (q.axis >= 0 && static_cast<int64_t>(q.scales.size()) != dims[q.axis]))
      return c.Error(at, "quantized axis " + std::to_string(q.axis) + " with " + std::to_string(q.scales.size()) +
                             " scales does not fit the tensor's dimensions");
    t = q.storage;
    *quantized = std::move(q);
  } else {
    VKXLA_ASSIGN_OR_RETURN(t, ParseMlirElementType(c));
  }
  if (c.Peek() == ',') c.SkipUntil(">");  // an encoding (bounds): not supported
  if (!c.Consume(">")) return c.Error(at, "malformed tensor type");
  Shape shape(t, dims);
  std::vector<int64_t> known = dims;  // bounds are checked as if open dims were 1
  std::replace(known.begin(), known.end(), kUnknownDim, int64_t{1});
  Status bounded = CheckShapeBounds(Shape(t, known));
  if (!bounded.ok()) return c.Error(at, bounded.message());
  return shape;
}

StatusOr<DenseText> ParseDenseText(MlirCursor& c) {
  VKXLA_RETURN_IF_ERROR(c.Expect("dense<"));
  DenseText d;
  d.at = c.position();
  // The body ends at the '>' that closes dense<; complex pairs and nested
  // brackets hold no '>'.
  c.SkipUntil(">");
  d.body = std::string(c.rest().data() - (c.position() - d.at), c.position() - d.at);
  VKXLA_RETURN_IF_ERROR(c.Expect(">"));
  return d;
}

namespace {

// One element as written: a number or hex pattern, true/false, or a pair.
struct Token {
  std::string re, im;
  bool pair = false;
};

Status Tokenize(MlirCursor& c, std::vector<Token>& out) {
  for (;;) {
    char p = c.Peek();
    if (p == '\0') return OkStatus();
    if (p == '[' || p == ']' || p == ',') {
      c.Consume(std::string(1, p));
      continue;
    }
    Token t;
    auto word = [&]() {
      c.SkipSpace();
      size_t n = 0;
      std::string_view r = c.rest();
      while (n < r.size() && (std::isalnum(static_cast<unsigned char>(r[n])) || r[n] == '.' || r[n] == '-' || r[n] == '+'))
        ++n;
      std::string w(r.substr(0, n));
      c.set_position(c.position() + n);
      return w;
    };
    if (p == '(') {
      c.Consume("(");
      t.re = word();
      VKXLA_RETURN_IF_ERROR(c.Expect(","));
      t.im = word();
      VKXLA_RETURN_IF_ERROR(c.Expect(")"));
      t.pair = true;
    } else if (p == '"') {
      VKXLA_ASSIGN_OR_RETURN(t.re, c.String());
      t.re = "\"" + t.re;
    } else {
      t.re = word();
      if (t.re.empty()) return c.Error("unexpected character in dense literal");
    }
    out.push_back(t);
  }
}

bool IsHex(const std::string& s) { return s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'); }

StatusOr<Scalar> ToScalar(const std::string& text, ElementType t) {
  const Status bad = InvalidArgument("'" + text + "' is not a " + std::string(ElementTypeName(t)) + " value");
  if (t == ElementType::kPred) {
    if (text == "true") return Scalar::Pred(true);
    if (text == "false") return Scalar::Pred(false);
    const std::optional<int64_t> v = ParseInt64(text);
    if (!v) return bad;
    return Scalar::Pred(*v != 0);
  }
  if (IsHex(text)) {
    const std::optional<uint64_t> bits = ParseUint64(std::string_view(text).substr(2), 16);
    if (!bits) return bad;
    return Scalar::FromBits(t, *bits);
  }
  if (IsSignedInt(t)) {
    const std::optional<int64_t> v = ParseInt64(text);
    if (!v) return bad;
    return Scalar::Int(t, *v);
  }
  if (IsUnsignedInt(t)) {
    const std::optional<uint64_t> v = ParseUint64(text);
    if (!v) return bad;
    return Scalar::UInt(t, *v);
  }
  const std::optional<double> v = ParseDouble(text);
  if (!v) return bad;
  return Scalar::Float(t, *v);
}

}  // namespace

StatusOr<Literal> DenseToLiteral(const MlirCursor& outer, const DenseText& dense, const Shape& shape) {
  if (!shape.IsArray()) return outer.Error(dense.at, "dense<...> needs a tensor type");
  MlirCursor c(dense.body);
  std::vector<Token> tokens;
  Status s = Tokenize(c, tokens);
  if (!s.ok()) return outer.Error(dense.at, s.message());
  Status fits = CheckLiteralBytes(shape);
  if (!fits.ok()) return outer.Error(dense.at, fits.message());
  const ElementType t = shape.element_type();
  const int64_t n = shape.element_count();
  const size_t w = static_cast<size_t>(ByteWidth(t));
  // Everything is checked against the text before the literal is
  // allocated; a splat then fills it by doubling copies.
  auto splat = [&](Literal& lit) {
    for (size_t done = w; w > 0 && done < lit.bytes().size();) {
      const size_t copy = std::min(done, lit.bytes().size() - done);
      std::memcpy(lit.bytes().data() + done, lit.bytes().data(), copy);
      done += copy;
    }
  };
  // A hex string holds the raw little-endian bytes of every element.
  if (tokens.size() == 1 && tokens[0].re.size() > 1 && tokens[0].re[0] == '"') {
    const std::string hex = tokens[0].re.substr(1);
    if (!IsHex(hex)) return outer.Error(dense.at, "expected a hex string \"0x...\"");
    std::vector<uint8_t> bytes;
    for (size_t i = 2; i + 1 < hex.size(); i += 2) {
      const std::optional<uint64_t> byte = ParseUint64(std::string_view(hex).substr(i, 2), 16);
      if (!byte) return outer.Error(dense.at, "'" + hex.substr(i, 2) + "' in a hex string is not a byte");
      bytes.push_back(static_cast<uint8_t>(*byte));
    }
    if (bytes.size() != w && bytes.size() != w * static_cast<size_t>(n))
      return outer.Error(dense.at, "hex string holds " + std::to_string(bytes.size()) + " bytes for " + shape.ToString());
    Literal lit(shape);
    if (n > 0 && w > 0) std::memcpy(lit.bytes().data(), bytes.data(), bytes.size());
    if (bytes.size() == w) splat(lit);
    return lit;
  }
  if (tokens.size() != 1 && static_cast<int64_t>(tokens.size()) != n)
    return outer.Error(dense.at, "dense literal has " + std::to_string(tokens.size()) + " elements for " + shape.ToString());
  auto element = [&](const Token& tok) -> StatusOr<Scalar> {
    if (IsComplex(t)) {
      if (!tok.pair) return outer.Error(dense.at, "complex elements are written (re, im)");
      const ElementType part = ComplexComponentType(t);
      auto re = ToScalar(tok.re, part), im = ToScalar(tok.im, part);
      if (!re.ok() || !im.ok()) return outer.Error(dense.at, "bad complex element (" + tok.re + ", " + tok.im + ")");
      return Scalar::Complex(t, {re->re, im->re});
    }
    auto v = ToScalar(tok.re, t);
    if (!v.ok()) return outer.Error(dense.at, v.status().message());
    return *v;
  };
  std::vector<Scalar> values;
  for (const Token& tok : tokens) {
    VKXLA_ASSIGN_OR_RETURN(Scalar v, element(tok));
    values.push_back(v);
  }
  Literal lit(shape);
  if (n == 0) return lit;
  if (tokens.size() == 1) {
    lit.Set(0, values[0]);
    splat(lit);
    return lit;
  }
  for (int64_t i = 0; i < n; ++i) lit.Set(i, values[i]);
  return lit;
}

}  // namespace vkxla
