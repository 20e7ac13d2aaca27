#include "plan/matmul_config.h"

#include <algorithm>

#include "ops/dot.h"

namespace vkxla {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The largest power of two at most `limit` that does not exceed `extent`
// rounded up to a power of two.
int64_t FitPowerOfTwo(int64_t extent, int64_t limit) {
  int64_t p = 1;
  while (p < limit && p < extent) p <<= 1;
  return p;
}

}  // namespace

ElementType MatmulAccumulator(ElementType t) {
  if (t == ElementType::kPred || t == ElementType::kF64 || t == ElementType::kC64 || t == ElementType::kC128) return t;
  if (IsFloat(t)) return ElementType::kF32;
  if (t == ElementType::kS64 || t == ElementType::kU64) return t;
  return IsSignedInt(t) ? ElementType::kS32 : ElementType::kU32;
}

StatusOr<MatmulConfig> ChooseMatmulConfig(const Instruction& dot, int64_t step_trips, const TargetFeatures& target) {
  ASSIGN_OR_RETURN(DotPlan plan, PlanDot(dot));
  MatmulConfig c;
  c.batch = plan.batch;
  c.m = plan.m;
  c.n = plan.n;
  c.k = plan.k;
  // Register blocks of 4 x 4, fewer along a dim that is smaller.
  c.thread_m = FitPowerOfTwo(c.m, 4);
  c.thread_n = FitPowerOfTwo(c.n, 4);
  // A CPU driver runs a workgroup on one core: 64 invocations, 16 along n
  // so each SIMD vector's lanes share their rows. A GPU gets 256.
  const int64_t invocations = target.cpu ? 64 : std::min<int64_t>(256, target.max_workgroup_invocations);
  c.threads_n = FitPowerOfTwo(CeilDiv(c.n, c.thread_n), target.cpu ? 16 : 16);
  c.threads_m = FitPowerOfTwo(CeilDiv(c.m, c.thread_m), std::max<int64_t>(1, invocations / c.threads_n));
  c.local_size = static_cast<uint32_t>(c.threads_m * c.threads_n);
  c.tile_m = c.threads_m * c.thread_m;
  c.tile_n = c.threads_n * c.thread_n;
  c.tiles_m = CeilDiv(std::max<int64_t>(c.m, 1), c.tile_m);
  c.tiles_n = CeilDiv(std::max<int64_t>(c.n, 1), c.tile_n);
  // Split-K: chunks each invocation walks within the loop budget, and more
  // where too few workgroups would occupy the device, as long as each
  // chunk keeps at least 256 steps.
  const int64_t per_step = 2 + step_trips * (c.thread_m + c.thread_n);
  const int64_t budget_steps = std::max<int64_t>(1, (static_cast<int64_t>(target.max_loop_trips) - 64) / per_step);
  const int64_t budget_splits = CeilDiv(std::max<int64_t>(c.k, 1), budget_steps);
  const int64_t groups = c.batch * c.tiles_m * c.tiles_n;
  const int64_t target_groups = target.cpu ? 8 : 256;
  int64_t parallel_splits = 1;
  if (groups < target_groups) parallel_splits = std::min(CeilDiv(target_groups, std::max<int64_t>(groups, 1)), c.k / 256);
  c.splits = std::max<int64_t>({1, budget_splits, parallel_splits});
  c.k_chunk = CeilDiv(std::max<int64_t>(c.k, 1), c.splits);
  c.splits = CeilDiv(std::max<int64_t>(c.k, 1), c.k_chunk);
  c.workgroups = static_cast<uint64_t>(groups * c.splits);
  if (c.m == 0 || c.n == 0 || c.batch == 0) c.workgroups = 0;
  return c;
}

}  // namespace vkxla
