#include "runtime/device_fold.h"

#include "ops/collectives.h"

namespace vkxla {

namespace {

constexpr uint32_t kFoldLocalSize = 64;

// The kernel's units of a slice: its 16-byte words, or pairs of them.
uint64_t Units(const BufferSlice& s, DeviceFoldForm form) { return s.size / (form.pairs ? 32 : 16); }

// The element type's vector in one 16-byte word, and the conversions
// from and to the word's bits.
struct WordForm {
  const char* vector;
  const char* from_bits;  // of uvec4 w
  const char* to_bits;    // of vector v
};

WordForm FormOf(ElementType type) {
  switch (type) {
    case ElementType::kF32: return {"vec4", "uintBitsToFloat(w)", "floatBitsToUint(v)"};
    case ElementType::kF64:
      return {"dvec2", "dvec2(packDouble2x32(w.xy), packDouble2x32(w.zw))",
              "uvec4(unpackDouble2x32(v.x), unpackDouble2x32(v.y))"};
    case ElementType::kS64: case ElementType::kU64:
      return {"u64vec2", "u64vec2(pack64(w.xy), pack64(w.zw))", "uvec4(unpack32(v.x), unpack32(v.y))"};
    default: return {"uvec4", "w", "v"};  // 32-bit integers wrap alike signed or not
  }
}

}  // namespace

bool CanFoldOnDevice(const Instruction& op, const TargetFeatures& target, const std::vector<const DeviceFoldMember*>& members) {
  if (members.empty() || members.size() > kMaxDeviceFoldMembers || !CanFoldInPlace(op)) return false;
  for (const Instruction* o : op.operands) {
    const ElementType t = o->shape.element_type();
    if ((t == ElementType::kF64 && (!target.float64 || target.float64_pairs)) ||
        ((t == ElementType::kS64 || t == ElementType::kU64) && !target.int64))
      return false;
  }
  const DeviceFoldMember& first = *members[0];
  if (first.operands.size() != op.operands.size() || first.results.size() != first.operands.size()) return false;
  for (const DeviceFoldMember* m : members) {
    if (m->device != first.device || m->operands.size() != first.operands.size() || m->results.size() != first.results.size())
      return false;
    for (size_t k = 0; k < m->operands.size(); ++k) {
      const BufferSlice &in = m->operands[k], &out = m->results[k];
      if (in.size == 0 || in.size != first.operands[k].size || out.size != in.size || in.size % 16 != 0 ||
          in.size > target.max_storage_buffer_range)
        return false;
    }
  }
  return true;
}

std::string DeviceFoldGlsl(ElementType type, Opcode combiner, size_t members, DeviceFoldForm form) {
  const WordForm f = FormOf(type);
  std::string s = "#version 450\n";
  if (form.pairs || type == ElementType::kS64 || type == ElementType::kU64)
    s += "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n";
  s += "layout(local_size_x = " + std::to_string(kFoldLocalSize) + ") in;\n";
  for (size_t m = 0; m < members; ++m) {
    const std::string i = std::to_string(m);
    s += form.texels ? "layout(binding = " + i + ") uniform usamplerBuffer operand" + i + ";\n"
                     : "layout(std430, binding = " + i + ") readonly buffer Operand" + i + " { uvec4 operand" + i + "[]; };\n";
  }
  const char* result_word = form.pairs ? "u64vec4" : "uvec4";
  for (size_t m = 0; m < members; ++m) {
    const std::string i = std::to_string(m);
    s += "layout(std430, binding = " + std::to_string(members + m) + ") writeonly buffer Result" + i + " { " + result_word +
         " result" + i + "[]; };\n";
  }
  s += "layout(push_constant) uniform Push { uint begin; uint end; } pc;\n";
  s += std::string(f.vector) + " Load(uvec4 w) { return " + f.from_bits + "; }\n";
  s += std::string("uvec4 Bits(") + f.vector + " v) { return " + f.to_bits + "; }\n";
  // One word's fold: in group order, one operation at a time, as the host folds.
  s += "uvec4 Fold(uint i) {\n";
  const char* op = combiner == Opcode::kMultiply ? " * " : " + ";
  for (size_t m = 0; m < members; ++m) {
    const std::string i = std::to_string(m);
    const std::string word = form.texels ? "texelFetch(operand" + i + ", int(i))" : "operand" + i + "[i]";
    s += m == 0 ? "  " + std::string(f.vector) + " acc = Load(" + word + ");\n" : "  acc = acc" + std::string(op) + "Load(" + word + ");\n";
  }
  s += "  return Bits(acc);\n}\n";
  s += "void main() {\n";
  s += "  uint i = pc.begin + (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * " + std::to_string(kFoldLocalSize) +
       "u + gl_LocalInvocationID.x;\n";
  s += "  if (i >= pc.end) return;\n";
  if (form.pairs) {
    s += "  uvec4 a = Fold(2u * i), b = Fold(2u * i + 1u);\n";
    s += "  u64vec4 bits = u64vec4(pack64(a.xy), pack64(a.zw), pack64(b.xy), pack64(b.zw));\n";
  } else {
    s += "  uvec4 bits = Fold(i);\n";
  }
  for (size_t m = 0; m < members; ++m) s += "  result" + std::to_string(m) + "[i] = bits;\n";
  s += "}\n";
  return s;
}

DeviceFolds::~DeviceFolds() {
  for (auto& [step, r] : recordings_)
    if (r.cb) device_.FreeCommandBuffer(r.cb);
}

Status DeviceFolds::FoldShare(const void* step, const Instruction& op, const std::vector<const DeviceFoldMember*>& members,
                              size_t position, DeviceFoldForm form, uint32_t queue, const RecordFn& record) {
  std::vector<uint64_t> key{position, form.texels ? 1u : 0u, form.pairs ? 1u : 0u};
  for (const DeviceFoldMember* m : members)
    for (const std::vector<BufferSlice>* list : {&m->operands, &m->results})
      for (const BufferSlice& s : *list)
        key.insert(key.end(), {reinterpret_cast<uint64_t>(s.buffer), s.offset, s.size});
  Recording& r = recordings_[step];
  if (r.key != key || !r.cb) {
    if (r.cb) device_.FreeCommandBuffer(r.cb);
    r = Recording{};
    const size_t g = members.size();
    for (size_t k = 0; k < members[0]->operands.size(); ++k) {
      const std::string glsl = DeviceFoldGlsl(op.operands[k]->shape.element_type(), FoldCombiner(op), g, form);
      std::shared_ptr<ComputePipeline>& pipeline = pipelines_[glsl];
      if (!pipeline) {
        VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<ComputePipeline> p, ComputePipeline::FromGlsl(device_, glsl, 2 * g));
        pipeline = std::move(p);
      }
      std::vector<BufferSlice> bindings;
      for (const DeviceFoldMember* m : members) bindings.push_back(m->operands[k]);
      for (const DeviceFoldMember* m : members) bindings.push_back(m->results[k]);
      const uint64_t units = Units(members[0]->operands[k], form);
      const uint64_t begin = units * position / g, end = units * (position + 1) / g;
      VKXLA_ASSIGN_OR_RETURN(BoundKernel kernel,
                             BoundKernel::Create(device_, pipeline, std::move(bindings), std::max<uint64_t>(1, end - begin),
                                                 kFoldLocalSize));
      r.kernels.push_back(std::move(kernel));
    }
    VKXLA_ASSIGN_OR_RETURN(r.cb, record([&](Scheduler& s) -> Status {
      s.Barrier();  // the members' operands were written by their own submissions
      for (size_t k = 0; k < r.kernels.size(); ++k) {
        const uint64_t units = Units(members[0]->operands[k], form);
        r.kernels[k].Record(s, {static_cast<uint32_t>(units * position / g), static_cast<uint32_t>(units * (position + 1) / g)});
      }
      return OkStatus();
    }));
    r.key = std::move(key);
  }
  return device_.SubmitAndWait(r.cb, queue);
}

}  // namespace vkxla
