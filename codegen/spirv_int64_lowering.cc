#include "codegen/spirv_int64_lowering.h"

#include <glslang/SPIRV/GLSL.std.450.h>
#include <glslang/SPIRV/spirv.hpp>
#include <spirv-tools/libspirv.h>

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace vkxla {
namespace {

constexpr uint32_t kKeepSpecId = 200;  // shaders/int64_words.glsl's i64w_never

struct Inst {
  std::vector<uint32_t> words;
  uint32_t opcode = 0, type = 0, result = 0;
  std::vector<uint16_t> ids;  // word offsets of the id operands other than the result and its type
};

uint32_t Word0(uint32_t opcode, size_t words) { return static_cast<uint32_t>(words) << 16 | opcode; }

StatusOr<std::vector<Inst>> Parse(const std::vector<uint32_t>& spirv) {
  struct Sink {
    std::vector<Inst> insts;
  } sink;
  std::unique_ptr<spv_context_t, void (*)(spv_context)> context(spvContextCreate(SPV_ENV_VULKAN_1_2), spvContextDestroy);
  auto on_instruction = [](void* user, const spv_parsed_instruction_t* p) -> spv_result_t {
    Inst inst;
    inst.words.assign(p->words, p->words + p->num_words);
    inst.opcode = p->opcode;
    inst.type = p->type_id;
    inst.result = p->result_id;
    for (uint16_t k = 0; k < p->num_operands; ++k) {
      const spv_parsed_operand_t& o = p->operands[k];
      if (o.type == SPV_OPERAND_TYPE_ID || o.type == SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID || o.type == SPV_OPERAND_TYPE_SCOPE_ID ||
          (o.type == SPV_OPERAND_TYPE_TYPE_ID && !(p->type_id && o.offset == 1)))
        inst.ids.push_back(o.offset);
    }
    static_cast<Sink*>(user)->insts.push_back(std::move(inst));
    return SPV_SUCCESS;
  };
  spv_diagnostic diagnostic = nullptr;
  const spv_result_t r = spvBinaryParse(context.get(), &sink, spirv.data(), spirv.size(), nullptr, on_instruction, &diagnostic);
  std::string why = diagnostic && diagnostic->error ? diagnostic->error : "";
  spvDiagnosticDestroy(diagnostic);
  if (r != SPV_SUCCESS) return InvalidArgument("64-bit integer lowering: the kernel's SPIR-V does not parse: " + why);
  return std::move(sink.insts);
}

bool IsTypeDeclaration(uint32_t op) { return op >= spv::OpTypeVoid && op <= spv::OpTypeForwardPointer; }

// The pass's state: the module's types, the helpers and what each id is.
class Lowering {
 public:
  explicit Lowering(std::vector<Inst> insts, uint32_t bound) : insts_(std::move(insts)), bound_(bound) {}

  StatusOr<std::vector<uint32_t>> Run(const std::vector<uint32_t>& header);

 private:
  struct Helper {
    uint32_t function = 0, result_type = 0;
    std::vector<uint32_t> parameter_pointers;  // Function-storage pointer types
  };

  Status Survey();
  Status RewriteTypes();
  void Substitute(Inst& inst) const;
  uint32_t Fresh(uint32_t type) {
    const uint32_t id = bound_++;
    if (type) type_of_[id] = type;
    return id;
  }
  bool Is64(uint32_t value) const {
    auto it = type_of_.find(value);
    return it != type_of_.end() && int64_types_.count(it->second);
  }
  uint32_t TypeOf(uint32_t value) const {
    auto it = type_of_.find(value);
    return it == type_of_.end() ? 0 : it->second;
  }
  uint32_t Mapped(uint32_t id) const {
    auto it = substitute_.find(id);
    return it == substitute_.end() ? id : it->second;
  }
  Status Unsupported(const Inst& inst, const std::string& what) const {
    return Unimplemented("64-bit integer emulation (the device lacks shaderInt64, or VKXLA_MASK hides it): SPIR-V opcode " +
                         std::to_string(inst.opcode) + " " + what + " has no word-pair form");
  }
  // Appends the instructions that compute `inst` on word pairs to body_.
  Status Rewrite(const Inst& inst);
  Status Call(const std::string& helper, const Inst& inst, const std::vector<uint32_t>& args);
  StatusOr<uint32_t> Adapt(uint32_t value, uint32_t to);
  void Emit(std::vector<uint32_t> words) { body_.insert(body_.end(), words.begin(), words.end()); }

  std::vector<Inst> insts_;
  uint32_t bound_;
  std::set<uint32_t> int64_types_;
  uint32_t uint_ = 0, int_ = 0, uvec2_ = 0, bool_ = 0, float_ = 0, double_ = 0, glsl_ = 0;
  std::map<uint32_t, uint32_t> pointee_;     // pointer type -> pointee
  std::map<uint32_t, uint32_t> type_of_;     // value -> type (original ids)
  std::map<uint32_t, uint32_t> substitute_;  // removed id -> the id standing for it
  std::set<uint32_t> removed_;
  std::map<std::string, Helper> helpers_;
  std::optional<uint32_t> keep_constant_;
  std::vector<uint32_t> body_, temporaries_;  // of the function being rewritten
};

Status Lowering::Survey() {
  std::map<uint32_t, std::string> names;
  std::map<uint32_t, Helper> functions;
  uint32_t current = 0;
  for (const Inst& inst : insts_) {
    const auto& w = inst.words;
    if (inst.result && inst.type) type_of_[inst.result] = inst.type;
    switch (inst.opcode) {
      case spv::OpName: {
        const char* s = reinterpret_cast<const char*>(&w[2]);
        const std::string name(s, strnlen(s, (w.size() - 2) * 4));
        if (name.rfind("i64w_", 0) == 0) names[w[1]] = name.substr(0, name.find('('));
        break;
      }
      case spv::OpDecorate:
        if (w.size() == 4 && w[2] == spv::DecorationSpecId && w[3] == kKeepSpecId) keep_constant_ = w[1];
        break;
      case spv::OpExtInstImport: {
        const char* s = reinterpret_cast<const char*>(&w[2]);
        if (std::string(s, strnlen(s, (w.size() - 2) * 4)) == "GLSL.std.450") glsl_ = inst.result;
        break;
      }
      case spv::OpTypeInt:
        if (w[2] == 64) int64_types_.insert(inst.result);
        if (w[2] == 32) (w[3] ? int_ : uint_) = inst.result;
        break;
      case spv::OpTypeFloat:
        if (w[2] == 32) float_ = inst.result;
        if (w[2] == 64) double_ = inst.result;
        break;
      case spv::OpTypeBool: bool_ = inst.result; break;
      case spv::OpTypeVector:
        if (int64_types_.count(w[2])) return Unsupported(inst, "(a vector of 64-bit integers)");
        if (w[2] == uint_ && w[3] == 2) uvec2_ = inst.result;
        break;
      case spv::OpTypePointer: pointee_[inst.result] = w[3]; break;
      case spv::OpFunction:
        current = inst.result;
        functions[current].function = current;
        functions[current].result_type = inst.type;
        break;
      case spv::OpFunctionParameter: functions[current].parameter_pointers.push_back(inst.type); break;
      default: break;
    }
  }
  for (const auto& [id, name] : names)
    if (functions.count(id)) helpers_[name] = functions[id];
  if (!uint_ || !uvec2_ || !bool_ || !keep_constant_ || !helpers_.count("i64w_add"))
    return Internal("64-bit integer lowering: the kernel lacks shaders/int64_words.glsl (LibraryNeeds::int64_words)");
  return OkStatus();
}

// 64-bit integer types become uvec2; pointer and function types that then
// repeat another are merged into it (SPIR-V allows a function type once).
Status Lowering::RewriteTypes() {
  for (uint32_t t : int64_types_) {
    substitute_[t] = uvec2_;
    removed_.insert(t);
  }
  std::map<std::vector<uint32_t>, uint32_t> seen;
  for (Inst& inst : insts_) {
    if (inst.opcode != spv::OpTypePointer && inst.opcode != spv::OpTypeFunction) continue;
    Inst mapped = inst;
    Substitute(mapped);
    std::vector<uint32_t> key = mapped.words;
    key[1] = 0;  // the result id
    auto [it, fresh] = seen.insert({key, inst.result});
    if (!fresh) {
      substitute_[inst.result] = it->second;
      removed_.insert(inst.result);
    }
  }
  return OkStatus();
}

void Lowering::Substitute(Inst& inst) const {
  if (inst.type) inst.words[1] = Mapped(inst.words[1]);
  for (uint16_t at : inst.ids) inst.words[at] = Mapped(inst.words[at]);
}

StatusOr<uint32_t> Lowering::Adapt(uint32_t value, uint32_t to) {
  const uint32_t from = Mapped(TypeOf(value));
  if (from == to) return value;
  if ((from == uint_ || from == int_) && (to == uint_ || to == int_)) {
    const uint32_t id = Fresh(to);
    Emit({Word0(spv::OpBitcast, 4), to, id, value});
    return id;
  }
  if (from == uvec2_ && (to == uint_ || to == int_)) {
    const uint32_t low = Fresh(uint_);
    Emit({Word0(spv::OpCompositeExtract, 5), uint_, low, value, 0});
    return Adapt(low, to);
  }
  return Internal("64-bit integer lowering: no conversion from type %" + std::to_string(from) + " to %" + std::to_string(to));
}

Status Lowering::Call(const std::string& name, const Inst& inst, const std::vector<uint32_t>& args) {
  auto it = helpers_.find(name);
  if (it == helpers_.end()) return Unsupported(inst, "(" + name + " is not in shaders/int64_words.glsl for this device)");
  const Helper& h = it->second;
  if (h.parameter_pointers.size() != args.size()) return Internal("64-bit integer lowering: " + name + " takes other arguments");
  std::vector<uint32_t> call = {0, h.result_type, 0, h.function};
  for (size_t k = 0; k < args.size(); ++k) {
    VKXLA_ASSIGN_OR_RETURN(uint32_t value, Adapt(args[k], pointee_.at(h.parameter_pointers[k])));
    const uint32_t temporary = Fresh(0);
    // The parameter's pointer type may have merged into an equal one.
    temporaries_.insert(temporaries_.end(), {Word0(spv::OpVariable, 4), Mapped(h.parameter_pointers[k]), temporary, spv::StorageClassFunction});
    Emit({Word0(spv::OpStore, 3), temporary, value});
    call.push_back(temporary);
  }
  const uint32_t want = Mapped(inst.type);
  const uint32_t result = h.result_type == want ? inst.result : Fresh(h.result_type);
  call[0] = Word0(spv::OpFunctionCall, call.size());
  call[2] = result;
  Emit(call);
  if (result == inst.result) return OkStatus();
  if ((h.result_type == uint_ || h.result_type == int_) && (want == uint_ || want == int_)) {
    Emit({Word0(spv::OpBitcast, 4), want, inst.result, result});
    return OkStatus();
  }
  return Internal("64-bit integer lowering: " + name + " returns another type than opcode " + std::to_string(inst.opcode));
}

Status Lowering::Rewrite(const Inst& original) {
  Inst inst = original;
  Substitute(inst);
  auto& w = inst.words;
  const bool result64 = int64_types_.count(original.type) > 0;
  bool operand64 = false;
  for (uint16_t at : original.ids) operand64 = operand64 || Is64(original.words[at]);
  if (!result64 && !operand64) {
    Emit(w);
    return OkStatus();
  }
  const uint32_t op = inst.opcode;
  auto binary = [&](const char* name) { return Call(name, inst, {w[3], w[4]}); };
  switch (op) {
    // Word pairs hold these as they are.
    case spv::OpLoad: case spv::OpStore: case spv::OpCopyObject: case spv::OpPhi: case spv::OpUndef: case spv::OpVariable:
    case spv::OpFunctionCall: case spv::OpFunctionParameter: case spv::OpReturnValue: case spv::OpCompositeConstruct:
    case spv::OpCompositeExtract: case spv::OpCompositeInsert: case spv::OpCopyMemory: case spv::OpBitwiseAnd:
    case spv::OpBitwiseOr: case spv::OpBitwiseXor: case spv::OpNot: case spv::OpGroupNonUniformBroadcast:
    case spv::OpGroupNonUniformBroadcastFirst: case spv::OpGroupNonUniformShuffle: case spv::OpGroupNonUniformShuffleXor:
    case spv::OpGroupNonUniformShuffleUp: case spv::OpGroupNonUniformShuffleDown:
      Emit(w);
      return OkStatus();
    case spv::OpBitcast:
      if (Mapped(original.type) == uvec2_ && Mapped(TypeOf(original.words[3])) == uvec2_) {
        Emit({Word0(spv::OpCopyObject, 4), w[1], w[2], w[3]});
      } else {
        Emit(w);  // to and from doubles and other 64-bit vectors: the same bits
      }
      return OkStatus();
    case spv::OpAccessChain: case spv::OpInBoundsAccessChain: case spv::OpPtrAccessChain:
    case spv::OpVectorExtractDynamic: case spv::OpVectorInsertDynamic: {
      // 64-bit indexes: their low word (no array here reaches 2^32 elements).
      const size_t first = op == spv::OpVectorInsertDynamic ? 5 : 4;
      for (size_t k = first; k < w.size(); ++k)
        if (Is64(original.words[k])) {
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
    case spv::OpSNegate: return Call("i64w_neg", inst, {w[3]});
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
      return Call("i64w_select", inst, {w[3], w[4], w[5]});
    case spv::OpSConvert: case spv::OpUConvert: {
      const uint32_t from = Mapped(TypeOf(original.words[3])), to = Mapped(original.type);
      if (result64 && Is64(original.words[3])) {
        Emit({Word0(spv::OpCopyObject, 4), w[1], w[2], w[3]});
        return OkStatus();
      }
      if (result64 && (from == int_ || from == uint_))
        return Call(op == spv::OpSConvert ? "i64w_from_i32" : "i64w_from_u32", inst, {w[3]});
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
      if (to == float_) return Call(s ? "i64w_s_to_f32" : "i64w_u_to_f32", inst, {w[3]});
      if (to == double_ && double_) return Call(s ? "i64w_s_to_f64" : "i64w_u_to_f64", inst, {w[3]});
      return Unsupported(inst, "(a conversion from a 64-bit integer to a float of this width)");
    }
    case spv::OpConvertFToS: case spv::OpConvertFToU: {
      const bool s = op == spv::OpConvertFToS;
      const uint32_t from = Mapped(TypeOf(original.words[3]));
      if (from == float_) return Call(s ? "i64w_f32_to_s" : "i64w_f32_to_u", inst, {w[3]});
      if (from == double_ && double_) return Call(s ? "i64w_f64_to_s" : "i64w_f64_to_u", inst, {w[3]});
      return Unsupported(inst, "(a conversion to a 64-bit integer from a float of this width)");
    }
    case spv::OpExtInst: {
      if (w[3] != glsl_) return Unsupported(inst, "(an extended instruction outside GLSL.std.450)");
      const std::vector<uint32_t> args(w.begin() + 5, w.end());
      switch (w[4]) {
        case GLSLstd450SAbs: return Call("i64w_abs", inst, args);
        case GLSLstd450SSign: return Call("i64w_sign", inst, args);
        case GLSLstd450UMin: return Call("i64w_umin", inst, args);
        case GLSLstd450SMin: return Call("i64w_smin", inst, args);
        case GLSLstd450UMax: return Call("i64w_umax", inst, args);
        case GLSLstd450SMax: return Call("i64w_smax", inst, args);
        case GLSLstd450UClamp: return Call("i64w_uclamp", inst, args);
        case GLSLstd450SClamp: return Call("i64w_sclamp", inst, args);
        default: return Unsupported(inst, "(GLSL.std.450 instruction " + std::to_string(w[4]) + ")");
      }
    }
    default: return Unsupported(inst, "on 64-bit integers");
  }
}

StatusOr<std::vector<uint32_t>> Lowering::Run(const std::vector<uint32_t>& header) {
  VKXLA_RETURN_IF_ERROR(Survey());
  VKXLA_RETURN_IF_ERROR(RewriteTypes());
  std::vector<uint32_t> out(header);
  bool types_begun = false, in_function = false, label_seen = false, in_variables = false;
  std::vector<uint32_t> function_head;  // OpFunction, parameters, the first label and its variables
  for (const Inst& original : insts_) {
    const uint32_t op = original.opcode;
    if (op == spv::OpCapability && original.words[1] == spv::CapabilityInt64) continue;
    if (op == spv::OpCapability && original.words[1] == spv::CapabilityInt64Atomics)
      return Unsupported(original, "(64-bit atomics)");
    if (op == spv::OpDecorate && original.words[1] == *keep_constant_ && original.words[2] == spv::DecorationSpecId) continue;
    if (removed_.count(original.result)) continue;
    if ((op == spv::OpName || op == spv::OpDecorate || op == spv::OpMemberName || op == spv::OpMemberDecorate) &&
        removed_.count(original.words[1]))
      continue;
    if (IsTypeDeclaration(op) && !types_begun) {
      // uint and uvec2 first: the 64-bit types' uses now name them.
      types_begun = true;
      out.insert(out.end(), {Word0(spv::OpTypeInt, 4), uint_, 32, 0, Word0(spv::OpTypeVector, 4), uvec2_, uint_, 2});
    }
    if ((op == spv::OpTypeInt && original.result == uint_) || (op == spv::OpTypeVector && original.result == uvec2_)) continue;
    Inst inst = original;
    Substitute(inst);
    if (!in_function) {
      if (op == spv::OpFunction) {
        in_function = true;
        label_seen = in_variables = false;
        function_head = inst.words;
        body_.clear();
        temporaries_.clear();
        continue;
      }
      if (original.result == *keep_constant_) {  // frozen to 0: the optimizer drops the helpers no call needs
        if (op != spv::OpSpecConstant) return Internal("64-bit integer lowering: i64w_never is not a scalar specialization constant");
        inst.words[0] = Word0(spv::OpConstant, inst.words.size());
      } else if (op == spv::OpConstant && int64_types_.count(original.type)) {
        const uint32_t low = Fresh(uint_), high = Fresh(uint_);
        out.insert(out.end(), {Word0(spv::OpConstant, 4), uint_, low, original.words[3], Word0(spv::OpConstant, 4), uint_, high,
                               original.words[4], Word0(spv::OpConstantComposite, 5), uvec2_, original.result, low, high});
        continue;
      } else if ((op == spv::OpSpecConstant || op == spv::OpSpecConstantOp) && int64_types_.count(original.type)) {
        return Unsupported(original, "(a 64-bit specialization constant)");
      }
      out.insert(out.end(), inst.words.begin(), inst.words.end());
      continue;
    }
    // Inside a function: its variables must open its first block, so the
    // call temporaries join them when the function ends.
    if (op == spv::OpFunctionParameter || (op == spv::OpLabel && !label_seen) || (op == spv::OpVariable && in_variables)) {
      if (op == spv::OpLabel) label_seen = in_variables = true;
      function_head.insert(function_head.end(), inst.words.begin(), inst.words.end());
      continue;
    }
    in_variables = false;
    if (op == spv::OpFunctionEnd) {
      out.insert(out.end(), function_head.begin(), function_head.end());
      out.insert(out.end(), temporaries_.begin(), temporaries_.end());
      out.insert(out.end(), body_.begin(), body_.end());
      out.insert(out.end(), inst.words.begin(), inst.words.end());
      in_function = false;
      continue;
    }
    VKXLA_RETURN_IF_ERROR(Rewrite(original));
  }
  out[3] = bound_;
  return out;
}

}  // namespace

bool SpirvUsesInt64(const std::vector<uint32_t>& spirv) {
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t words = spirv[at] >> 16, opcode = spirv[at] & 0xffff;
    if (words == 0) return false;
    if (opcode == spv::OpCapability && at + 1 < spirv.size() && spirv[at + 1] == spv::CapabilityInt64) return true;
    if (opcode != spv::OpCapability && opcode != spv::OpExtension && opcode != spv::OpExtInstImport) return false;
    at += words;
  }
  return false;
}

StatusOr<std::vector<uint32_t>> LowerInt64ToWordPairs(const std::vector<uint32_t>& spirv) {
  if (spirv.size() < 5 || spirv[0] != 0x07230203u) return InvalidArgument("64-bit integer lowering: not a SPIR-V module");
  VKXLA_ASSIGN_OR_RETURN(std::vector<Inst> insts, Parse(spirv));
  Lowering lowering(std::move(insts), spirv[3]);
  return lowering.Run(std::vector<uint32_t>(spirv.begin(), spirv.begin() + 5));
}

}  // namespace vkxla
