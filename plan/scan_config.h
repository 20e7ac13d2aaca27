// How a scan runs: a parallel prefix when its computation is one
// associative operator (Hillis-Steele over chunks of up to 256 elements in
// shared memory, joined to a running carry), else a loop per line. Long
// lines run in passes over segments, each starting from the carries the
// previous one stored, so no invocation loops longer than the driver allows.
#pragma once

#include <cstdint>

#include "ir/instruction.h"
#include "vkxla/status.h"
#include "plan/materialized.h"
#include "plan/target_features.h"

namespace vkxla {

struct ScanConfig {
  bool parallel = false;
  int64_t dim = 0, length = 0, lines = 1;
  int64_t L = 1, P = 1, groups = 0;  // parallel: lanes per line, lines per workgroup
  int64_t segment = 0;                 // positions per pass
  int64_t passes = 1;
  uint64_t Invocations() const { return parallel ? static_cast<uint64_t>(groups) * 256 : static_cast<uint64_t>(lines); }
};

// `step_trips`: loop trips of one step (the fused inputs and the computation).
StatusOr<ScanConfig> ChooseScanConfig(const Instruction& scan, int64_t step_trips, const TargetFeatures& target);

}  // namespace vkxla
