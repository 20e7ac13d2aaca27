#include "ops/fft.h"

#include <cmath>
#include <complex>
#include <numbers>

#include "ops/attributes.h"

namespace vkxla {
namespace {

Status FftError(const Instruction& inst, const std::string& message) {
  return InvalidArgument("fft " + inst.Describe() + ": " + message);
}

// The innermost dim a real signal of length n has in the spectrum.
int64_t HalfSpectrum(int64_t n) { return n == 0 ? 0 : n / 2 + 1; }

}  // namespace

std::string_view FftTypeName(FftType t) {
  switch (t) {
    case FftType::kFft: return "FFT";
    case FftType::kIfft: return "IFFT";
    case FftType::kRfft: return "RFFT";
    case FftType::kIrfft: return "IRFFT";
  }
  return "?";
}

void SetFftAttributes(Instruction& inst, FftType type, const std::vector<int64_t>& lengths) {
  SetAttribute(inst, "fft_type", std::string(FftTypeName(type)));
  SetAttribute(inst, "fft_length", IntListText(lengths));
}

StatusOr<FftParams> ReadFft(const Instruction& inst) {
  if (inst.opcode != Opcode::kFft) return FftError(inst, "is not an fft");
  if (inst.operands.size() != 1) return FftError(inst, "takes one operand, got " + std::to_string(inst.operands.size()));
  FftParams p;
  const std::string* type = FindAttribute(inst, "fft_type");
  if (!type) return FftError(inst, "needs fft_type=FFT|IFFT|RFFT|IRFFT");
  if (*type == "FFT") p.type = FftType::kFft;
  else if (*type == "IFFT") p.type = FftType::kIfft;
  else if (*type == "RFFT") p.type = FftType::kRfft;
  else if (*type == "IRFFT") p.type = FftType::kIrfft;
  else return BadAttribute(inst, "fft_type", *type, "FFT, IFFT, RFFT or IRFFT");
  VKXLA_ASSIGN_OR_RETURN(p.lengths, IntListAttribute(inst, "fft_length", /*required=*/true));
  const Shape& x = inst.operands[0]->shape;
  if (!x.IsArray()) return FftError(inst, "operand must be an array, got " + x.ToString());
  const int64_t l = static_cast<int64_t>(p.lengths.size());
  if (l < 1 || l > 3 || l > x.rank())
    return FftError(inst, "fft_length " + IntListText(p.lengths) + " must name 1 to 3 dims, at most the rank of " +
                              x.ToString());
  for (int64_t n : p.lengths)
    if (n < 0) return FftError(inst, "fft_length " + IntListText(p.lengths) + " must not be negative");
  const ElementType t = x.element_type();
  const bool wants_complex = p.type != FftType::kRfft;
  const bool ok_type = wants_complex ? (t == ElementType::kC64 || t == ElementType::kC128)
                                     : (t == ElementType::kF32 || t == ElementType::kF64);
  if (!ok_type)
    return FftError(inst, std::string(FftTypeName(p.type)) + " takes " + (wants_complex ? "c64 or c128" : "f32 or f64") +
                              ", got " + x.ToString());
  if (!x.is_static()) return FftError(inst, "operand " + x.ToString() + " has dynamic dims, which fft does not take");
  for (int64_t k = 0; k < l; ++k) {
    const int64_t d = x.rank() - l + k;
    int64_t want = p.lengths[k];
    if (p.type == FftType::kIrfft && k == l - 1) want = HalfSpectrum(want);
    if (x.dim(d) != want)
      return FftError(inst, "operand " + x.ToString() + " does not fit fft_length " + IntListText(p.lengths) + " (dim " +
                                std::to_string(d) + " must be " + std::to_string(want) + ")");
  }
  return p;
}

StatusOr<Shape> InferFftShape(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(FftParams p, ReadFft(inst));
  const Shape& x = inst.operands[0]->shape;
  std::vector<int64_t> dims = x.dims();
  ElementType t = x.element_type();
  switch (p.type) {
    case FftType::kFft: case FftType::kIfft: break;
    case FftType::kRfft:
      t = t == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128;
      dims.back() = HalfSpectrum(p.lengths.back());
      break;
    case FftType::kIrfft:
      t = ComplexComponentType(t);
      dims.back() = p.lengths.back();
      break;
  }
  return Shape(t, dims);
}

StatusOr<Literal> EvaluateFft(const Instruction& inst, const Literal& operand) {
  VKXLA_ASSIGN_OR_RETURN(FftParams p, ReadFft(inst));
  VKXLA_ASSIGN_OR_RETURN(Shape out_shape, InferFftShape(inst));
  // The whole transform on full complex arrays: dims of the operand with
  // the innermost transformed one at its full length.
  const std::vector<int64_t>& in_dims = operand.shape().dims();
  std::vector<int64_t> dims = in_dims;
  const int64_t rank = static_cast<int64_t>(dims.size()), l = static_cast<int64_t>(p.lengths.size());
  dims.back() = p.lengths.back();
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  std::vector<std::complex<double>> a(static_cast<size_t>(total));
  const int64_t n_last = dims.back(), in_last = in_dims.back();
  for (int64_t i = 0; i < total; ++i) {
    const int64_t row = n_last == 0 ? 0 : i / n_last, k = n_last == 0 ? 0 : i % n_last;
    if (p.type == FftType::kIrfft) {
      if (k < in_last) a[i] = operand.Get(row * in_last + k).c();
    } else {
      a[i] = operand.Get(i).c();
    }
  }
  // One dim at a time: forward from the innermost out, inverse (with the
  // real-output dim last) from the outermost in.
  const double sign = p.inverse() ? 1.0 : -1.0;
  auto transform_dim = [&](int64_t d, bool real_output) {
    const int64_t n = dims[d];
    if (n == 0) return;
    int64_t stride = 1;
    for (int64_t e = d + 1; e < rank; ++e) stride *= dims[e];
    std::vector<std::complex<double>> line(n), out(n);
    for (int64_t base = 0; base < total; ++base) {
      if ((base / stride) % n != 0) continue;
      for (int64_t k = 0; k < n; ++k) line[k] = a[base + k * stride];
      if (real_output) {
        // A real signal's spectrum: entries past n / 2 mirror the first.
        for (int64_t k = HalfSpectrum(n); k < n; ++k) line[k] = std::conj(line[n - k]);
        line[0] = line[0].real();
        if (n % 2 == 0) line[n / 2] = line[n / 2].real();
      }
      for (int64_t j = 0; j < n; ++j) {
        std::complex<double> s = 0;
        int64_t m = 0;  // j * k modulo n, stepped (no overflow): exact twiddles, the angle's argument stays small
        for (int64_t k = 0; k < n; ++k, m = (m + j) % n)
          s += line[k] * std::polar(1.0, sign * 2.0 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(n));
        out[j] = p.inverse() ? s / static_cast<double>(n) : s;
      }
      for (int64_t k = 0; k < n; ++k) a[base + k * stride] = out[k];
    }
  };
  for (int64_t k = 0; k < l; ++k) {
    const int64_t d = p.inverse() ? rank - l + k : rank - 1 - k;
    transform_dim(d, p.type == FftType::kIrfft && d == rank - 1);
  }
  Literal out(out_shape);
  const int64_t out_last = out_shape.dims().back();
  for (int64_t i = 0; i < out.element_count(); ++i) {
    const int64_t row = out_last == 0 ? 0 : i / out_last, k = out_last == 0 ? 0 : i % out_last;
    const std::complex<double> v = a[row * n_last + k];
    out.Set(i, IsComplex(out_shape.element_type()) ? Scalar::Complex(out_shape.element_type(), v)
                                                   : Scalar::Float(out_shape.element_type(), v.real()));
  }
  return out;
}

}  // namespace vkxla
