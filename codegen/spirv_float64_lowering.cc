#include "codegen/spirv_float64_lowering.h"

#include <glslang/SPIRV/GLSL.std.450.h>
#include <glslang/SPIRV/spirv.hpp>

#include <string>

#include "codegen/spirv_word_pair_lowering.h"

namespace vkxla {
namespace {

using word_pairs::Inst;
using word_pairs::Word0;

constexpr uint32_t kKeepSpecId = 201;  // shaders/float64_soft.glsl's f64s_never

class Float64Lowering : public word_pairs::WordPairLowering {
 public:
  Float64Lowering(std::vector<Inst> insts, uint32_t bound, bool keep_calls)
      : WordPairLowering({.what = "f64 emulation (the device lacks shaderFloat64, or VKXLA_MASK hides it)",
                          .type = "doubles",
                          .prefix = "f64s_",
                          .library = "shaders/float64_soft.glsl (LibraryNeeds::float64_soft)",
                          .keep_spec_id = kKeepSpecId,
                          .capability = spv::CapabilityFloat64},
                         std::move(insts), bound), keep_calls_(keep_calls) {}

 protected:
  bool Lowers(const Inst& type) const override { return type.opcode == spv::OpTypeFloat && type.words[2] == 64; }
  bool LowersVectors() const override { return true; }
  bool KeepLibraryCalls() const override { return keep_calls_; }
  Status Rewrite(const Inst& original, Inst& inst) override;

 private:
  const bool keep_calls_;
  // The library function applied to each component (dvec2 and bvec2
  // operands split, scalars shared), the results put back together.
  Status PerComponent(const std::string& name, const Inst& original, const std::vector<uint32_t>& args);
  Status Convert(const Inst& original, const Inst& inst);
  Status Glsl(const Inst& original, const Inst& inst);
};

Status Float64Lowering::PerComponent(const std::string& name, const Inst& original, const std::vector<uint32_t>& args) {
  const uint32_t n = ComponentCount(original.type);
  if (n == 1) return CallInto(name, original, args);
  std::vector<uint32_t> construct = {Word0(spv::OpCompositeConstruct, 3 + n), Mapped(original.type), original.result};
  for (uint32_t k = 0; k < n; ++k) {
    std::vector<uint32_t> parts;
    for (uint32_t a : args) parts.push_back(Component(a, k));
    VKXLA_ASSIGN_OR_RETURN(uint32_t part, Call(name, original, parts, Mapped(ComponentType(original.type))));
    construct.push_back(part);
  }
  Emit(construct);
  return OkStatus();
}

// Conversions between doubles and f32 or 32-/64-bit integers.
Status Float64Lowering::Convert(const Inst& original, const Inst& inst) {
  const uint32_t from = ComponentType(TypeOf(original.words[3])), to = ComponentType(original.type);
  const bool to_double = IsLoweredType(to);
  const uint32_t other = to_double ? from : to;
  const bool word = other == int_ || other == uint_;
  std::string name;
  switch (inst.opcode) {
    case spv::OpFConvert:
      if (other == float_) name = to_double ? "f64s_from_f32" : "f64s_to_f32";
      break;
    case spv::OpConvertSToF: name = word ? "f64s_from_i32" : "f64s_from_s64"; break;
    case spv::OpConvertUToF: name = word ? "f64s_from_u32" : "f64s_from_u64"; break;
    case spv::OpConvertFToS: name = word ? "f64s_to_i32" : "f64s_to_s64"; break;
    case spv::OpConvertFToU: name = word ? "f64s_to_u32" : "f64s_to_u64"; break;
    default: break;
  }
  // 64-bit integers are native here (the integer pass ran first otherwise).
  if (name.empty() || (inst.opcode != spv::OpFConvert && !word && Bits(other) != 64))
    return Unsupported(original, "(a conversion between f64 and a type of another width)");
  return PerComponent(name, original, {inst.words[3]});
}

Status Float64Lowering::Glsl(const Inst& original, const Inst& inst) {
  const auto& w = inst.words;
  if (w[3] != glsl_) return Unsupported(original, "(an extended instruction outside GLSL.std.450)");
  const std::vector<uint32_t> args(w.begin() + 5, w.end());
  switch (w[4]) {
    case GLSLstd450PackDouble2x32: case GLSLstd450UnpackDouble2x32:  // the same words
      Emit({Word0(spv::OpCopyObject, 4), w[1], w[2], w[5]});
      return OkStatus();
    case GLSLstd450FAbs: return PerComponent("f64s_abs", original, args);
    case GLSLstd450FSign: return PerComponent("f64s_sign", original, args);
    case GLSLstd450Floor: return PerComponent("f64s_floor", original, args);
    case GLSLstd450Ceil: return PerComponent("f64s_ceil", original, args);
    case GLSLstd450Trunc: return PerComponent("f64s_trunc", original, args);
    case GLSLstd450Round: return PerComponent("f64s_round", original, args);
    case GLSLstd450RoundEven: return PerComponent("f64s_round_even", original, args);
    case GLSLstd450Fract: return PerComponent("f64s_fract", original, args);
    case GLSLstd450FMin: case GLSLstd450NMin: return PerComponent("f64s_min", original, args);
    case GLSLstd450FMax: case GLSLstd450NMax: return PerComponent("f64s_max", original, args);
    case GLSLstd450FClamp: case GLSLstd450NClamp: return PerComponent("f64s_clamp", original, args);
    case GLSLstd450Sqrt: return PerComponent("f64s_sqrt", original, args);
    case GLSLstd450InverseSqrt: return PerComponent("f64s_inverse_sqrt", original, args);
    case GLSLstd450Fma: return PerComponent("f64s_fma", original, args);
    case GLSLstd450Ldexp: return PerComponent("f64s_ldexp", original, args);
    default: return Unsupported(original, "(GLSL.std.450 instruction " + std::to_string(w[4]) + ")");
  }
}

Status Float64Lowering::Rewrite(const Inst& original, Inst& inst) {
  VKXLA_ASSIGN_OR_RETURN(bool structural, RewriteStructural(original, inst));
  if (structural) return OkStatus();
  const auto& w = inst.words;
  auto binary = [&](const char* name) { return PerComponent(name, original, {w[3], w[4]}); };
  switch (inst.opcode) {
    case spv::OpFAdd: return binary("f64s_add");
    case spv::OpFSub: return binary("f64s_sub");
    case spv::OpFMul: case spv::OpVectorTimesScalar: return binary("f64s_mul");
    case spv::OpFDiv: return binary("f64s_div");
    case spv::OpFMod: return binary("f64s_mod");
    case spv::OpFNegate: return PerComponent("f64s_neg", original, {w[3]});
    case spv::OpDot: {
      const uint32_t n = ComponentCount(TypeOf(original.words[3]));
      uint32_t sum = 0;
      for (uint32_t k = 0; k < n; ++k) {
        VKXLA_ASSIGN_OR_RETURN(uint32_t product,
                               Call("f64s_mul", original, {Component(w[3], k), Component(w[4], k)}, uvec2_, k + 1 == n && !sum ? w[2] : 0));
        if (k == 0) {
          sum = product;
          continue;
        }
        VKXLA_ASSIGN_OR_RETURN(sum, Call("f64s_add", original, {sum, product}, uvec2_, k + 1 == n ? w[2] : 0));
      }
      return OkStatus();
    }
    case spv::OpFOrdEqual: return binary("f64s_oeq");
    case spv::OpFUnordEqual: return binary("f64s_ueq");
    case spv::OpFOrdNotEqual: return binary("f64s_one");
    case spv::OpFUnordNotEqual: return binary("f64s_une");
    case spv::OpFOrdLessThan: return binary("f64s_olt");
    case spv::OpFUnordLessThan: return binary("f64s_ult");
    case spv::OpFOrdLessThanEqual: return binary("f64s_ole");
    case spv::OpFUnordLessThanEqual: return binary("f64s_ule");
    case spv::OpFOrdGreaterThan: return binary("f64s_ogt");
    case spv::OpFUnordGreaterThan: return binary("f64s_ugt");
    case spv::OpFOrdGreaterThanEqual: return binary("f64s_oge");
    case spv::OpFUnordGreaterThanEqual: return binary("f64s_uge");
    case spv::OpIsNan: return PerComponent("f64s_isnan", original, {w[3]});
    case spv::OpIsInf: return PerComponent("f64s_isinf", original, {w[3]});
    case spv::OpSelect: return PerComponent("f64s_select", original, {w[3], w[4], w[5]});
    case spv::OpFConvert: case spv::OpConvertSToF: case spv::OpConvertUToF: case spv::OpConvertFToS: case spv::OpConvertFToU:
      return Convert(original, inst);
    case spv::OpExtInst: return Glsl(original, inst);
    default: return Unsupported(original, "on doubles");
  }
}

}  // namespace

bool SpirvUsesFloat64(const std::vector<uint32_t>& spirv) { return word_pairs::DeclaresCapability(spirv, spv::CapabilityFloat64); }

StatusOr<std::vector<uint32_t>> LowerFloat64ToSoftFloat(const std::vector<uint32_t>& spirv, bool keep_calls) {
  VKXLA_ASSIGN_OR_RETURN(std::vector<Inst> insts, word_pairs::Parse(spirv, "f64 lowering"));
  Float64Lowering lowering(std::move(insts), spirv[3], keep_calls);
  return lowering.Run(std::vector<uint32_t>(spirv.begin(), spirv.begin() + 5));
}

}  // namespace vkxla
