#include "plan/fft_config.h"

#include <sstream>

#include "ir/numbers.h"
#include "ops/fft.h"

namespace vkxla {

bool NeedsBluestein(int64_t length) {
  int64_t n = length;
  for (int64_t p = 2; p <= kLargestRadix; ++p)
    while (n > 1 && n % p == 0) n /= p;
  return n > 1;
}

bool VkfftTakesRfft(const Instruction& fft) {
  StatusOr<FftParams> p = ReadFft(fft);
  if (!p.ok() || p->type != FftType::kRfft || p->lengths.size() != 1) return false;
  const int64_t n = p->lengths[0];
  return n >= 2 && (n & (n - 1)) == 0;
}

std::string FftConfig::ToString() const {
  std::string lens;
  for (size_t i = 0; i < lengths.size(); ++i) lens += (i ? "," : "") + std::to_string(lengths[i]);
  return "inverse=" + std::to_string(inverse) + " double=" + std::to_string(double_precision) +
         " real=" + std::to_string(real_input) + " lengths=" + lens +
         " batch=" + std::to_string(batch) + " per_batch=" + std::to_string(per_batch) +
         " array=" + std::to_string(array_bytes) + " temp=" + std::to_string(temp_bytes);
}

StatusOr<FftConfig> FftConfig::Parse(const std::string& text) {
  FftConfig c;
  std::istringstream in(text);
  std::string field;
  int seen = 0;
  auto number = [&](const std::string& v) -> StatusOr<int64_t> {
    std::optional<int64_t> x = ParseInt64(v);
    if (!x || *x < 0) return InvalidArgument("fft step config '" + text + "': '" + v + "' is not a count");
    return *x;
  };
  while (in >> field) {
    const size_t eq = field.find('=');
    if (eq == std::string::npos) return InvalidArgument("fft step config '" + text + "': '" + field + "' is not key=value");
    const std::string key = field.substr(0, eq), value = field.substr(eq + 1);
    if (key == "lengths") {
      std::istringstream parts(value);
      std::string part;
      while (std::getline(parts, part, ',')) {
        VKXLA_ASSIGN_OR_RETURN(int64_t n, number(part));
        c.lengths.push_back(n);
      }
    } else {
      VKXLA_ASSIGN_OR_RETURN(int64_t v, number(value));
      if (key == "inverse") c.inverse = v != 0;
      else if (key == "double") c.double_precision = v != 0;
      else if (key == "real") c.real_input = v != 0;
      else if (key == "batch") c.batch = v;
      else if (key == "per_batch") c.per_batch = v != 0;
      else if (key == "array") c.array_bytes = static_cast<uint64_t>(v);
      else if (key == "temp") c.temp_bytes = static_cast<uint64_t>(v);
      else return InvalidArgument("fft step config '" + text + "': unknown key " + key);
    }
    ++seen;
  }
  if (seen != 8 || c.lengths.empty() || c.lengths.size() > 3)
    return InvalidArgument("fft step config '" + text + "' does not name all eight fields");
  return c;
}

StatusOr<FftConfig> ChooseFftConfig(const Instruction& fft, const TargetFeatures& target) {
  VKXLA_ASSIGN_OR_RETURN(FftParams params, ReadFft(fft));
  const bool native_real = VkfftTakesRfft(fft);
  if ((params.type == FftType::kRfft && !native_real) || params.type == FftType::kIrfft)
    return Internal("fft " + fft.Describe() + ": " + std::string(FftTypeName(params.type)) +
                    " reaches the FFT step unexpanded");
  const Shape& x = fft.operands[0]->shape;
  FftConfig c;
  c.inverse = params.inverse();
  c.real_input = native_real;
  c.double_precision = x.element_type() == ElementType::kC128 || x.element_type() == ElementType::kF64;
  if (c.double_precision && !target.float64)
    return Unimplemented("fft " + fft.Describe() + ": " + x.ToString() +
                         " needs shaderFloat64, which this device lacks (c128 transforms run in double precision)");
  // Dims of length 1 transform to themselves (VkFFT has no radix 1).
  for (auto it = params.lengths.rbegin(); it != params.lengths.rend(); ++it)
    if (*it != 1) c.lengths.push_back(*it);
  int64_t per_array = 1;
  for (int64_t n : params.lengths) per_array *= n;
  c.batch = per_array == 0 ? 0 : x.element_count() / per_array;
  const uint64_t complex_bytes = c.double_precision ? 16 : 8;
  c.array_bytes = static_cast<uint64_t>(per_array) * complex_bytes;
  bool bluestein = false;
  for (int64_t n : c.lengths) bluestein = bluestein || NeedsBluestein(n);
  c.per_batch = c.lengths.size() == 3 && c.batch > 1 && bluestein;
  // VkFFT's temporary holds, per axis, the arrays with that axis at its
  // working length: the length itself, or Bluestein's padded length (the
  // least size of small primes at least 2n - 1: below 4n).
  uint64_t temp_elements = 0;
  for (size_t axis = 0; axis < c.lengths.size(); ++axis) {
    uint64_t elements = 1;
    for (size_t j = 0; j < c.lengths.size(); ++j) {
      const uint64_t n = static_cast<uint64_t>(c.lengths[j]);
      elements *= (j == axis && NeedsBluestein(c.lengths[j])) ? 4 * n : n;
    }
    temp_elements = std::max(temp_elements, elements);
  }
  // An R2C pass keeps one more complex number per row.
  if (c.real_input) temp_elements = static_cast<uint64_t>(c.lengths[0]) + 2;
  c.temp_bytes = temp_elements * complex_bytes * static_cast<uint64_t>(c.per_batch ? 1 : c.batch);
  return c;
}

}  // namespace vkxla
