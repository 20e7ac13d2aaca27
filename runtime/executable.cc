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
  for (const Shape& p : exe->program_.parameters)
    if (!p.IsArray()) return Unimplemented("entry parameter " + p.ToString() + ": only array parameters are supported yet");
  std::vector<const Instruction*> leaves;
  RETURN_IF_ERROR(CollectLeaves(module.entry()->root(), leaves));
  std::vector<KernelSource> sources;
  RETURN_IF_ERROR(exe->PlanBuffers(leaves, sources));
  RETURN_IF_ERROR(exe->BuildKernels(sources));
  RETURN_IF_ERROR(exe->Record());
  return exe;
}

Status Executable::PlanBuffers(const std::vector<const Instruction*>& leaves, std::vector<KernelSource>& sources) {
  for (const Shape& p : program_.parameters) {
    ASSIGN_OR_RETURN(const int64_t bytes, PhysicalByteSize(p));
    ASSIGN_OR_RETURN(Buffer d, device_.CreateBuffer(bytes, Device::Memory::kDeviceLocal));
    ASSIGN_OR_RETURN(Buffer s, device_.CreateBuffer(bytes, Device::Memory::kHostVisible));
    param_device_.push_back(std::move(d));
    param_staging_.push_back(std::move(s));
  }
  std::vector<Shape> leaf_shapes;
  CollectLeafShapes(program_.result, leaf_shapes);
  auto input_layout = [&](const Instruction* i) {
    if (i->opcode == Opcode::kParameter) return program_.parameters[i->parameter_number].layout_or_default();
    return i->shape.layout_or_default();
  };
  for (size_t i = 0; i < leaves.size(); ++i) {
    Shape out = leaf_shapes[i];
    if (!out.has_layout()) out.set_layout(out.layout_or_default());
    ASSIGN_OR_RETURN(KernelSource k, EmitElementwiseKernel(*leaves[i], out, input_layout, device_.target()));
    Output o;
    o.shape = out;
    ASSIGN_OR_RETURN(const int64_t bytes, PhysicalByteSize(out));
    ASSIGN_OR_RETURN(o.device, device_.CreateBuffer(bytes, Device::Memory::kDeviceLocal));
    ASSIGN_OR_RETURN(o.staging, device_.CreateBuffer(bytes, Device::Memory::kHostVisible));
    outputs_.push_back(std::move(o));
    sources_.push_back(k.glsl);
    sources.push_back(std::move(k));
  }
  return OkStatus();
}

Status Executable::BuildKernels(const std::vector<KernelSource>& sources) {
  // Constants that live in buffers are uploaded once, here.
  std::map<const Instruction*, VkBuffer> constant_buffer;
  for (const KernelSource& k : sources)
    for (const Instruction* in : k.inputs)
      if (in->opcode == Opcode::kConstant && !constant_buffer.count(in)) {
        ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ToPhysical(*in->literal, in->shape.layout_or_default()));
        ASSIGN_OR_RETURN(Buffer b, device_.CreateBuffer(bytes.size(), Device::Memory::kHostVisible));
        std::memcpy(b.mapped(), bytes.data(), bytes.size());
        constant_buffer[in] = b.handle();
        constants_.push_back(std::move(b));
      }
  for (size_t i = 0; i < sources.size(); ++i) {
    const KernelSource& src = sources[i];
    if (src.invocations == 0) continue;  // an empty array: nothing to compute
    std::vector<VkBuffer> reads;
    for (const Instruction* in : src.inputs)
      reads.push_back(in->opcode == Opcode::kParameter ? param_device_[in->parameter_number].handle()
                                                       : constant_buffer.at(in));
    ASSIGN_OR_RETURN(std::unique_ptr<ComputePipeline> pipeline,
                     ComputePipeline::FromGlsl(device_, src.glsl, static_cast<uint32_t>(reads.size()) + 1));
    ASSIGN_OR_RETURN(BoundKernel k, BoundKernel::Create(device_, std::move(pipeline), std::move(reads),
                                                        {outputs_[i].device.handle()}, src.invocations, src.local_size));
    kernels_.push_back(std::move(k));
  }
  return OkStatus();
}

Status Executable::Record() {
  std::lock_guard<std::recursive_mutex> lock(device_.command_pool_mutex());
  ASSIGN_OR_RETURN(cb_, device_.AllocateCommandBuffer());
  Scheduler s(cb_);
  RETURN_IF_ERROR(s.Begin());
  for (size_t i = 0; i < param_device_.size(); ++i)
    s.Copy(param_staging_[i].handle(), param_device_[i].handle(), param_device_[i].size());
  for (const BoundKernel& k : kernels_) k.Record(s);
  for (const Output& o : outputs_) s.Copy(o.device.handle(), o.staging.handle(), o.device.size());
  RETURN_IF_ERROR(s.End());
  barriers_ = s.barriers();
  return OkStatus();
}

StatusOr<Timing> Executable::TimeKernels(int repeats) {
  ASSIGN_OR_RETURN(Timing t, TimeCommands(device_, [&](Scheduler& s) {
    for (int r = 0; r < repeats; ++r)
      for (const BoundKernel& k : kernels_) k.Record(s);
    return OkStatus();
  }));
  t.seconds /= std::max(1, repeats);
  return t;
}

Executable::~Executable() {
  // Run waits for its submission, so no work of this executable is pending
  // (and vkDeviceWaitIdle would race other threads' submissions).
  if (cb_) device_.FreeCommandBuffer(cb_);
  kernels_.clear();
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
