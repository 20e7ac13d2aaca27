#include "frontends/stablehlo_syntax.h"

#include <cctype>

#include "ir/numbers.h"

namespace vkxla {

// The StableHLO ops that map one to one onto an HLO opcode of the same
// meaning (names differ only in spelling).
std::optional<Opcode> DirectOpcode(const std::string& op) {
  static const std::map<std::string, Opcode> kOps = {
      {"abs", Opcode::kAbs}, {"add", Opcode::kAdd}, {"and", Opcode::kAnd}, {"atan2", Opcode::kAtan2},
      {"cbrt", Opcode::kCbrt}, {"ceil", Opcode::kCeil}, {"count_leading_zeros", Opcode::kClz},
      {"complex", Opcode::kComplex}, {"cosine", Opcode::kCos}, {"divide", Opcode::kDivide},
      {"exponential", Opcode::kExp}, {"exponential_minus_one", Opcode::kExpm1}, {"floor", Opcode::kFloor},
      {"imag", Opcode::kImag}, {"is_finite", Opcode::kIsFinite}, {"log", Opcode::kLog},
      {"log_plus_one", Opcode::kLog1p}, {"logistic", Opcode::kLogistic}, {"maximum", Opcode::kMaximum},
      {"minimum", Opcode::kMinimum}, {"multiply", Opcode::kMultiply}, {"negate", Opcode::kNegate},
      {"not", Opcode::kNot}, {"or", Opcode::kOr}, {"popcnt", Opcode::kPopulationCount}, {"power", Opcode::kPower},
      {"real", Opcode::kReal}, {"remainder", Opcode::kRemainder}, {"round_nearest_afz", Opcode::kRoundNearestAfz},
      {"round_nearest_even", Opcode::kRoundNearestEven}, {"rsqrt", Opcode::kRsqrt},
      {"shift_left", Opcode::kShiftLeft}, {"shift_right_arithmetic", Opcode::kShiftRightArithmetic},
      {"shift_right_logical", Opcode::kShiftRightLogical}, {"sign", Opcode::kSign}, {"sine", Opcode::kSin},
      {"sqrt", Opcode::kSqrt}, {"subtract", Opcode::kSubtract}, {"tan", Opcode::kTan}, {"tanh", Opcode::kTanh},
      {"xor", Opcode::kXor}, {"select", Opcode::kSelect}, {"clamp", Opcode::kClamp}, {"convert", Opcode::kConvert},
      {"bitcast_convert", Opcode::kBitcastConvert}, {"reshape", Opcode::kReshape}, {"tuple", Opcode::kTuple},
      {"compare", Opcode::kCompare}, {"constant", Opcode::kConstant}, {"iota", Opcode::kIota},
      {"broadcast_in_dim", Opcode::kBroadcast}, {"transpose", Opcode::kTranspose}, {"fft", Opcode::kFft}, {"convolution", Opcode::kConvolution}, {"batch_norm_training", Opcode::kBatchNormTraining}, {"batch_norm_inference", Opcode::kBatchNormInference}, {"batch_norm_grad", Opcode::kBatchNormGrad}, {"reverse", Opcode::kReverse},
      {"rng_bit_generator", Opcode::kRngBitGenerator}, {"cholesky", Opcode::kCholesky},
      {"triangular_solve", Opcode::kTriangularSolve}, {"rng", Opcode::kRng},
      {"slice", Opcode::kSlice}, {"pad", Opcode::kPad}, {"concatenate", Opcode::kConcatenate},
      {"reduce_precision", Opcode::kReducePrecision}, {"get_tuple_element", Opcode::kGetTupleElement},
      {"dynamic_slice", Opcode::kDynamicSlice}, {"dynamic_update_slice", Opcode::kDynamicUpdateSlice},
      {"gather", Opcode::kGather}, {"scatter", Opcode::kScatter}, {"get_dimension_size", Opcode::kGetDimensionSize},
      {"dot", Opcode::kDot}, {"dot_general", Opcode::kDot}, {"ragged_dot", Opcode::kRaggedDot}};
  auto it = kOps.find(op);
  if (it == kOps.end()) return std::nullopt;
  return it->second;
}

// Integers of "[1, 2]", "array<i64: 1, 2>", "dense<[1, 2]> : tensor<2xi64>" or "3 : i64".
std::vector<int64_t> Integers(std::string raw) {
  if (raw.rfind("array<", 0) == 0) {
    const size_t colon = raw.find(':');
    raw = colon == std::string::npos ? "" : raw.substr(colon + 1);
  } else if (raw.rfind("dense<", 0) == 0) {
    raw = raw.substr(6, raw.find('>') - 6);
  } else if (!raw.empty() && raw[0] != '[') {
    raw = raw.substr(0, raw.find(':'));
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < raw.size();) {
    size_t next = i;
    int64_t v = 0;
    if (ReadInt64At(raw, next, v)) {
      out.push_back(v);
      i = next;
    } else {
      // Not a number here, or one out of range (which the reader rejects
      // first: FirstBadInteger): step over it.
      const bool digits = std::isdigit(static_cast<unsigned char>(raw[i]));
      ++i;
      while (digits && i < raw.size() && std::isdigit(static_cast<unsigned char>(raw[i]))) ++i;
    }
  }
  return out;
}

std::optional<std::string> FirstBadInteger(const std::string& raw) {
  for (size_t i = 0; i < raw.size();) {
    if (!std::isdigit(static_cast<unsigned char>(raw[i]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < raw.size() && std::isdigit(static_cast<unsigned char>(raw[end]))) ++end;
    // Digits of a float, a hex number or a name are not list integers.
    auto part_of_word = [&](size_t at) {
      return at < raw.size() && (raw[at] == '.' || std::isalpha(static_cast<unsigned char>(raw[at])));
    };
    if ((i > 0 && part_of_word(i - 1)) || part_of_word(end) || (i > 1 && raw[i - 1] == '-' && part_of_word(i - 2))) {
      i = end;
      continue;
    }
    const bool negative = i > 0 && raw[i - 1] == '-';
    const std::string digits = (negative ? "-" : "") + raw.substr(i, end - i);
    if (!ParseInt64(digits)) return digits;
    i = end;
  }
  return std::nullopt;
}

// The last word of "#stablehlo<comparison_direction EQ>" or "EQ".
std::vector<std::string> QuotedStrings(const std::string& raw) {
  std::vector<std::string> out;
  for (size_t open = raw.find('"'); open != std::string::npos;) {
    const size_t close = raw.find('"', open + 1);
    if (close == std::string::npos) break;
    out.push_back(raw.substr(open + 1, close - open - 1));
    open = raw.find('"', close + 1);
  }
  return out;
}

std::map<std::string, int64_t> MeshAxes(const std::string& raw) {
  std::map<std::string, int64_t> axes;
  const size_t list_end = raw.find(']');  // the axes come first; device_ids after
  for (size_t open = raw.find('"'); open != std::string::npos && open < list_end;) {
    const size_t close = raw.find('"', open + 1);
    if (close == std::string::npos) break;
    size_t p = close + 1;
    while (p < raw.size() && std::isspace(static_cast<unsigned char>(raw[p]))) ++p;
    int64_t size = 0;
    if (p < raw.size() && raw[p] == '=') {
      size_t digits = ++p;
      while (digits < raw.size() && std::isspace(static_cast<unsigned char>(raw[digits]))) ++digits;
      size_t end = digits;
      while (end < raw.size() && std::isdigit(static_cast<unsigned char>(raw[end]))) ++end;
      size = ParseInt64(raw.substr(digits, end - digits)).value_or(0);
    }
    axes[raw.substr(open + 1, close - open - 1)] = size;
    open = raw.find('"', close + 1);
  }
  return axes;
}

std::string LastWord(const std::string& raw) {
  std::string word, cur;
  for (char ch : raw) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') cur += ch;
    else if (!cur.empty()) { word = cur; cur.clear(); }
  }
  return cur.empty() ? word : cur;
}

// The fields of "#stablehlo.gather<offset_dims = [2, 3], index_vector_dim = 2>".
std::map<std::string, std::string> StructFields(const std::string& raw) {
  std::map<std::string, std::string> fields;
  const size_t open = raw.find('<'), close = raw.rfind('>');
  if (open == std::string::npos || close == std::string::npos || close < open) return fields;
  const std::string body = raw.substr(open + 1, close - open - 1);
  int depth = 0;
  std::string part;
  auto flush = [&] {
    const size_t eq = part.find('=');
    if (eq != std::string::npos) {
      auto trim = [](std::string t) {
        while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(t.begin());
        while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
        return t;
      };
      fields[trim(part.substr(0, eq))] = trim(part.substr(eq + 1));
    }
    part.clear();
  };
  for (char ch : body) {
    if (ch == '[' || ch == '<' || ch == '(') ++depth;
    if (ch == ']' || ch == '>' || ch == ')') --depth;
    if (ch == ',' && depth == 0) flush();
    else part += ch;
  }
  flush();
  return fields;
}

}  // namespace vkxla
