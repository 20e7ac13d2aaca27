#include "codegen/spirv_word_pair_lowering.h"

#include <glslang/SPIRV/spirv.hpp>
#include <spirv-tools/libspirv.h>

#include <cstring>
#include <memory>

namespace vkxla::word_pairs {
namespace {

bool IsTypeDeclaration(uint32_t op) { return op >= spv::OpTypeVoid && op <= spv::OpTypeForwardPointer; }

std::string StringOperand(const std::vector<uint32_t>& w, size_t from) {
  const char* s = reinterpret_cast<const char*>(&w[from]);
  return std::string(s, strnlen(s, (w.size() - from) * 4));
}

}  // namespace

uint32_t Word0(uint32_t opcode, size_t words) { return static_cast<uint32_t>(words) << 16 | opcode; }

bool DeclaresCapability(const std::vector<uint32_t>& spirv, uint32_t capability) {
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t words = spirv[at] >> 16, opcode = spirv[at] & 0xffff;
    if (words == 0) return false;
    if (opcode == spv::OpCapability && at + 1 < spirv.size() && spirv[at + 1] == capability) return true;
    if (opcode != spv::OpCapability && opcode != spv::OpExtension && opcode != spv::OpExtInstImport) return false;
    at += words;
  }
  return false;
}

StatusOr<std::vector<Inst>> Parse(const std::vector<uint32_t>& spirv, const std::string& what) {
  if (spirv.size() < 5 || spirv[0] != 0x07230203u) return InvalidArgument(what + ": not a SPIR-V module");
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
  if (r != SPV_SUCCESS) return InvalidArgument(what + ": the kernel's SPIR-V does not parse: " + why);
  return std::move(sink.insts);
}

Status WordPairLowering::Unsupported(const Inst& inst, const std::string& what) const {
  return Unimplemented(names_.what + ": SPIR-V opcode " + std::to_string(inst.opcode) + " " + what + " has no word form");
}

Status WordPairLowering::Survey() {
  std::map<uint32_t, std::string> names;
  std::map<uint32_t, Helper> functions;
  uint32_t current = 0;
  for (const Inst& inst : insts_) {
    const auto& w = inst.words;
    if (inst.result && inst.type) type_of_[inst.result] = inst.type;
    switch (inst.opcode) {
      case spv::OpName: {
        const std::string name = StringOperand(w, 2);
        if (name.rfind(names_.prefix, 0) == 0) names[w[1]] = name.substr(0, name.find('('));
        break;
      }
      case spv::OpDecorate:
        if (w.size() == 4 && w[2] == spv::DecorationSpecId && w[3] == names_.keep_spec_id) keep_constant_ = w[1];
        break;
      case spv::OpExtInstImport:
        if (StringOperand(w, 2) == "GLSL.std.450") glsl_ = inst.result;
        break;
      case spv::OpTypeInt:
        bits_[inst.result] = w[2];
        if (Lowers(inst)) lowered_.insert(inst.result);
        if (w[2] == 32) (w[3] ? int_ : uint_) = inst.result;
        break;
      case spv::OpTypeFloat:
        bits_[inst.result] = w[2];
        if (Lowers(inst)) lowered_.insert(inst.result);
        if (w[2] == 32) float_ = inst.result;
        if (w[2] == 64) double_ = inst.result;
        break;
      case spv::OpTypeBool: bool_ = inst.result; break;
      case spv::OpTypeVector:
        if (lowered_.count(w[2])) {
          if (!LowersVectors() || w[3] != 2) return Unsupported(inst, "(a vector of " + std::to_string(w[3]) + " " + names_.type + ")");
          lowered_vectors_.insert(inst.result);
        }
        vectors_[inst.result] = {w[2], w[3]};
        members_[inst.result] = {w[2]};
        if (bits_.count(w[2])) bits_[inst.result] = bits_[w[2]] * w[3];
        if (w[2] == uint_ && w[3] == 2) uvec2_ = inst.result;
        if (w[2] == uint_ && w[3] == 4) uvec4_ = inst.result;
        break;
      case spv::OpTypePointer:
        pointee_[inst.result] = w[3];
        storage_class_[inst.result] = w[2];
        break;
      case spv::OpConstant:
        if (w.size() == 4) word_constants_[inst.result] = w[3];
        break;
      case spv::OpTypeStruct: members_[inst.result].assign(w.begin() + 2, w.end()); break;
      case spv::OpTypeArray: case spv::OpTypeRuntimeArray: case spv::OpTypeMatrix: members_[inst.result] = {w[2]}; break;
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
    if (functions.count(id)) {
      helpers_[name] = functions[id];
      library_functions_.insert(id);
      if (name == names_.prefix + "keep") keep_function_ = id;
    }
  if (!uint_ || !uvec2_ || !bool_ || !keep_constant_ || helpers_.empty())
    return Internal(names_.what + ": the kernel lacks " + names_.library);
  return OkStatus();
}

// Lowered types become uvec2 (uvec4 for pairs); pointer and function types
// that then repeat another are merged into it (SPIR-V allows each once).
void WordPairLowering::RewriteTypes() {
  if (!lowered_vectors_.empty() && !uvec4_) uvec4_ = Fresh(0);
  if (uvec4_) bits_[uvec4_] = 128;
  for (uint32_t t : lowered_) {
    substitute_[t] = uvec2_;
    removed_.insert(t);
  }
  for (uint32_t t : lowered_vectors_) {
    substitute_[t] = uvec4_;
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
}

void WordPairLowering::Substitute(Inst& inst) const {
  if (inst.type) inst.words[1] = Mapped(inst.words[1]);
  for (uint16_t at : inst.ids) inst.words[at] = Mapped(inst.words[at]);
}

StatusOr<uint32_t> WordPairLowering::Adapt(uint32_t value, uint32_t to) {
  const uint32_t from = Mapped(TypeOf(value));
  if (from == to) return value;
  const uint32_t bits = Bits(from);
  if (bits && bits == Bits(to) && from != bool_ && to != bool_) {
    const uint32_t id = Fresh(to);
    Emit({Word0(spv::OpBitcast, 4), to, id, value});
    return id;
  }
  if (from == uvec2_ && (to == uint_ || to == int_)) {
    const uint32_t low = Fresh(uint_);
    Emit({Word0(spv::OpCompositeExtract, 5), uint_, low, value, 0});
    return Adapt(low, to);
  }
  return Internal(names_.what + ": no conversion from type %" + std::to_string(from) + " to %" + std::to_string(to));
}

uint32_t WordPairLowering::Component(uint32_t value, uint32_t k) {
  const uint32_t type = TypeOf(value);
  if (IsLoweredVector(type)) {
    const uint32_t id = Fresh(ComponentType(type));
    Emit({Word0(spv::OpVectorShuffle, 7), uvec2_, id, value, value, 2 * k, 2 * k + 1});
    return id;
  }
  if (ComponentCount(type) == 1) return value;
  const uint32_t id = Fresh(ComponentType(type));
  Emit({Word0(spv::OpCompositeExtract, 5), Mapped(ComponentType(type)), id, value, k});
  return id;
}

StatusOr<bool> WordPairLowering::RewriteStructural(const Inst& original, Inst& inst) {
  auto& w = inst.words;
  switch (inst.opcode) {
    case spv::OpLoad: case spv::OpStore: case spv::OpCopyObject: case spv::OpPhi: case spv::OpUndef: case spv::OpVariable:
    case spv::OpFunctionCall: case spv::OpFunctionParameter: case spv::OpReturnValue: case spv::OpCompositeConstruct:
    case spv::OpCopyMemory:
      Emit(w);
      return true;
    case spv::OpBitcast:
      if (Mapped(original.type) == Mapped(TypeOf(original.words[3]))) {
        Emit({Word0(spv::OpCopyObject, 4), w[1], w[2], w[3]});
      } else {
        Emit(w);  // the same bits in another type of the same width
      }
      return true;
    case spv::OpAccessChain: case spv::OpInBoundsAccessChain: case spv::OpPtrAccessChain:
      VKXLA_RETURN_IF_ERROR(RewriteAccessChain(original, inst));
      return true;
    case spv::OpCompositeExtract: case spv::OpCompositeInsert: {
      // The type holding the last index: a lowered vector's component k is words 2k and 2k + 1.
      const bool insert = inst.opcode == spv::OpCompositeInsert;
      const size_t first_index = insert ? 5 : 4;
      uint32_t holder = TypeOf(original.words[first_index - 1]);
      for (size_t k = first_index; k + 1 < w.size(); ++k) {
        auto it = members_.find(holder);
        if (it == members_.end()) return Internal(names_.what + ": a composite index into a type without members");
        if (it->second.size() != 1 && w[k] >= it->second.size()) return Internal(names_.what + ": a composite index out of range");
        holder = it->second.size() == 1 ? it->second[0] : it->second[w[k]];
      }
      if (!IsLoweredVector(holder)) {
        Emit(w);
        return true;
      }
      uint32_t vector = w[first_index - 1];
      std::vector<uint32_t> path(w.begin() + first_index, w.end() - 1);
      if (!path.empty()) {  // the vector inside a struct or array first
        vector = Fresh(holder);
        std::vector<uint32_t> extract = {Word0(spv::OpCompositeExtract, 4 + path.size()), uvec4_, vector, w[first_index - 1]};
        extract.insert(extract.end(), path.begin(), path.end());
        Emit(extract);
      }
      const uint32_t k = w.back();
      if (!insert) {
        Emit({Word0(spv::OpVectorShuffle, 7), uvec2_, w[2], vector, vector, 2 * k, 2 * k + 1});
        return true;
      }
      const uint32_t other = Component(vector, 1 - k), updated = path.empty() ? w[2] : Fresh(holder);
      Emit({Word0(spv::OpCompositeConstruct, 5), uvec4_, updated, k == 0 ? w[3] : other, k == 0 ? other : w[3]});
      if (!path.empty()) {
        std::vector<uint32_t> put = {Word0(spv::OpCompositeInsert, 5 + path.size()), w[1], w[2], updated, w[4]};
        put.insert(put.end(), path.begin(), path.end());
        Emit(put);
      }
      return true;
    }
    case spv::OpVectorShuffle: {
      if (!IsLoweredVector(TypeOf(original.words[3])) || !IsLoweredVector(TypeOf(original.words[4])))
        return false;
      std::vector<uint32_t> words = {0, w[1], w[2], w[3], w[4]};
      for (size_t k = 5; k < w.size(); ++k) {
        const uint32_t c = w[k];
        words.push_back(c == 0xFFFFFFFFu ? c : 2 * c);
        words.push_back(c == 0xFFFFFFFFu ? c : 2 * c + 1);
      }
      if (words.size() != 9) return false;  // only pairs
      words[0] = Word0(spv::OpVectorShuffle, words.size());
      Emit(words);
      return true;
    }
    default: return false;
  }
}

Status WordPairLowering::RewriteAccessChain(const Inst& original, Inst& inst) {
  auto& w = inst.words;
  // Lowered (64-bit integer) indexes: their low word (no array here reaches 2^32 elements).
  for (size_t k = 4; k < w.size(); ++k)
    if (IsLowered(original.words[k])) {
      VKXLA_ASSIGN_OR_RETURN(w[k], Adapt(w[k], uint_));
    }
  // The type the last index goes into.
  const size_t first = inst.opcode == spv::OpPtrAccessChain ? 5 : 4;
  uint32_t holder = pointee_[TypeOf(original.words[3])];
  for (size_t k = first; k + 1 < w.size(); ++k) {
    auto it = members_.find(holder);
    if (it == members_.end()) return Internal(names_.what + ": an access chain into a type without members");
    if (it->second.size() == 1) {
      holder = it->second[0];
      continue;
    }
    auto member = word_constants_.find(original.words[k]);
    if (member == word_constants_.end() || member->second >= it->second.size())
      return Internal(names_.what + ": a struct member index that is not a constant");
    holder = it->second[member->second];
  }
  if (w.size() <= first || !IsLoweredVector(holder)) {
    Emit(w);
    return OkStatus();
  }
  auto k = word_constants_.find(original.words.back());
  if (k == word_constants_.end()) return Unsupported(original, "(a variable index into a vector of " + names_.type + ")");
  uint32_t vector = w[3];
  if (w.size() > first + 1) {  // the chain to the vector first, through a pointer type to it
    const uint32_t storage = storage_class_[TypeOf(original.words[3])];
    uint32_t pointer = 0;
    for (const auto& [p, pointee] : pointee_)
      if (pointee == holder && storage_class_[p] == storage) pointer = Mapped(p);
    if (!pointer) return Unsupported(original, "(a pointer into a vector of " + names_.type + " inside a composite)");
    vector = Fresh(0);
    std::vector<uint32_t> chain(w.begin(), w.end() - 1);
    chain[0] = Word0(inst.opcode, chain.size());
    chain[1] = pointer;
    chain[2] = vector;
    Emit(chain);
  }
  component_pointers_[original.result] = {vector, k->second};
  return OkStatus();
}

// Loads and stores through a pointer to a component of a lowered vector.
Status WordPairLowering::RewriteComponentAccess(const Inst& original, Inst& inst) {
  auto& w = inst.words;
  const bool load = inst.opcode == spv::OpLoad;
  const auto it = component_pointers_.find(load ? original.words[3] : original.words[1]);
  if ((!load && inst.opcode != spv::OpStore) || it == component_pointers_.end())
    return Unsupported(original, "(a pointer to a component of a vector of " + names_.type + " used otherwise than by a load or store)");
  const ComponentPointer& p = it->second;
  const uint32_t whole = Fresh(0);
  Emit({Word0(spv::OpLoad, 4), uvec4_, whole, p.vector});
  if (load) {
    Emit({Word0(spv::OpVectorShuffle, 7), uvec2_, w[2], whole, whole, 2 * p.component, 2 * p.component + 1});
    return OkStatus();
  }
  const uint32_t other = Fresh(0), updated = Fresh(0);
  Emit({Word0(spv::OpVectorShuffle, 7), uvec2_, other, whole, whole, 2 - 2 * p.component, 3 - 2 * p.component});
  Emit({Word0(spv::OpCompositeConstruct, 5), uvec4_, updated, p.component == 0 ? w[2] : other, p.component == 0 ? other : w[2]});
  Emit({Word0(spv::OpStore, 3), p.vector, updated});
  return OkStatus();
}

StatusOr<uint32_t> WordPairLowering::Call(const std::string& name, const Inst& inst, const std::vector<uint32_t>& args,
                                          uint32_t want, uint32_t result) {
  auto it = helpers_.find(name);
  if (it == helpers_.end()) return Unsupported(inst, "(" + name + " is not in " + names_.library + " for this device)");
  const Helper& h = it->second;
  if (h.parameter_pointers.size() != args.size()) return Internal(names_.what + ": " + name + " takes other arguments");
  std::vector<uint32_t> call = {0, Mapped(h.result_type), 0, h.function};
  for (size_t k = 0; k < args.size(); ++k) {
    VKXLA_ASSIGN_OR_RETURN(uint32_t value, Adapt(args[k], Mapped(pointee_.at(h.parameter_pointers[k]))));
    const uint32_t temporary = Fresh(0);
    // The parameter's pointer type may have merged into an equal one.
    temporaries_.insert(temporaries_.end(), {Word0(spv::OpVariable, 4), Mapped(h.parameter_pointers[k]), temporary, spv::StorageClassFunction});
    Emit({Word0(spv::OpStore, 3), temporary, value});
    call.push_back(temporary);
  }
  if (!result) result = Fresh(want);
  const uint32_t returned = call[1] == want ? result : Fresh(call[1]);
  call[0] = Word0(spv::OpFunctionCall, call.size());
  call[2] = returned;
  Emit(call);
  if (returned == result) return result;
  if (Bits(call[1]) && Bits(call[1]) == Bits(want) && want != bool_) {
    Emit({Word0(spv::OpBitcast, 4), want, result, returned});
    return result;
  }
  return Internal(names_.what + ": " + name + " returns another type than opcode " + std::to_string(inst.opcode) + " wants");
}

StatusOr<std::vector<uint32_t>> WordPairLowering::Run(const std::vector<uint32_t>& header) {
  VKXLA_RETURN_IF_ERROR(Survey());
  RewriteTypes();
  std::vector<uint32_t> out(header);
  bool types_begun = false, in_function = false, label_seen = false, in_variables = false;
  std::vector<uint32_t> function_head;  // OpFunction, parameters, the first label and its variables
  for (const Inst& original : insts_) {
    const uint32_t op = original.opcode;
    if (op == spv::OpCapability && original.words[1] == names_.capability) continue;
    if (op == spv::OpCapability) VKXLA_RETURN_IF_ERROR(CheckCapability(original));
    if (op == spv::OpDecorate && original.words[1] == *keep_constant_ && original.words[2] == spv::DecorationSpecId) continue;
    if (removed_.count(original.result)) continue;
    if ((op == spv::OpName || op == spv::OpDecorate || op == spv::OpMemberName || op == spv::OpMemberDecorate) &&
        removed_.count(original.words[1]))
      continue;
    if (IsTypeDeclaration(op) && !types_begun) {
      // The word types first: the lowered types' uses now name them.
      types_begun = true;
      out.insert(out.end(), {Word0(spv::OpTypeInt, 4), uint_, 32, 0, Word0(spv::OpTypeVector, 4), uvec2_, uint_, 2});
      if (uvec4_) out.insert(out.end(), {Word0(spv::OpTypeVector, 4), uvec4_, uint_, 4});
    }
    if ((op == spv::OpTypeInt && original.result == uint_) ||
        (op == spv::OpTypeVector && (original.result == uvec2_ || original.result == uvec4_)))
      continue;
    Inst inst = original;
    Substitute(inst);
    if (!in_function) {
      if (op == spv::OpFunction) {
        in_function = true;
        label_seen = in_variables = false;
        function_head = inst.words;
        // (Not the keep function: inlined into its dead branch, it goes with it.)
        if (KeepLibraryCalls() && library_functions_.count(original.result) && original.result != keep_function_)
          function_head[3] |= spv::FunctionControlDontInlineMask;
        body_.clear();
        temporaries_.clear();
        continue;
      }
      VKXLA_RETURN_IF_ERROR(RewriteConstant(original, inst, out));
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
    bool touches = IsLoweredType(original.type) || IsLoweredVector(original.type), component = false;
    for (uint16_t at : original.ids) {
      touches = touches || IsLowered(original.words[at]);
      component = component || component_pointers_.count(original.words[at]);
    }
    if (component) {
      VKXLA_RETURN_IF_ERROR(RewriteComponentAccess(original, inst));
    } else if (op == spv::OpAccessChain || op == spv::OpInBoundsAccessChain || op == spv::OpPtrAccessChain) {
      VKXLA_RETURN_IF_ERROR(RewriteAccessChain(original, inst));
    } else if (touches) {
      VKXLA_RETURN_IF_ERROR(Rewrite(original, inst));
    } else {
      Emit(inst.words);
    }
  }
  out[3] = bound_;
  return out;
}

// Module-level instructions: the keep constant frozen, lowered constants
// spelled as words.
Status WordPairLowering::RewriteConstant(const Inst& original, const Inst& inst, std::vector<uint32_t>& out) {
  const uint32_t op = original.opcode;
  if (original.result == *keep_constant_) {  // frozen to 0: the optimizer drops the helpers no call needs
    if (op != spv::OpSpecConstant) return Internal(names_.what + ": the keep constant is not a scalar specialization constant");
    out.insert(out.end(), inst.words.begin(), inst.words.end());
    out[out.size() - inst.words.size()] = Word0(spv::OpConstant, inst.words.size());
    return OkStatus();
  }
  if (op == spv::OpConstant && IsLoweredType(original.type)) {
    const uint32_t low = Fresh(uint_), high = Fresh(uint_);
    constant_words_[original.result] = {low, high};
    const auto [low_word, high_word] = ConstantWords(original.words[3], original.words[4]);
    out.insert(out.end(), {Word0(spv::OpConstant, 4), uint_, low, low_word, Word0(spv::OpConstant, 4), uint_, high,
                           high_word, Word0(spv::OpConstantComposite, 5), uvec2_, original.result, low, high});
    return OkStatus();
  }
  if (op == spv::OpConstantComposite && IsLoweredVector(original.type)) {
    std::vector<uint32_t> words = {Word0(spv::OpConstantComposite, 7), uvec4_, original.result};
    for (size_t k = 3; k < original.words.size(); ++k) {
      auto it = constant_words_.find(original.words[k]);
      if (it == constant_words_.end()) return Unsupported(original, "(a vector constant of other constants)");
      words.insert(words.end(), {it->second.first, it->second.second});
    }
    if (words.size() != 7) return Unsupported(original, "(a vector constant of other constants)");
    out.insert(out.end(), words.begin(), words.end());
    return OkStatus();
  }
  if ((op == spv::OpSpecConstant || op == spv::OpSpecConstantOp || op == spv::OpSpecConstantComposite) &&
      (IsLoweredType(original.type) || IsLoweredVector(original.type)))
    return Unsupported(original, "(a lowered specialization constant)");
  out.insert(out.end(), inst.words.begin(), inst.words.end());
  return OkStatus();
}

}  // namespace vkxla::word_pairs
