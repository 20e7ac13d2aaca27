#include "runtime/executable.h"

#include <cstring>
#include <map>
#include <set>

#include "codegen/fused_kernel_emitter.h"
#include "codegen/kernel_cache.h"
#include "ir/layout_index.h"
#include "ops/evaluator.h"
#include "runtime/scheduler.h"
#include "runtime/vk_check.h"

namespace vkxla {
namespace {

using ValueId = std::pair<const Instruction*, int64_t>;

// The array values that form the result, in tuple-leaf order.
Status CollectLeaves(const Instruction* inst, int64_t element, std::vector<ValueId>& leaves) {
  if (element >= 0 && inst->opcode == Opcode::kTuple) return CollectLeaves(inst->operands[element], -1, leaves);
  if (element >= 0 && inst->opcode == Opcode::kGetTupleElement) {
    // An element of an element: resolve the inner one first.
    std::vector<ValueId> inner;
    RETURN_IF_ERROR(CollectLeaves(inst, -1, inner));
    if (inner.size() != 1 || inner[0].second >= 0)
      return Unimplemented(inst->Describe() + ": nested tuples are not supported as results yet");
    return CollectLeaves(inner[0].first, element, leaves);
  }
  if (element >= 0) {
    if (!inst->shape.IsTuple() || element >= static_cast<int64_t>(inst->shape.tuple_shapes().size()))
      return Internal("tuple element out of range");
    if (!inst->shape.tuple_shapes()[element].IsArray())
      return Unimplemented(inst->Describe() + ": nested tuples are not supported as results yet");
    leaves.emplace_back(inst, element);
    return OkStatus();
  }
  if (inst->opcode == Opcode::kGetTupleElement) return CollectLeaves(inst->operands[0], inst->tuple_index, leaves);
  if (inst->shape.IsTuple()) {
    for (size_t k = 0; k < inst->shape.tuple_shapes().size(); ++k)
      RETURN_IF_ERROR(CollectLeaves(inst, static_cast<int64_t>(k), leaves));
    return OkStatus();
  }
  if (!inst->shape.IsArray())
    return Unimplemented(std::string(OpcodeName(inst->opcode)) + " " + inst->Describe() + " producing " +
                         inst->shape.ToString() + " as a result is not supported yet");
  leaves.emplace_back(inst, -1);
  return OkStatus();
}

void CollectLeafShapes(const Shape& s, std::vector<Shape>& out) {
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_shapes()) CollectLeafShapes(e, out);
  } else {
    out.push_back(s);
  }
}

// The value an instruction reads: get-tuple-element names an element of
// its operand.
ValueId ValueRead(const Instruction* inst) {
  if (inst->opcode == Opcode::kGetTupleElement) return {inst->operands[0], inst->tuple_index};
  return {inst, -1};
}

Shape ValueShape(const ValueId& id) {
  return id.second < 0 ? id.first->shape : id.first->shape.tuple_shapes()[id.second];
}

// get-tuple-element `index` of `op` with `shape`: picks one element of a
// tuple-shaped value, or (negative indices) names a buffer planned for op.
std::unique_ptr<Instruction> ElementOf(const Instruction* op, int64_t index, const Shape& shape, const std::string& suffix) {
  auto gte = std::make_unique<Instruction>();
  gte->name = op->name + "." + suffix;
  gte->opcode = Opcode::kGetTupleElement;
  gte->shape = shape;
  gte->operands = {const_cast<Instruction*>(op)};
  gte->tuple_index = index;
  gte->location = op->location;
  return gte;
}

}  // namespace

StatusOr<std::unique_ptr<Executable>> Executable::Compile(const Module& module, Device& device) {
  auto exe = std::unique_ptr<Executable>(new Executable(device));
  exe->module_ = &module;
  exe->program_ = module.EntryProgramShape();
  for (const Shape& p : exe->program_.parameters)
    if (!p.IsArray()) return Unimplemented("entry parameter " + p.ToString() + ": only array parameters are supported yet");
  std::vector<ValueId> leaves;
  RETURN_IF_ERROR(CollectLeaves(module.entry()->root(), -1, leaves));
  std::vector<PlannedKernel> sources;
  RETURN_IF_ERROR(exe->PlanBuffers(leaves, sources));
  RETURN_IF_ERROR(exe->BuildKernels(sources));
  RETURN_IF_ERROR(exe->Record());
  return exe;
}

Status Executable::PlanBuffers(const std::vector<ValueId>& leaves, std::vector<PlannedKernel>& sources) {
  for (const Shape& p : program_.parameters) {
    ASSIGN_OR_RETURN(const int64_t bytes, PhysicalByteSize(p));
    ASSIGN_OR_RETURN(Buffer d, device_.CreateBuffer(bytes, Device::Memory::kDeviceLocal));
    ASSIGN_OR_RETURN(Buffer s, device_.CreateBuffer(bytes, Device::Memory::kHostVisible));
    param_device_.push_back(std::move(d));
    param_staging_.push_back(std::move(s));
  }
  ASSIGN_OR_RETURN(param_sizes_, device_.CreateBuffer(std::max<int64_t>(1, program_.parameters.size()) * kMaxDynamicRank * 4,
                                                      Device::Memory::kHostVisible));
  std::vector<Shape> leaf_shapes;
  CollectLeafShapes(program_.result, leaf_shapes);
  for (Shape& s : leaf_shapes)
    if (!s.has_layout()) s.set_layout(s.layout_or_default());
  // Values with their own kernel come first, in definition order (so each
  // reads only buffers written before it); a result reuses its buffer when
  // the layouts agree, and otherwise gets a kernel of its own.
  std::vector<std::pair<ValueId, Shape>> plan;
  std::map<const Instruction*, const Instruction*> permutations;  // sort -> its permutation's buffer
  for (const auto& inst : module_->entry()->instructions()) {
    if (NeedsPermutation(*inst)) {
      // A stand-in instruction names the buffer: get-tuple-element kPermutation.
      std::unique_ptr<Instruction> perm = ElementOf(inst.get(), kPermutation, PermutationShape(*inst), "permutation");
      permutations[inst.get()] = perm.get();
      plan.emplace_back(ValueId(inst.get(), kPermutation), perm->shape);
      element_roots_.push_back(std::move(perm));
    }
    if (!NeedsOwnKernel(*inst)) continue;
    const int64_t elements = inst->shape.IsTuple() ? static_cast<int64_t>(inst->shape.tuple_shapes().size()) : 0;
    for (int64_t k = elements ? 0 : -1; k < elements; ++k) {
      const ValueId id(inst.get(), k);
      Shape shape = ValueShape(id);
      shape.set_layout(shape.layout_or_default());
      for (size_t i = 0; i < leaves.size(); ++i)
        if (leaves[i] == id) {
          shape = leaf_shapes[i];
          break;
        }
      plan.emplace_back(id, shape);
    }
  }
  std::vector<size_t> leaf_value;
  for (size_t i = 0; i < leaves.size(); ++i) {
    size_t found = plan.size();
    for (size_t v = 0; v < plan.size() && found == plan.size(); ++v)
      if (plan[v].first == leaves[i] && plan[v].second == leaf_shapes[i]) found = v;
    if (found == plan.size()) plan.emplace_back(leaves[i], leaf_shapes[i]);
    leaf_value.push_back(found);
  }
  std::vector<size_t> computed_of(plan.size());  // plan entry -> its buffer in computed_
  // Creates the buffer of a value that `kernels` compute.
  auto add_computed = [&](const ValueId& id, const Shape& shape, std::vector<KernelSource> kernels) -> Status {
    Computed c;
    c.id = id;
    c.shape = shape;
    ASSIGN_OR_RETURN(const int64_t bytes, PhysicalByteSize(shape));
    ASSIGN_OR_RETURN(c.device, device_.CreateBuffer(bytes, Device::Memory::kDeviceLocal));
    for (const KernelSource& k : kernels)
      if (k.writes_sizes && !c.sizes.mapped()) {
        ASSIGN_OR_RETURN(c.sizes, device_.CreateBuffer(shape.rank() * 4, Device::Memory::kHostVisible));
      }
    const size_t index = computed_.size();
    computed_.push_back(std::move(c));
    computed_index_.emplace(id, index);  // the first buffer of a value is the one others read
    for (KernelSource& k : kernels) {
      sources_.push_back(k.glsl);
      sources.push_back({index, std::move(k)});
    }
    return OkStatus();
  };
  std::set<const Instruction*> split_reduces;
  for (size_t v = 0; v < plan.size(); ++v) {
    const auto& [id, shape] = plan[v];
    const Instruction* root = id.first;
    auto buffer_layout = [&](const Instruction* i) -> std::optional<Layout> {
      if (i->opcode == Opcode::kParameter) return program_.parameters[i->parameter_number].layout_or_default();
      if (i->opcode == Opcode::kConstant) return i->shape.layout_or_default();
      auto it = computed_index_.find(ValueRead(i));
      if (it != computed_index_.end()) return computed_[it->second].shape.layout_or_default();
      return std::nullopt;
    };
    std::vector<KernelSource> kernels;
    if (id.second == kPermutation) {
      ASSIGN_OR_RETURN(kernels, EmitSortPermutation(*root, shape, buffer_layout, device_.target()));
    } else if (id.second >= 0) {
      // A root that picks the element, so the kernel computes just it.
      std::unique_ptr<Instruction> gte = ElementOf(root, id.second, ValueShape(id), std::to_string(id.second));
      root = gte.get();
      element_roots_.push_back(std::move(gte));
    }
    if (kernels.empty() && id.second != kPermutation) {
      const Instruction* partials = nullptr;
      if (root->opcode == Opcode::kReduce && split_reduces.insert(root).second) {
        // A long column reduction first folds blocks of rows into a buffer
        // of partials (once: a second buffer of the same reduce, in
        // another layout, is computed in one kernel).
        ASSIGN_OR_RETURN(std::optional<ReduceSplit> split, PlanReduceSplit(*root, shape, buffer_layout, device_.target()));
        if (split) {
          std::unique_ptr<Instruction> stand_in = ElementOf(root, kPartials, split->partials, "partials");
          ASSIGN_OR_RETURN(std::vector<KernelSource> passes,
                           EmitReducePartials(*root, shape, *split, buffer_layout, device_.target()));
          RETURN_IF_ERROR(add_computed(ValueId(root, kPartials), split->partials, std::move(passes)));
          partials = stand_in.get();
          element_roots_.push_back(std::move(stand_in));
        }
      }
      auto planned_buffer = [&](const Instruction* op) -> const Instruction* {
        if (op == root && partials) return partials;
        auto it = permutations.find(op);
        return it == permutations.end() ? nullptr : it->second;
      };
      ASSIGN_OR_RETURN(KernelSource k, EmitFusedKernel(*root, shape, buffer_layout, device_.target(), planned_buffer));
      kernels.push_back(std::move(k));
    }
    computed_of[v] = computed_.size();
    RETURN_IF_ERROR(add_computed(id, shape, std::move(kernels)));
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    Output o;
    o.computed = computed_of[leaf_value[i]];
    ASSIGN_OR_RETURN(o.staging, device_.CreateBuffer(computed_[o.computed].device.size(), Device::Memory::kHostVisible));
    outputs_.push_back(std::move(o));
  }
  return OkStatus();
}

StatusOr<VkBuffer> Executable::BufferOf(const Instruction* in, const std::map<const Instruction*, VkBuffer>& constants) const {
  if (in->opcode == Opcode::kParameter) return param_device_[in->parameter_number].handle();
  if (in->opcode == Opcode::kConstant) return constants.at(in);
  auto it = computed_index_.find(ValueRead(in));
  if (it == computed_index_.end()) return Internal(in->Describe() + " is read from a buffer that was never planned");
  return computed_[it->second].device.handle();
}

Status Executable::BuildKernels(const std::vector<PlannedKernel>& sources) {
  // Constants that live in buffers are uploaded once, here.
  std::map<const Instruction*, VkBuffer> constant_buffer;
  for (const auto& [computed, k] : sources)
    for (const Instruction* in : k.inputs)
      if (in->opcode == Opcode::kConstant && !constant_buffer.count(in)) {
        ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ToPhysical(*in->literal, in->shape.layout_or_default()));
        ASSIGN_OR_RETURN(Buffer b, device_.CreateBuffer(bytes.size(), Device::Memory::kHostVisible));
        std::memcpy(b.mapped(), bytes.data(), bytes.size());
        constant_buffer[in] = b.handle();
        constants_.push_back(std::move(b));
      }
  // Passes of one multi-pass kernel share a pipeline.
  std::map<std::string, std::shared_ptr<ComputePipeline>> pipelines;
  for (const auto& [i, src] : sources) {
    if (src.invocations == 0) continue;  // an empty array: nothing to compute
    std::vector<VkBuffer> reads;
    for (const Instruction* in : src.inputs) {
      ASSIGN_OR_RETURN(VkBuffer b, BufferOf(in, constant_buffer));
      reads.push_back(b);
    }
    if (src.reads_parameter_sizes) reads.push_back(param_sizes_.handle());
    std::vector<VkBuffer> writes = {computed_[i].device.handle()};
    if (src.writes_sizes) writes.push_back(computed_[i].sizes.handle());
    std::shared_ptr<ComputePipeline>& pipeline = pipelines[src.glsl];
    if (!pipeline) {
      ASSIGN_OR_RETURN(pipeline, ComputePipeline::FromGlsl(device_, src.glsl, static_cast<uint32_t>(reads.size() + writes.size())));
    }
    ASSIGN_OR_RETURN(BoundKernel k, BoundKernel::Create(device_, pipeline, std::move(reads), std::move(writes),
                                                        src.invocations, src.local_size, src.push_constants));
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
  for (const Output& o : outputs_) {
    const Buffer& device = computed_[o.computed].device;
    s.Copy(device.handle(), o.staging.handle(), device.size());
  }
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
  auto* sizes = static_cast<uint32_t*>(param_sizes_.mapped());
  for (size_t i = 0; i < arguments.size(); ++i) {
    // A dynamic dim's value is placed at its bound; its size goes alongside.
    const Shape& declared = program_.parameters[i];
    for (int64_t d = 0; d < arguments[i].shape().rank() && d < kMaxDynamicRank; ++d)
      sizes[i * kMaxDynamicRank + d] = static_cast<uint32_t>(arguments[i].shape().dim(d));
    ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                     ToPhysical(Resized(arguments[i], declared.dims()), declared.layout_or_default()));
    std::memcpy(param_staging_[i].mapped(), bytes.data(), bytes.size());
  }
  RETURN_IF_ERROR(device_.SubmitAndWait(cb_));
  std::vector<Literal> leaves;
  for (const Output& o : outputs_) {
    const Computed& c = computed_[o.computed];
    ASSIGN_OR_RETURN(Literal l, FromPhysical(static_cast<const uint8_t*>(o.staging.mapped()), c.shape));
    if (c.sizes.mapped()) {
      std::vector<int64_t> dims = c.shape.dims();
      const auto* got = static_cast<const uint32_t*>(c.sizes.mapped());
      for (int64_t d = 0; d < c.shape.rank(); ++d)
        if (c.shape.is_dynamic_dim(d)) dims[d] = std::min<int64_t>(got[d], dims[d]);
      l = Resized(l, dims);
    }
    leaves.push_back(std::move(l));
  }
  size_t next = 0;
  return Assemble(program_.result, next, leaves);
}

}  // namespace vkxla
