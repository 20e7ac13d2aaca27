// How each XLA element type lives in a shader: every buffer is a uvec4[]
// array (so only Vulkan 1.1 baseline storage is needed, and aligned runs of
// four words load as one vector) and elements are packed into its 32-bit
// words, read through the kernel prelude's macro W(buffer, word); arithmetic happens in a "compute type" (f16, bf16
// and f8 compute in float and round after every op, as XLA's semantics say).
#pragma once

#include <string>
#include <vector>

#include "plan/target_features.h"
#include "ir/element_type.h"
#include "ir/scalar.h"
#include "vkxla/status.h"

namespace vkxla {

struct GlslType {
  std::string compute;   // "float", "int", "uint", "bool", "double", "int64_t", "vec2", "dvec2"
  int storage_bits = 0;  // bits one element occupies in the buffer (8 for pred and s4)
};

// The GLSL representation of `t`, or Unimplemented naming the op, the type
// and the missing device feature.
StatusOr<GlslType> GlslTypeFor(ElementType t, const TargetFeatures& target, const std::string& op_context);

// The GLSL name of a float type narrower than f32 ("f16", "f8e4m3fn"), whose
// storage.glsl functions are f32_to_<name>, <name>_to_f32 and q_<name>; empty
// for every other type.
std::string NarrowFloatName(ElementType t);

// The f32 value of narrow float t whose storage bits are the uint `bits`.
std::string DecodeNarrowFloatBits(ElementType t, const std::string& bits);

// Elements one invocation writes so that it owns whole 32-bit words.
int ElementsPerWord(ElementType t);

// 32-bit words one element occupies: 1 for types up to 32 bits, else 2 or 4.
int WordsPerElement(ElementType t);

// Bit offset (uint expression) of sub-word element `slot` in its 32-bit
// word when elements take `bits` bits: bytes are little-endian, and packed
// 4-bit elements put the first of each byte in its high nibble (XLA's
// PackIntN order).
std::string SlotBitOffset(int bits, const std::string& slot);

// The value of type t held in `words` (WordsPerElement of them, low word
// first); for sub-word types `slot` (a uint expression) picks the element
// within words[0]. `bits` is the element's storage width (0: the type's
// default; 4 for s4/u4 packed by a layout's E(4)).
std::string DecodeWords(ElementType t, const std::vector<std::string>& words, const std::string& slot, int bits = 0);

// GLSL expression reading element `index` (a uint expression, physical
// element index) of binding variable `buffer` as the compute type of `t`,
// its words through the macro `word` (W for storage buffers, TW for
// texel buffers: codegen/element_emitter.cc defines both).
std::string LoadExpression(ElementType t, const std::string& buffer, const std::string& index, int bits = 0,
                           const std::string& word = "W");

// GLSL expression for the storage bits of compute value `value`, placed in
// the low bits of a uint (types up to 32 bits).
std::string EncodeToBits(ElementType t, const std::string& value);

// GLSL expression bringing a compute value back into type t's range: rounds
// narrow floats, wraps narrow integers; identity otherwise. Applied after
// every op so each op's result has its XLA type exactly.
std::string NormalizeExpression(ElementType t, const std::string& value);

// A GLSL literal of the compute type holding `value`. With opaque_zeros
// (TargetFeatures::literal_zeros_folded), a float +0 (a part of a complex
// one too) is read from gl_NumWorkGroups.z - 1, which is 0 in every
// dispatch of ours (grids are x by y) but not known to the driver; so are
// integer zeros and false, whose conversions to float the driver would
// fold into a literal +0 (a dot of a converted zero and an infinity came
// out 0 on llvmpipe, not NaN).
std::string GlslLiteral(const Scalar& value, bool opaque_zeros = false);

}  // namespace vkxla
