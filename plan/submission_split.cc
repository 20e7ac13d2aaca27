#include "plan/submission_split.h"

#include <algorithm>

namespace vkxla {
namespace {

// Operations one invocation of a kernel that is not a matmul is taken to
// run: a few dozen covers elementwise chains, reductions' strides and
// sort's compare-exchanges.
constexpr double kOpsPerInvocation = 32;

uint64_t BufferBytes(const Program& p, const std::vector<int>& ids) {
  uint64_t total = 0;
  for (int id : ids)
    if (id >= 0 && id < static_cast<int>(p.buffers.size())) total += p.buffers[id].bytes;
  return total;
}

void Derive(const Program& p, StepList& steps) {
  const double budget = p.target.submission_budget_ms * 1000;
  double running = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    Step& s = steps[i];
    if (auto* w = std::get_if<WhileStep>(&s.op)) {
      Derive(p, w->condition);
      Derive(p, w->body);
    } else if (auto* c = std::get_if<ConditionalStep>(&s.op)) {
      for (StepList& b : c->branches) Derive(p, b);
    }
    const double t = EstimateStepMicros(p, s);
    s.submit_before = i > 0 && running > 0 && running + t > budget;
    running = s.submit_before ? t : running + t;
  }
}

}  // namespace

double EstimateStepMicros(const Program& p, const Step& step) {
  const TargetFeatures& t = p.target;
  if (std::holds_alternative<WhileStep>(step.op) || std::holds_alternative<ConditionalStep>(step.op)) return 0;
  double bytes = static_cast<double>(BufferBytes(p, step.reads) + BufferBytes(p, step.writes));
  double ops = 0;
  if (const auto* d = std::get_if<DispatchStep>(&step.op)) {
    if (d->group >= 0 && d->group < static_cast<int>(p.groups.size())) {
      const FusionGroup& g = p.groups[d->group];
      if (const auto* m = std::get_if<MatmulConfig>(&g.config))
        ops = 2.0 * static_cast<double>(m->batch) * static_cast<double>(m->m) * static_cast<double>(m->n) * static_cast<double>(m->k);
      if (d->kernel >= 0 && d->kernel < static_cast<int>(g.kernels.size()))
        ops = std::max(ops, kOpsPerInvocation * static_cast<double>(g.kernels[d->kernel].invocations));
    }
  }
  const double seconds = bytes / std::max(1.0, t.estimated_bytes_per_second) + ops / std::max(1.0, t.estimated_ops_per_second);
  return seconds * 1e6;
}

double EstimateMicros(const Program& p, const StepList& steps) {
  double total = 0;
  for (const Step& s : steps) total += EstimateStepMicros(p, s);
  return total;
}

void DeriveSubmissions(Program& program) { Derive(program, program.steps); }

}  // namespace vkxla
