#include "codegen/shader_library.h"

#include <map>
#include <regex>

namespace vkxla {

const std::map<std::string, std::string>& EmbeddedShaderSources();  // generated

namespace {

// Instantiates a FLOAT template: FLOAT(x LF) constants become typed
// literals, every other FLOAT becomes the type name.
std::string Instantiate(const std::string& tmpl, const std::string& type) {
  static const std::regex constant(R"(FLOAT\(([^()]*?)LF\))");
  std::string s = std::regex_replace(tmpl, constant, type == "double" ? "double($1LF)" : "float($1)");
  size_t pos = 0;
  while ((pos = s.find("FLOAT", pos)) != std::string::npos) {
    s.replace(pos, 5, type);
    pos += type.size();
  }
  return s;
}

}  // namespace

std::string ShaderLibrarySource(const LibraryNeeds& needs, bool have_f64, bool exact_div_sqrt) {
  const auto& src = EmbeddedShaderSources();
  std::string out = "#define WIDTH_OF_float 32\n#define WIDTH_OF_double 64\n#define CPLX_float vec2\n#define CPLX_double dvec2\n";
  out += std::string("#define HAVE_F64 ") + (have_f64 ? "1" : "0") + "\n";
  out += std::string("#define EXACT_DIV_SQRT ") + (exact_div_sqrt ? "1" : "0") + "\n";
  // Whether double code of the word-pair library may be compiled too.
  out += std::string("#define EMULATED_F64 ") + (needs.float64_soft || needs.float64_pairs ? "1" : "0") + "\n";
  out += std::string("#define PAIRED_F64 ") + (needs.float64_pairs ? "1" : "0") + "\n";
  out += src.at("storage.glsl");
  if (needs.float64_soft || needs.float64_pairs) out += src.at("float64_soft.glsl");
  if (needs.float64_pairs) out += src.at("float64_pairs.glsl");
  if (needs.int64_words) out += src.at("int64_words.glsl");
  const bool f32 = needs.real_f32 || needs.complex_f32;
  const bool f64 = needs.real_f64 || needs.complex_f64;
  if (f32) out += Instantiate(src.at("real_math.glsl"), "float");
  if (f64) out += Instantiate(src.at("real_math.glsl"), "double");
  if (needs.complex_f32) out += Instantiate(src.at("complex_math.glsl"), "float");
  if (needs.complex_f64) out += Instantiate(src.at("complex_math.glsl"), "double");
  return out;
}

}  // namespace vkxla
