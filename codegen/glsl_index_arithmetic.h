// The arithmetic backend that makes ir/tiled_index.h emit GLSL: values are
// uint expressions. Constants fold, and multiplies, divides and remainders
// by powers of two become shifts and masks, so a kernel divides only where
// a dimension or tile size leaves no other way.
#pragma once

#include <cstdint>
#include <string>

namespace vkxla {

struct GlslIndexArithmetic {
  using Value = std::string;
  using Bool = std::string;
  Value Constant(int64_t c) const;
  Value Add(const Value& a, const Value& b) const;
  Value MulConstant(const Value& a, int64_t c) const;
  Value DivConstant(const Value& a, int64_t c) const;
  Value ModConstant(const Value& a, int64_t c) const;
  Bool True() const { return "true"; }
  Bool AndLess(const Bool& b, const Value& a, int64_t c) const;
};

}  // namespace vkxla
