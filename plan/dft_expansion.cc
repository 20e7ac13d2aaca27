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

StatusOr<Instruction*> Expand(Computation& c, const Instruction& fft, Instruction* x) {
  VKXLA_ASSIGN_OR_RETURN(FftParams p, ReadFft(fft));
  if (p.type != FftType::kFft && p.type != FftType::kIfft)
    return Internal("fft " + fft.Describe() + ": a real c128 transform reaches the DFT expansion unexpanded");
  ExpansionWriter w(c, fft, "dft");
  Instruction* const input = x;
  const int64_t rank = x->shape.rank();
  for (int64_t d = rank - static_cast<int64_t>(p.lengths.size()); d < rank; ++d) {
    const int64_t n = x->shape.dim(d);
    if (n > kMaxDftLength)
      return Unimplemented("fft " + fft.Describe() + ": " + x->shape.ToString() + " transforms a dim of length " + std::to_string(n) +
                           " (needs shaderFloat64: without it c128 transforms run as products with the DFT matrix, up to length " +
                           std::to_string(kMaxDftLength) + ")");
    if (n <= 1) continue;  // a transform of length 1 is the identity
    Instruction* matrix = w.Add(Opcode::kConstant, Shape(ElementType::kC128, {n, n}), {});
    matrix->literal = DftMatrix(n, p.type == FftType::kIfft);
    // x contracted along d: the transformed dim comes last, then moves back.
    std::vector<int64_t> dims, perm;
    for (int64_t i = 0; i < rank; ++i)
      if (i != d) dims.push_back(x->shape.dim(i));
    dims.push_back(n);
    Instruction* product = w.Add(Opcode::kDot, Shape(ElementType::kC128, dims), {x, matrix});
    SetDotDimensions(*product, DotDimensions{.lhs_contracting = {d}, .rhs_contracting = {0}});
    for (int64_t i = 0; i < rank; ++i) perm.push_back(i < d ? i : i == d ? rank - 1 : i - 1);
    Instruction* moved = w.Add(Opcode::kTranspose, Shape(ElementType::kC128, x->shape.dims()), {product});
    moved->dimensions = perm;
    x = moved;
  }
  if (x == input) x = w.Add(Opcode::kCopy, x->shape, {x});
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
