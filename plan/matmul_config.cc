#include "plan/matmul_config.h"

#include <algorithm>
#include <array>

#include "ops/dot.h"
#include "ops/ragged_dot.h"

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

// How operand `side` can be read (see MatmulConfig::Read).
MatmulConfig::Read ChooseRead(const Instruction& dot, const DotPlan& plan, int side, int64_t thread_free, int64_t free_extent,
                              const MaterializedLayoutFn& materialized) {
  const Instruction* x = dot.operands[side];
  const ElementType t = x->shape.element_type();
  const int width = BitWidth(t);
  if (IsComplex(t) || (width != 8 && width != 16 && width != 32)) return MatmulConfig::Read::kElements;
  const int64_t lanes = VectorLanes(t);
  const std::vector<int64_t>& contracting = side == 0 ? plan.dims.lhs_contracting : plan.dims.rhs_contracting;
  const std::vector<int64_t>& free = side == 0 ? plan.lhs_free : plan.rhs_free;
  // Along k: the innermost contraction dim (k's fastest), whole vectors of
  // it never straddling its outer dims.
  if (!contracting.empty() && FindVectorSource(x, contracting.back(), lanes, materialized)) return MatmulConfig::Read::kAlongK;
  if (free.size() == 1 && thread_free % lanes == 0 && free_extent % thread_free == 0 &&
      FindVectorSource(x, free[0], lanes, materialized))
    return MatmulConfig::Read::kAlongFree;
  return MatmulConfig::Read::kElements;
}

}  // namespace

int64_t VectorLanes(ElementType t) { return 128 / std::max(1, BitWidth(t)); }

ElementType MatmulAccumulator(ElementType t) {
  if (t == ElementType::kPred || t == ElementType::kF64 || t == ElementType::kC64 || t == ElementType::kC128) return t;
  if (IsFloat(t)) return ElementType::kF32;
  if (t == ElementType::kS64 || t == ElementType::kU64) return t;
  return IsSignedInt(t) ? ElementType::kS32 : ElementType::kU32;
}

StatusOr<MatmulConfig> ChooseMatmulConfig(const Instruction& dot, int64_t step_trips, const MaterializedLayoutFn& materialized,
                                          const TargetFeatures& target) {
  VKXLA_ASSIGN_OR_RETURN(DotPlan plan, PlanDot(dot));
  MatmulConfig c;
  c.batch = plan.batch;
  // RaggedDot: a row's group picks the rhs matrix (one row per invocation);
  // contracting groups are batches of their own. Group ranges cost a walk
  // over the groups: once per invocation, or per step where the ragged dim
  // is not the outermost of the contraction (the range moves with it).
  int64_t pre_trips = 0, group_step_trips = 0;
  bool one_row = false;
  if (dot.opcode == Opcode::kRaggedDot) {
    VKXLA_ASSIGN_OR_RETURN(RaggedDotPlan ragged, PlanRaggedDot(dot));
    if (ragged.mode == RaggedMode::kNonContracting) {
      one_row = true;
      pre_trips = ragged.groups;
    } else if (ragged.mode == RaggedMode::kContracting) {
      c.batch *= ragged.groups;
      if (plan.dims.lhs_contracting[0] == ragged.lhs_ragged) pre_trips = ragged.groups;
      else group_step_trips = ragged.groups;
    }
  }
  c.m = plan.m;
  c.n = plan.n;
  c.k = plan.k;
  // Register blocks: on a CPU driver 16 x 16 where both operands are read
  // as vectors (f32 results), 8 x 8 for f32 otherwise, 4 x 4 for other
  // results (each block is unrolled code: a 16 x 16 block of element loads
  // took llvmpipe seconds to compile, an 8 x 8 block of f16 results three);
  // 64 invocations, 8 along n (one SIMD vector); a matrix-vector product
  // takes 4 rows each (f32 4096^2: 11 ms against 14 with 16 rows, 18 with
  // one). On a GPU 4 x 4, 256 invocations. Fewer along a dim that is
  // smaller, the lanes moved to the other dim.
  // Narrow results round and pack per element (big code): 16 x 16 blocks
  // only for 32-bit results, 8 x 8 for narrow ones only with vectors.
  const ElementType rt = dot.shape.element_type();
  // f8 operands decode through a function each: 16 x 16 blocks of 16-lane
  // vectors took llvmpipe 6 s to compile.
  const bool f8 = (IsFloat(dot.operands[0]->shape.element_type()) && BitWidth(dot.operands[0]->shape.element_type()) == 8) ||
                  (IsFloat(dot.operands[1]->shape.element_type()) && BitWidth(dot.operands[1]->shape.element_type()) == 8);
  const bool wide_result = BitWidth(rt) == 32 && !IsComplex(rt) && !f8;
  // bf16 and 8- and 16-bit integer results pack in a few integer ops (f16's
  // rounding is a function of its own): 8 x 8 blocks with element reads too
  // (llvmpipe, a bf16 1x1 convolution 10x10x1024->546, rhs read by
  // elements: 13.9 ms in 4 x 4 blocks, 8.4 in 8 x 8).
  const bool cheap_narrow_result = !f8 && (rt == ElementType::kBF16 || (IsInteger(rt) && (BitWidth(rt) == 8 || BitWidth(rt) == 16)));
  const int64_t invocations = target.cpu ? 64 : std::min<int64_t>(256, target.max_workgroup_invocations);
  // CPU drivers reading vectors through texel buffers: 8 x 8 blocks. A
  // texel fetch costs llvmpipe tens of cycles whether its lanes' addresses
  // differ or not, and a block fetches 8 lhs and 8 rhs texels every 4
  // steps for 256 products; 16 x 16 blocks' 256 accumulators spill (f32
  // 1024^3, same run: 8 x 8 113-124 ms, 16 x 16 140-148, 8 x 4 119-131).
  // 8-bit operands keep 16 x 16: a texel holds 16 of them, and narrower
  // blocks read the rhs a word at a time (s8 1024^3: 100-110 ms against
  // 155-210 for 8 x 8).
  const bool byte_operands = BitWidth(dot.operands[0]->shape.element_type()) == 8 ||
                             BitWidth(dot.operands[1]->shape.element_type()) == 8;
  const bool texel_reads = target.cpu && target.max_texel_buffer_elements > 0;
  for (const int64_t block : {int64_t{16}, int64_t{8}, int64_t{4}}) {
    if (!target.cpu && block > 4) continue;
    if (target.cpu && block == 16 && (!wide_result || (texel_reads && !byte_operands))) continue;
    c.thread_m = one_row ? 1 : FitPowerOfTwo(c.m, c.n == 1 ? 4 : block);
    c.thread_n = FitPowerOfTwo(c.n, block);
    c.threads_n = FitPowerOfTwo(CeilDiv(c.n, c.thread_n), target.cpu ? 8 : 16);
    c.threads_m = FitPowerOfTwo(CeilDiv(c.m, c.thread_m), std::max<int64_t>(1, invocations / c.threads_n));
    // Ragged and scaled operands go through their load functions.
    if (dot.opcode == Opcode::kDot) {
      c.lhs = ChooseRead(dot, plan, 0, c.thread_m, c.m, materialized);
      c.rhs = ChooseRead(dot, plan, 1, c.thread_n, c.n, materialized);
    }
    const bool vectors = c.lhs != MatmulConfig::Read::kElements && c.rhs != MatmulConfig::Read::kElements;
    if (block == 16 && !vectors) continue;
    if (block == 8 && !wide_result && !cheap_narrow_result && !vectors) continue;
    break;
  }
  // GPUs: shared-memory tiles where both dims fill them at least halfway
  // and the staged slices fit (not for row groups: a tile's rows may read
  // different rhs matrices).
  const int64_t acc_bytes = std::max(1, BitWidth(MatmulAccumulator(dot.shape.element_type())) / 8);
  if (!target.cpu && !one_row && c.m >= 32 && c.n >= 32 && 2 * 16 * 64 * acc_bytes <= target.max_shared_memory_bytes &&
      target.max_workgroup_invocations >= 256) {
    c.thread_m = c.thread_n = 4;
    c.threads_m = c.threads_n = 16;
    c.tile_k = 16;
    c.lhs = c.rhs = MatmulConfig::Read::kElements;
  }
  // Staged f16 tiles on matrix units: both operands f16 (the products
  // then are exact in the f32 accumulators, as on the plain path), the
  // 256 invocations eight subgroups of 32.
  const ElementType lt = dot.operands[0]->shape.element_type(), rt_in = dot.operands[1]->shape.element_type();
  if (c.tile_k == 16 && target.cooperative_matrix_f16 && target.subgroup_size == 32 && dot.opcode == Opcode::kDot &&
      lt == ElementType::kF16 && rt_in == ElementType::kF16 && MatmulAccumulator(rt) == ElementType::kF32 &&
      target.max_shared_memory_bytes >= 64 * 64 * 4 + 2 * 16 * 64 * 2)
    c.cooperative = true;
  // Quads (MatmulConfig::quads) for 32-bit accumulators where both dims
  // fill 128 x 128 tiles (16 x 16 invocations, 8-step slices), 256 x 128
  // tiles (32 x 16, 16 steps) where those alone fill the device (128 of
  // them or more) and it runs 512 invocations a workgroup, or in the shape
  // the tuning names. The slices are padded by a vector a step so that the
  // stores into them spread over the banks too. On an H200 (f32 4096^3, one
  // run of each shape): 128 x 128 with 8 or 16 steps 34.7-35.4 TFLOP/s,
  // 64 x 128 36.3, 64 x 64 34.1, 256 x 128 39.2; 1024^3 (split-K to 256
  // workgroups) 24-28 for all of them, within the run-to-run noise.
  const TargetFeatures::MatmulTuning& tune = target.matmul_tuning;
  const ElementType acc_type = MatmulAccumulator(rt);
  // Only where the 128 x 128 tiles (split along a contraction of 512 steps
  // or more) make 128 workgroups: fewer leave most of a large GPU idle,
  // where 64 x 64 tiles make four times as many (MobileNet-v2's 1 x 1
  // convolutions, 3136 x 144 results of 24-step contractions, took 8.7
  // ms an image on an H200 in quads against 5.8 in 64 x 64 tiles).
  const int64_t quad_groups = CeilDiv(c.m, 128) * CeilDiv(c.n, 128) * c.batch * std::max<int64_t>(1, c.k / 256);
  // Quads win over the cooperative 64 x 64 tiles where both apply (H200,
  // 1024^3 in one run: f16 operands on the matrix units 9.6 TFLOP/s, bf16
  // operands in quads 25.1; the cooperative tiles meet in shared memory at
  // every 16 steps).
  if (c.tile_k == 16 && acc_bytes == 4 && !IsComplex(acc_type) && acc_type != ElementType::kPred) {
    const bool tall = c.m >= 256 && CeilDiv(c.m, 256) * CeilDiv(c.n, 128) * c.batch >= 128 &&
                      target.max_workgroup_invocations >= 512;
    // (invocations along m, along n, slice steps): the tuning's, then the
    // plan's own; the first the device holds, each invocation storing
    // whole vectors of both slices.
    std::vector<std::array<int64_t, 3>> shapes;
    if (tune.threads_m > 0) shapes.push_back({tune.threads_m, tune.threads_n, tune.tile_k});
    if (tall) shapes.push_back({32, 16, 16});
    if (tune.threads_m > 0 || (c.m >= 128 && c.n >= 128 && quad_groups >= 128)) shapes.push_back({16, 16, 8});
    for (const auto& [qm, qn, qk] : shapes) {
      const int64_t invocations_q = qm * qn, slices = 4 * qk * (8 * qm + 4 + 8 * qn + 4);
      if (invocations_q > target.max_workgroup_invocations || slices > target.max_shared_memory_bytes ||
          (qk * 8 * qm) % (4 * invocations_q) != 0 || (qk * 8 * qn) % (4 * invocations_q) != 0)
        continue;
      c.quads = true;
      c.cooperative = false;
      c.thread_m = c.thread_n = 8;
      c.threads_m = qm;
      c.threads_n = qn;
      c.tile_k = qk;
      break;
    }
  }
  // GPUs, matrix . vector: a subgroup-sized team of lanes per row, each
  // taking every k_lanes-th step (neighbours read neighbouring elements),
  // their sums meeting in shared memory.
  if (!target.cpu && !one_row && c.n == 1 && c.k >= 64 && target.max_workgroup_invocations >= 256) {
    c.k_lanes = std::clamp<int64_t>(target.subgroup_size, 8, 64);
    c.thread_m = c.thread_n = c.threads_n = 1;
    c.threads_m = 256 / c.k_lanes;
    c.lhs = c.rhs = MatmulConfig::Read::kElements;
  }
  // CPU drivers: the lanes along n share the block's lhs rows (see
  // MatmulConfig::share_lhs) where they fill one subgroup and the rows
  // split evenly among them. Shared rows cost a lane an eighth of their
  // loads, so 16 x 16 blocks read as vectors grow to 32 x 16 where an
  // iteration has at most 4 steps (below, once k_step is known; f32 1024^3 on
  // llvmpipe, one run of each: 16 x 16 unshared 375 ms, shared 310 ms
  // (step by step) and 291 ms (in sub-blocks); 32 x 16 in sub-blocks
  // 179-230 ms, 32 x 32 217 ms but 12 s to compile, 64 x 4 466 ms).
  // Not where the lhs is read as texels: llvmpipe 22's subgroupBroadcast
  // searches the lanes in a loop, dearer than the fetch it saves (f32
  // 1024^3 in a standalone kernel: 8.6-11.7 GFLOP/s shared, 19-20 not).
  const ElementType acc = MatmulAccumulator(rt);
  if (target.cpu && target.subgroup_broadcast && dot.opcode == Opcode::kDot && c.tile_k == 0 && c.k_lanes == 1 &&
      !(texel_reads && c.lhs != MatmulConfig::Read::kElements) &&
      c.threads_n == static_cast<int64_t>(target.subgroup_size) && c.thread_m % c.threads_n == 0 &&
      c.lhs != MatmulConfig::Read::kAlongFree && acc != ElementType::kS64 && acc != ElementType::kU64)
    c.share_lhs = true;
  c.local_size = static_cast<uint32_t>(c.threads_m * c.threads_n * c.k_lanes);
  c.tile_m = c.threads_m * c.thread_m;
  c.tile_n = c.threads_n * c.thread_n;
  c.tiles_m = CeilDiv(std::max<int64_t>(c.m, 1), c.tile_m);
  c.tiles_n = CeilDiv(std::max<int64_t>(c.n, 1), c.tile_n);
  // Flat blocks where tiles would pad or be few; whole tiles keep each
  // workgroup's rows and columns near one another in the cache (f32
  // 4096^3 on llvmpipe, alternated: 1.90-1.94 s in tiles, 2.11-2.18 s in
  // flat blocks, whose 64 invocations span 512 columns).
  const bool tiles_pad = c.m % c.tile_m != 0 || c.n % c.tile_n != 0;
  if (target.cpu && c.tile_k == 0 && c.k_lanes == 1 && !c.share_lhs && !c.quads &&
      (tiles_pad || c.batch * c.tiles_m * c.tiles_n < 32)) {
    c.flat_blocks = true;
    c.blocks_m = CeilDiv(std::max<int64_t>(c.m, 1), c.thread_m);
    c.blocks_n = CeilDiv(std::max<int64_t>(c.n, 1), c.thread_n);
    c.tiles_m = 1;
    // A CPU driver runs a workgroup on one thread: where the blocks are
    // few, smaller workgroups (down to one SIMD vector of 8) make at least
    // 32 of them, so the threads share the blocks evenly and no split of
    // the contraction is needed for parallelism (llvmpipe, 2 threads:
    // 196x576x96 0.46 -> 0.37 ms, 49x960x320 0.66 -> 0.52).
    while (c.local_size > 8 && CeilDiv(c.blocks_m * c.blocks_n, static_cast<int64_t>(c.local_size)) < 32) c.local_size /= 2;
    c.tiles_n = CeilDiv(c.blocks_m * c.blocks_n, static_cast<int64_t>(c.local_size));
  }
  // Steps per iteration: the widest vector read along k.
  c.k_step = 1;
  for (int side = 0; side < 2; ++side) {
    if ((side == 0 ? c.lhs : c.rhs) != MatmulConfig::Read::kAlongK) continue;
    const Instruction* x = dot.operands[side];
    const int64_t lanes = VectorLanes(x->shape.element_type());
    const int64_t dim = (side == 0 ? plan.dims.lhs_contracting : plan.dims.rhs_contracting).back();
    // An address through index maps (a convolution's windows: start
    // indices, padding tests) serves 4 vectors where they lie together
    // (llvmpipe, conv 3x3 56x56x64->64: 69 ms with one vector per address,
    // 53 with 2, 44 with 4; a plain buffer's gains nothing from it).
    c.k_block[side] = lanes;
    const std::optional<VectorSource> source = FindVectorSource(x, dim, lanes, materialized);
    for (const int64_t vectors : {int64_t{4}, int64_t{2}})
      if (source && !source->chain.empty() && FindVectorSource(x, dim, lanes * vectors, materialized)) {
        c.k_block[side] = lanes * vectors;
        break;
      }
    c.k_step = std::max(c.k_step, c.k_block[side]);
  }
  if (c.tile_k > 0) c.k_step = c.tile_k;
  // CPU drivers: every operand of an iteration is loaded first, then the
  // products run in sub-blocks of 2 x 4 accumulators with the steps inner.
  // A block's accumulators are a SIMD register each and outnumber the
  // CPU's registers (64 of an 8 x 8 block against AVX2's 16), so step by
  // step every product reloads and stores its accumulator; a sub-block
  // stays in registers across the steps (llvmpipe, f32 1024^3 in
  // texel-read 8 x 8 blocks: 0.43 -> 0.56-0.59 of peak FMA; 1 x 4, 1 x 8,
  // 2 x 2, 2 x 8 and 4 x 4 within noise of 2 x 4; a 3 x 3 convolution's
  // implicit GEMM, 16 steps an iteration: 40 -> 45 GFLOP/s, its Winograd
  // form 56 -> 68). With shared lhs rows, 16 x 16
  // blocks grow to 32 x 16 where iterations have at most 4 steps; longer
  // ones (a convolution's 4 vectors per address) keep their size and order
  // there: 8192 products in one unrolled iteration took llvmpipe minutes to
  // compile.
  if (target.cpu && c.k_lanes == 1 && c.tile_k == 0 && (c.k_step <= 4 || !c.share_lhs)) {
    if (c.share_lhs && c.thread_m == 16 && c.thread_n == 16 && c.m >= 32) {
      c.thread_m = 32;
      c.threads_m = FitPowerOfTwo(CeilDiv(c.m, c.thread_m), std::max<int64_t>(1, invocations / c.threads_n));
      c.local_size = static_cast<uint32_t>(c.threads_m * c.threads_n * c.k_lanes);
      c.tile_m = c.threads_m * c.thread_m;
      c.tiles_m = CeilDiv(std::max<int64_t>(c.m, 1), c.tile_m);
    }
    c.sub_m = std::min<int64_t>(2, c.thread_m);
    c.sub_n = std::min<int64_t>(4, c.thread_n);
  }
  if (c.k_lanes > 1) c.k_step = c.k_lanes;
  // Split-K: chunks each invocation walks within the loop budget, and more
  // where too few workgroups would occupy the device, as long as each
  // chunk keeps at least 256 steps.
  // Staged slices: a step costs an invocation its share of the slice's
  // loads, not its block's (each load tests its step's group too; the 64 x
  // 64 tiles' estimate fell from 8 loads a step to 1 with this).
  const int64_t per_step = c.tile_k > 0 ? 2 + CeilDiv(c.tile_m + c.tile_n, c.local_size) * (step_trips + group_step_trips)
                                        : 2 + step_trips * (c.thread_m + c.thread_n) + group_step_trips;
  const int64_t budget = static_cast<int64_t>(target.max_loop_trips) - 64 - pre_trips;
  if (budget < per_step)
    return Unimplemented(std::string(OpcodeName(dot.opcode)) + " " + dot.Describe() + ": " + std::to_string(pre_trips) +
                         " groups are more than one invocation may walk (" + std::to_string(target.max_loop_trips) +
                         " loop trips)");
  const int64_t budget_steps = std::max<int64_t>(1, budget / per_step) * c.k_lanes;  // a lane walks 1 step in k_lanes
  const int64_t budget_splits = CeilDiv(std::max<int64_t>(c.k, 1), budget_steps);
  const int64_t groups = c.batch * c.tiles_m * c.tiles_n;
  const int64_t target_groups = target.cpu ? 8 : tune.groups > 0 ? tune.groups : 256;
  int64_t parallel_splits = 1;
  if (groups < target_groups) parallel_splits = std::min(CeilDiv(target_groups, std::max<int64_t>(groups, 1)), c.k / 256);
  c.splits = std::max<int64_t>({1, budget_splits, parallel_splits});
  c.k_chunk = CeilDiv(CeilDiv(std::max<int64_t>(c.k, 1), c.splits), c.k_step) * c.k_step;
  c.splits = CeilDiv(std::max<int64_t>(c.k, 1), c.k_chunk);
  c.workgroups = static_cast<uint64_t>(groups * c.splits);
  if (c.m == 0 || c.n == 0 || c.batch == 0) c.workgroups = 0;
  return c;
}

}  // namespace vkxla
