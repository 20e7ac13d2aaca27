#include "plan/fft_expansion.h"

#include "ops/attributes.h"
#include "ops/fft.h"
#include "ops/slice_and_padding.h"
#include "plan/fft_config.h"
#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

// A real transform the FFT step does not take itself.
bool IsRealFft(const Instruction& inst) {
  if (inst.opcode != Opcode::kFft) return false;
  const std::string* type = FindAttribute(inst, "fft_type");
  return type && (*type == "RFFT" || *type == "IRFFT") && !VkfftTakesRfft(inst);
}

// Writes the expansion of one real transform into a computation, each new
// op named after it.
class Expander {
 public:
  Expander(Computation& c, const Instruction& fft) : c_(c), fft_(fft) {}

  StatusOr<Instruction*> Expand(Instruction* operand) {
    ASSIGN_OR_RETURN(FftParams p, ReadFft(fft_));
    const Shape& x = operand->shape;
    const int64_t rank = x.rank(), l = static_cast<int64_t>(p.lengths.size()), n = p.lengths.back();
    Instruction* result = nullptr;
    if (p.type == FftType::kRfft) {
      const ElementType complex = x.element_type() == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128;
      Instruction* zero = Constant(Scalar::Float(x.element_type(), 0.0));
      Instruction* zeros = Add(Opcode::kBroadcast, Shape(x.element_type(), x.dims()), {zero});
      zeros->dimensions = std::vector<int64_t>{};
      Instruction* z = Add(Opcode::kComplex, Shape(complex, x.dims()), {operand, zeros});
      Instruction* spectrum = Transform(z, FftType::kFft, p.lengths);
      result = Slice(spectrum, rank - 1, 0, fft_.shape.dims().back());
    } else {
      const int64_t half = x.dims().back();
      Instruction* full = operand;
      if (n > half) {
        // Frequencies half..n-1 mirror n-half..1: conjugates of the
        // reversed run, each outer transformed index i read at -i.
        Instruction* mirrored = Reverse(Slice(operand, rank - 1, 1, n - half + 1), rank - 1);
        for (int64_t d = rank - l; d < rank - 1; ++d) mirrored = Negated(mirrored, d);
        full = Concatenate({operand, Conjugate(mirrored)}, rank - 1);
      }
      Instruction* signal = Transform(full, FftType::kIfft, p.lengths);
      result = Add(Opcode::kReal, Shape(ComplexComponentType(x.element_type()), signal->shape.dims()), {signal});
    }
    result->shape = fft_.shape;  // the layout it was asked in
    return result;
  }

 private:
  Instruction* Add(Opcode op, Shape shape, std::vector<Instruction*> operands) {
    return AddDerived(c_, fft_, "real_fft", next_, op, std::move(shape), std::move(operands));
  }
  Instruction* Constant(const Scalar& v) {
    Instruction* k = Add(Opcode::kConstant, Shape::Scalar(v.type), {});
    k->literal = Literal::ScalarOf(v);
    return k;
  }
  Instruction* Transform(Instruction* x, FftType type, const std::vector<int64_t>& lengths) {
    std::vector<int64_t> dims = x->shape.dims();
    dims.back() = lengths.back();
    Instruction* t = Add(Opcode::kFft, Shape(x->shape.element_type(), dims), {x});
    SetFftAttributes(*t, type, lengths);
    return t;
  }
  Instruction* Slice(Instruction* x, int64_t dim, int64_t start, int64_t limit) {
    std::vector<SliceDimension> slice;
    std::vector<int64_t> dims = x->shape.dims();
    for (int64_t d = 0; d < x->shape.rank(); ++d) slice.push_back(d == dim ? SliceDimension{start, limit, 1} : SliceDimension{0, dims[d], 1});
    dims[dim] = limit - start;
    Instruction* s = Add(Opcode::kSlice, Shape(x->shape.element_type(), dims), {x});
    s->other_attributes.emplace_back("slice", SliceText(slice));
    return s;
  }
  Instruction* Reverse(Instruction* x, int64_t dim) {
    Instruction* r = Add(Opcode::kReverse, x->shape, {x});
    r->dimensions = std::vector<int64_t>{dim};
    return r;
  }
  Instruction* Concatenate(std::vector<Instruction*> parts, int64_t dim) {
    std::vector<int64_t> dims = parts[0]->shape.dims();
    dims[dim] = 0;
    for (const Instruction* p : parts) dims[dim] += p->shape.dim(dim);
    const Shape shape(parts[0]->shape.element_type(), dims);
    Instruction* c = Add(Opcode::kConcatenate, shape, std::move(parts));
    c->dimensions = std::vector<int64_t>{dim};
    return c;
  }
  // x read at index -i modulo its size along `dim`: element 0 stays, the rest reverse.
  Instruction* Negated(Instruction* x, int64_t dim) {
    const int64_t m = x->shape.dim(dim);
    if (m <= 2) return x;  // 0 and 1 are their own negatives modulo 1 and 2
    return Concatenate({Slice(x, dim, 0, 1), Reverse(Slice(x, dim, 1, m), dim)}, dim);
  }
  Instruction* Conjugate(Instruction* z) {
    const Shape real(ComplexComponentType(z->shape.element_type()), z->shape.dims());
    Instruction* re = Add(Opcode::kReal, real, {z});
    Instruction* im = Add(Opcode::kImag, real, {z});
    return Add(Opcode::kComplex, z->shape, {re, Add(Opcode::kNegate, real, {im})});
  }

  Computation& c_;
  const Instruction& fft_;
  int next_ = 0;
};

}  // namespace

StatusOr<std::shared_ptr<const Module>> ExpandRealFfts(const Module& module) {
  return RewriteModule(module, IsRealFft, [](Computation& c, const Instruction& fft, const std::vector<Instruction*>& operands) {
    return Expander(c, fft).Expand(operands.at(0));
  });
}

}  // namespace vkxla
