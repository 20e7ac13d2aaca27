#include "runtime/executable.h"

#include <cstring>
#include <map>

#include "codegen/elementwise_emitter.h"
#include "codegen/kernel_cache.h"
#include "ir/layout_index.h"
#include "ops/evaluator.h"
#include "runtime/scheduler.h"
#include "runtime/vk_check.h"

namespace vkxla {
namespace {

// The array instructions whose values form the result, in tuple-leaf order.
Status CollectLeaves(const Instruction* inst, std::vector<const Instruction*>& leaves) {
  if (inst->opcode == Opcode::kTuple) {
    for (const Instruction* o : inst->operands) RETURN_IF_ERROR(CollectLeaves(o, leaves));
    return OkStatus();
  }
  if (inst->opcode == Opcode::kGetTupleElement && inst->operands[0]->opcode == Opcode::kTuple)
    return CollectLeaves(inst->operands[0]->operands[inst->tuple_index], leaves);
  if (!inst->shape.IsArray())
    return Unimplemented(std::string(OpcodeName(inst->opcode)) + " " + inst->Describe() + " producing " +
                         inst->shape.ToString() + " as a result is not supported yet");
  leaves.push_back(inst);
  return OkStatus();
}

void CollectLeafShapes(const Shape& s, std::vector<Shape>& out) {
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_shapes()) CollectLeafShapes(e, out);
  } else {
    out.push_back(s);
  }
}

}  // namespace

StatusOr<std::unique_ptr<Executable>> Executable::Compile(const Module& module, Device& device) {
  auto exe = std::unique_ptr<Executable>(new Executable(device));
  exe->module_ = &module;
  exe->program_ = module.EntryProgramShape();
  const Computation& entry = *module.entry();
  for (const Shape& p : exe->program_.parameters)
    if (!p.IsArray()) return Unimplemented("entry parameter " + p.ToString() + ": only array parameters are supported yet");

  std::vector<const Instruction*> leaves;
  RETURN_IF_ERROR(CollectLeaves(entry.root(), leaves));
  std::vector<Shape> leaf_shapes;
  CollectLeafShapes(exe->program_.result, leaf_shapes);

  auto input_layout = [&](const Instruction* i) {
    if (i->opcode == Opcode::kParameter) return exe->program_.parameters[i->parameter_number].layout_or_default();
    return i->shape.layout_or_default();
  };

  // Parameter buffers and their upload staging.
  for (const Shape& p : exe->program_.parameters) {
    const uint64_t bytes = PhysicalByteSize(p);
    ASSIGN_OR_RETURN(Buffer d, device.CreateBuffer(bytes, Device::Memory::kDeviceLocal));
    ASSIGN_OR_RETURN(Buffer s, device.CreateBuffer(bytes, Device::Memory::kHostVisible));
    exe->param_device_.push_back(std::move(d));
    exe->param_staging_.push_back(std::move(s));
  }

  // One fused kernel per result leaf.
  std::vector<KernelSource> sources;
  for (size_t i = 0; i < leaves.size(); ++i) {
    Shape out = leaf_shapes[i];
    if (!out.has_layout()) out.set_layout(out.layout_or_default());
    ASSIGN_OR_RETURN(KernelSource k, EmitElementwiseKernel(*leaves[i], out, input_layout, device.target()));
    Output o;
    o.shape = out;
    ASSIGN_OR_RETURN(o.device, device.CreateBuffer(PhysicalByteSize(out), Device::Memory::kDeviceLocal));
    ASSIGN_OR_RETURN(o.staging, device.CreateBuffer(PhysicalByteSize(out), Device::Memory::kHostVisible));
    exe->outputs_.push_back(std::move(o));
    exe->sources_.push_back(k.glsl);
    sources.push_back(std::move(k));
  }

  // Constants that live in buffers: uploaded once, now.
  std::map<const Instruction*, VkBuffer> constant_buffer;
  for (const KernelSource& k : sources)
    for (const Instruction* in : k.inputs)
      if (in->opcode == Opcode::kConstant && !constant_buffer.count(in)) {
        ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ToPhysical(*in->literal, in->shape.layout_or_default()));
        ASSIGN_OR_RETURN(Buffer b, device.CreateBuffer(bytes.size(), Device::Memory::kHostVisible));
        std::memcpy(b.mapped(), bytes.data(), bytes.size());
        constant_buffer[in] = b.handle();
        exe->constants_.push_back(std::move(b));
      }

  uint32_t total_bindings = 0;
  for (const KernelSource& k : sources) total_bindings += static_cast<uint32_t>(k.inputs.size()) + 1;
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(1u, total_bindings)};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = std::max<uint32_t>(1, static_cast<uint32_t>(sources.size()));
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &size;
  VK_RETURN_IF_ERROR(vkCreateDescriptorPool(device.handle(), &dpci, nullptr, &exe->pool_));

  for (size_t i = 0; i < sources.size(); ++i) {
    const KernelSource& src = sources[i];
    Kernel k;
    k.write = exe->outputs_[i].device.handle();
    if (src.invocations == 0) {
      exe->kernels_.push_back(std::move(k));
      continue;
    }
    ASSIGN_OR_RETURN(std::vector<uint32_t> spirv, KernelCache::Global().GetOrCompile(src.glsl, device.target()));
    const uint32_t bindings = static_cast<uint32_t>(src.inputs.size()) + 1;
    ASSIGN_OR_RETURN(k.pipeline, ComputePipeline::Create(device, spirv, bindings));
    VkDescriptorSetLayout layout = k.pipeline->set_layout();
    VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = exe->pool_;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &layout;
    VK_RETURN_IF_ERROR(vkAllocateDescriptorSets(device.handle(), &ai, &k.set));
    std::vector<VkDescriptorBufferInfo> infos(bindings);
    std::vector<VkWriteDescriptorSet> writes(bindings);
    for (uint32_t b = 0; b < bindings; ++b) {
      VkBuffer buffer;
      if (b == bindings - 1) buffer = k.write;
      else if (src.inputs[b]->opcode == Opcode::kParameter) buffer = exe->param_device_[src.inputs[b]->parameter_number].handle();
      else buffer = constant_buffer.at(src.inputs[b]);
      if (b < bindings - 1) k.reads.push_back(buffer);
      infos[b] = {buffer, 0, VK_WHOLE_SIZE};
      writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, k.set, b, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nullptr, &infos[b], nullptr};
    }
    vkUpdateDescriptorSets(device.handle(), bindings, writes.data(), 0, nullptr);
    const uint64_t groups = (src.invocations + src.local_size - 1) / src.local_size;
    const uint64_t max_x = device.target().max_workgroup_count_x;
    k.groups_x = static_cast<uint32_t>(std::min<uint64_t>(groups, max_x));
    k.groups_y = static_cast<uint32_t>((groups + k.groups_x - 1) / k.groups_x);
    exe->kernels_.push_back(std::move(k));
  }
  RETURN_IF_ERROR(exe->Record());
  return exe;
}

Status Executable::Record() {
  ASSIGN_OR_RETURN(cb_, device_.AllocateCommandBuffer());
  Scheduler s(device_, cb_);
  RETURN_IF_ERROR(s.Begin());
  for (size_t i = 0; i < param_device_.size(); ++i)
    s.Copy(param_staging_[i].handle(), param_device_[i].handle(), param_device_[i].size());
  for (const Kernel& k : kernels_)
    if (k.pipeline) s.Dispatch(k.pipeline->pipeline(), k.pipeline->layout(), k.set, k.reads, {k.write}, k.groups_x, k.groups_y);
  for (const Output& o : outputs_) s.Copy(o.device.handle(), o.staging.handle(), o.device.size());
  RETURN_IF_ERROR(s.End());
  barriers_ = s.barriers();
  return OkStatus();
}

Executable::~Executable() {
  vkDeviceWaitIdle(device_.handle());
  if (cb_) device_.FreeCommandBuffer(cb_);
  kernels_.clear();
  if (pool_) vkDestroyDescriptorPool(device_.handle(), pool_, nullptr);
}

Literal Executable::Assemble(const Shape& result, size_t& next, const std::vector<Literal>& leaves) const {
  if (!result.IsTuple()) return leaves[next++];
  std::vector<Literal> elements;
  for (const Shape& e : result.tuple_shapes()) elements.push_back(Assemble(e, next, leaves));
  return Literal::Tuple(std::move(elements));
}

StatusOr<Literal> Executable::Run(const std::vector<Literal>& arguments) {
  RETURN_IF_ERROR(CheckArguments(*module_->entry(), arguments));
  for (size_t i = 0; i < arguments.size(); ++i) {
    ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ToPhysical(arguments[i], program_.parameters[i].layout_or_default()));
    std::memcpy(param_staging_[i].mapped(), bytes.data(), bytes.size());
  }
  RETURN_IF_ERROR(device_.SubmitAndWait(cb_));
  std::vector<Literal> leaves;
  for (const Output& o : outputs_) {
    ASSIGN_OR_RETURN(Literal l, FromPhysical(static_cast<const uint8_t*>(o.staging.mapped()), o.shape));
    leaves.push_back(std::move(l));
  }
  size_t next = 0;
  return Assemble(program_.result, next, leaves);
}

}  // namespace vkxla
