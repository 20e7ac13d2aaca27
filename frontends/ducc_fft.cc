#include "frontends/ducc_fft.h"

#include <cstring>
#include <optional>

#include "frontends/custom_call_results.h"
#include "ops/fft.h"

namespace vkxla {
namespace {

// A flatbuffer table read with every offset checked against the buffer.
class FlatTable {
 public:
  static StatusOr<FlatTable> Root(std::vector<uint8_t> bytes) {
    FlatTable t;
    t.bytes_ = std::move(bytes);
    VKXLA_ASSIGN_OR_RETURN(const uint32_t root, t.U32(0));
    VKXLA_ASSIGN_OR_RETURN(const uint32_t back, t.U32(root));
    const int64_t vtable = static_cast<int64_t>(root) - static_cast<int32_t>(back);
    if (vtable < 0) return InvalidArgument("the descriptor's vtable lies outside it");
    t.table_ = root;
    t.vtable_ = static_cast<size_t>(vtable);
    VKXLA_ASSIGN_OR_RETURN(t.vtable_size_, t.U16(t.vtable_));
    return t;
  }

  // Where field `i` lies, or nothing where it holds its default.
  StatusOr<std::optional<size_t>> Field(int i) const {
    const size_t entry = 4 + 2 * static_cast<size_t>(i);
    if (entry + 2 > vtable_size_) return std::optional<size_t>();
    VKXLA_ASSIGN_OR_RETURN(const uint16_t offset, U16(vtable_ + entry));
    if (offset == 0) return std::optional<size_t>();
    return std::optional<size_t>(table_ + offset);
  }
  StatusOr<uint8_t> Byte(int i, uint8_t fallback) const {
    VKXLA_ASSIGN_OR_RETURN(std::optional<size_t> at, Field(i));
    if (!at) return fallback;
    if (*at >= bytes_.size()) return OutOfRange();
    return bytes_[*at];
  }
  StatusOr<uint32_t> Uint32(int i, uint32_t fallback) const {
    VKXLA_ASSIGN_OR_RETURN(std::optional<size_t> at, Field(i));
    if (!at) return fallback;
    return U32(*at);
  }
  StatusOr<double> Double(int i, double fallback) const {
    VKXLA_ASSIGN_OR_RETURN(std::optional<size_t> at, Field(i));
    if (!at) return fallback;
    if (*at + 8 > bytes_.size()) return OutOfRange();
    double v;
    std::memcpy(&v, bytes_.data() + *at, 8);
    return v;
  }
  // A vector of unsigned integers of `width` bytes (absent: empty).
  StatusOr<std::vector<uint64_t>> Vector(int i, size_t width) const {
    VKXLA_ASSIGN_OR_RETURN(std::optional<size_t> at, Field(i));
    std::vector<uint64_t> out;
    if (!at) return out;
    VKXLA_ASSIGN_OR_RETURN(const uint32_t offset, U32(*at));
    const size_t start = *at + offset;
    VKXLA_ASSIGN_OR_RETURN(const uint32_t count, U32(start));
    if (count > (bytes_.size() - start) / width) return OutOfRange();
    for (size_t k = 0; k < count; ++k) {
      uint64_t v = 0;
      for (size_t b = 0; b < width; ++b) v |= static_cast<uint64_t>(bytes_[start + 4 + k * width + b]) << (8 * b);
      out.push_back(v);
    }
    return out;
  }

 private:
  static Status OutOfRange() { return InvalidArgument("the descriptor's fields lie outside it"); }
  StatusOr<uint16_t> U16(size_t at) const {
    if (at + 2 > bytes_.size() || at + 2 < at) return OutOfRange();
    return static_cast<uint16_t>(bytes_[at] | bytes_[at + 1] << 8);
  }
  StatusOr<uint32_t> U32(size_t at) const {
    if (at + 4 > bytes_.size() || at + 4 < at) return OutOfRange();
    return static_cast<uint32_t>(bytes_[at]) | static_cast<uint32_t>(bytes_[at + 1]) << 8 | static_cast<uint32_t>(bytes_[at + 2]) << 16 |
           static_cast<uint32_t>(bytes_[at + 3]) << 24;
  }

  std::vector<uint8_t> bytes_;
  size_t table_ = 0, vtable_ = 0;
  uint16_t vtable_size_ = 0;
};

enum DuccFftKind : uint8_t { kC2c = 0, kC2r = 1, kR2c = 2 };

// What both forms describe.
struct DuccFft {
  uint8_t dtype = 0, kind = kC2c;
  std::vector<uint64_t> axes;
  bool forward = true;
};

}  // namespace

bool IsDuccFft(const std::string& target) { return target == "ducc_fft" || target == "dynamic_ducc_fft"; }

StatusOr<std::vector<Instruction*>> LowerDuccFft(const ExpandedCustomCall& c, const HloMaker& make, const ConstantMaker& constant) {
  const bool dynamic = c.target == "dynamic_ducc_fft";
  if (c.operands.size() != (dynamic ? 7u : 2u) || c.result_types.size() != 1)
    return CustomCallError(c, dynamic ? "takes a descriptor, x, its shape, both strides, a scale and the result's shape"
                                      : "takes a descriptor and x and gives one array");
  VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> raw, c.integers(0));
  std::vector<uint8_t> bytes;
  for (int64_t b : raw) bytes.push_back(static_cast<uint8_t>(b));
  auto located = [&](Status s) { return s.ok() ? s : CustomCallError(c, s.message()); };
  StatusOr<FlatTable> table = FlatTable::Root(std::move(bytes));
  VKXLA_RETURN_IF_ERROR(located(table.status()));
  // Field numbers: DuccFftDescriptor (dtype, fft_type, shape, strides_in,
  // strides_out, axes, forward, scale); DynamicDuccFftDescriptor (ndims,
  // dtype, fft_type, axes, forward).
  const int first = dynamic ? 1 : 0;
  DuccFft d;
  StatusOr<uint8_t> dtype = table->Byte(first, 0), kind = table->Byte(first + 1, kC2c), forward = table->Byte(dynamic ? 4 : 6, 0);
  StatusOr<std::vector<uint64_t>> axes = table->Vector(dynamic ? 3 : 5, 4);
  for (const Status& s : {dtype.status(), kind.status(), forward.status(), axes.status()}) VKXLA_RETURN_IF_ERROR(located(s));
  d.dtype = *dtype;
  d.kind = *kind;
  d.forward = *forward != 0;
  d.axes = *axes;

  Instruction* x = c.operands[1];
  const Shape& in = x->shape;
  const Shape& out = c.result_types[0];
  if (!in.IsArray() || !out.IsArray() || in.rank() != out.rank() || in.rank() == 0)
    return CustomCallError(c, "transforms an array into one of its rank, not " + in.ToString() + " into " + out.ToString());
  const int64_t rank = in.rank();
  if (d.dtype > 1 || d.kind > kR2c) return CustomCallError(c, "its descriptor names no known dtype and FFT type");
  const ElementType complex = d.dtype == 0 ? ElementType::kC64 : ElementType::kC128;
  const ElementType real = d.dtype == 0 ? ElementType::kF32 : ElementType::kF64;
  const ElementType want_in = d.kind == kR2c ? real : complex, want_out = d.kind == kC2r ? real : complex;
  if (in.element_type() != want_in || out.element_type() != want_out)
    return CustomCallError(c, "its descriptor transforms " + std::string(ElementTypeName(want_in)) + " into " +
                                  std::string(ElementTypeName(want_out)) + ", not " + in.ToString() + " into " + out.ToString());
  if ((d.kind == kR2c && !d.forward) || (d.kind == kC2r && d.forward))
    return CustomCallError(c, "its descriptor asks for an FFT type in the wrong direction");
  if (d.axes.empty() || static_cast<int64_t>(d.axes.size()) > std::min<int64_t>(rank, 3))
    return CustomCallError(c, "transforms " + std::to_string(d.axes.size()) + " axes of " + in.ToString() + ": 1 to 3 are supported");
  for (size_t k = 0; k < d.axes.size(); ++k)
    if (d.axes[k] != static_cast<uint64_t>(rank - static_cast<int64_t>(d.axes.size()) + static_cast<int64_t>(k)))
      return CustomCallError(c, "transforms axes that are not the trailing ones of " + in.ToString() + " in order");
  // Row-major strides in and out, as jax.numpy.fft laid the arrays out.
  auto row_major = [](const Shape& s) {
    std::vector<int64_t> strides(static_cast<size_t>(s.rank()), 1);
    for (int64_t k = s.rank() - 1; k > 0; --k) strides[static_cast<size_t>(k - 1)] = strides[static_cast<size_t>(k)] * s.dim(k);
    return strides;
  };
  std::vector<std::vector<int64_t>> strides;
  if (dynamic) {
    for (size_t i : {3u, 4u}) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> s, c.integers(i));
      strides.push_back(s);
    }
  } else {
    for (int field : {3, 4}) {
      StatusOr<std::vector<uint64_t>> s = table->Vector(field, 8);
      VKXLA_RETURN_IF_ERROR(located(s.status()));
      strides.emplace_back(s->begin(), s->end());
    }
  }
  if (strides[0] != row_major(in) || strides[1] != row_major(out))
    return CustomCallError(c, "its strides are not the row-major ones of " + in.ToString() + " and " + out.ToString());

  // The lengths of the transformed axes in the real domain.
  const Shape& signal = d.kind == kC2r ? out : in;
  std::vector<int64_t> lengths;
  double points = 1;
  for (uint64_t a : d.axes) {
    lengths.push_back(signal.dim(static_cast<int64_t>(a)));
    points *= static_cast<double>(lengths.back());
  }
  const FftType type = d.kind == kR2c ? FftType::kRfft : d.kind == kC2r ? FftType::kIrfft : d.forward ? FftType::kFft : FftType::kIfft;
  Instruction* f = make(Opcode::kFft, out, {x});
  SetFftAttributes(*f, type, lengths);
  // ducc scales its result by `scale`; XLA's inverse already divides by the points.
  const double undo = type == FftType::kIfft || type == FftType::kIrfft ? points : 1.0;
  Instruction* factor = nullptr;
  if (dynamic) {
    Instruction* scale = c.operands[5];
    if (!scale->shape.IsArray() || scale->shape.element_count() != 1 || scale->shape.element_type() != ElementType::kF64)
      return CustomCallError(c, "takes its scale as one f64, not " + scale->shape.ToString());
    Instruction* scalar = make(Opcode::kReshape, Shape::Scalar(ElementType::kF64), {scale});
    Literal points_literal(Shape::Scalar(ElementType::kF64));
    points_literal.Set(0, Scalar::Float(ElementType::kF64, undo));
    factor = make(Opcode::kMultiply, Shape::Scalar(ElementType::kF64), {scalar, constant(std::move(points_literal))});
  } else {
    StatusOr<double> scale = table->Double(7, 1.0);
    VKXLA_RETURN_IF_ERROR(located(scale.status()));
    if (*scale * undo == 1.0) return std::vector<Instruction*>{f};
    Literal value(Shape::Scalar(ElementType::kF64));
    value.Set(0, Scalar::Float(ElementType::kF64, *scale * undo));
    factor = constant(std::move(value));
  }
  Instruction* typed = make(Opcode::kConvert, Shape::Scalar(out.element_type()), {factor});
  Instruction* spread = make(Opcode::kBroadcast, out, {typed});
  spread->dimensions = std::vector<int64_t>{};
  return std::vector<Instruction*>{make(Opcode::kMultiply, out, {f, spread})};
}

}  // namespace vkxla
