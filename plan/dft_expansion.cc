#include "plan/dft_expansion.h"

#include <cmath>
#include <complex>
#include <numbers>

#include "ops/dot.h"
#include "ops/fft.h"
#include "plan/module_rewrite.h"

namespace vkxla {
namespace {

bool IsDoubleComplexFft(const Instruction& inst) {
  return inst.opcode == Opcode::kFft && !inst.operands.empty() && inst.operands[0]->shape.element_type() == ElementType::kC128;
}

// The DFT matrix of length n: W[j, k] = e^(-+2 pi i jk / n), over n for the
// inverse; jk reduced modulo n first, so every entry is within an ulp.
Literal DftMatrix(int64_t n, bool inverse) {
  Literal w(Shape(ElementType::kC128, {n, n}));
  const double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < n; ++k) {
      const double angle = sign * 2.0 * std::numbers::pi * static_cast<double>((j * k) % n) / static_cast<double>(n);
      w.Set(j * n + k, Scalar::Complex(ElementType::kC128, std::polar(scale, angle)));
    }
  return w;
}

// The twiddles of a length n = n1 * n2 split: T[k1, j2] = e^(-+2 pi i j2 k1
// / n), j2 k1 reduced modulo n first.
Literal Twiddles(int64_t n1, int64_t n2, bool inverse) {
  const int64_t n = n1 * n2;
  Literal t(Shape(ElementType::kC128, {n1, n2}));
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t k1 = 0; k1 < n1; ++k1)
    for (int64_t j2 = 0; j2 < n2; ++j2) {
      const double angle = sign * 2.0 * std::numbers::pi * static_cast<double>((j2 * k1) % n) / static_cast<double>(n);
      t.Set(k1 * n2 + j2, Scalar::Complex(ElementType::kC128, std::polar(1.0, angle)));
    }
  return t;
}

// The factor of n nearest its square root from below whose cofactor is at
// most kMaxDftLength too; 0 when there is none (n prime past the bound).
int64_t SplitFactor(int64_t n) {
  for (int64_t n1 = static_cast<int64_t>(std::sqrt(static_cast<double>(n))); n1 > 1; --n1)
    if (n % n1 == 0 && n1 <= kMaxDftLength && n / n1 <= kMaxDftLength) return n1;
  return 0;
}

class DftWriter {
 public:
  DftWriter(Computation& c, const Instruction& fft, bool inverse) : w_(c, fft, "dft"), fft_(fft), inverse_(inverse) {}

  // x transformed along dim d.
  StatusOr<Instruction*> Transform(Instruction* x, int64_t d) {
    const int64_t n = x->shape.dim(d);
    if (n <= 1) return x;  // a transform of length 1 is the identity
    if (n <= kMaxDftLength) return Product(x, d);
    // Longer: the four-step split n = n1 * n2 (each at most the bound).
    // With j = n2 j1 + j2 and k = k1 + n1 k2, e^(-2 pi i jk / n) is
    // W_n1^(j1 k1) T[k1, j2] W_n2^(j2 k2): a transform along j1, the
    // twiddles, a transform along j2, and k1 and k2 swapped.
    const int64_t n1 = SplitFactor(n), n2 = n1 ? n / n1 : 0;
    if (n1 == 0)
      return Unimplemented("fft " + fft_.Describe() + ": " + x->shape.ToString() + " transforms a dim of length " + std::to_string(n) +
                           " (needs shaderFloat64: without it c128 transforms run as products with DFT matrices of lengths up to " +
                           std::to_string(kMaxDftLength) + ", and a prime length past that has no split into two of them)");
    std::vector<int64_t> split = x->shape.dims();
    split[d] = n2;
    split.insert(split.begin() + d, n1);
    Instruction* y = w_.Add(Opcode::kReshape, Shape(ElementType::kC128, split), {x});
    VKXLA_ASSIGN_OR_RETURN(y, Product(y, d));
    Instruction* twiddles = w_.Add(Opcode::kConstant, Shape(ElementType::kC128, {n1, n2}), {});
    twiddles->literal = Twiddles(n1, n2, inverse_);
    Instruction* spread = w_.Add(Opcode::kBroadcast, Shape(ElementType::kC128, split), {twiddles});
    spread->dimensions = std::vector<int64_t>{d, d + 1};
    y = w_.Add(Opcode::kMultiply, Shape(ElementType::kC128, split), {y, spread});
    VKXLA_ASSIGN_OR_RETURN(y, Product(y, d + 1));
    std::vector<int64_t> swapped = split, perm(split.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
    std::swap(perm[d], perm[d + 1]);
    std::swap(swapped[d], swapped[d + 1]);
    Instruction* z = w_.Add(Opcode::kTranspose, Shape(ElementType::kC128, swapped), {y});
    z->dimensions = perm;
    return w_.Add(Opcode::kReshape, Shape(ElementType::kC128, x->shape.dims()), {z});
  }

  Instruction* Copy(Instruction* x) { return w_.Add(Opcode::kCopy, x->shape, {x}); }

 private:
  // x contracted with the DFT matrix along d: the transformed dim comes
  // last, then moves back.
  StatusOr<Instruction*> Product(Instruction* x, int64_t d) {
    const int64_t n = x->shape.dim(d), rank = x->shape.rank();
    Instruction* matrix = w_.Add(Opcode::kConstant, Shape(ElementType::kC128, {n, n}), {});
    matrix->literal = DftMatrix(n, inverse_);
    std::vector<int64_t> dims, perm;
    for (int64_t i = 0; i < rank; ++i)
      if (i != d) dims.push_back(x->shape.dim(i));
    dims.push_back(n);
    Instruction* product = w_.Add(Opcode::kDot, Shape(ElementType::kC128, dims), {x, matrix});
    SetDotDimensions(*product, DotDimensions{.lhs_contracting = {d}, .rhs_contracting = {0}});
    for (int64_t i = 0; i < rank; ++i) perm.push_back(i < d ? i : i == d ? rank - 1 : i - 1);
    Instruction* moved = w_.Add(Opcode::kTranspose, Shape(ElementType::kC128, x->shape.dims()), {product});
    moved->dimensions = perm;
    return moved;
  }

  ExpansionWriter w_;
  const Instruction& fft_;
  bool inverse_;
};

StatusOr<Instruction*> Expand(Computation& c, const Instruction& fft, Instruction* x) {
  VKXLA_ASSIGN_OR_RETURN(FftParams p, ReadFft(fft));
  if (p.type != FftType::kFft && p.type != FftType::kIfft)
    return Internal("fft " + fft.Describe() + ": a real c128 transform reaches the DFT expansion unexpanded");
  DftWriter dft(c, fft, p.type == FftType::kIfft);
  Instruction* const input = x;
  const int64_t rank = x->shape.rank();
  for (int64_t d = rank - static_cast<int64_t>(p.lengths.size()); d < rank; ++d) {
    VKXLA_ASSIGN_OR_RETURN(x, dft.Transform(x, d));
  }
  if (x == input) x = dft.Copy(x);
  x->shape = fft.shape;  // the layout it was asked in
  return x;
}

}  // namespace

StatusOr<std::shared_ptr<const Module>> ExpandDoubleFftsAsProducts(const Module& module, const TargetFeatures& target) {
  if (target.float64) return std::shared_ptr<const Module>();
  return RewriteModule(module, IsDoubleComplexFft, [](Computation& c, const Instruction& fft, const std::vector<Instruction*>& operands) {
    return Expand(c, fft, operands.at(0));
  });
}

}  // namespace vkxla
