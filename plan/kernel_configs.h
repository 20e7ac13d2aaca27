// The kinds of kernel a fusion group can be (one per hero kind, each with
// its config file here and its builder in codegen/), and the config that
// says how its kernels cover the work.
#pragma once

#include <string_view>
#include <variant>

#include "plan/loop_config.h"
#include "plan/matmul_config.h"
#include "plan/reduce_config.h"
#include "plan/row_config.h"
#include "plan/scan_config.h"
#include "plan/scatter_config.h"
#include "plan/sort_config.h"
#include "plan/triangular_config.h"
#include "plan/window_config.h"

namespace vkxla {

enum class KernelKind {
  kLoop,     // elementwise fusions, data movement, gathers, a sort's results
  kReduce,   // reduce, with its producers and epilogue
  kSort,     // sort and topk: the permutation
  kScan,
  kWindow,   // reduce-window, select-and-scatter
  kScatter,
  kMatmul,   // dot: tiles of the product, operands' producers in its loads, the epilogue in its stores
  kTriangular,  // cholesky and triangular-solve blocks: one invocation per system
  kRow,      // reduces over rows with the work between and after them (softmax, layer norm): a workgroup per row
};
std::string_view KernelKindName(KernelKind k);

using KernelConfig = std::variant<LoopConfig, ReduceConfig, SortConfig, ScanConfig, WindowConfig, ScatterConfig, MatmulConfig, TriangularConfig, RowConfig>;

}  // namespace vkxla
