#include "ir/hlo_parser.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include "ir/numbers.h"

namespace vkxla {
namespace {

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '$'; }

}  // namespace

// XLA prints a large constant's value as "{...}" when asked to keep dumps
// short; such a module still runs, with zeros, and its loader says so once.
std::string ElidedConstantsNote(const Module& module) {
  const std::vector<std::string>& names = module.elided_constants();
  if (names.empty()) return "";
  constexpr size_t kNamed = 3;
  std::string s = names.size() == 1 ? "constant " : "constants ";
  for (size_t i = 0; i < names.size() && i < kNamed; ++i) s += (i ? ", %" : "%") + names[i];
  if (names.size() > kNamed) s += " and " + std::to_string(names.size() - kNamed) + " more";
  return s + " elided in the text ({...}); filled with zeros (vkxla run --constant NAME=@values.npy gives values)";
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text, InferShapeFn infer = nullptr, const OpExpander* expander = nullptr)
      : text_(text), infer_(std::move(infer)), expander_(expander) {}

  StatusOr<std::unique_ptr<Module>> ParseModule();
  StatusOr<Shape> ParseShapeOnly();
  StatusOr<Literal> ParseLiteralOnly(const Shape& shape);

 private:
  // ---- cursor ----
  void SkipSpace();
  bool AtEnd() { SkipSpace(); return pos_ >= text_.size(); }
  char Peek() { SkipSpace(); return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool ConsumeIf(std::string_view s);
  bool ConsumeWord(std::string_view w);  // s, not followed by a name character
  Status Expect(std::string_view s);
  std::string ReadName();                // identifier, leading '%' dropped
  StatusOr<int64_t> ReadInt();
  SourceLocation Loc(size_t pos) const;
  Status Error(size_t pos, const std::string& message) const;
  Status Error(const std::string& message) const { return Error(pos_, message); }

  // ---- grammar ----
  StatusOr<Shape> ParseShape();
  StatusOr<Layout> ParseLayout();
  StatusOr<std::vector<int64_t>> ParseIntList(char open, char close);
  StatusOr<ProgramShape> ParseProgramShape();
  Status ParseComputation(Module& module);
  // Whether the '{' at the cursor opens a layout ("{1,0}", "{}") rather than
  // a computation body (after a signature's result shape).
  bool StartsLayout() const {
    size_t p = pos_ + 1;
    while (p < text_.size() && std::isspace(static_cast<unsigned char>(text_[p]))) ++p;
    return p < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[p])) || text_[p] == '}' || text_[p] == ':');
  }
  Status ParseInstruction(Module& module, Computation& comp, bool& is_root);
  // "operand, ...)" after an instruction's '(' (each maybe with its shape,
  // or itself an instruction written in place).
  Status ParseOperands(Module& module, Computation& comp, Instruction& inst);
  StatusOr<Instruction*> ParseNestedInstruction(Module& module, Computation& comp, const std::string& op_name,
                                                const std::optional<Shape>& written, size_t at);
  // "{ instructions }": a computation's body, into comp.
  Status ParseInstructionList(Module& module, Computation& comp);
  // A computation an attribute names ("%name") or writes in line
  // ("{ ... }", as XLA prints with full bodies): an inline one joins the
  // module under a name of its own.
  StatusOr<Computation*> ParseCalledComputation(Module& module, const Instruction& inst, const std::string& key);
  Status ParseAttribute(Module& module, const Computation& comp, Instruction& inst);
  StatusOr<std::string> ReadRawValue();
  StatusOr<Literal> ParseLiteral(const Shape& shape);
  // The values of an array literal, dim by dim, checked against the shape
  // as they come (so nothing is allocated for a shape the text cannot fill).
  Status ParseLiteralValues(const Shape& shape, int64_t dim, std::vector<Scalar>& values);
  StatusOr<Scalar> ParseScalar(ElementType t);
  StatusOr<double> ParseFloatValue();
  // "nan(0x1)", "-nan(0x7fffff)": a NaN whose mantissa field XLA prints
  // when it is not the plain quiet NaN. Its bits, where the cursor is at
  // one (nullopt, cursor unmoved, where not).
  StatusOr<std::optional<uint64_t>> ParseNanWithPayload(ElementType t);
  StatusOr<ResultAccuracy> ParseResultAccuracy();

  // Whether a shape starts at the cursor ("f32[..", "(..", "token[]")
  // rather than an opcode ("add(").
  bool StartsShape() {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') return true;
    size_t p = pos_;
    while (p < text_.size() && IsNameChar(text_[p])) ++p;
    return p < text_.size() && text_[p] == '[';
  }

  std::string_view text_;
  InferShapeFn infer_;
  const OpExpander* expander_ = nullptr;
  size_t pos_ = 0;
  int tuple_depth_ = 0;  // nesting of the tuple shape being read
  int inline_depth_ = 0;  // computations written in line, one inside the other
  int nested_depth_ = 0;  // instructions written as operands, one inside the other
  std::vector<std::string> elided_;  // constants written "{...}", filled with zeros
  // Elements of the literal being read that are NaNs with a payload: their
  // bits, written as they are (a double would quiet a signalling NaN).
  std::vector<std::pair<size_t, uint64_t>> nan_bits_;
  mutable size_t loc_at_ = 0;  // Loc's last answer
  mutable SourceLocation loc_{1, 1};
};

// ---------------------------------------------------------------- cursor

void Parser::SkipSpace() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos_;
    } else if (text_.substr(pos_, 2) == "//") {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else if (text_.substr(pos_, 2) == "/*") {
      size_t end = text_.find("*/", pos_ + 2);
      pos_ = end == std::string_view::npos ? text_.size() : end + 2;
    } else {
      break;
    }
  }
}

bool Parser::ConsumeIf(std::string_view s) {
  SkipSpace();
  if (text_.substr(pos_, s.size()) == s) {
    pos_ += s.size();
    return true;
  }
  return false;
}

bool Parser::ConsumeWord(std::string_view w) {
  SkipSpace();
  if (text_.substr(pos_, w.size()) != w) return false;
  size_t end = pos_ + w.size();
  if (end < text_.size() && IsNameChar(text_[end])) return false;
  pos_ = end;
  return true;
}

Status Parser::Expect(std::string_view s) {
  if (ConsumeIf(s)) return OkStatus();
  SkipSpace();
  std::string found = pos_ < text_.size() ? "'" + std::string(1, text_[pos_]) + "'" : "end of input";
  return Error("expected '" + std::string(s) + "', found " + found);
}

std::string Parser::ReadName() {
  SkipSpace();
  size_t start = pos_;
  if (pos_ < text_.size() && text_[pos_] == '%') ++start, ++pos_;
  while (pos_ < text_.size() && IsNameChar(text_[pos_])) {
    // "->" ends a name (signatures like "(x: f32[])->f32[]").
    if (text_[pos_] == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') break;
    ++pos_;
  }
  return std::string(text_.substr(start, pos_ - start));
}

StatusOr<int64_t> Parser::ReadInt() {
  SkipSpace();
  size_t start = pos_;
  if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
  while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  std::string s(text_.substr(start, pos_ - start));
  if (s.empty() || s == "-" || s == "+") return Error(start, "expected an integer");
  const std::optional<int64_t> v = ParseInt64(s);
  if (!v) return Error(start, "integer " + s + " out of range");
  return *v;
}

SourceLocation Parser::Loc(size_t pos) const {
  pos = std::min(pos, text_.size());
  if (pos < loc_at_) {  // going back: from the start
    loc_at_ = 0;
    loc_ = {1, 1};
  }
  for (; loc_at_ < pos; ++loc_at_) {  // instructions come in order: the text is walked once
    if (text_[loc_at_] == '\n') {
      ++loc_.line;
      loc_.column = 1;
    } else {
      ++loc_.column;
    }
  }
  return loc_;
}

Status Parser::Error(size_t pos, const std::string& message) const {
  SourceLocation loc = Loc(pos);
  size_t line_start = text_.rfind('\n', pos == 0 ? 0 : pos - 1);
  line_start = (line_start == std::string_view::npos || pos == 0) ? 0 : line_start + 1;
  if (pos < text_.size() && text_[pos] == '\n' && pos > 0 && line_start > pos) line_start = pos;
  size_t line_end = text_.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = text_.size();
  std::string line(text_.substr(line_start, line_end - line_start));
  std::string caret(loc.column > 1 ? loc.column - 1 : 0, ' ');
  return InvalidArgument(loc.ToString() + ": " + message + "\n" + line + "\n" + caret + "^");
}

// ---------------------------------------------------------------- shapes

StatusOr<std::vector<int64_t>> Parser::ParseIntList(char open, char close) {
  VKXLA_RETURN_IF_ERROR(Expect(std::string(1, open)));
  std::vector<int64_t> v;
  if (ConsumeIf(std::string(1, close))) return v;
  do {
    VKXLA_ASSIGN_OR_RETURN(int64_t x, ReadInt());
    v.push_back(x);
  } while (ConsumeIf(","));
  VKXLA_RETURN_IF_ERROR(Expect(std::string(1, close)));
  return v;
}

StatusOr<Layout> Parser::ParseLayout() {
  VKXLA_RETURN_IF_ERROR(Expect("{"));
  Layout layout;
  if (ConsumeIf("}")) return layout;
  if (Peek() != ':') {
    do {
      VKXLA_ASSIGN_OR_RETURN(int64_t d, ReadInt());
      layout.minor_to_major.push_back(d);
    } while (ConsumeIf(","));
  }
  if (ConsumeIf(":")) {
    while (Peek() != '}') {
      size_t at = pos_;
      if (ConsumeIf("T")) {
        while (Peek() == '(') {
          ++pos_;
          Tile tile;
          do {
            if (ConsumeIf("*")) {
              tile.dims.push_back(Tile::kCombine);
            } else {
              VKXLA_ASSIGN_OR_RETURN(int64_t d, ReadInt());
              tile.dims.push_back(d);
            }
          } while (ConsumeIf(","));
          VKXLA_RETURN_IF_ERROR(Expect(")"));
          layout.tiles.push_back(std::move(tile));
        }
      } else if (ConsumeIf("E(")) {
        VKXLA_ASSIGN_OR_RETURN(layout.element_size_in_bits, ReadInt());
        VKXLA_RETURN_IF_ERROR(Expect(")"));
      } else if (ConsumeIf("SC(")) {
        // Split configs ("SC(0:1024,2048)"): where XLA may cut the buffer
        // into separate allocations; the elements' order is unchanged.
        do {
          VKXLA_RETURN_IF_ERROR(ReadInt().status());
        } while (ConsumeIf(":") || ConsumeIf(","));
        VKXLA_RETURN_IF_ERROR(Expect(")"));
      } else if (ConsumeIf("S(")) {
        VKXLA_ASSIGN_OR_RETURN(layout.memory_space, ReadInt());
        VKXLA_RETURN_IF_ERROR(Expect(")"));
      } else if (ConsumeIf("L(") || ConsumeIf("M(")) {
        // Tail padding alignment (L) and the dynamic-shape metadata prefix
        // (M): bytes around the elements in XLA's buffers, not where the
        // elements lie; vkxla lays out its own buffers, so they are dropped.
        VKXLA_RETURN_IF_ERROR(ReadInt().status());
        VKXLA_RETURN_IF_ERROR(Expect(")"));
      } else if (ConsumeIf("D(")) {
        // Dimension level types: all dense (D) is the ordinary array;
        // compressed or singleton dimensions make a sparse array.
        do {
          size_t dim_at = pos_;
          std::string level = ReadName();
          if (level != "D") return Error(dim_at, "sparse layouts are not supported (dimension level '" + level + "')");
          while (ConsumeIf("+") || ConsumeIf("~")) {
          }
        } while (ConsumeIf(","));
        VKXLA_RETURN_IF_ERROR(Expect(")"));
      } else if (ConsumeIf("#(") || ConsumeIf("*(")) {
        // The index and pointer types of a sparse array's buffers: with
        // dense dimensions they mean nothing.
        ReadName();
        VKXLA_RETURN_IF_ERROR(Expect(")"));
      } else {
        return Error(at, "unknown layout attribute; expected T(...), E(...), S(...), L(...), M(...), SC(...), D(...), "
                         "#(...) or *(...)");
      }
    }
  }
  VKXLA_RETURN_IF_ERROR(Expect("}"));
  return layout;
}

StatusOr<Shape> Parser::ParseShape() {
  SkipSpace();
  size_t start = pos_;
  if (ConsumeIf("(")) {
    if (++tuple_depth_ > kMaxTupleDepth)
      return Error(start, "tuple shapes nest deeper than " + std::to_string(kMaxTupleDepth) + " levels");
    std::vector<Shape> elements;
    if (!ConsumeIf(")")) {
      do {
        VKXLA_ASSIGN_OR_RETURN(Shape s, ParseShape());
        elements.push_back(std::move(s));
      } while (ConsumeIf(","));
      VKXLA_RETURN_IF_ERROR(Expect(")"));
    }
    --tuple_depth_;
    return Shape::Tuple(std::move(elements));
  }
  std::string type_name = ReadName();
  auto type = ParseElementType(type_name);
  if (!type || *type == ElementType::kTuple)
    return Error(start, type_name.empty() ? "expected a shape" : "unknown element type '" + type_name + "'");
  VKXLA_RETURN_IF_ERROR(Expect("["));
  Shape shape(*type, {});
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  if (!ConsumeIf("]")) {
    do {
      bool is_dynamic = ConsumeIf("<=");
      if (!is_dynamic && ConsumeIf("?")) return Error("unbounded dynamic dimensions ('?') are not supported; give a bound as '<=N'");
      size_t at = pos_;
      VKXLA_ASSIGN_OR_RETURN(int64_t d, ReadInt());
      if (d < 0) return Error(at, "negative dimension size " + std::to_string(d));
      if (static_cast<int64_t>(dims.size()) == kMaxRank)
        return Error(at, "more than " + std::to_string(kMaxRank) + " dimensions");
      dims.push_back(d);
      dynamic.push_back(is_dynamic);
    } while (ConsumeIf(","));
    VKXLA_RETURN_IF_ERROR(Expect("]"));
  }
  if (*type == ElementType::kToken) {
    if (!dims.empty()) return Error(start, "a token shape has no dimensions");
    return Shape::Token();
  }
  shape = Shape(*type, dims);
  Status bounded = CheckShapeBounds(shape);
  if (!bounded.ok()) return Error(start, bounded.message());
  for (size_t i = 0; i < dynamic.size(); ++i)
    if (dynamic[i]) shape.set_dynamic_dim(i, true);
  if (Peek() == '{' && StartsLayout()) {
    size_t at = pos_;
    VKXLA_ASSIGN_OR_RETURN(Layout layout, ParseLayout());
    // A scalar's tiles (TPU dumps write "f32[]{:T(128)}") only pad its
    // buffer: its one element is first in the first tile either way.
    if (shape.rank() == 0) layout.tiles.clear();
    Status valid = layout.Validate(shape.rank());
    if (!valid.ok()) return Error(at, valid.message());
    shape.set_layout(std::move(layout));
  }
  return shape;
}

StatusOr<ProgramShape> Parser::ParseProgramShape() {
  ProgramShape p;
  VKXLA_RETURN_IF_ERROR(Expect("("));
  if (!ConsumeIf(")")) {
    do {
      VKXLA_ASSIGN_OR_RETURN(Shape s, ParseShape());
      p.parameters.push_back(std::move(s));
    } while (ConsumeIf(","));
    VKXLA_RETURN_IF_ERROR(Expect(")"));
  }
  VKXLA_RETURN_IF_ERROR(Expect("->"));
  VKXLA_ASSIGN_OR_RETURN(p.result, ParseShape());
  return p;
}

// ---------------------------------------------------------------- literals

StatusOr<double> Parser::ParseFloatValue() {
  SkipSpace();
  size_t start = pos_;
  bool neg = ConsumeIf("-");
  if (!neg) ConsumeIf("+");
  if (ConsumeWord("inf")) return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (ConsumeWord("nan")) return neg ? -std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::quiet_NaN();
  size_t num_start = pos_;
  while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
                                 ((text_[pos_] == '-' || text_[pos_] == '+') && pos_ > num_start &&
                                  (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))))
    ++pos_;
  std::string s(text_.substr(num_start, pos_ - num_start));
  const std::optional<double> v = ParseDouble(s);
  if (!v) return Error(start, "expected a number, found '" + s + "'");
  return neg ? -*v : *v;
}

StatusOr<Scalar> Parser::ParseScalar(ElementType t) {
  SkipSpace();
  size_t start = pos_;
  if (t == ElementType::kPred) {
    if (ConsumeWord("true")) return Scalar::Pred(true);
    if (ConsumeWord("false")) return Scalar::Pred(false);
    VKXLA_ASSIGN_OR_RETURN(int64_t v, ReadInt());
    if (v != 0 && v != 1) return Error(start, "expected true, false, 0 or 1 for a pred");
    return Scalar::Pred(v != 0);
  }
  if (IsSignedInt(t) || IsUnsignedInt(t)) {
    bool neg = text_.substr(pos_, 1) == "-";
    size_t s = pos_ + (neg ? 1 : 0);
    size_t e = s;
    while (e < text_.size() && std::isdigit(static_cast<unsigned char>(text_[e]))) ++e;
    if (e == s) return Error(start, "expected an integer for " + std::string(ElementTypeName(t)));
    std::string digits(text_.substr(s, e - s));
    const std::optional<uint64_t> parsed = ParseUint64(digits);
    const uint64_t mag = parsed.value_or(0);
    pos_ = e;
    const int bits = BitWidth(t);
    bool fits;
    if (IsUnsignedInt(t)) {
      fits = !neg && parsed && (bits == 64 || mag < (uint64_t{1} << bits));
    } else {
      const uint64_t limit = uint64_t{1} << (bits - 1);
      fits = parsed && (neg ? mag <= limit : mag < limit);
    }
    if (!fits) return Error(start, "value " + std::string(neg ? "-" : "") + digits + " does not fit in " + std::string(ElementTypeName(t)));
    if (IsUnsignedInt(t)) return Scalar::UInt(t, mag);
    return Scalar::Int(t, neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag));
  }
  if (IsComplex(t)) {
    VKXLA_RETURN_IF_ERROR(Expect("("));
    VKXLA_ASSIGN_OR_RETURN(double re, ParseFloatValue());
    VKXLA_RETURN_IF_ERROR(Expect(","));
    VKXLA_ASSIGN_OR_RETURN(double im, ParseFloatValue());
    VKXLA_RETURN_IF_ERROR(Expect(")"));
    return Scalar::Complex(t, {re, im});
  }
  VKXLA_ASSIGN_OR_RETURN(double v, ParseFloatValue());
  return Scalar::Float(t, v);
}

StatusOr<std::optional<uint64_t>> Parser::ParseNanWithPayload(ElementType t) {
  SkipSpace();
  const size_t start = pos_;
  const bool negative = ConsumeIf("-");
  if (!ConsumeWord("nan") || !ConsumeIf("(")) {
    pos_ = start;
    return std::optional<uint64_t>();
  }
  // XLA's payload is the whole mantissa field (quiet bit included), for
  // the types with infinities and NaNs of every mantissa.
  if (!IsFloat(t) || FloatEncodingOf(t) != FloatEncoding::kIeee)
    return Error(start, std::string(ElementTypeName(t)) + " has one NaN: it does not take a payload nan(0x..)");
  const int exponent_bits = ExponentBits(t), mantissa_bits = MantissaBits(t);
  const size_t digits_at = pos_;
  if (!ConsumeIf("0x")) return Error(digits_at, "expected a hexadecimal NaN payload 0x...");
  const size_t hex_begin = pos_;
  while (pos_ < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  const std::string hex(text_.substr(hex_begin, pos_ - hex_begin));
  const uint64_t mask = (uint64_t{1} << mantissa_bits) - 1;
  uint64_t payload = 0;
  bool fits = !hex.empty() && hex.size() <= 16;
  for (char c : hex) payload = payload * 16 + static_cast<uint64_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10);
  fits = fits && payload != 0 && payload <= mask;
  if (!fits)
    return Error(digits_at, "NaN payload 0x" + hex + " is out of range for " + std::string(ElementTypeName(t)) + " (1 to 0x" +
                                [&] {
                                  char b[24];
                                  std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(mask));
                                  return std::string(b);
                                }() + ")");
  VKXLA_RETURN_IF_ERROR(Expect(")"));
  const int width = 1 + exponent_bits + mantissa_bits;
  const uint64_t exponent = ((uint64_t{1} << exponent_bits) - 1) << mantissa_bits;
  return std::optional<uint64_t>((negative ? uint64_t{1} << (width - 1) : 0) | exponent | payload);
}

Status Parser::ParseLiteralValues(const Shape& shape, int64_t dim, std::vector<Scalar>& values) {
  if (dim == shape.rank()) {
    if (IsFloat(shape.element_type())) {
      VKXLA_ASSIGN_OR_RETURN(std::optional<uint64_t> nan, ParseNanWithPayload(shape.element_type()));
      if (nan) {
        nan_bits_.emplace_back(values.size(), *nan);
        values.push_back(Scalar::FromBits(shape.element_type(), *nan));
        return OkStatus();
      }
    }
    VKXLA_ASSIGN_OR_RETURN(Scalar v, ParseScalar(shape.element_type()));
    values.push_back(v);
    return OkStatus();
  }
  size_t start = pos_;
  VKXLA_RETURN_IF_ERROR(Expect("{"));
  int64_t count = 0;
  if (Peek() != '}') {
    do {
      if (count == shape.dim(dim))
        return Error("too many elements in dimension " + std::to_string(dim) + " of " + shape.ToString() +
                     " (expected " + std::to_string(shape.dim(dim)) + ")");
      VKXLA_RETURN_IF_ERROR(ParseLiteralValues(shape, dim + 1, values));
      ++count;
    } while (ConsumeIf(","));
  }
  if (count != shape.dim(dim))
    return Error(start, "dimension " + std::to_string(dim) + " of " + shape.ToString() + " has " +
                            std::to_string(shape.dim(dim)) + " elements, the literal gives " + std::to_string(count));
  return Expect("}");
}

StatusOr<Literal> Parser::ParseLiteral(const Shape& shape) {
  if (shape.IsTuple()) {
    VKXLA_RETURN_IF_ERROR(Expect("("));
    std::vector<Literal> elements;
    for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
      if (i) VKXLA_RETURN_IF_ERROR(Expect(","));
      VKXLA_ASSIGN_OR_RETURN(Literal e, ParseLiteral(shape.tuple_shapes()[i]));
      elements.push_back(std::move(e));
    }
    VKXLA_RETURN_IF_ERROR(Expect(")"));
    return Literal::Tuple(std::move(elements));
  }
  if (!shape.IsArray()) return Error("a constant must have an array or tuple shape, not " + shape.ToString());
  const size_t start = pos_;
  std::vector<Scalar> values;
  VKXLA_RETURN_IF_ERROR(ParseLiteralValues(shape, 0, values));
  Status fits = CheckLiteralBytes(shape);
  if (!fits.ok()) return Error(start, fits.message());
  Literal lit(shape);
  for (size_t i = 0; i < values.size(); ++i) lit.Set(static_cast<int64_t>(i), values[i]);
  for (const auto& [i, bits] : nan_bits_) std::memcpy(lit.bytes().data() + i * ByteWidth(shape.element_type()), &bits, ByteWidth(shape.element_type()));
  nan_bits_.clear();
  return lit;
}

// ---------------------------------------------------------------- module

StatusOr<ResultAccuracy> Parser::ParseResultAccuracy() {
  ResultAccuracy acc;
  VKXLA_RETURN_IF_ERROR(Expect("{"));
  if (ConsumeIf("mode")) {
    VKXLA_RETURN_IF_ERROR(Expect("="));
    size_t at = pos_;
    std::string mode = ReadName();
    if (mode == "highest" || mode == "HIGHEST") acc.highest = true;
    else if (mode != "default" && mode != "DEFAULT") return Error(at, "unknown result_accuracy mode '" + mode + "'");
  } else {
    VKXLA_RETURN_IF_ERROR(Expect("tolerance"));
    VKXLA_RETURN_IF_ERROR(Expect("="));
    VKXLA_RETURN_IF_ERROR(Expect("{"));
    while (Peek() != '}') {
      size_t at = pos_;
      std::string key = ReadName();
      VKXLA_RETURN_IF_ERROR(Expect("="));
      if (key == "atol") {
        VKXLA_ASSIGN_OR_RETURN(acc.atol, ParseFloatValue());
      } else if (key == "rtol") {
        VKXLA_ASSIGN_OR_RETURN(acc.rtol, ParseFloatValue());
      } else if (key == "ulps") {
        VKXLA_ASSIGN_OR_RETURN(acc.ulps, ReadInt());
      } else {
        return Error(at, "unknown tolerance field '" + key + "'; expected atol, rtol or ulps");
      }
      if (!ConsumeIf(",")) break;
    }
    VKXLA_RETURN_IF_ERROR(Expect("}"));
  }
  VKXLA_RETURN_IF_ERROR(Expect("}"));
  if (acc.atol < 0 || acc.rtol < 0 || acc.ulps < 0) return Error("result_accuracy tolerances must not be negative");
  return acc;
}

StatusOr<std::string> Parser::ReadRawValue() {
  // The value starts on the line of its '=': a line break there means it is
  // missing (not that the next line is the value).
  while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  size_t start = pos_;
  int depth = 0;
  bool in_string = false;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (in_string) {
      if (c == '\\') ++pos_;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ')' || c == ']') {
      if (depth == 0) break;
      --depth;
    } else if (depth == 0 && (c == ',' || c == '\n')) {
      break;
    }
    ++pos_;
  }
  if (depth != 0 || in_string) return Error(start, "unterminated attribute value");
  std::string v(text_.substr(start, pos_ - start));
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  if (v.empty()) return Error(start, "expected an attribute value");
  return v;
}

Status Parser::ParseAttribute(Module& module, const Computation& comp, Instruction& inst) {
  SkipSpace();
  size_t at = pos_;
  std::string key = ReadName();
  if (key.empty()) return Error("expected an attribute name");
  VKXLA_RETURN_IF_ERROR(Expect("="));
  if (key == "dimensions") {
    VKXLA_ASSIGN_OR_RETURN(inst.dimensions, ParseIntList('{', '}'));
  } else if (key == "index") {
    VKXLA_ASSIGN_OR_RETURN(inst.tuple_index, ReadInt());
  } else if (key == "iota_dimension") {
    VKXLA_ASSIGN_OR_RETURN(inst.iota_dimension, ReadInt());
  } else if (key == "exponent_bits") {
    VKXLA_ASSIGN_OR_RETURN(inst.exponent_bits, ReadInt());
  } else if (key == "mantissa_bits") {
    VKXLA_ASSIGN_OR_RETURN(inst.mantissa_bits, ReadInt());
  } else if (key == "direction") {
    size_t vat = pos_;
    std::string v = ReadName();
    auto d = ParseComparisonDirection(v);
    if (!d) return Error(vat, "unknown comparison direction '" + v + "'; expected EQ, NE, GE, GT, LE or LT");
    inst.direction = *d;
  } else if (key == "type" && inst.opcode == Opcode::kCompare) {
    size_t vat = pos_;
    std::string v = ReadName();
    auto t = ParseComparisonType(v);
    if (!t) return Error(vat, "unknown comparison type '" + v + "'; expected FLOAT, TOTALORDER, SIGNED or UNSIGNED");
    inst.comparison_type = *t;
  } else if (key == "result_accuracy") {
    VKXLA_ASSIGN_OR_RETURN(ResultAccuracy acc, ParseResultAccuracy());
    inst.result_accuracy = acc;
  } else if (key == "to_apply" || key == "calls" || key == "condition" || key == "body" || key == "comparator" ||
             key == "select" || key == "scatter" || key == "true_computation" || key == "false_computation") {
    VKXLA_ASSIGN_OR_RETURN(Computation * c, ParseCalledComputation(module, inst, key));
    inst.called_computations.emplace_back(key, c);
  } else if (key == "branch_computations") {
    // {%a, %b, ...}: one entry per branch, in order, each a name or a body.
    VKXLA_RETURN_IF_ERROR(Expect("{"));
    SkipSpace();
    while (!ConsumeIf("}")) {
      if (!inst.called_computations.empty() && inst.called_computations.back().first == key) VKXLA_RETURN_IF_ERROR(Expect(","));
      VKXLA_ASSIGN_OR_RETURN(Computation * c, ParseCalledComputation(module, inst, key));
      inst.called_computations.emplace_back(key, c);
      SkipSpace();
    }
  } else if (key == "control-predecessors") {
    // {%a, %b}: instructions that must run first although no value flows
    // from them, an order only side effects can observe. XLA writes each
    // predecessor before the instructions it orders and the plan follows
    // the written order (the fusion pass walks it once), so the names are
    // only checked and kept verbatim.
    const size_t value_at = pos_;
    VKXLA_RETURN_IF_ERROR(Expect("{"));
    if (!ConsumeIf("}")) {
      do {
        SkipSpace();
        size_t vat = pos_;
        std::string name = ReadName();
        if (name.empty()) return Error(vat, "expected an instruction name in control-predecessors={...}");
        if (!comp.Find(name)) return Error(vat, "undefined instruction '%" + name + "' in control-predecessors=");
      } while (ConsumeIf(","));
      VKXLA_RETURN_IF_ERROR(Expect("}"));
    }
    inst.other_attributes.emplace_back(key, std::string(text_.substr(value_at, pos_ - value_at)));
  } else {
    // Everything else is kept verbatim: metadata, backend_config, sharding,
    // frontend_attributes, statistics, origin, parameter_replication, ...
    // describe where an op came from or how XLA would place and emit it,
    // not what it computes. The ops that read an attribute find it here.
    VKXLA_ASSIGN_OR_RETURN(std::string raw, ReadRawValue());
    inst.other_attributes.emplace_back(key, raw);
  }
  (void)at;
  return OkStatus();
}

Status Parser::ParseOperands(Module& module, Computation& comp, Instruction& inst) {
  if (ConsumeIf(")")) return OkStatus();
  do {
    SkipSpace();
    if (pos_ >= text_.size()) return Error("expected an operand, found end of input");
    size_t operand_at = pos_;
    std::optional<Shape> written;
    // An operand may be written with its shape: "f32[2]{0} %x".
    if (text_[pos_] == '(' || (text_[pos_] != '%' && [&] {
          size_t p = pos_;
          while (p < text_.size() && IsNameChar(text_[p])) ++p;
          return p < text_.size() && text_[p] == '[';
        }())) {
      VKXLA_ASSIGN_OR_RETURN(Shape s, ParseShape());
      written = std::move(s);
      SkipSpace();
      operand_at = pos_;
    }
    std::string name = ReadName();
    if (name.empty()) return Error(operand_at, "expected an operand name");
    Instruction* operand = comp.Find(name);
    if (!operand && Peek() == '(' && ParseOpcode(name)) {
      // An instruction written in place of its operand ("add(max(x, y),
      // z)", as XLA's parser reads): it takes a name of its own.
      VKXLA_ASSIGN_OR_RETURN(operand, ParseNestedInstruction(module, comp, name, written, operand_at));
    }
    if (!operand) return Error(operand_at, "use of undefined value '%" + name + "' in %" + inst.name);
    if (written && !written->Compatible(operand->shape))
      return Error(operand_at, "operand '%" + name + "' is written as " + written->ToString() + " but is " +
                                   operand->shape.ToString());
    inst.operands.push_back(operand);
  } while (ConsumeIf(","));
  return Expect(")");
}

StatusOr<Instruction*> Parser::ParseNestedInstruction(Module& module, Computation& comp, const std::string& op_name,
                                                      const std::optional<Shape>& written, size_t at) {
  constexpr int kMaxNesting = 64;  // each level is a few frames of this parser's stack
  if (nested_depth_ >= kMaxNesting)
    return Error(at, "instructions written as operands nest deeper than " + std::to_string(kMaxNesting) + " levels");
  auto inst = std::make_unique<Instruction>();
  inst->opcode = *ParseOpcode(op_name);
  for (int k = 0; inst->name.empty() || comp.Find(inst->name); ++k) inst->name = op_name + ".anon" + (k ? "." + std::to_string(k) : "");
  inst->location = Loc(at);
  VKXLA_RETURN_IF_ERROR(Expect("("));
  if (inst->opcode == Opcode::kParameter || inst->opcode == Opcode::kConstant)
    return Error(at, op_name + " cannot be written as an operand; give it a line of its own");
  ++nested_depth_;
  Status operands = ParseOperands(module, comp, *inst);
  --nested_depth_;
  VKXLA_RETURN_IF_ERROR(operands);
  if (written) {
    inst->shape = *written;
  } else {
    if (!infer_) return Error(at, "expected the shape of " + op_name + " written as an operand");
    StatusOr<Shape> inferred = infer_(*inst);
    if (!inferred.ok()) return Error(at, inferred.status().message());
    inst->shape = std::move(*inferred);
  }
  return comp.AddInstruction(std::move(inst));
}

Status Parser::ParseInstruction(Module& module, Computation& comp, bool& is_root) {
  SkipSpace();
  size_t start = pos_;
  is_root = ConsumeWord("ROOT");
  auto inst = std::make_unique<Instruction>();
  SkipSpace();
  size_t name_at = pos_;
  inst->name = ReadName();
  if (inst->name.empty()) return Error("expected an instruction name");
  if (comp.Find(inst->name)) return Error(name_at, "instruction '%" + inst->name + "' is defined twice");
  inst->location = Loc(name_at);
  VKXLA_RETURN_IF_ERROR(Expect("="));
  const bool shape_written = StartsShape();
  if (shape_written) {
    VKXLA_ASSIGN_OR_RETURN(inst->shape, ParseShape());
  }
  SkipSpace();
  size_t op_at = pos_;
  std::string op_name = ReadName();
  // A fusion computes what its fused computation (calls=) computes, whatever
  // its kind= (kLoop, kInput, kOutput, kCustom) says about how XLA emits it:
  // it is read as a call of that computation, kind= kept verbatim.
  const bool fusion = op_name == "fusion";
  auto opcode = fusion ? std::optional<Opcode>(Opcode::kCall) : ParseOpcode(op_name);
  // An op the caller expands is read as a copy of its first operand (its
  // shape follows from it; an opt-barrier for a tuple), then given its
  // expansion as the operand.
  const bool expanded = !opcode && !op_name.empty() && expander_ && expander_->handles(op_name);
  if (expanded) opcode = Opcode::kCopy;
  if (!opcode) return Error(op_at, op_name.empty() ? "expected an opcode" : "unknown opcode '" + op_name + "'");
  inst->opcode = *opcode;
  VKXLA_RETURN_IF_ERROR(Expect("("));
  if (inst->opcode == Opcode::kParameter) {
    VKXLA_ASSIGN_OR_RETURN(inst->parameter_number, ReadInt());
    if (inst->parameter_number < 0) return Error("parameter number must not be negative");
    VKXLA_RETURN_IF_ERROR(Expect(")"));
  } else if (inst->opcode == Opcode::kConstant) {
    SkipSpace();
    if (text_.substr(pos_, 5) == "{...}") {
      if (!inst->shape.IsArray() && !inst->shape.IsTuple())
        return Error("a constant must have an array or tuple shape, not " + inst->shape.ToString());
      Status fits = CheckLiteralBytes(inst->shape);
      if (!fits.ok()) return Error(fits.message());
      pos_ += 5;
      inst->literal = Literal(inst->shape);  // zeros
      elided_.push_back(inst->name);
    } else {
      VKXLA_ASSIGN_OR_RETURN(Literal lit, ParseLiteral(inst->shape));
      inst->literal = std::move(lit);
    }
    VKXLA_RETURN_IF_ERROR(Expect(")"));
  } else {
    VKXLA_RETURN_IF_ERROR(ParseOperands(module, comp, *inst));
    // A tuple is held through an opt-barrier (its identity), not a copy.
    if (expanded && inst->operands.size() == 1 && inst->operands[0]->shape.IsTuple())
      inst->opcode = Opcode::kOptimizationBarrier;
  }
  while (true) {
    // Attributes follow on the same line: ", name=value".
    size_t save = pos_;
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      VKXLA_RETURN_IF_ERROR(ParseAttribute(module, comp, *inst));
    } else {
      pos_ = save;
      break;
    }
  }
  // A broadcast of a scalar may leave out dimensions={}: XLA's parser asks
  // for them only where the operand has dims (its GPU emitter tests write
  // `broadcast(zero)`).
  if (inst->opcode == Opcode::kBroadcast && !inst->dimensions && inst->operands.size() == 1 &&
      inst->operands[0]->shape.IsArray() && inst->operands[0]->shape.rank() == 0)
    inst->dimensions = std::vector<int64_t>{};
  if (fusion) {
    bool one_callee = inst->called_computations.size() == 1 && inst->called_computations[0].first == "calls";
    if (!one_callee) return Error(op_at, "fusion %" + inst->name + " needs one calls=%computation (the fused computation)");
    inst->called_computations[0].first = "to_apply";
  }
  if (!shape_written) {
    if (!infer_) return Error(op_at, "expected the shape of %" + inst->name + " before " + op_name);
    StatusOr<Shape> inferred = infer_(*inst);
    if (!inferred.ok()) return Error(op_at, inferred.status().message());
    inst->shape = std::move(*inferred);
  }
  if (expanded) {
    StatusOr<Instruction*> value = expander_->expand(comp, op_name, *inst);
    if (!value.ok()) return Error(op_at, op_name + " %" + inst->name + ": " + value.status().message());
    inst->operands = {*value};
    inst->other_attributes.clear();
  }
  Instruction* raw = comp.AddInstruction(std::move(inst));
  if (is_root) {
    if (comp.root()) return Error(start, "computation '" + comp.name() + "' has more than one ROOT");
    comp.set_root(raw);
  }
  return OkStatus();
}

Status Parser::ParseInstructionList(Module& module, Computation& comp) {
  SkipSpace();
  const size_t open = pos_;
  VKXLA_RETURN_IF_ERROR(Expect("{"));
  while (Peek() != '}') {
    if (AtEnd()) return Error("unexpected end of input in computation '" + comp.name() + "'; expected '}'");
    bool is_root = false;
    VKXLA_RETURN_IF_ERROR(ParseInstruction(module, comp, is_root));
  }
  VKXLA_RETURN_IF_ERROR(Expect("}"));
  if (comp.instructions().empty()) return Error(open, "computation '" + comp.name() + "' is empty");
  if (!comp.root()) comp.set_root(comp.instructions().back().get());
  return OkStatus();
}

StatusOr<Computation*> Parser::ParseCalledComputation(Module& module, const Instruction& inst, const std::string& key) {
  SkipSpace();
  const size_t at = pos_;
  if (Peek() != '{') {
    std::string name = ReadName();
    if (name.empty()) return Error(at, "expected a computation name or body in " + key + "=");
    Computation* c = module.Find(name);
    if (!c) return Error(at, "undefined computation '%" + name + "' in " + key + "=");
    return c;
  }
  // Bounded: each level is a few frames of this parser's stack.
  constexpr int kMaxInlineDepth = 64;
  if (inline_depth_ >= kMaxInlineDepth)
    return Error(at, "computations written in line nest deeper than " + std::to_string(kMaxInlineDepth) + " levels");
  std::string name = inst.name + "." + key;
  for (int k = 1; module.Find(name); ++k) name = inst.name + "." + key + "." + std::to_string(k);
  auto comp = std::make_unique<Computation>(name);
  ++inline_depth_;
  Status parsed = ParseInstructionList(module, *comp);
  --inline_depth_;
  VKXLA_RETURN_IF_ERROR(parsed);
  return module.AddComputation(std::move(comp));
}

Status Parser::ParseComputation(Module& module) {
  SkipSpace();
  bool is_entry = ConsumeWord("ENTRY");
  SkipSpace();
  size_t name_at = pos_;
  std::string name = ReadName();
  if (name.empty()) return Error("expected a computation name");
  if (module.Find(name)) return Error(name_at, "computation '%" + name + "' is defined twice");
  auto comp = std::make_unique<Computation>(name);
  // Optional signature "(a: f32[], b: f32[]) -> f32[]"; the instructions
  // carry the shapes, so it is read and checked only for form.
  if (ConsumeIf("(")) {
    if (!ConsumeIf(")")) {
      do {
        ReadName();
        VKXLA_RETURN_IF_ERROR(Expect(":"));
        VKXLA_ASSIGN_OR_RETURN(Shape s, ParseShape());
        (void)s;
      } while (ConsumeIf(","));
      VKXLA_RETURN_IF_ERROR(Expect(")"));
    }
    VKXLA_RETURN_IF_ERROR(Expect("->"));
    VKXLA_ASSIGN_OR_RETURN(Shape r, ParseShape());
    (void)r;
  }
  VKXLA_RETURN_IF_ERROR(ParseInstructionList(module, *comp));
  // "}, execution_thread=\"sparsecore\"": which thread XLA runs the
  // computation on; one device runs every computation in order, so such
  // attributes are read and dropped.
  while (ConsumeIf(",")) {
    SkipSpace();
    size_t key_at = pos_;
    std::string key = ReadName();
    if (key.empty()) return Error(key_at, "expected a computation attribute after ','");
    VKXLA_RETURN_IF_ERROR(Expect("="));
    VKXLA_RETURN_IF_ERROR(ReadRawValue().status());
  }
  Computation* raw = module.AddComputation(std::move(comp));
  if (is_entry) {
    if (module.entry()) return Error(name_at, "more than one ENTRY computation");
    module.set_entry(raw);
  }
  return OkStatus();
}

StatusOr<std::unique_ptr<Module>> Parser::ParseModule() {
  // XLA's parser also reads text without the "HloModule name, ..." line,
  // starting with a computation; the module is then named after its entry.
  const bool has_header = ConsumeWord("HloModule");
  std::string name;
  if (has_header) {
    name = ReadName();
    if (name.empty()) return Error("expected the module's name after 'HloModule'");
  } else if (AtEnd()) {
    return Error("expected 'HloModule' or a computation");
  }
  auto module = std::make_unique<Module>(name);
  std::optional<ProgramShape> entry_layout;
  size_t layout_at = 0;
  while (has_header && ConsumeIf(",")) {
    // is_scheduled, replica_count, num_partitions, input_output_alias,
    // frontend_attributes, allow_spmd_sharding_propagation_to_output, ...:
    // how XLA compiles and places the module, none of which changes what
    // it computes on one device; entry_computation_layout, replica_count and
    // num_partitions are kept.
    SkipSpace();
    size_t key_at = pos_;
    std::string key = ReadName();
    if (key.empty()) return Error(key_at, "expected a module attribute after ','");
    VKXLA_RETURN_IF_ERROR(Expect("="));
    if (key == "entry_computation_layout") {
      VKXLA_RETURN_IF_ERROR(Expect("{"));
      layout_at = pos_;
      VKXLA_ASSIGN_OR_RETURN(ProgramShape p, ParseProgramShape());
      VKXLA_RETURN_IF_ERROR(Expect("}"));
      entry_layout = std::move(p);
    } else if (key == "replica_count" || key == "num_partitions") {
      const size_t value_at = pos_;
      VKXLA_ASSIGN_OR_RETURN(std::string raw, ReadRawValue());
      std::optional<int64_t> n = ParseInt64(raw);
      // Any positive count parses; a run checks the grid it can hold.
      if (!n || *n < 1 || *n > (int64_t{1} << 31))
        return Error(value_at, key + " must be a positive integer, got \"" + raw + "\"");
      if (key == "replica_count") module->set_replica_count(*n);
      else module->set_num_partitions(*n);
    } else {
      VKXLA_RETURN_IF_ERROR(ReadRawValue().status());
    }
  }
  while (!AtEnd()) VKXLA_RETURN_IF_ERROR(ParseComputation(*module));
  if (module->computations().empty()) return Error("the module has no computations");
  if (!module->entry()) module->set_entry(module->computations().back().get());
  if (!has_header) module->set_name("module_" + module->entry()->name());
  if (entry_layout) {
    // Each entry in the layout must match the entry's parameter shapes.
    auto params = module->entry()->parameters();
    if (entry_layout->parameters.size() != params.size())
      return Error(layout_at, "entry_computation_layout has " + std::to_string(entry_layout->parameters.size()) +
                                  " parameters, the entry computation " + std::to_string(params.size()));
    for (size_t i = 0; i < params.size(); ++i)
      if (!entry_layout->parameters[i].Compatible(params[i]->shape))
        return Error(layout_at, "entry_computation_layout parameter " + std::to_string(i) + " is " +
                                    entry_layout->parameters[i].ToString() + " but parameter %" + params[i]->name +
                                    " is " + params[i]->shape.ToString());
    if (!entry_layout->result.Compatible(module->entry()->root()->shape))
      return Error(layout_at, "entry_computation_layout result is " + entry_layout->result.ToString() +
                                  " but the entry's root is " + module->entry()->root()->shape.ToString());
    module->set_entry_layout(std::move(*entry_layout));
  }
  module->set_elided_constants(std::move(elided_));
  return module;
}

StatusOr<Shape> Parser::ParseShapeOnly() {
  VKXLA_ASSIGN_OR_RETURN(Shape s, ParseShape());
  if (!AtEnd()) return Error("unexpected text after the shape");
  return s;
}

StatusOr<Literal> Parser::ParseLiteralOnly(const Shape& shape) {
  VKXLA_ASSIGN_OR_RETURN(Literal l, ParseLiteral(shape));
  if (!AtEnd()) return Error("unexpected text after the literal");
  return l;
}

}  // namespace

StatusOr<std::unique_ptr<Module>> ParseHloText(std::string_view text, const InferShapeFn& infer, const OpExpander* expander) {
  return Parser(text, infer, expander).ParseModule();
}
StatusOr<Shape> ParseShape(std::string_view text) { return Parser(text).ParseShapeOnly(); }
StatusOr<Literal> ParseLiteral(std::string_view text, const Shape& shape) {
  return Parser(text).ParseLiteralOnly(shape);
}

}  // namespace vkxla
