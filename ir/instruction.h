// One HLO instruction: opcode, result shape, operands and attributes.
// A plain struct: the parser, builder and passes fill it, ops/ checks it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/literal.h"
#include "ir/opcode.h"
#include "ir/shape.h"

namespace vkxla {

class Computation;

enum class ComparisonDirection { kEq, kNe, kGe, kGt, kLe, kLt };
// kDefault: not written; FLOAT for floats, SIGNED/UNSIGNED for integers.
enum class ComparisonType { kDefault, kFloat, kTotalOrder, kSigned, kUnsigned };

std::string_view ComparisonDirectionName(ComparisonDirection d);  // "LT"
std::optional<ComparisonDirection> ParseComparisonDirection(std::string_view s);
std::string_view ComparisonTypeName(ComparisonType t);            // "TOTALORDER"
std::optional<ComparisonType> ParseComparisonType(std::string_view s);

// The optional accuracy request of transcendental ops.
struct ResultAccuracy {
  bool highest = false;  // mode=highest
  double atol = 0, rtol = 0;
  int64_t ulps = 0;
  bool operator==(const ResultAccuracy&) const = default;
  std::string ToString() const;  // "{mode=highest}" or "{tolerance={atol=..,rtol=..,ulps=..}}"
};

struct SourceLocation {
  int line = 0, column = 0;  // 1-based; 0 when built in code
  std::string ToString() const { return std::to_string(line) + ":" + std::to_string(column); }
};

struct Instruction {
  std::string name;
  Opcode opcode = Opcode::kParameter;
  Shape shape;
  std::vector<Instruction*> operands;
  SourceLocation location;

  // Attributes; each op uses the ones its semantics name.
  std::optional<std::vector<int64_t>> dimensions;  // broadcast, iota-free ops, later reduce etc.
  int64_t parameter_number = -1;
  int64_t tuple_index = -1;
  int64_t iota_dimension = -1;
  ComparisonDirection direction = ComparisonDirection::kEq;
  ComparisonType comparison_type = ComparisonType::kDefault;
  int64_t exponent_bits = -1, mantissa_bits = -1;
  std::optional<Literal> literal;
  std::optional<ResultAccuracy> result_accuracy;
  // Called computations by attribute name ("to_apply", "condition", ...).
  std::vector<std::pair<std::string, Computation*>> called_computations;
  // Attributes this build does not interpret (metadata, sharding, ...),
  // kept verbatim so printing reproduces them.
  std::vector<std::pair<std::string, std::string>> other_attributes;

  // "%name" plus "(line:col)" when it came from text; for error messages.
  std::string Describe() const;
};

}  // namespace vkxla
