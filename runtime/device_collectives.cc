#include "runtime/device_collectives.h"

#include "codegen/shader_library.h"
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

bool ShareOneDevice(const std::vector<const DeviceMember*>& members) {
  if (members.empty()) return false;
  const DeviceMember& first = *members[0];
  for (const DeviceMember* m : members) {
    if (m->device != first.device || m->operands.size() != first.operands.size() || m->results.size() != first.results.size())
      return false;
    for (size_t k = 0; k < m->operands.size(); ++k)
      if (m->operands[k].size != first.operands[k].size) return false;
    for (size_t k = 0; k < m->results.size(); ++k)
      if (m->results[k].size != first.results[k].size) return false;
  }
  return true;
}

uint64_t FoldBlockBytes(const Instruction& op, size_t leaf) {
  const Shape& r = op.shape.IsTuple() ? op.shape.tuple_shapes().at(leaf) : op.shape;
  return static_cast<uint64_t>(r.element_count()) * static_cast<uint64_t>(BitWidth(r.element_type()) / 8);
}

bool CanFoldOnDevice(const Instruction& op, const TargetFeatures& target, const std::vector<const DeviceMember*>& members) {
  const bool scatter = ScattersFold(op);
  if (!ShareOneDevice(members) || members.size() > kMaxDeviceFoldMembers || !(CanFoldInPlace(op) || scatter)) return false;
  for (const Instruction* o : op.operands) {
    const ElementType t = o->shape.element_type();
    if ((t == ElementType::kF64 && (!target.float64 || target.float64_pairs)) ||
        ((t == ElementType::kS64 || t == ElementType::kU64) && !target.int64))
      return false;
  }
  const DeviceMember& first = *members[0];
  if (first.operands.size() != op.operands.size() || first.results.size() != first.operands.size()) return false;
  for (size_t k = 0; k < first.operands.size(); ++k) {
    const BufferSlice &in = first.operands[k], &out = first.results[k];
    if (in.size == 0 || in.size % 16 != 0 || in.size > target.max_storage_buffer_range) return false;
    if (!scatter && out.size != in.size) return false;
    // A reduce-scatter's blocks: whole words, one a member, each within its result.
    const uint64_t block = scatter ? FoldBlockBytes(op, k) : 0;
    if (scatter && (block == 0 || block % 16 != 0 || block > out.size || block * members.size() > in.size)) return false;
  }
  return true;
}

std::string DeviceFoldGlsl(ElementType type, Opcode combiner, size_t operands, size_t results, DeviceFoldForm form) {
  const WordForm f = FormOf(type);
  std::string s = "#version 450\n";
  if (form.pairs || type == ElementType::kS64 || type == ElementType::kU64)
    s += "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n";
  if (type == ElementType::kF16 || type == ElementType::kBF16) s += ShaderLibrarySource(LibraryNeeds{}, false, false);
  s += "layout(local_size_x = " + std::to_string(kFoldLocalSize) + ") in;\n";
  for (size_t m = 0; m < operands; ++m) {
    const std::string i = std::to_string(m);
    s += form.texels ? "layout(binding = " + i + ") uniform usamplerBuffer operand" + i + ";\n"
                     : "layout(std430, binding = " + i + ") readonly buffer Operand" + i + " { uvec4 operand" + i + "[]; };\n";
  }
  const char* result_word = form.pairs ? "u64vec4" : "uvec4";
  for (size_t m = 0; m < results; ++m) {
    const std::string i = std::to_string(m);
    s += "layout(std430, binding = " + std::to_string(operands + m) + ") writeonly buffer Result" + i + " { " + result_word +
         " result" + i + "[]; };\n";
  }
  s += "layout(push_constant) uniform Push { uint begin; uint end; uint base; } pc;\n";
  // One word's fold: in group order, one operation at a time, as the host folds.
  const std::string op = combiner == Opcode::kMultiply ? " * " : " + ";
  auto word = [&](size_t m) {
    const std::string i = std::to_string(m);
    return form.texels ? "texelFetch(operand" + i + ", int(i))" : "operand" + i + "[i]";
  };
  if (type == ElementType::kF16 || type == ElementType::kBF16) {
    // Eight halves a word, each step rounded to the type (exact in f32,
    // then to nearest even: what the host's double then rounding gives).
    const std::string t = type == ElementType::kF16 ? "f16" : "bf16";
    s += "uvec4 Fold(uint i) {\n";
    for (size_t m = 0; m < operands; ++m) s += "  uvec4 w" + std::to_string(m) + " = " + word(m) + ";\n";
    s += "  uvec4 r = uvec4(0u);\n  for (uint c = 0u; c < 4u; ++c) {\n    for (uint h = 0u; h < 32u; h += 16u) {\n";
    s += "      float acc = " + t + "_to_f32((w0[c] >> h) & 0xFFFFu);\n";
    for (size_t m = 1; m < operands; ++m)
      s += "      acc = q_" + t + "(acc" + op + t + "_to_f32((w" + std::to_string(m) + "[c] >> h) & 0xFFFFu));\n";
    s += "      r[c] |= " + (operands > 1 ? "f32_to_" + t + "(acc)" : std::string("(w0[c] >> h) & 0xFFFFu")) + " << h;\n";
    s += "    }\n  }\n  return r;\n}\n";
  } else {
    s += std::string(f.vector) + " Load(uvec4 w) { return " + f.from_bits + "; }\n";
    s += std::string("uvec4 Bits(") + f.vector + " v) { return " + f.to_bits + "; }\n";
    s += "uvec4 Fold(uint i) {\n";
    for (size_t m = 0; m < operands; ++m)
      s += m == 0 ? "  " + std::string(f.vector) + " acc = Load(" + word(m) + ");\n" : "  acc = acc" + op + "Load(" + word(m) + ");\n";
    s += "  return Bits(acc);\n}\n";
  }
  s += "void main() {\n";
  s += "  uint i = pc.begin + (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * " + std::to_string(kFoldLocalSize) +
       "u + gl_LocalInvocationID.x;\n";
  s += "  if (i >= pc.end) return;\n";
  s += "  uint at = pc.base + i;  // the operands' unit\n";
  if (form.pairs) {
    s += "  uvec4 a = Fold(2u * at), b = Fold(2u * at + 1u);\n";
    s += "  u64vec4 bits = u64vec4(pack64(a.xy), pack64(a.zw), pack64(b.xy), pack64(b.zw));\n";
  } else {
    s += "  uvec4 bits = Fold(at);\n";
  }
  for (size_t m = 0; m < results; ++m) s += "  result" + std::to_string(m) + "[i] = bits;\n";
  s += "}\n";
  return s;
}

DeviceCollectives::~DeviceCollectives() {
  for (auto& [step, r] : recordings_)
    if (r.cb) device_.FreeCommandBuffer(r.cb);
}

namespace {

// What a recording depends on: the position, the form, the members' slices.
std::vector<uint64_t> KeyOf(const std::vector<const DeviceMember*>& members, std::vector<uint64_t> key) {
  for (const DeviceMember* m : members)
    for (const std::vector<BufferSlice>* list : {&m->operands, &m->results})
      for (const BufferSlice& s : *list) key.insert(key.end(), {reinterpret_cast<uint64_t>(s.buffer), s.offset, s.size});
  return key;
}

}  // namespace

StatusOr<DeviceCollectives::Recording*> DeviceCollectives::Recorded(const void* step, std::vector<uint64_t> key,
                                                                  const std::function<Status(Recording&)>& record_into) {
  Recording& r = recordings_[step];
  if (r.key == key && r.cb) return &r;
  if (r.cb) device_.FreeCommandBuffer(r.cb);
  r = Recording{};
  VKXLA_RETURN_IF_ERROR(record_into(r));
  r.key = std::move(key);
  return &r;
}

Status DeviceCollectives::FoldShare(const void* step, const Instruction& op, const std::vector<const DeviceMember*>& members,
                                    size_t position, DeviceFoldForm form, uint32_t queue, const RecordFn& record) {
  const size_t g = members.size();
  const bool scatter = ScattersFold(op);
  const uint64_t unit = form.pairs ? 32 : 16;
  // Leaf k's units [begin, end) and the operands' unit of `begin`: an
  // all-reduce's p-th share of every word, or a reduce-scatter's p-th block.
  struct Range {
    uint64_t begin, end, base;
  };
  auto range = [&](size_t k) -> Range {
    if (scatter) {
      const uint64_t block = FoldBlockBytes(op, k) / unit;
      return {0, block, block * position};
    }
    const uint64_t units = members[0]->operands[k].size / unit;
    return {units * position / g, units * (position + 1) / g, 0};
  };
  VKXLA_ASSIGN_OR_RETURN(
      Recording * r, Recorded(step, KeyOf(members, {position, form.texels ? 1u : 0u, form.pairs ? 1u : 0u}), [&](Recording& r) {
        for (size_t k = 0; k < members[0]->operands.size(); ++k) {
          const size_t results = scatter ? 1 : g;
          const std::string glsl = DeviceFoldGlsl(op.operands[k]->shape.element_type(), FoldCombiner(op), g, results, form);
          std::shared_ptr<ComputePipeline>& pipeline = pipelines_[glsl];
          if (!pipeline) {
            VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<ComputePipeline> p,
                                   ComputePipeline::FromGlsl(device_, glsl, static_cast<uint32_t>(g + results)));
            pipeline = std::move(p);
          }
          std::vector<BufferSlice> bindings;
          for (const DeviceMember* m : members) bindings.push_back(m->operands[k]);
          if (scatter) {
            bindings.push_back(members[position]->results[k]);
          } else {
            for (const DeviceMember* m : members) bindings.push_back(m->results[k]);
          }
          const Range u = range(k);
          VKXLA_ASSIGN_OR_RETURN(BoundKernel kernel, BoundKernel::Create(device_, pipeline, std::move(bindings),
                                                                         std::max<uint64_t>(1, u.end - u.begin), kFoldLocalSize));
          r.kernels.push_back(std::move(kernel));
        }
        VKXLA_ASSIGN_OR_RETURN(r.cb, record([&](Scheduler& s) -> Status {
          s.Barrier();  // the members' operands were written by their own submissions
          for (size_t k = 0; k < r.kernels.size(); ++k) {
            const Range u = range(k);
            r.kernels[k].Record(s, {static_cast<uint32_t>(u.begin), static_cast<uint32_t>(u.end), static_cast<uint32_t>(u.base)});
          }
          return OkStatus();
        }));
        return OkStatus();
      }));
  return device_.SubmitAndWait(r->cb, queue);
}

Status DeviceCollectives::MoveBytes(const void* step, const Instruction& op, const std::vector<const DeviceMember*>& members,
                                    size_t position, const std::vector<Shape>& operand_shapes,
                                    const std::vector<Shape>& result_shapes, uint32_t queue, const RecordFn& record) {
  auto found = moves_.find(step);
  if (found == moves_.end()) {
    VKXLA_ASSIGN_OR_RETURN(std::vector<LeafBytes> moves,
                           CollectiveByteMoves(op, static_cast<int64_t>(members.size()), static_cast<int64_t>(position),
                                               operand_shapes, result_shapes));
    found = moves_.emplace(step, std::move(moves)).first;
  }
  const std::vector<LeafBytes>& leaves = found->second;
  const DeviceMember& mine = *members[position];
  if (leaves.size() != mine.results.size()) return Internal(op.Describe() + ": one set of moves per result leaf");
  VKXLA_ASSIGN_OR_RETURN(Recording * r, Recorded(step, KeyOf(members, {position}), [&](Recording& r) {
    VKXLA_ASSIGN_OR_RETURN(r.cb, record([&](Scheduler& s) -> Status {
      s.Barrier();  // the members' operands were written by their own submissions
      for (size_t k = 0; k < leaves.size(); ++k) {
        const BufferSlice& to = mine.results[k];
        if (leaves[k].zeros) {
          s.Fill(to.buffer, to.offset, to.size, 0);  // planned slices are whole 16-byte words
          continue;
        }
        // One copy command per source buffer, its runs as regions.
        std::map<std::pair<int64_t, size_t>, std::vector<VkBufferCopy>> regions;
        for (const ByteMove& m : leaves[k].moves) {
          if (m.member < 0 || static_cast<size_t>(m.member) >= members.size() || m.leaf >= members[m.member]->operands.size())
            return Internal(op.Describe() + ": a move names a missing operand");
          const BufferSlice& from = members[m.member]->operands[m.leaf];
          if (m.from + m.bytes > from.size || m.to + m.bytes > to.size)
            return Internal(op.Describe() + ": a move passes the end of its buffer");
          regions[{m.member, m.leaf}].push_back({from.offset + m.from, to.offset + m.to, m.bytes});
        }
        for (const auto& [source, list] : regions)
          vkCmdCopyBuffer(s.command_buffer(), members[source.first]->operands[source.second].buffer, to.buffer,
                          static_cast<uint32_t>(list.size()), list.data());
      }
      return OkStatus();
    }));
    return OkStatus();
  }));
  return device_.SubmitAndWait(r->cb, queue);
}

}  // namespace vkxla
