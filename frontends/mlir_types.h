// MLIR types and dense element literals as StableHLO writes them:
// tensor<2x3xi32>, tensor<complex<f32>>, tuple<...>, !stablehlo.token, and
// dense<...> (nested lists, splats, hex bit patterns, complex pairs, hex
// strings) turned into ir::Literal.
#pragma once

#include <optional>
#include <vector>

#include "frontends/mlir_cursor.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace vkxla {

// An element type name ("i32", "ui8", "bf16", "complex<f64>", ...).
StatusOr<ElementType> ParseMlirElementType(MlirCursor& c);
// A quantized element type, !quant.uniform<i8<-127:127>:f32:1, {0.1:-3,
// 0.2:4}>: values held in the storage type stand for (v - zero_point) *
// scale in the expressed type, one scale and zero point for the tensor or
// one per index along `axis`.
struct QuantizedType {
  ElementType storage = ElementType::kS8, expressed = ElementType::kF32;
  int64_t storage_min = 0, storage_max = 0;
  int64_t axis = -1;  // per-tensor
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
  std::string ToString() const;
};

// A dimension a shape-polymorphic program leaves open (`tensor<?x4xf32>`),
// known once its arguments' shapes are: never in a shape that leaves the
// StableHLO reader.
inline constexpr int64_t kUnknownDim = -1;
bool HasUnknownDims(const Shape& shape);  // in any tuple element too
// `shape` (an array) with every open dimension `size`.
Shape WithUnknownDimsAs(const Shape& shape, int64_t size);
// "tensor<?x4xf32>"-like text of a shape with open dims, for errors: "f32[?,4]".
std::string ShapeWithUnknownDims(const Shape& shape);

// A tensor, tuple or token type; element types the project does not have
// are Unimplemented errors naming them, and so are open dimensions ('?')
// unless `unknown_dims` (then kUnknownDim) and bounded ones. A tensor of
// a quantized element type is its storage type's shape, with the type in
// *quantized (where the caller takes one; an error where it does not).
StatusOr<Shape> ParseMlirType(MlirCursor& c, int depth = 0, std::optional<QuantizedType>* quantized = nullptr,
                              bool unknown_dims = false);
// `dense<...>` up to and including its closing '>', with `shape` the type
// that follows it (read by the caller).
struct DenseText {
  std::string body;  // what is between dense< and >
  size_t at = 0;     // its position, for errors
};
StatusOr<DenseText> ParseDenseText(MlirCursor& c);
StatusOr<Literal> DenseToLiteral(const MlirCursor& c, const DenseText& dense, const Shape& shape);

}  // namespace vkxla
