#include "runtime/executable.h"

#include <cstring>
#include <map>
#include <optional>

#include "codegen/kernel_builder.h"
#include "ir/layout_index.h"
#include "ops/collectives.h"
#include "ops/control_flow.h"
#include "ops/evaluator.h"
#include "ops/rng.h"
#include "plan/memory_report.h"
#include "plan/planner.h"
#include "plan/submission_split.h"
#include "runtime/parallel_pipelines.h"
#include "runtime/scheduler.h"

namespace vkxla {

// Trips of a counted loop's body recorded into one command buffer at most.
constexpr int64_t kMaxUnroll = 256;

StatusOr<std::unique_ptr<Executable>> Executable::Compile(const Module& module, Device& device) {
  return Compile(module, device, device.target());
}

StatusOr<std::unique_ptr<Executable>> Executable::Compile(const Module& module, Device& device, const TargetFeatures& target) {
  VKXLA_ASSIGN_OR_RETURN(Program program, PlanModule(module, target));
  return FromProgram(module, device, std::move(program));
}

StatusOr<std::unique_ptr<Executable>> Executable::FromProgram(const Module& module, Device& device, Program program) {
  auto exe = std::unique_ptr<Executable>(new Executable(device));
  exe->module_ = &module;
  exe->program_ = std::move(program);
  VKXLA_RETURN_IF_ERROR(exe->Allocate());
  VKXLA_RETURN_IF_ERROR(exe->BuildKernels());
  VKXLA_RETURN_IF_ERROR(exe->PrepareExternals(exe->program_.steps));
  VKXLA_RETURN_IF_ERROR(exe->Record(exe->program_.steps, exe->nodes_));
  return exe;
}

Status Executable::Allocate() {
  // A program larger than the device's memory is refused before anything
  // is allocated, with what it needs by class (drivers often overcommit and
  // fail later, or not at all until the device is lost).
  VKXLA_RETURN_IF_ERROR(CheckFitsDeviceMemory(program_, device_.LargestHeapBytes(/*device_local=*/true), device_.info().name));
  for (const Arena& a : program_.arenas) {
    VKXLA_ASSIGN_OR_RETURN(Buffer b, device_.CreateBuffer(a.bytes, a.memory == MemoryKind::kDevice ? Device::Memory::kDeviceLocal
                                                                                            : Device::Memory::kHostVisible));
    arenas_.push_back(std::move(b));
  }
  // Addressed buffers' device addresses, each in a slot a binding may start at.
  const uint64_t stride = std::max<uint64_t>({16, device_.info().hardware.min_storage_buffer_offset_alignment,
                                              program_.target.min_storage_buffer_offset_alignment});
  for (size_t i = 0; i < program_.buffers.size(); ++i)
    if (program_.buffers[i].addressed) address_slot_[static_cast<int>(i)] = address_slot_.size() * stride;
  if (!address_slot_.empty()) {
    VKXLA_ASSIGN_OR_RETURN(Buffer table, device_.CreateBuffer(address_slot_.size() * stride, Device::Memory::kHostVisible));
    for (const auto& [buffer, offset] : address_slot_) {
      const BufferDecl& b = program_.buffers[buffer];
      VKXLA_ASSIGN_OR_RETURN(uint64_t base, device_.DeviceAddress(arenas_[b.arena]));
      const uint64_t address = base + b.offset;
      std::memcpy(static_cast<uint8_t*>(table.mapped()) + offset, &address, sizeof(address));
    }
    address_table_ = std::move(table);
  }
  // Constants are written once, here.
  for (size_t i = 0; i < program_.buffers.size(); ++i) {
    const BufferDecl& b = program_.buffers[i];
    if (b.kind != BufferKind::kConstant) continue;
    VKXLA_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ToPhysical(*b.constant->literal, b.shape.layout_or_default()));
    if (!bytes.empty()) std::memcpy(Mapped(static_cast<int>(i)), bytes.data(), bytes.size());
  }
  return OkStatus();
}

BufferSlice Executable::SliceOf(int buffer) const {
  const BufferDecl& b = program_.buffers[buffer];
  return {arenas_[b.arena].handle(), b.offset, b.bytes};
}

BufferSlice Executable::BindingOf(int buffer, bool texel) const {
  auto slot = address_slot_.find(buffer);
  if (slot == address_slot_.end() || texel) return SliceOf(buffer);
  return {address_table_->handle(), slot->second, 16};
}

void* Executable::Mapped(int buffer) const {
  const BufferDecl& b = program_.buffers[buffer];
  return static_cast<uint8_t*>(arenas_[b.arena].mapped()) + b.offset;
}

namespace {

// A kernel's source less the comment naming it: kernels that differ only
// in the instruction they compute (a network's repeated layers, a chain of
// like ops) share one pipeline.
std::string WithoutKernelName(const std::string& glsl) {
  const size_t at = glsl.find("// kernel ");
  if (at == std::string::npos) return glsl;
  const size_t end = glsl.find('\n', at);
  return glsl.substr(0, at) + (end == std::string::npos ? "" : glsl.substr(end + 1));
}

}  // namespace

Status Executable::BuildKernels() {
  // Every kernel's source first; each distinct source (passes of one
  // network share theirs, and so do like ops under other names) becomes
  // one pipeline, all made in parallel.
  std::vector<std::vector<std::optional<KernelSource>>> sources(program_.groups.size());
  std::map<std::string, size_t> index;
  std::vector<PipelineRequest> requests;
  for (size_t gi = 0; gi < program_.groups.size(); ++gi) {
    const FusionGroup& g = program_.groups[gi];
    for (size_t k = 0; k < g.kernels.size(); ++k) {
      if (g.kernels[k].invocations == 0) {
        sources[gi].emplace_back();
        continue;
      }
      VKXLA_ASSIGN_OR_RETURN(KernelSource src, BuildKernel(program_, g, static_cast<int>(k)));
      if (index.emplace(WithoutKernelName(src.glsl), requests.size()).second)
        requests.push_back({src.glsl, static_cast<uint32_t>(src.bindings.size())});
      sources[gi].push_back(std::move(src));
    }
  }
  VKXLA_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<ComputePipeline>> pipelines,
                         CreatePipelinesInParallel(device_, requests));
  for (const PipelineRequest& r : requests) sources_.push_back(r.glsl);
  for (size_t gi = 0; gi < program_.groups.size(); ++gi) {
    const FusionGroup& g = program_.groups[gi];
    kernels_.emplace_back();
    kernel_bindings_.emplace_back();
    for (size_t k = 0; k < g.kernels.size(); ++k) {
      const KernelLaunch& launch = g.kernels[k];
      const std::optional<KernelSource>& src = sources[gi][k];
      if (!src) {
        kernels_.back().push_back(nullptr);
        kernel_bindings_.back().emplace_back();
        continue;
      }
      const std::shared_ptr<ComputePipeline>& pipeline = pipelines[index.at(WithoutKernelName(src->glsl))];
      std::vector<BufferSlice> bindings;
      for (size_t i = 0; i < src->bindings.size(); ++i)
        bindings.push_back(BindingOf(src->bindings[i], pipeline->texel(static_cast<uint32_t>(i))));
      VKXLA_ASSIGN_OR_RETURN(BoundKernel bound, BoundKernel::Create(device_, pipeline, std::move(bindings), launch.invocations,
                                                             launch.local_size));
      kernels_.back().push_back(std::make_unique<BoundKernel>(std::move(bound)));
      kernel_bindings_.back().push_back({pipeline, src->bindings, launch.invocations, launch.local_size});
    }
  }
  return OkStatus();
}

namespace {

// Steps a ping-pong trip can rename: dispatches on their own grids, copies
// and fills (no host work or nested control between).
bool Renamable(const StepList& steps) {
  for (const Step& s : steps) {
    if (const auto* d = std::get_if<DispatchStep>(&s.op)) {
      if (d->indirect >= 0) return false;
    } else if (!std::holds_alternative<CopyStep>(s.op) && !std::holds_alternative<FillStep>(s.op)) {
      return false;
    }
  }
  return true;
}

}  // namespace

StatusOr<std::unique_ptr<Executable::Alternation>> Executable::PrepareAlternation(const WhileStep& w, bool device_counted) {
  if (w.alternates.empty() || !Renamable(w.condition) || !Renamable(w.body)) return std::unique_ptr<Alternation>();
  auto alt = std::make_unique<Alternation>();
  for (const auto& [body, state] : w.alternates) {
    alt->partner[body] = state;
    alt->partner[state] = body;
  }
  for (size_t i : w.alternate_copies) alt->elided.insert(&w.body[i]);
  for (const StepList* steps : {&w.condition, &w.body})
    for (const Step& step : *steps) {
      const auto* d = std::get_if<DispatchStep>(&step.op);
      if (!d || alt->kernels.count({d->group, d->kernel})) continue;
      const KernelBinding& kb = kernel_bindings_[d->group][d->kernel];
      if (!kb.pipeline) return Internal("a dispatch of a kernel that was not built");
      bool touches = false;
      std::vector<BufferSlice> bindings;
      for (size_t i = 0; i < kb.buffers.size(); ++i) {
        const int b = kb.buffers[i];
        touches = touches || alt->partner.count(b) > 0;
        bindings.push_back(BindingOf(alt->Map(b), kb.pipeline->texel(static_cast<uint32_t>(i))));
      }
      if (!touches) continue;
      VKXLA_ASSIGN_OR_RETURN(BoundKernel k, BoundKernel::Create(device_, kb.pipeline, std::move(bindings), kb.invocations, kb.local_size));
      alt->kernels[{d->group, d->kernel}] = std::make_unique<BoundKernel>(std::move(k));
    }
  // A device-counted loop may stop after an odd number of trips, leaving
  // the state in the body's buffers (a counted one replays even batches).
  if (!device_counted) return alt;
  VKXLA_ASSIGN_OR_RETURN(alt->fixup, RecordCommandBuffer([&](Scheduler& s) -> Status {
    for (const auto& [body, state] : w.alternates) {
      const BufferSlice src = SliceOf(body), dst = SliceOf(state);
      s.Copy(src.buffer, src.offset, dst.buffer, dst.offset, program_.buffers[state].bytes);
    }
    return OkStatus();
  }));
  return alt;
}

const BoundKernel* Executable::KernelFor(const DispatchStep& d, const Alternation* alt, bool swapped) const {
  if (alt && swapped) {
    auto it = alt->kernels.find({d.group, d.kernel});
    if (it != alt->kernels.end()) return it->second.get();
  }
  return kernels_[d.group][d.kernel].get();
}

Status Executable::PrepareExternals(const StepList& steps) {
  for (const Step& step : steps) {
    if (const auto* e = std::get_if<ExternalStep>(&step.op)) {
      VKXLA_ASSIGN_OR_RETURN(externals_[e], PrepareExternalCommand(device_, e->name, e->config));
    } else if (const auto* w = std::get_if<WhileStep>(&step.op)) {
      VKXLA_RETURN_IF_ERROR(PrepareExternals(w->condition));
      VKXLA_RETURN_IF_ERROR(PrepareExternals(w->body));
    } else if (const auto* c = std::get_if<ConditionalStep>(&step.op)) {
      for (const StepList& b : c->branches) VKXLA_RETURN_IF_ERROR(PrepareExternals(b));
    }
  }
  return OkStatus();
}

Status Executable::RecordSteps(Scheduler& s, const StepList& steps, size_t begin, size_t end, bool dispatches_only,
                               const Alternation* alt, bool swapped) const {
  auto map = [&](int b) { return alt && swapped ? alt->Map(b) : b; };
  for (size_t i = begin; i < end; ++i) {
    const Step& step = steps[i];
    if (alt && alt->elided.count(&step)) {
      if (step.barrier_before) s.Barrier();  // later steps may count on it
      continue;
    }
    if (const auto* d = std::get_if<DispatchStep>(&step.op)) {
      if (step.barrier_before) s.Barrier();
      const BoundKernel* k = KernelFor(*d, alt, swapped);
      if (!k) return Internal("a dispatch of a kernel that was not built");
      if (d->indirect >= 0) {
        const BufferSlice grid = SliceOf(d->indirect);
        k->RecordIndirect(s, grid.buffer, grid.offset, d->push_constants);
      } else {
        k->Record(s, d->push_constants);
      }
      continue;
    }
    if (const auto* e = std::get_if<ExternalStep>(&step.op)) {  // a library's kernels: device work like ours
      if (step.barrier_before) s.Barrier();
      std::vector<BufferSlice> reads, writes;
      for (int b : step.reads) reads.push_back(SliceOf(map(b)));
      for (int b : step.writes) writes.push_back(SliceOf(map(b)));
      VKXLA_RETURN_IF_ERROR(externals_.at(e)->Record(s.command_buffer(), reads, writes));
      continue;
    }
    if (dispatches_only) continue;
    if (step.barrier_before) s.Barrier();
    if (const auto* c = std::get_if<CopyStep>(&step.op)) {
      const BufferSlice src = SliceOf(map(c->src)), dst = SliceOf(map(c->dst));
      s.Copy(src.buffer, src.offset, dst.buffer, dst.offset, c->bytes);
    } else if (const auto* f = std::get_if<FillStep>(&step.op)) {
      const BufferSlice dst = SliceOf(map(f->buffer));
      s.Fill(dst.buffer, dst.offset, dst.size, f->word);
    } else {
      return Unimplemented("collective steps are not run yet");
    }
  }
  return OkStatus();
}

StatusOr<VkCommandBuffer> Executable::RecordCommands(const StepList& steps, size_t begin, size_t end, int64_t repeats) {
  return RecordCommandBuffer([&](Scheduler& s) -> Status {
    for (int64_t r = 0; r < repeats; ++r) {
      if (r > 0) s.Barrier();  // the next trip reads what this one wrote
      VKXLA_RETURN_IF_ERROR(RecordSteps(s, steps, begin, end, false));
    }
    return OkStatus();
  });
}

StatusOr<VkCommandBuffer> Executable::RecordCommandBuffer(const std::function<Status(Scheduler&)>& record) {
  std::lock_guard<std::recursive_mutex> lock(device_.command_pool_mutex());
  VKXLA_ASSIGN_OR_RETURN(VkCommandBuffer cb, device_.AllocateCommandBuffer());
  Scheduler s(cb);
  Status status = s.Begin();
  // The plan derived its barriers for one stream of commands; a buffer that
  // follows another submission (or a host decision) starts behind a full one.
  if (status.ok() && command_buffers_ > 0) s.Barrier();
  if (status.ok()) status = record(s);
  if (status.ok()) status = s.End();
  ++command_buffers_;
  if (!status.ok()) {
    device_.FreeCommandBuffer(cb);
    return status;
  }
  return cb;
}

namespace {

// Whether a loop can run gated (LoopGate): its count unknown, a condition
// of plain steps, a body of dispatches on their own grids and copies.
bool Gateable(const WhileStep& w) {
  if (w.trip_count >= 0 || w.predicate < 0) return false;
  for (const Step& s : w.condition)
    if (s.NeedsHost()) return false;
  for (const Step& s : w.body) {
    if (const auto* d = std::get_if<DispatchStep>(&s.op)) {
      if (d->indirect >= 0) return false;
    } else if (const auto* c = std::get_if<CopyStep>(&s.op)) {
      if (c->bytes == 0) return false;
    } else {
      return false;
    }
  }
  return true;
}

int64_t Dispatches(const StepList& steps) {
  int64_t n = 0;
  for (const Step& s : steps) n += std::holds_alternative<DispatchStep>(s.op) ? 1 : 0;
  return n;
}

}  // namespace

int64_t Executable::TripsWithinBudget(const StepList& body) const {
  // Trips of a loop body one submission may hold under the watchdog budget.
  const double per_trip = EstimateMicros(program_, body);
  const double trips = per_trip <= 0 ? kMaxUnroll : program_.target.submission_budget_ms * 1000 / per_trip;
  return trips >= kMaxUnroll ? kMaxUnroll : std::max<int64_t>(1, static_cast<int64_t>(trips));  // no cast out of range
}

Status Executable::RecordGated(const WhileStep& w, Node& n) {
  if (!gate_pipelines_) {
    VKXLA_ASSIGN_OR_RETURN(LoopGatePipelines p, LoopGatePipelines::Create(device_));
    gate_pipelines_ = std::move(p);
  }
  // Short loops waste little on trips past their end; long ones submit
  // rarely. No submission grows past the dispatch limit. Ping-pong needs
  // an even number of trips per submission.
  const int64_t limit = std::max<uint32_t>(1, program_.target.max_dispatches_per_submission);
  const int64_t per_trip = Dispatches(w.condition) + 1 + static_cast<int64_t>(w.body.size());
  const int64_t most = std::max<int64_t>(1, std::min({kMaxUnroll, limit / per_trip, TripsWithinBudget(w.body)}));
  VKXLA_ASSIGN_OR_RETURN(n.alternation, PrepareAlternation(w, /*device_counted=*/true));
  if (most < 2) n.alternation.reset();
  const Alternation* alt = n.alternation.get();
  std::vector<std::array<uint32_t, 2>> grids;
  for (const Step& step : w.body) {
    if (const auto* d = std::get_if<DispatchStep>(&step.op)) {
      const BoundKernel* k = kernels_[d->group][d->kernel].get();
      if (!k) return Internal("a dispatch of a kernel that was not built");
      grids.push_back(k->grid());
    } else if (alt && alt->elided.count(&step)) {
      grids.push_back({1, 1});  // never dispatched
    } else {
      const auto& c = std::get<CopyStep>(step.op);
      for (int version = 0; version < (alt ? 2 : 1); ++version) {
        const int src = version ? alt->Map(c.src) : c.src, dst = version ? alt->Map(c.dst) : c.dst;
        for (int b : {src, dst})
          if (program_.buffers[b].addressed)
            return Unimplemented(program_.buffers[b].name + " " + program_.buffers[b].shape.ToString() +
                                 ": a device-gated loop's state past maxStorageBufferRange (" +
                                 std::to_string(program_.target.max_storage_buffer_range) + ") is not supported");
        VKXLA_ASSIGN_OR_RETURN(BoundKernel k, LoopGate::CopyKernel(device_, *gate_pipelines_, SliceOf(src), SliceOf(dst), c.bytes));
        if (version == 0) grids.push_back(k.grid());
        n.gated_copies[version].push_back(std::make_unique<BoundKernel>(std::move(k)));
      }
    }
  }
  VKXLA_ASSIGN_OR_RETURN(n.gate, LoopGate::Create(device_, *gate_pipelines_, SliceOf(w.predicate), grids));
  auto record_trips = [&](Scheduler& s, int64_t trips) -> Status {
    for (int64_t t = 0; t < trips; ++t) {
      const bool swapped = alt && t % 2 == 1;
      if (t > 0) s.Barrier();
      VKXLA_RETURN_IF_ERROR(RecordSteps(s, w.condition, 0, w.condition.size(), false, alt, swapped));
      s.Barrier();
      n.gate->RecordGate(s, t);
      s.Barrier();  // also makes the arguments visible to the indirect reads
      size_t command = 0, copy = 0;
      for (const Step& step : w.body) {
        if (step.barrier_before) s.Barrier();
        const uint64_t arguments = n.gate->ArgumentsOffset(command++);
        if (const auto* d = std::get_if<DispatchStep>(&step.op)) {
          KernelFor(*d, alt, swapped)->RecordIndirect(s, n.gate->arguments(), arguments, d->push_constants);
        } else if (!alt || !alt->elided.count(&step)) {
          n.gated_copies[swapped ? 1 : 0][copy++]->RecordIndirect(s, n.gate->arguments(), arguments,
                                                                   LoopGate::CopyPushConstants(std::get<CopyStep>(step.op).bytes));
        }
      }
    }
    return OkStatus();
  };
  for (int64_t trips : {int64_t{alt ? 2 : 1}, int64_t{8}, int64_t{64}}) {
    trips = std::min(trips, most);
    if (alt) trips -= trips % 2;
    if (!n.batches.empty() && n.batches.back().first >= trips) continue;
    VKXLA_ASSIGN_OR_RETURN(VkCommandBuffer cb, RecordCommandBuffer([&](Scheduler& s) { return record_trips(s, trips); }));
    n.batches.emplace_back(trips, cb);
  }
  return OkStatus();
}

Status Executable::Record(const StepList& steps, std::vector<Node>& out) {
  // Runs of plain steps, cut every max_dispatches_per_submission dispatches
  // and around loops and branches.
  const uint32_t limit = std::max<uint32_t>(1, program_.target.max_dispatches_per_submission);
  size_t begin = 0;
  uint32_t dispatches = 0;
  auto flush = [&](size_t end) -> Status {
    if (end > begin) {
      Node n;
      VKXLA_ASSIGN_OR_RETURN(n.cb, RecordCommands(steps, begin, end));
      out.push_back(std::move(n));
    }
    begin = end;
    dispatches = 0;
    return OkStatus();
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    if (const auto* w = std::get_if<WhileStep>(&step.op)) {
      VKXLA_RETURN_IF_ERROR(flush(i));
      Node n;
      n.kind = Node::Kind::kWhile;
      n.buffer = w->predicate;
      n.trips = w->trip_count;
      if (Gateable(*w)) {
        VKXLA_RETURN_IF_ERROR(RecordGated(*w, n));
        out.push_back(std::move(n));
        begin = i + 1;
        continue;
      }
      if (n.trips < 0) VKXLA_RETURN_IF_ERROR(Record(w->condition, n.condition));
      VKXLA_RETURN_IF_ERROR(Record(w->body, n.body));
      if (n.trips > 1 && n.body.size() == 1 && n.body[0].kind == Node::Kind::kCommands) {
        // A counted loop with a plain body: many trips per submission,
        // as many as the dispatch limit allows; with ping-pong an even
        // number, so each submission leaves the state where it found it.
        const int64_t dispatches = Dispatches(w->body);
        n.unroll = std::min<int64_t>(n.trips, std::max<int64_t>(1, limit / std::max<int64_t>(1, dispatches)));
        n.unroll = std::min<int64_t>(n.unroll, kMaxUnroll);
        n.unroll = std::min(n.unroll, TripsWithinBudget(w->body));
        VKXLA_ASSIGN_OR_RETURN(n.alternation, PrepareAlternation(*w, /*device_counted=*/false));
        if (n.unroll < 2) n.alternation.reset();
        if (n.alternation) n.unroll -= n.unroll % 2;
        if (n.unroll > 1) {
          const Alternation* alt = n.alternation.get();
          VKXLA_ASSIGN_OR_RETURN(n.unrolled, RecordCommandBuffer([&](Scheduler& s) -> Status {
            for (int64_t r = 0; r < n.unroll; ++r) {
              if (r > 0) s.Barrier();  // the next trip reads what this one wrote
              VKXLA_RETURN_IF_ERROR(RecordSteps(s, w->body, 0, w->body.size(), false, alt, alt && r % 2 == 1));
            }
            return OkStatus();
          }));
        }
      }
      out.push_back(std::move(n));
      begin = i + 1;
      continue;
    }
    if (const auto* c = std::get_if<ConditionalStep>(&step.op)) {
      VKXLA_RETURN_IF_ERROR(flush(i));
      Node n;
      n.kind = Node::Kind::kConditional;
      n.buffer = c->selector;
      for (const StepList& b : c->branches) {
        n.branches.emplace_back();
        VKXLA_RETURN_IF_ERROR(Record(b, n.branches.back()));
      }
      out.push_back(std::move(n));
      begin = i + 1;
      continue;
    }
    if (const auto* h = std::get_if<HostStep>(&step.op)) {
      VKXLA_RETURN_IF_ERROR(flush(i));
      Node n;
      n.kind = Node::Kind::kHost;
      n.host = h;
      if (!h->device_inputs.empty()) {
        for (const auto& [list, cb] : {std::pair{&h->stage_in, &n.stage_in}, std::pair{&h->stage_out, &n.stage_out}}) {
          VKXLA_ASSIGN_OR_RETURN(*cb, RecordCommandBuffer([&, list = list](Scheduler& s) {
            s.Barrier();  // behind the submission before, whichever was recorded first
            return RecordSteps(s, *list, 0, list->size(), false);
          }));
        }
      }
      out.push_back(std::move(n));
      begin = i + 1;
      continue;
    }
    if (step.submit_before) VKXLA_RETURN_IF_ERROR(flush(i));  // the plan's watchdog budget
    if (std::holds_alternative<DispatchStep>(step.op)) {
      if (dispatches == limit) VKXLA_RETURN_IF_ERROR(flush(i));
      ++dispatches;
    }
  }
  return flush(steps.size());
}

Status Executable::Execute(const std::vector<Node>& nodes) {
  for (const Node& n : nodes) {
    switch (n.kind) {
      case Node::Kind::kCommands:
        VKXLA_RETURN_IF_ERROR(Submit(n.cb));
        break;
      case Node::Kind::kWhile:
        if (n.trips >= 0) {
          int64_t left = n.trips;
          for (; n.unrolled && left >= n.unroll; left -= n.unroll) VKXLA_RETURN_IF_ERROR(Submit(n.unrolled));
          for (; left > 0; --left) VKXLA_RETURN_IF_ERROR(Execute(n.body));
          break;
        }
        if (n.gate) {
          for (size_t b = 0;; b = std::min(b + 1, n.batches.size() - 1)) {
            n.gate->Arm();
            VKXLA_RETURN_IF_ERROR(Submit(n.batches[b].second));
            if (!n.gate->Alive(n.batches[b].first)) break;
          }
          // Ping-pong: an odd number of trips left the state in the body's buffers.
          if (n.alternation && n.gate->LastTrips() % 2 == 1) VKXLA_RETURN_IF_ERROR(Submit(n.alternation->fixup));
          break;
        }
        for (;;) {
          VKXLA_RETURN_IF_ERROR(Execute(n.condition));
          if (*static_cast<const uint8_t*>(Mapped(n.buffer)) == 0) break;
          VKXLA_RETURN_IF_ERROR(Execute(n.body));
        }
        break;
      case Node::Kind::kHost:
        if (n.stage_in) {
          VKXLA_ASSIGN_OR_RETURN(const bool on_device, CollectiveOnDevice(*n.host));
          device_collective_runs_ += on_device ? 1 : 0;
          if (on_device) break;
          VKXLA_RETURN_IF_ERROR(Submit(n.stage_in));
        }
        VKXLA_RETURN_IF_ERROR(RunHostStep(*n.host));
        if (n.stage_out) VKXLA_RETURN_IF_ERROR(Submit(n.stage_out));
        break;
      case Node::Kind::kConditional: {
        const ElementType t = program_.buffers[n.buffer].shape.element_type();
        int64_t index = 0;
        if (t == ElementType::kPred) {
          index = *static_cast<const uint8_t*>(Mapped(n.buffer)) != 0 ? 0 : 1;
        } else {
          int32_t i;
          std::memcpy(&i, Mapped(n.buffer), 4);
          index = i;
        }
        const int64_t count = static_cast<int64_t>(n.branches.size());
        if (count == 0) break;
        if (index < 0 || index >= count) index = count - 1;
        VKXLA_RETURN_IF_ERROR(Execute(n.branches[index]));
        break;
      }
    }
  }
  return OkStatus();
}

Status Executable::Submit(VkCommandBuffer cb) {
  ++submissions_;
  return device_.SubmitAndWait(cb, queue_);
}

void Executable::SeedRng(uint64_t seed) {
  std::lock_guard<std::mutex> lock(run_mu_);
  rng_counter_ = {0, seed};
}

void Executable::SetProcess(const ProcessContext& process) {
  std::lock_guard<std::mutex> lock(run_mu_);
  process_ = process;
  queue_ = static_cast<uint32_t>(process.self % device_.queue_count());
}

StatusOr<bool> Executable::AllReduceInPlace(const HostStep& step) {
  const Instruction& op = *step.op;
  if (step.inputs.size() != step.outputs.size()) return Internal("an all-reduce step writes one buffer per operand");
  const auto dense = [](const Shape& s) {
    const Layout l = s.layout_or_default();
    return l.IsDescending() && (l.element_size_in_bits == 0 || l.element_size_in_bits == BitWidth(s.element_type()));
  };
  const size_t n = step.inputs.size();
  std::vector<InPlaceLeaf> leaves(n);
  // Leaves laid out otherwise go through dense row-major copies.
  std::vector<std::vector<uint8_t>> dense_operands(n), dense_results(n);
  for (size_t k = 0; k < n; ++k) {
    const BufferDecl &in = program_.buffers[step.inputs[k]], &out = program_.buffers[step.outputs[k]];
    leaves[k].bytes = in.shape.element_count() * (BitWidth(in.shape.element_type()) / 8);
    if (dense(in.shape)) {
      leaves[k].operand = static_cast<const uint8_t*>(Mapped(step.inputs[k]));
    } else {
      VKXLA_ASSIGN_OR_RETURN(Literal value, FromPhysical(static_cast<const uint8_t*>(Mapped(step.inputs[k])), in.shape));
      VKXLA_ASSIGN_OR_RETURN(dense_operands[k], ToPhysical(value, Layout::Descending(in.shape.rank())));
      leaves[k].operand = dense_operands[k].data();
    }
    if (dense(out.shape)) {
      leaves[k].result = static_cast<uint8_t*>(Mapped(step.outputs[k]));
    } else {
      dense_results[k].resize(static_cast<size_t>(leaves[k].bytes));
      leaves[k].result = dense_results[k].data();
    }
  }
  VKXLA_ASSIGN_OR_RETURN(const bool folded, process_.transport->AllReduceInPlace(process_.self, op, leaves));
  if (!folded) return false;
  for (size_t k = 0; k < n; ++k) {
    if (dense_results[k].empty()) continue;
    const BufferDecl& out = program_.buffers[step.outputs[k]];
    Shape row_major(out.shape.element_type(), out.shape.dims());
    row_major.set_layout(Layout::Descending(out.shape.rank()));
    VKXLA_ASSIGN_OR_RETURN(Literal value, FromPhysical(dense_results[k].data(), row_major));
    VKXLA_RETURN_IF_ERROR(ToPhysicalInto(value, out.shape.layout_or_default(), static_cast<uint8_t*>(Mapped(step.outputs[k])),
                                         static_cast<int64_t>(out.bytes)));
  }
  return true;
}

StatusOr<bool> Executable::CollectiveOnDevice(const HostStep& step) {
  if (!process_.transport) return false;
  DeviceMember mine{&device_, {}, {}};
  for (int b : step.device_inputs) mine.operands.push_back(SliceOf(b));
  for (int b : step.device_outputs) mine.results.push_back(SliceOf(b));
  const Instruction& op = *step.op;
  bool done = false;
  auto record = [this](const std::function<Status(Scheduler&)>& r) { return RecordCommandBuffer(r); };
  VKXLA_ASSIGN_OR_RETURN(
      const bool met, process_.transport->Share(process_.self, op, &mine, [&](const std::vector<const void*>& all, size_t position) {
        std::vector<const DeviceMember*> members;
        for (const void* m : all) members.push_back(static_cast<const DeviceMember*>(m));
        if (!device_collectives_) device_collectives_ = std::make_unique<DeviceCollectives>(device_);
        if (CanFoldInPlace(op) || ScattersFold(op)) {
          if (!CanFoldOnDevice(op, program_.target, members)) return OkStatus();  // every member stages
          DeviceFoldForm form{program_.target.max_texel_buffer_elements > 0, program_.target.cpu && program_.target.int64};
          for (size_t k = 0; k < mine.operands.size(); ++k) {
            form.texels = form.texels && mine.operands[k].size / 16 <= program_.target.max_texel_buffer_elements;
            form.pairs = form.pairs && (ScattersFold(op) ? FoldBlockBytes(op, k) : mine.operands[k].size) % 32 == 0;
          }
          done = true;
          return device_collectives_->FoldShare(&step, op, members, position, form, queue_, record);
        }
        if (!ShareOneDevice(members)) return OkStatus();  // every member stages
        std::vector<Shape> operands, results;
        for (int b : step.device_inputs) operands.push_back(program_.buffers[b].shape);
        for (int b : step.device_outputs) results.push_back(program_.buffers[b].shape);
        done = true;
        return device_collectives_->MoveBytes(&step, op, members, position, operands, results, queue_, record);
      }));
  return met && done;
}

Status Executable::RunHostStep(const HostStep& step) {
  const Instruction& op = *step.op;
  auto read_inputs = [&]() -> StatusOr<std::vector<Literal>> {
    std::vector<Literal> leaves;
    for (int b : step.inputs) {
      VKXLA_ASSIGN_OR_RETURN(Literal l, FromPhysical(static_cast<const uint8_t*>(Mapped(b)), program_.buffers[b].shape));
      leaves.push_back(std::move(l));
    }
    return leaves;
  };
  auto write = [&](int b, const Literal& value) -> Status {
    const Shape& declared = program_.buffers[b].shape;
    if (!value.shape().Compatible(Shape(declared.element_type(), declared.dims())))
      return InvalidArgument(std::string(OpcodeName(op.opcode)) + " " + op.Describe() + ": got " + value.shape().ToString() +
                             ", expected " + declared.ToString());
    // Placed straight into the mapped buffer: no staging copy (64 MiB collectives).
    VKXLA_RETURN_IF_ERROR(ToPhysicalInto(value, declared.layout_or_default(), static_cast<uint8_t*>(Mapped(b)),
                                         static_cast<int64_t>(program_.buffers[b].bytes)));
    return OkStatus();
  };
  switch (step.kind) {
    case HostStep::Kind::kInfeed: {
      std::optional<Literal> v = device_.infeed().Pop();
      if (!v)
        return FailedPrecondition("infeed " + op.Describe() + ": the device's infeed queue is empty (push values with "
                                  "Device::infeed() or vkxla run --infeed FILE.npy)");
      std::vector<Literal> leaves = v->shape().IsTuple() ? v->tuple_elements() : std::vector<Literal>{std::move(*v)};
      if (leaves.size() != step.outputs.size())
        return InvalidArgument("infeed " + op.Describe() + ": the queue's value has " + std::to_string(leaves.size()) +
                               " arrays, the op reads " + op.shape.tuple_shapes()[0].ToString());
      for (size_t k = 0; k < leaves.size(); ++k) VKXLA_RETURN_IF_ERROR(write(step.outputs[k], leaves[k]));
      return OkStatus();
    }
    case HostStep::Kind::kOutfeed: {
      VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> leaves, read_inputs());
      device_.outfeed().Push(op.operands[0]->shape.IsTuple() ? Literal::Tuple(std::move(leaves)) : std::move(leaves[0]));
      return OkStatus();
    }
    case HostStep::Kind::kSend: case HostStep::Kind::kRecv: {
      // Results: the data (sent, or received) and a u32 context of 0.
      const int64_t channel = ChannelId(op);
      Literal data;
      if (step.kind == HostStep::Kind::kSend) {
        VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> leaves, read_inputs());
        data = std::move(leaves[0]);
        if (process_.transport) {
          VKXLA_RETURN_IF_ERROR(process_.transport->Send(process_.self, op, data));
        } else {
          device_.from_device(channel).Push(data);
        }
      } else if (process_.transport) {
        VKXLA_ASSIGN_OR_RETURN(data, process_.transport->Receive(process_.self, op));
      } else {
        std::optional<Literal> v = device_.to_device(channel).Pop();
        if (!v)
          return FailedPrecondition("recv " + op.Describe() + ": nothing was sent to channel " + std::to_string(channel) +
                                    " (push values with Device::to_device(" + std::to_string(channel) + "))");
        data = std::move(*v);
      }
      if (step.outputs.size() != 2) return Internal("a send or recv step writes its data and its context");
      VKXLA_RETURN_IF_ERROR(write(step.outputs[0], data));
      return write(step.outputs[1], Literal::ScalarOf(Scalar::UInt(ElementType::kU32, 0)));
    }
    case HostStep::Kind::kRngCounter: {
      VKXLA_ASSIGN_OR_RETURN(int64_t delta, ReadRngDelta(op));
      if (step.outputs.size() != 1) return Internal("rng-get-and-update-state writes one u64[2]");
      return write(step.outputs[0], TakeRngCounter(rng_counter_, static_cast<uint64_t>(delta)));
    }
    case HostStep::Kind::kProcess: {
      if (process_.transport && CanFoldInPlace(op)) {
        VKXLA_ASSIGN_OR_RETURN(const bool folded, AllReduceInPlace(step));
        if (folded) return OkStatus();
      }
      VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> operands, read_inputs());
      VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> results, RunProcessOp(op, std::move(operands), process_));
      if (results.size() != step.outputs.size()) return Internal("a process op gives one value per output buffer");
      for (size_t k = 0; k < results.size(); ++k) VKXLA_RETURN_IF_ERROR(write(step.outputs[k], results[k]));
      return OkStatus();
    }
    case HostStep::Kind::kCallback: {
      VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> operands, read_inputs());
      VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> results, RunHostCustomCall(op, operands));
      for (size_t k = 0; k < results.size() && k < step.outputs.size(); ++k) VKXLA_RETURN_IF_ERROR(write(step.outputs[k], results[k]));
      return OkStatus();
    }
  }
  return Internal("unknown host step");
}

StatusOr<Timing> Executable::TimeKernels(int repeats) {
  std::lock_guard<std::mutex> lock(run_mu_);
  VKXLA_ASSIGN_OR_RETURN(Timing t, TimeCommands(device_, [&](Scheduler& s) -> Status {
    for (int r = 0; r < repeats; ++r) {
      if (r > 0) s.Barrier();  // the next replay overwrites what this one reads
      VKXLA_RETURN_IF_ERROR(RecordSteps(s, program_.steps, 0, program_.steps.size(), true));
    }
    return OkStatus();
  }));
  t.seconds /= std::max(1, repeats);
  return t;
}

StatusOr<std::vector<Executable::KernelTime>> Executable::TimeEachKernel() {
  std::lock_guard<std::mutex> lock(run_mu_);
  const StepList& steps = program_.steps;
  std::vector<KernelTime> times;
  for (const Step& step : steps) {
    if (const auto* d = std::get_if<DispatchStep>(&step.op)) {
      const FusionGroup& g = program_.groups.at(d->group);
      std::string name = g.kernels.at(d->kernel).name;
      if (g.hero) name += " (%" + g.hero->name + ")";
      times.push_back({std::move(name), 0});
    } else if (const auto* e = std::get_if<ExternalStep>(&step.op)) {
      times.push_back({e->name + " (library)", 0});
    }
  }
  VKXLA_ASSIGN_OR_RETURN(std::vector<double> seconds,
                         TimeSegments(device_, static_cast<uint32_t>(times.size()), [&](Scheduler& s, const MarkFn& mark) {
                           for (size_t i = 0; i < steps.size(); ++i) {
                             VKXLA_RETURN_IF_ERROR(RecordSteps(s, steps, i, i + 1, true));
                             if (std::holds_alternative<DispatchStep>(steps[i].op) ||
                                 std::holds_alternative<ExternalStep>(steps[i].op))
                               mark();
                           }
                           return OkStatus();
                         }));
  for (size_t i = 0; i < times.size() && i < seconds.size(); ++i) times[i].seconds = seconds[i];
  return times;
}

void Executable::Free(std::vector<Node>& nodes) {
  for (Node& n : nodes) {
    if (n.cb) device_.FreeCommandBuffer(n.cb);
    if (n.unrolled) device_.FreeCommandBuffer(n.unrolled);
    for (const auto& [trips, cb] : n.batches) device_.FreeCommandBuffer(cb);
    if (n.alternation && n.alternation->fixup) device_.FreeCommandBuffer(n.alternation->fixup);
    for (VkCommandBuffer cb : {n.stage_in, n.stage_out})
      if (cb) device_.FreeCommandBuffer(cb);
    Free(n.condition);
    Free(n.body);
    for (auto& b : n.branches) Free(b);
  }
  nodes.clear();
}

Executable::~Executable() {
  // Run waits for its submissions, so no work of this executable is pending
  // (and vkDeviceWaitIdle would race other threads' submissions).
  Free(nodes_);
  kernels_.clear();
}

StatusOr<Literal> Executable::Run(const std::vector<Literal>& arguments) {
  std::lock_guard<std::mutex> lock(run_mu_);
  VKXLA_RETURN_IF_ERROR(device_.CheckUsable());
  VKXLA_RETURN_IF_ERROR(CheckArguments(*module_->entry(), arguments));
  // The program's parameters are the arguments' array leaves (plan/entry_parameters.h).
  std::vector<const Literal*> leaves;
  for (const Literal& a : arguments)
    for (const Literal* l : a.Leaves())
      if (l->shape().IsArray()) leaves.push_back(l);
  if (leaves.size() != program_.parameter_device.size())
    return Internal("the arguments hold " + std::to_string(leaves.size()) + " arrays, the program takes " +
                    std::to_string(program_.parameter_device.size()));
  uint32_t* sizes = program_.parameter_sizes >= 0 ? static_cast<uint32_t*>(Mapped(program_.parameter_sizes)) : nullptr;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Literal& argument = *leaves[i];
    // A dynamic dim's value is placed at its bound; its size goes alongside.
    const Shape& declared = program_.buffers[program_.parameter_device[i]].shape;
    if (sizes)
      for (int64_t d = 0; d < argument.shape().rank() && d < kMaxDynamicRank; ++d)
        sizes[i * kMaxDynamicRank + d] = static_cast<uint32_t>(argument.shape().dim(d));
    VKXLA_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ToPhysical(Resized(argument, declared.dims()), declared.layout_or_default()));
    if (!bytes.empty()) std::memcpy(Mapped(program_.parameter_staging[i]), bytes.data(), bytes.size());
  }
  submissions_ = device_collective_runs_ = 0;
  VKXLA_RETURN_IF_ERROR(Execute(nodes_));
  std::vector<Literal> results;
  for (const ResultLeaf& r : program_.results) {
    const Shape& shape = program_.buffers[r.device].shape;
    VKXLA_ASSIGN_OR_RETURN(Literal l, FromPhysical(static_cast<const uint8_t*>(Mapped(r.staging)), shape));
    if (r.sizes >= 0) {
      std::vector<int64_t> dims = shape.dims();
      const auto* got = static_cast<const uint32_t*>(Mapped(r.sizes));
      for (int64_t d = 0; d < shape.rank(); ++d)
        if (shape.is_dynamic_dim(d)) dims[d] = std::min<int64_t>(got[d], dims[d]);
      l = Resized(l, dims);
    }
    results.push_back(std::move(l));
  }
  size_t next = 0;  // the results are the result's array leaves
  return LiteralFromArrayLeaves(module_->EntryProgramShape().result, results, next);
}

}  // namespace vkxla
