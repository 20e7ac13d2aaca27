// Watchdog-safe submissions. Drivers reset a device whose submission runs
// too long (Windows' TDR after 2 s, phone GPU watchdogs sooner), so the
// plan estimates each step's device time and starts a new submission where
// the running total would pass the target's budget
// (TargetFeatures::submission_budget_ms; VKXLA_SUBMISSION_BUDGET_MS).
// The estimates are rough on purpose: bytes at the target's bandwidth plus
// work at its operation rate, both conservative figures per device type.
#pragma once

#include "plan/program.h"

namespace vkxla {

// Estimated device time of one step in microseconds: the bytes of the
// buffers it reads and writes at the target's bandwidth, plus its
// arithmetic at the target's operation rate (a matmul's 2*m*n*k, else a
// few operations per invocation). Loops and branches count 0: their bodies
// are cut on their own and the runtime replays them trip by trip.
double EstimateStepMicros(const Program& program, const Step& step);
double EstimateMicros(const Program& program, const StepList& steps);

// Sets Step::submit_before throughout the program: a step that would take
// the current submission past the budget starts a new one (a step alone
// over the budget still runs alone: it cannot be cut further here).
void DeriveSubmissions(Program& program);

}  // namespace vkxla
