// The pieces of StableHLO's text the reader works with before it gives
// them meaning: one operation as written (a Statement), a function's
// extent, and readers of attribute values (integer lists, enum words,
// #stablehlo.<...> structs) and of the ops that map one to one onto HLO.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontends/mlir_types.h"
#include "ir/opcode.h"
#include "ir/shape.h"

namespace vkxla {

// One operation as written, before it is given meaning.
struct Statement {
  size_t at = 0;
  std::vector<std::string> results;   // "%0", ...
  std::string name;                   // "stablehlo.add", "check.expect_eq_const", "func.return", ...
  std::string callee;                 // @f of calls and custom_call targets
  std::vector<std::string> operands;
  std::vector<std::string> keywords;  // EQ, SIGNED, ...
  std::map<std::string, std::string> attributes;  // raw values
  std::vector<std::string> brackets;  // [..] groups (slice ranges, tuple index)
  std::optional<DenseText> dense;
  std::vector<Shape> operand_types, result_types;
  // The quantized element types of operand_types and result_types, where
  // they are quantized (each holds its storage type's shape).
  std::vector<std::optional<QuantizedType>> operand_quantized, result_quantized;
  std::vector<size_t> regions;  // where each "{ ^bb0(...): ... }" region opens
  // Block arguments named in the op's header: stablehlo.while(%arg0 = %init, ...).
  std::vector<std::string> region_arguments;
  // A region's parameters given before its braces (the pretty reduce's
  // "reducer(%a: tensor<f32>, %b: tensor<f32>) { ... }"), in block order.
  std::vector<std::pair<std::string, Shape>> region_parameters;
};

struct Function {
  std::string name;
  std::vector<std::pair<std::string, Shape>> arguments;
  size_t body_begin = 0, body_end = 0;  // inside the braces
  bool is_private = false;
  bool holds_checks = false;  // a check.* op in its body
};

// The StableHLO ops that map one to one onto an HLO opcode of the same
// meaning (names differ only in spelling).
std::optional<Opcode> DirectOpcode(const std::string& op);
// Integers of "[1, 2]", "array<i64: 1, 2>", "dense<[1, 2]> : tensor<2xi64>" or "3 : i64".
std::vector<int64_t> Integers(std::string raw);
// The first run of digits in `raw` that is out of int64's range, if any
// (the reader rejects such attributes before reading them).
std::optional<std::string> FirstBadInteger(const std::string& raw);
// The last word of "#stablehlo<comparison_direction EQ>" or "EQ".
std::string LastWord(const std::string& raw);
// The fields of "#stablehlo.gather<offset_dims = [2, 3], index_vector_dim = 2>".
std::map<std::string, std::string> StructFields(const std::string& raw);
// The strings of '{"x", "y"}' (escapes are not read: axis names have none).
std::vector<std::string> QuotedStrings(const std::string& raw);
// The axes of a mesh '<["x"=2, "y"=4], device_ids=[...]>': name -> size (0
// where the size is not a number that fits).
std::map<std::string, int64_t> MeshAxes(const std::string& raw);

}  // namespace vkxla
