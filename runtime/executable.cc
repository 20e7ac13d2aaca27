#include "runtime/executable.h"

#include <cstring>
#include <map>

#include "codegen/kernel_builder.h"
#include "ir/layout_index.h"
#include "ops/evaluator.h"
#include "plan/planner.h"
#include "runtime/scheduler.h"

namespace vkxla {

StatusOr<std::unique_ptr<Executable>> Executable::Compile(const Module& module, Device& device) {
  return Compile(module, device, device.target());
}

StatusOr<std::unique_ptr<Executable>> Executable::Compile(const Module& module, Device& device, const TargetFeatures& target) {
  auto exe = std::unique_ptr<Executable>(new Executable(device));
  exe->module_ = &module;
  ASSIGN_OR_RETURN(exe->program_, PlanModule(module, target));
  RETURN_IF_ERROR(exe->Allocate());
  RETURN_IF_ERROR(exe->BuildKernels());
  RETURN_IF_ERROR(exe->Record());
  return exe;
}

Status Executable::Allocate() {
  for (const Arena& a : program_.arenas) {
    ASSIGN_OR_RETURN(Buffer b, device_.CreateBuffer(a.bytes, a.memory == MemoryKind::kDevice ? Device::Memory::kDeviceLocal
                                                                                            : Device::Memory::kHostVisible));
    arenas_.push_back(std::move(b));
  }
  // Constants are written once, here.
  for (size_t i = 0; i < program_.buffers.size(); ++i) {
    const BufferDecl& b = program_.buffers[i];
    if (b.kind != BufferKind::kConstant) continue;
    ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ToPhysical(*b.constant->literal, b.shape.layout_or_default()));
    if (!bytes.empty()) std::memcpy(Mapped(static_cast<int>(i)), bytes.data(), bytes.size());
  }
  return OkStatus();
}

BufferSlice Executable::SliceOf(int buffer) const {
  const BufferDecl& b = program_.buffers[buffer];
  return {arenas_[b.arena].handle(), b.offset, b.bytes};
}

void* Executable::Mapped(int buffer) const {
  const BufferDecl& b = program_.buffers[buffer];
  return static_cast<uint8_t*>(arenas_[b.arena].mapped()) + b.offset;
}

Status Executable::BuildKernels() {
  // Kernels with the same source (passes of one network) share a pipeline.
  std::map<std::string, std::shared_ptr<ComputePipeline>> pipelines;
  for (const FusionGroup& g : program_.groups) {
    kernels_.emplace_back();
    for (size_t k = 0; k < g.kernels.size(); ++k) {
      const KernelLaunch& launch = g.kernels[k];
      if (launch.invocations == 0) {
        kernels_.back().push_back(nullptr);
        continue;
      }
      ASSIGN_OR_RETURN(KernelSource src, BuildKernel(program_, g, static_cast<int>(k)));
      std::shared_ptr<ComputePipeline>& pipeline = pipelines[src.glsl];
      if (!pipeline) {
        ASSIGN_OR_RETURN(pipeline, ComputePipeline::FromGlsl(device_, src.glsl, static_cast<uint32_t>(src.bindings.size())));
        sources_.push_back(src.glsl);
      }
      std::vector<BufferSlice> bindings;
      for (int b : src.bindings) bindings.push_back(SliceOf(b));
      ASSIGN_OR_RETURN(BoundKernel bound, BoundKernel::Create(device_, pipeline, std::move(bindings), launch.invocations,
                                                             launch.local_size));
      kernels_.back().push_back(std::make_unique<BoundKernel>(std::move(bound)));
    }
  }
  return OkStatus();
}

Status Executable::RecordSteps(Scheduler& s, const StepList& steps, bool dispatches_only) const {
  for (const Step& step : steps) {
    if (const auto* d = std::get_if<DispatchStep>(&step.op)) {
      if (step.barrier_before) s.Barrier();
      const BoundKernel* k = kernels_[d->group][d->kernel].get();
      if (!k) return Internal("a dispatch of a kernel that was not built");
      k->Record(s, d->push_constants);
      continue;
    }
    if (dispatches_only) continue;
    if (step.barrier_before) s.Barrier();
    if (const auto* c = std::get_if<CopyStep>(&step.op)) {
      const BufferSlice src = SliceOf(c->src), dst = SliceOf(c->dst);
      s.Copy(src.buffer, src.offset, dst.buffer, dst.offset, c->bytes);
    } else if (const auto* f = std::get_if<FillStep>(&step.op)) {
      const BufferSlice dst = SliceOf(f->buffer);
      s.Fill(dst.buffer, dst.offset, dst.size, f->word);
    } else {
      return Unimplemented("steps that need the host or a library (loops, branches, external commands, collectives) "
                           "are not run yet");
    }
  }
  return OkStatus();
}

Status Executable::Record() {
  // Segments: runs of steps with at most max_dispatches_per_submission
  // dispatches; each later one starts behind a full barrier, since the
  // plan derived its barriers for one stream of commands.
  const uint32_t limit = std::max<uint32_t>(1, program_.target.max_dispatches_per_submission);
  Segment current;
  uint32_t dispatches = 0;
  for (size_t i = 0; i < program_.steps.size(); ++i) {
    if (program_.steps[i].NeedsHost()) return Unimplemented("steps that need the host are not run yet");
    const bool dispatch = std::holds_alternative<DispatchStep>(program_.steps[i].op);
    if (dispatch && dispatches == limit) {
      current.end = i;
      segments_.push_back(current);
      current = Segment{i, i, VK_NULL_HANDLE};
      dispatches = 0;
    }
    dispatches += dispatch ? 1 : 0;
  }
  current.end = program_.steps.size();
  segments_.push_back(current);
  std::lock_guard<std::recursive_mutex> lock(device_.command_pool_mutex());
  for (size_t k = 0; k < segments_.size(); ++k) {
    Segment& seg = segments_[k];
    ASSIGN_OR_RETURN(seg.cb, device_.AllocateCommandBuffer());
    Scheduler s(seg.cb);
    RETURN_IF_ERROR(s.Begin());
    if (k > 0) s.Barrier();
    const StepList part(program_.steps.begin() + seg.begin, program_.steps.begin() + seg.end);
    RETURN_IF_ERROR(RecordSteps(s, part, false));
    RETURN_IF_ERROR(s.End());
  }
  return OkStatus();
}

StatusOr<Timing> Executable::TimeKernels(int repeats) {
  ASSIGN_OR_RETURN(Timing t, TimeCommands(device_, [&](Scheduler& s) -> Status {
    for (int r = 0; r < repeats; ++r) {
      if (r > 0) s.Barrier();  // the next replay overwrites what this one reads
      RETURN_IF_ERROR(RecordSteps(s, program_.steps, true));
    }
    return OkStatus();
  }));
  t.seconds /= std::max(1, repeats);
  return t;
}

Executable::~Executable() {
  // Run waits for its submissions, so no work of this executable is pending
  // (and vkDeviceWaitIdle would race other threads' submissions).
  for (const Segment& s : segments_)
    if (s.cb) device_.FreeCommandBuffer(s.cb);
  kernels_.clear();
}

namespace {

Literal Assemble(const Shape& result, size_t& next, const std::vector<Literal>& leaves) {
  if (!result.IsTuple()) return leaves[next++];
  std::vector<Literal> elements;
  for (const Shape& e : result.tuple_shapes()) elements.push_back(Assemble(e, next, leaves));
  return Literal::Tuple(std::move(elements));
}

}  // namespace

StatusOr<Literal> Executable::Run(const std::vector<Literal>& arguments) {
  RETURN_IF_ERROR(CheckArguments(*module_->entry(), arguments));
  uint32_t* sizes = program_.parameter_sizes >= 0 ? static_cast<uint32_t*>(Mapped(program_.parameter_sizes)) : nullptr;
  for (size_t i = 0; i < arguments.size(); ++i) {
    // A dynamic dim's value is placed at its bound; its size goes alongside.
    const Shape& declared = program_.buffers[program_.parameter_device[i]].shape;
    if (sizes)
      for (int64_t d = 0; d < arguments[i].shape().rank() && d < kMaxDynamicRank; ++d)
        sizes[i * kMaxDynamicRank + d] = static_cast<uint32_t>(arguments[i].shape().dim(d));
    ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ToPhysical(Resized(arguments[i], declared.dims()), declared.layout_or_default()));
    if (!bytes.empty()) std::memcpy(Mapped(program_.parameter_staging[i]), bytes.data(), bytes.size());
  }
  for (const Segment& s : segments_) RETURN_IF_ERROR(device_.SubmitAndWait(s.cb));
  std::vector<Literal> leaves;
  for (const ResultLeaf& r : program_.results) {
    const Shape& shape = program_.buffers[r.device].shape;
    ASSIGN_OR_RETURN(Literal l, FromPhysical(static_cast<const uint8_t*>(Mapped(r.staging)), shape));
    if (r.sizes >= 0) {
      std::vector<int64_t> dims = shape.dims();
      const auto* got = static_cast<const uint32_t*>(Mapped(r.sizes));
      for (int64_t d = 0; d < shape.rank(); ++d)
        if (shape.is_dynamic_dim(d)) dims[d] = std::min<int64_t>(got[d], dims[d]);
      l = Resized(l, dims);
    }
    leaves.push_back(std::move(l));
  }
  size_t next = 0;
  return Assemble(module_->EntryProgramShape().result, next, leaves);
}

}  // namespace vkxla
