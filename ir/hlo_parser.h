// Reads XLA's HLO text format into an ir::Module. Purely syntactic plus name
// resolution: the shape rules of each op are checked by ops::VerifyModule
// (frontends/hlo_text.h runs both).
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// An instruction written without its shape ("s = add(a, b)"), as XLA's
// parser allows for ops whose shape follows from their operands and
// attributes, gets the shape `infer` gives (ops/shape_inference, a layer
// above); without it such text is an error.
using InferShapeFn = std::function<StatusOr<Shape>(const Instruction&)>;
// Ops with no opcode here that a caller writes as other ops (XLA's acos,
// asin, sinh..., which frontends/hlo_text.h writes as their CHLO
// decompositions): `handles` picks the names; `expand` adds the ops for
// `written` (its operands, attributes and shape as read) to `c` and returns
// the value, which the written name then holds as a copy.
struct OpExpander {
  std::function<bool(std::string_view op)> handles;
  std::function<StatusOr<Instruction*>(Computation& c, const std::string& op, const Instruction& written)> expand;
};
StatusOr<std::unique_ptr<Module>> ParseHloText(std::string_view text, const InferShapeFn& infer = nullptr,
                                               const OpExpander* expander = nullptr);
// The note a loader prints for `module`'s constants still elided ("{...}",
// zeros), or "" where there are none.
std::string ElidedConstantsNote(const Module& module);
// "f32[3,5]{1,0:T(2,2)}", "(f32[], s32[2])".
StatusOr<Shape> ParseShape(std::string_view text);
// A literal in XLA syntax for `shape`: "{ {1, 2}, {3, 4} }", "5".
StatusOr<Literal> ParseLiteral(std::string_view text, const Shape& shape);

}  // namespace vkxla
