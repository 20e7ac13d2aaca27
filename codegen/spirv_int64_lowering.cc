#include "codegen/spirv_int64_lowering.h"

#include <glslang/SPIRV/GLSL.std.450.h>
#include <glslang/SPIRV/spirv.hpp>

#include "codegen/spirv_word_pair_lowering.h"

namespace vkxla {
namespace {

using word_pairs::Inst;
using word_pairs::Word0;

constexpr uint32_t kKeepSpecId = 200;  // shaders/int64_words.glsl's i64w_never

class Int64Lowering : public word_pairs::WordPairLowering {
 public:
  Int64Lowering(std::vector<Inst> insts, uint32_t bound)
      : WordPairLowering({.what = "64-bit integer emulation (the device lacks shaderInt64, or VKXLA_MASK hides it)",
                          .type = "64-bit integers",
                          .prefix = "i64w_",
                          .library = "shaders/int64_words.glsl (LibraryNeeds::int64_words)",
                          .keep_spec_id = kKeepSpecId,
                          .capability = spv::CapabilityInt64},
                         std::move(insts), bound) {}

 protected:
  bool Lowers(const Inst& type) const override { return type.opcode == spv::OpTypeInt && type.words[2] == 64; }
  bool LowersVectors() const override { return false; }
  Status CheckCapability(const Inst& inst) const override {
    if (inst.words[1] == spv::CapabilityInt64Atomics) return Unsupported(inst, "(64-bit atomics)");
    return OkStatus();
  }
  Status Rewrite(const Inst& original, Inst& inst) override;
};

Status Int64Lowering::Rewrite(const Inst& original, Inst& inst) {
  VKXLA_ASSIGN_OR_RETURN(bool structural, RewriteStructural(original, inst));
  if (structural) return OkStatus();
  auto& w = inst.words;
  const bool result64 = IsLoweredType(original.type);
  const uint32_t op = inst.opcode;
  auto binary = [&](const char* name) { return CallInto(name, inst, {w[3], w[4]}); };
  switch (op) {
    // Word pairs hold these as they are.
    case spv::OpBitwiseAnd: case spv::OpBitwiseOr: case spv::OpBitwiseXor: case spv::OpNot:
    case spv::OpGroupNonUniformBroadcast: case spv::OpGroupNonUniformBroadcastFirst: case spv::OpGroupNonUniformShuffle:
    case spv::OpGroupNonUniformShuffleXor: case spv::OpGroupNonUniformShuffleUp: case spv::OpGroupNonUniformShuffleDown:
      Emit(w);
      return OkStatus();
    case spv::OpVectorExtractDynamic: case spv::OpVectorInsertDynamic: {
      // 64-bit indexes: their low word.
      const size_t first = op == spv::OpVectorInsertDynamic ? 5 : 4;
      for (size_t k = first; k < w.size(); ++k)
        if (IsLowered(original.words[k])) {
          VKXLA_ASSIGN_OR_RETURN(w[k], Adapt(w[k], uint_));
        }
      Emit(w);
      return OkStatus();
    }
    case spv::OpIAdd: return binary("i64w_add");
    case spv::OpISub: return binary("i64w_sub");
    case spv::OpIMul: return binary("i64w_mul");
    case spv::OpUDiv: return binary("i64w_udiv");
    case spv::OpSDiv: return binary("i64w_sdiv");
    case spv::OpUMod: return binary("i64w_umod");
    case spv::OpSRem: return binary("i64w_srem");
    case spv::OpSMod: return binary("i64w_smod");
    case spv::OpSNegate: return CallInto("i64w_neg", inst, {w[3]});
    case spv::OpIEqual: return binary("i64w_eq");
    case spv::OpINotEqual: return binary("i64w_ne");
    case spv::OpULessThan: return binary("i64w_ult");
    case spv::OpULessThanEqual: return binary("i64w_ule");
    case spv::OpUGreaterThan: return binary("i64w_ugt");
    case spv::OpUGreaterThanEqual: return binary("i64w_uge");
    case spv::OpSLessThan: return binary("i64w_slt");
    case spv::OpSLessThanEqual: return binary("i64w_sle");
    case spv::OpSGreaterThan: return binary("i64w_sgt");
    case spv::OpSGreaterThanEqual: return binary("i64w_sge");
    case spv::OpShiftLeftLogical: case spv::OpShiftRightLogical: case spv::OpShiftRightArithmetic:
      if (!result64) {  // a 32-bit value shifted by a 64-bit count
        VKXLA_ASSIGN_OR_RETURN(w[4], Adapt(w[4], uint_));
        Emit(w);
        return OkStatus();
      }
      return binary(op == spv::OpShiftLeftLogical ? "i64w_shl" : op == spv::OpShiftRightLogical ? "i64w_shr" : "i64w_sar");
    case spv::OpSelect:
      if (Mapped(TypeOf(original.words[3])) != bool_) return Unsupported(inst, "(a select on a vector condition)");
      return CallInto("i64w_select", inst, {w[3], w[4], w[5]});
    case spv::OpSConvert: case spv::OpUConvert: {
      const uint32_t from = Mapped(TypeOf(original.words[3])), to = Mapped(original.type);
      if (result64 && IsLowered(original.words[3])) {
        Emit({Word0(spv::OpCopyObject, 4), w[1], w[2], w[3]});
        return OkStatus();
      }
      if (result64 && (from == int_ || from == uint_))
        return CallInto(op == spv::OpSConvert ? "i64w_from_i32" : "i64w_from_u32", inst, {w[3]});
      if (!result64 && (to == int_ || to == uint_)) {
        VKXLA_ASSIGN_OR_RETURN(uint32_t low, Adapt(w[3], to));
        Emit({Word0(spv::OpCopyObject, 4), w[1], w[2], low});
        return OkStatus();
      }
      return Unsupported(inst, "(a conversion between 64-bit and 8- or 16-bit integers)");
    }
    case spv::OpConvertSToF: case spv::OpConvertUToF: {
      const bool s = op == spv::OpConvertSToF;
      const uint32_t to = Mapped(original.type);
      if (to == float_) return CallInto(s ? "i64w_s_to_f32" : "i64w_u_to_f32", inst, {w[3]});
      if (to == double_ && double_) return CallInto(s ? "i64w_s_to_f64" : "i64w_u_to_f64", inst, {w[3]});
      return Unsupported(inst, "(a conversion from a 64-bit integer to a float of this width)");
    }
    case spv::OpConvertFToS: case spv::OpConvertFToU: {
      const bool s = op == spv::OpConvertFToS;
      const uint32_t from = Mapped(TypeOf(original.words[3]));
      if (from == float_) return CallInto(s ? "i64w_f32_to_s" : "i64w_f32_to_u", inst, {w[3]});
      if (from == double_ && double_) return CallInto(s ? "i64w_f64_to_s" : "i64w_f64_to_u", inst, {w[3]});
      return Unsupported(inst, "(a conversion to a 64-bit integer from a float of this width)");
    }
    case spv::OpExtInst: {
      if (w[3] != glsl_) return Unsupported(inst, "(an extended instruction outside GLSL.std.450)");
      const std::vector<uint32_t> args(w.begin() + 5, w.end());
      switch (w[4]) {
        case GLSLstd450SAbs: return CallInto("i64w_abs", inst, args);
        case GLSLstd450SSign: return CallInto("i64w_sign", inst, args);
        case GLSLstd450UMin: return CallInto("i64w_umin", inst, args);
        case GLSLstd450SMin: return CallInto("i64w_smin", inst, args);
        case GLSLstd450UMax: return CallInto("i64w_umax", inst, args);
        case GLSLstd450SMax: return CallInto("i64w_smax", inst, args);
        case GLSLstd450UClamp: return CallInto("i64w_uclamp", inst, args);
        case GLSLstd450SClamp: return CallInto("i64w_sclamp", inst, args);
        default: return Unsupported(inst, "(GLSL.std.450 instruction " + std::to_string(w[4]) + ")");
      }
    }
    default: return Unsupported(inst, "on 64-bit integers");
  }
}

}  // namespace

bool SpirvUsesInt64(const std::vector<uint32_t>& spirv) { return word_pairs::DeclaresCapability(spirv, spv::CapabilityInt64); }

StatusOr<std::vector<uint32_t>> LowerInt64ToWordPairs(const std::vector<uint32_t>& spirv) {
  VKXLA_ASSIGN_OR_RETURN(std::vector<Inst> insts, word_pairs::Parse(spirv, "64-bit integer lowering"));
  Int64Lowering lowering(std::move(insts), spirv[3]);
  return lowering.Run(std::vector<uint32_t>(spirv.begin(), spirv.begin() + 5));
}

}  // namespace vkxla
