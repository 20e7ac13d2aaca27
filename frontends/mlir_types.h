// MLIR types and dense element literals as StableHLO writes them:
// tensor<2x3xi32>, tensor<complex<f32>>, tuple<...>, !stablehlo.token, and
// dense<...> (nested lists, splats, hex bit patterns, complex pairs, hex
// strings) turned into ir::Literal.
#pragma once

#include "frontends/mlir_cursor.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace vkxla {

// An element type name ("i32", "ui8", "bf16", "complex<f64>", ...).
StatusOr<ElementType> ParseMlirElementType(MlirCursor& c);
// A tensor, tuple or token type; dynamic dimensions and element types the
// project does not have are Unimplemented errors naming them.
StatusOr<Shape> ParseMlirType(MlirCursor& c, int depth = 0);
// `dense<...>` up to and including its closing '>', with `shape` the type
// that follows it (read by the caller).
struct DenseText {
  std::string body;  // what is between dense< and >
  size_t at = 0;     // its position, for errors
};
StatusOr<DenseText> ParseDenseText(MlirCursor& c);
StatusOr<Literal> DenseToLiteral(const MlirCursor& c, const DenseText& dense, const Shape& shape);

}  // namespace vkxla
