// Turns a verified module into a Program for one target: the fusion pass
// (plan/fusion.h) picks the groups, each group's kernel config is chosen
// (plan/*_config.h), buffers are declared, steps laid out (uploads, the
// groups' dispatches in order, downloads), live ranges measured, buffers
// placed in arenas and barriers derived. Pure C++: no device involved.
#pragma once

#include "ir/module.h"
#include "vkxla/status.h"
#include "plan/program.h"

namespace vkxla {

StatusOr<Program> PlanModule(const Module& module, const TargetFeatures& target);

// The last stages of planning, for a program whose steps or buffers were
// edited: live ranges from the steps (loop and branch bodies count at their
// step), buffers placed in arenas, barriers derived.
Status FinishProgram(Program& program);

// The materialized-value lookup a group's kernels see: every buffer of the
// program except the values the group itself computes.
MaterializedLayoutFn GroupMaterialized(const Program& program, const FusionGroup& group);

}  // namespace vkxla
