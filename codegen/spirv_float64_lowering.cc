#include "codegen/spirv_float64_lowering.h"

#include <glslang/SPIRV/GLSL.std.450.h>
#include <glslang/SPIRV/spirv.hpp>

#include <cmath>
#include <cstring>
#include <string>

#include "codegen/spirv_word_pair_lowering.h"

namespace vkxla {
namespace {

using word_pairs::Inst;
using word_pairs::Word0;

constexpr uint32_t kSoftKeepSpecId = 201;   // shaders/float64_soft.glsl's f64s_never
constexpr uint32_t kPairsKeepSpecId = 202;  // shaders/float64_pairs.glsl's f64p_never

word_pairs::PassNames NamesOf(Float64Form form) {
  if (form == Float64Form::kPairs)
    return {.what = "f64 as pairs of f32 (VKXLA_F64=pairs)",
            .type = "doubles",
            .prefix = "f64p_",
            .library = "shaders/float64_pairs.glsl (LibraryNeeds::float64_pairs)",
            .keep_spec_id = kPairsKeepSpecId,
            .capability = spv::CapabilityFloat64};
  return {.what = "f64 emulation (the device lacks shaderFloat64, or VKXLA_MASK hides it)",
          .type = "doubles",
          .prefix = "f64s_",
          .library = "shaders/float64_soft.glsl (LibraryNeeds::float64_soft)",
          .keep_spec_id = kSoftKeepSpecId,
          .capability = spv::CapabilityFloat64};
}

// A double constant as the pair of floats nearest it (hi, then the rest).
std::pair<uint32_t, uint32_t> PairWords(uint32_t low, uint32_t high) {
  const uint64_t bits = static_cast<uint64_t>(high) << 32 | low;
  double d;
  std::memcpy(&d, &bits, 8);
  const float hi = static_cast<float>(d);
  const float lo = std::isfinite(hi) ? static_cast<float>(d - static_cast<double>(hi)) : 0.0f;
  uint32_t h, l;
  std::memcpy(&h, &hi, 4);
  std::memcpy(&l, &lo, 4);
  return {h, l};
}

class Float64Lowering : public word_pairs::WordPairLowering {
 public:
  Float64Lowering(std::vector<Inst> insts, uint32_t bound, Float64Form form, bool keep_calls)
      : WordPairLowering(NamesOf(form), std::move(insts), bound), form_(form), keep_calls_(keep_calls) {}

 protected:
  bool Lowers(const Inst& type) const override { return type.opcode == spv::OpTypeFloat && type.words[2] == 64; }
  bool LowersVectors() const override { return true; }
  bool KeepLibraryCalls() const override { return keep_calls_; }
  Status Rewrite(const Inst& original, Inst& inst) override;
  std::pair<uint32_t, uint32_t> ConstantWords(uint32_t low, uint32_t high) const override {
    return form_ == Float64Form::kPairs ? PairWords(low, high) : std::pair{low, high};
  }

 private:
  const Float64Form form_;
  const bool keep_calls_;
  std::string Fn(const std::string& name) const { return names_.prefix + name; }
  // Pairs of f32 hold other bits than binary64: the ways kernels reach
  // a double's bits convert (the IEEE form's words are the bits already).
  Status ToOrFromBits(const Inst& original, const Inst& inst, uint32_t operand);
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
      if (other == float_) name = to_double ? Fn("from_f32") : Fn("to_f32");
      break;
    case spv::OpConvertSToF: name = word ? Fn("from_i32") : Fn("from_s64"); break;
    case spv::OpConvertUToF: name = word ? Fn("from_u32") : Fn("from_u64"); break;
    case spv::OpConvertFToS: name = word ? Fn("to_i32") : Fn("to_s64"); break;
    case spv::OpConvertFToU: name = word ? Fn("to_u32") : Fn("to_u64"); break;
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
    case GLSLstd450PackDouble2x32: case GLSLstd450UnpackDouble2x32:
      if (form_ == Float64Form::kPairs) return ToOrFromBits(original, inst, w[5]);
      Emit({Word0(spv::OpCopyObject, 4), w[1], w[2], w[5]});  // the same words
      return OkStatus();
    case GLSLstd450FAbs: return PerComponent(Fn("abs"), original, args);
    case GLSLstd450FSign: return PerComponent(Fn("sign"), original, args);
    case GLSLstd450Floor: return PerComponent(Fn("floor"), original, args);
    case GLSLstd450Ceil: return PerComponent(Fn("ceil"), original, args);
    case GLSLstd450Trunc: return PerComponent(Fn("trunc"), original, args);
    case GLSLstd450Round: return PerComponent(Fn("round"), original, args);
    case GLSLstd450RoundEven: return PerComponent(Fn("round_even"), original, args);
    case GLSLstd450Fract: return PerComponent(Fn("fract"), original, args);
    case GLSLstd450FMin: case GLSLstd450NMin: return PerComponent(Fn("min"), original, args);
    case GLSLstd450FMax: case GLSLstd450NMax: return PerComponent(Fn("max"), original, args);
    case GLSLstd450FClamp: case GLSLstd450NClamp: return PerComponent(Fn("clamp"), original, args);
    case GLSLstd450Sqrt: return PerComponent(Fn("sqrt"), original, args);
    case GLSLstd450InverseSqrt: return PerComponent(Fn("inverse_sqrt"), original, args);
    case GLSLstd450Fma: return PerComponent(Fn("fma"), original, args);
    case GLSLstd450Ldexp: return PerComponent(Fn("ldexp"), original, args);
    default: return Unsupported(original, "(GLSL.std.450 instruction " + std::to_string(w[4]) + ")");
  }
}

Status Float64Lowering::ToOrFromBits(const Inst& original, const Inst& inst, uint32_t operand) {
  const uint32_t source = original.words[inst.opcode == spv::OpExtInst ? 5 : 3];
  if (IsLoweredVector(original.type) || IsLoweredVector(TypeOf(source))) return Unsupported(original, "(the bits of a vector of doubles)");
  const bool to_double = IsLoweredType(original.type), from_double = IsLoweredType(TypeOf(source));
  if (to_double == from_double) {
    Emit({Word0(spv::OpCopyObject, 4), inst.words[1], inst.words[2], operand});
    return OkStatus();
  }
  return CallInto(to_double ? Fn("from_bits") : Fn("to_bits"), original, {operand});
}

Status Float64Lowering::Rewrite(const Inst& original, Inst& inst) {
  if (form_ == Float64Form::kPairs && inst.opcode == spv::OpBitcast) return ToOrFromBits(original, inst, inst.words[3]);
  VKXLA_ASSIGN_OR_RETURN(bool structural, RewriteStructural(original, inst));
  if (structural) return OkStatus();
  const auto& w = inst.words;
  auto binary = [&](const std::string& name) { return PerComponent(name, original, {w[3], w[4]}); };
  switch (inst.opcode) {
    case spv::OpFAdd: return binary(Fn("add"));
    case spv::OpFSub: return binary(Fn("sub"));
    case spv::OpFMul: case spv::OpVectorTimesScalar: return binary(Fn("mul"));
    case spv::OpFDiv: return binary(Fn("div"));
    case spv::OpFMod: return binary(Fn("mod"));
    case spv::OpFNegate: return PerComponent(Fn("neg"), original, {w[3]});
    case spv::OpDot: {
      const uint32_t n = ComponentCount(TypeOf(original.words[3]));
      uint32_t sum = 0;
      for (uint32_t k = 0; k < n; ++k) {
        VKXLA_ASSIGN_OR_RETURN(uint32_t product,
                               Call(Fn("mul"), original, {Component(w[3], k), Component(w[4], k)}, uvec2_, k + 1 == n && !sum ? w[2] : 0));
        if (k == 0) {
          sum = product;
          continue;
        }
        VKXLA_ASSIGN_OR_RETURN(sum, Call(Fn("add"), original, {sum, product}, uvec2_, k + 1 == n ? w[2] : 0));
      }
      return OkStatus();
    }
    case spv::OpFOrdEqual: return binary(Fn("oeq"));
    case spv::OpFUnordEqual: return binary(Fn("ueq"));
    case spv::OpFOrdNotEqual: return binary(Fn("one"));
    case spv::OpFUnordNotEqual: return binary(Fn("une"));
    case spv::OpFOrdLessThan: return binary(Fn("olt"));
    case spv::OpFUnordLessThan: return binary(Fn("ult"));
    case spv::OpFOrdLessThanEqual: return binary(Fn("ole"));
    case spv::OpFUnordLessThanEqual: return binary(Fn("ule"));
    case spv::OpFOrdGreaterThan: return binary(Fn("ogt"));
    case spv::OpFUnordGreaterThan: return binary(Fn("ugt"));
    case spv::OpFOrdGreaterThanEqual: return binary(Fn("oge"));
    case spv::OpFUnordGreaterThanEqual: return binary(Fn("uge"));
    case spv::OpIsNan: return PerComponent(Fn("isnan"), original, {w[3]});
    case spv::OpIsInf: return PerComponent(Fn("isinf"), original, {w[3]});
    case spv::OpSelect: return PerComponent(Fn("select"), original, {w[3], w[4], w[5]});
    case spv::OpFConvert: case spv::OpConvertSToF: case spv::OpConvertUToF: case spv::OpConvertFToS: case spv::OpConvertFToU:
      return Convert(original, inst);
    case spv::OpExtInst: return Glsl(original, inst);
    default: return Unsupported(original, "on doubles");
  }
}

}  // namespace

bool SpirvUsesFloat64(const std::vector<uint32_t>& spirv) { return word_pairs::DeclaresCapability(spirv, spv::CapabilityFloat64); }

StatusOr<std::vector<uint32_t>> LowerFloat64(const std::vector<uint32_t>& spirv, Float64Form form, bool keep_calls) {
  VKXLA_ASSIGN_OR_RETURN(std::vector<Inst> insts, word_pairs::Parse(spirv, "f64 lowering"));
  Float64Lowering lowering(std::move(insts), spirv[3], form, keep_calls);
  return lowering.Run(std::vector<uint32_t>(spirv.begin(), spirv.begin() + 5));
}

}  // namespace vkxla
