#include "plan/fft_expansion.h"

#include "ops/attributes.h"
#include "ops/fft.h"
#include "ops/slice_and_padding.h"
#include "plan/fft_config.h"
#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

// A real transform the FFT step does not take itself.
bool IsRealFft(const Instruction& inst, bool every_double) {
  if (inst.opcode != Opcode::kFft) return false;
  const std::string* type = FindAttribute(inst, "fft_type");
  const bool double_input = !inst.operands.empty() && inst.operands[0]->shape.element_type() == ElementType::kF64;
  return type && (*type == "RFFT" || *type == "IRFFT") && (!VkfftTakesRfft(inst) || (every_double && double_input));
}

// Writes the expansion of one real transform into a computation, each new
// op named after it.
class Expander {
 public:
  Expander(Computation& c, const Instruction& fft) : w_(c, fft, "real_fft"), fft_(fft) {}

  StatusOr<Instruction*> Expand(Instruction* operand) {
    VKXLA_ASSIGN_OR_RETURN(FftParams p, ReadFft(fft_));
    const Shape& x = operand->shape;
    const int64_t rank = x.rank(), l = static_cast<int64_t>(p.lengths.size()), n = p.lengths.back();
    Instruction* result = nullptr;
    if (p.type == FftType::kRfft) {
      const ElementType complex = x.element_type() == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128;
      Instruction* zeros = w_.Filled(Scalar::Float(x.element_type(), 0.0), x.dims());
      Instruction* z = w_.Add(Opcode::kComplex, Shape(complex, x.dims()), {operand, zeros});
      Instruction* spectrum = Transform(z, FftType::kFft, p.lengths);
      result = w_.Slice(spectrum, rank - 1, 0, fft_.shape.dims().back());
    } else {
      const int64_t half = x.dims().back();
      Instruction* full = operand;
      if (n > half) {
        // Frequencies half..n-1 mirror n-half..1: conjugates of the
        // reversed run, each outer transformed index i read at -i.
        Instruction* mirrored = w_.Reverse(w_.Slice(operand, rank - 1, 1, n - half + 1), rank - 1);
        for (int64_t d = rank - l; d < rank - 1; ++d) mirrored = Negated(mirrored, d);
        full = w_.Concatenate({operand, w_.Conjugate(mirrored)}, rank - 1);
      }
      Instruction* signal = Transform(full, FftType::kIfft, p.lengths);
      result = w_.Add(Opcode::kReal, Shape(ComplexComponentType(x.element_type()), signal->shape.dims()), {signal});
    }
    result->shape = fft_.shape;  // the layout it was asked in
    return result;
  }

 private:
  Instruction* Transform(Instruction* x, FftType type, const std::vector<int64_t>& lengths) {
    std::vector<int64_t> dims = x->shape.dims();
    dims.back() = lengths.back();
    Instruction* t = w_.Add(Opcode::kFft, Shape(x->shape.element_type(), dims), {x});
    SetFftAttributes(*t, type, lengths);
    return t;
  }
  // x read at index -i modulo its size along `dim`: element 0 stays, the rest reverse.
  Instruction* Negated(Instruction* x, int64_t dim) {
    const int64_t m = x->shape.dim(dim);
    if (m <= 2) return x;  // 0 and 1 are their own negatives modulo 1 and 2
    return w_.Concatenate({w_.Slice(x, dim, 0, 1), w_.Reverse(w_.Slice(x, dim, 1, m), dim)}, dim);
  }
  ExpansionWriter w_;
  const Instruction& fft_;
};

}  // namespace

StatusOr<std::shared_ptr<const Module>> ExpandRealFfts(const Module& module, bool every_double) {
  return RewriteModule(module, [every_double](const Instruction& inst) { return IsRealFft(inst, every_double); }, [](Computation& c, const Instruction& fft, const std::vector<Instruction*>& operands) {
    return Expander(c, fft).Expand(operands.at(0));
  });
}

}  // namespace vkxla
