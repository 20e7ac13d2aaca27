#include "plan/program.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace vkxla {

std::string ByteSizeText(uint64_t b) {
  char buf[32];
  if (b >= (uint64_t{1} << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1 << 20));
  else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024);
  else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  return buf;
}

namespace {

std::string BufferList(const std::vector<int>& ids) {
  std::string s;
  for (int id : ids) s += (s.empty() ? "b" : " b") + std::to_string(id);
  return s.empty() ? "-" : s;
}

int CountDispatches(const StepList& steps) {
  int n = 0;
  for (const Step& s : steps) {
    if (std::holds_alternative<DispatchStep>(s.op)) ++n;
    if (const auto* w = std::get_if<WhileStep>(&s.op)) n += CountDispatches(w->condition) + CountDispatches(w->body);
    if (const auto* c = std::get_if<ConditionalStep>(&s.op))
      for (const StepList& b : c->branches) n += CountDispatches(b);
  }
  return n;
}

int CountBarriers(const StepList& steps) {
  int n = 0;
  for (const Step& s : steps) {
    n += s.barrier_before ? 1 : 0;
    if (const auto* w = std::get_if<WhileStep>(&s.op)) n += CountBarriers(w->condition) + CountBarriers(w->body);
    if (const auto* c = std::get_if<ConditionalStep>(&s.op))
      for (const StepList& b : c->branches) n += CountBarriers(b);
  }
  return n;
}

void PrintSteps(const Program& p, const StepList& steps, const std::string& indent, std::ostringstream& o) {
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    if (s.barrier_before) o << indent << "    barrier\n";
    o << indent << "  " << i << ": ";
    if (const auto* d = std::get_if<DispatchStep>(&s.op)) {
      const FusionGroup& g = p.groups[d->group];
      const KernelLaunch& k = g.kernels[d->kernel];
      o << "dispatch g" << d->group << "." << d->kernel << " " << k.name << " (" << k.invocations << " invocations)";
      if (!d->push_constants.empty()) {
        o << " push {";
        for (size_t j = 0; j < d->push_constants.size(); ++j) o << (j ? ", " : "") << d->push_constants[j];
        o << "}";
      }
    } else if (const auto* c = std::get_if<CopyStep>(&s.op)) {
      o << "copy b" << c->src << " -> b" << c->dst << " (" << ByteSizeText(c->bytes) << ")";
    } else if (const auto* f = std::get_if<FillStep>(&s.op)) {
      o << "fill b" << f->buffer << " with " << f->word;
    } else if (const auto* e = std::get_if<ExternalStep>(&s.op)) {
      o << "external " << e->name;
    } else if (const auto* w = std::get_if<WhileStep>(&s.op)) {
      if (w->trip_count >= 0) o << "while (" << w->trip_count << " trips, counted)\n" << indent << "   condition:\n";
      else o << "while (predicate b" << w->predicate << ")\n" << indent << "   condition:\n";
      PrintSteps(p, w->condition, indent + "    ", o);
      o << indent << "   body";
      if (!w->alternates.empty()) {
        o << " (ping-pong";
        for (const auto& [body, state] : w->alternates) o << " b" << body << "/b" << state;
        o << ")";
      }
      o << ":\n";
      PrintSteps(p, w->body, indent + "    ", o);
      continue;
    } else if (const auto* c = std::get_if<ConditionalStep>(&s.op)) {
      o << "conditional (selector b" << c->selector << ")\n";
      for (size_t b = 0; b < c->branches.size(); ++b) {
        o << indent << "   branch " << b << ":\n";
        PrintSteps(p, c->branches[b], indent + "    ", o);
      }
      continue;
    } else if (const auto* h = std::get_if<HostStep>(&s.op)) {
      static const char* const kWhat[] = {"infeed", "outfeed", "custom call", "send", "recv", "rng counter", "process op"};
      const char* what = kWhat[static_cast<int>(h->kind)];
      o << "host " << what << " %" << h->op->name;
      if (!h->device_inputs.empty()) o << " (on the device where its members share it)";
    }
    o << "  reads " << BufferList(s.reads) << ", writes " << BufferList(s.writes) << "\n";
  }
}

}  // namespace

std::string_view BufferKindName(BufferKind k) {
  switch (k) {
    case BufferKind::kParameter: return "parameter";
    case BufferKind::kStaging: return "staging";
    case BufferKind::kConstant: return "constant";
    case BufferKind::kTemporary: return "temporary";
    case BufferKind::kResult: return "result";
    case BufferKind::kScratch: return "scratch";
    case BufferKind::kParameterSizes: return "parameter sizes";
    case BufferKind::kResultSizes: return "result sizes";
  }
  return "?";
}

std::string_view KernelKindName(KernelKind k) {
  switch (k) {
    case KernelKind::kLoop: return "loop";
    case KernelKind::kReduce: return "reduce";
    case KernelKind::kSort: return "sort";
    case KernelKind::kScan: return "scan";
    case KernelKind::kWindow: return "window";
    case KernelKind::kScatter: return "scatter";
    case KernelKind::kMatmul: return "matmul";
    case KernelKind::kTriangular: return "triangular";
    case KernelKind::kRow: return "row";
  }
  return "?";
}

int FusionGroup::OutputOf(const ValueRef& v) const {
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].value == v) return static_cast<int>(i);
  return -1;
}

bool Step::NeedsHost() const {
  return std::holds_alternative<WhileStep>(op) || std::holds_alternative<ConditionalStep>(op) ||
         std::holds_alternative<HostStep>(op);
}

int Program::AddBuffer(BufferDecl b) {
  buffers.push_back(std::move(b));
  return static_cast<int>(buffers.size()) - 1;
}

uint64_t Program::PeakBytes(MemoryKind memory) const {
  uint64_t total = 0;
  for (const Arena& a : arenas)
    if (a.memory == memory) total += a.bytes;
  return total;
}

int Program::DispatchCount() const { return CountDispatches(steps); }
int Program::BarrierCount() const { return CountBarriers(steps); }

std::string Program::ToString() const {
  std::ostringstream o;
  o << "program " << module_name << " for " << target.device_name << "\n";
  o << "memory: device " << ByteSizeText(PeakBytes(MemoryKind::kDevice)) << ", host " << ByteSizeText(PeakBytes(MemoryKind::kHost))
    << " (" << buffers.size() << " buffers in " << arenas.size() << " arenas)\n";
  o << "groups:\n";
  for (const FusionGroup& g : groups) {
    o << "  g" << g.id << " " << KernelKindName(g.kind) << " %" << g.hero->name << " -> ";
    for (size_t i = 0; i < g.outputs.size(); ++i)
      o << (i ? ", " : "") << g.outputs[i].value.ToString() << " (b" << g.outputs[i].buffer << ")";
    if (g.outputs.empty()) o << "-";
    o << "\n    reads " << BufferList(g.inputs);
    if (!g.scratch.empty()) o << "; scratch " << BufferList(g.scratch);
    if (!g.fused.empty()) {
      o << "; fuses";
      for (const Instruction* i : g.fused) o << " %" << i->name;
    }
    o << "\n";
  }
  o << "buffers:\n";
  for (size_t i = 0; i < buffers.size(); ++i) {
    const BufferDecl& b = buffers[i];
    o << "  b" << i << " " << b.name << " " << b.shape.ToString() << " " << BufferKindName(b.kind) << ", "
      << ByteSizeText(b.bytes) << " at " << (b.memory == MemoryKind::kDevice ? "device" : "host") << "+" << b.offset
      << ", live " << b.first_step << ".." << b.last_step << "\n";
  }
  o << "steps (" << DispatchCount() << " dispatches, " << BarrierCount() << " barriers):\n";
  PrintSteps(*this, steps, "", o);
  return o.str();
}

}  // namespace vkxla
