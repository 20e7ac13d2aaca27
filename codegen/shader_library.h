// The GLSL helper libraries of shaders/, instantiated for the types a
// kernel uses: only what it needs is compiled, and double code is never
// emitted natively for a device without shaderFloat64 (it is lowered to
// software floats there).
#pragma once

#include <string>

namespace vkxla {

struct LibraryNeeds {
  bool real_f32 = false, real_f64 = false;
  bool complex_f32 = false, complex_f64 = false;
  // 64-bit integers as word pairs (codegen/spirv_int64_lowering.h): the
  // kernel's main calls i64w_keep() behind i64w_never.
  bool int64_words = false;
  // Doubles in software (codegen/spirv_float64_lowering.h): main calls
  // f64s_keep() behind f64s_never.
  bool float64_soft = false;
  // Doubles as pairs of f32 (TargetFeatures::float64_pairs): main calls
  // f64p_keep() behind f64p_never. Carries the IEEE library too, whose
  // 64-bit integer conversions it borrows.
  bool float64_pairs = false;
};

// Source text of the requested libraries, storage helpers always included.
// have_f64: whether the device has shaderFloat64 (float code may use it);
// exact_div_sqrt: whether its division and square root are correctly
// rounded already (TargetFeatures::exact_div_sqrt).
std::string ShaderLibrarySource(const LibraryNeeds& needs, bool have_f64, bool exact_div_sqrt);

}  // namespace vkxla
