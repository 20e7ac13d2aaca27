// How a reduce runs: the geometry of its first pass over the operands (a
// workgroup tree over rows or columns, whole-vector reads), and how the
// reduced range is cut into chunks when one pass would loop longer than a
// driver allows or leave the device idle. Chunks fold into partial results
// (a scratch buffer, partial c of physical result p at word c * O + p),
// later passes fold 16 partials at a time, and a final pass applies the
// init value and the epilogue. Chunks are consecutive and fold left to
// right, so any associative computation gives the sequential answer.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/layout.h"
#include "vkxla/status.h"
#include "plan/materialized.h"
#include "plan/target_features.h"

namespace vkxla {

// Partials one invocation of a later pass folds; rows a column block folds.
constexpr int64_t kPartialsPerFold = 16;

struct ReduceConfig {
  enum class Mode {
    kRows,          // the operand's unit-stride dim is reduced: a slot's lanes walk its rows
    kColumns,       // a kept dim is unit-stride: consecutive slots take consecutive results
    kColumnBlocks,  // column vectors: an invocation folds 16 rows of 4 results
  };
  Mode mode = Mode::kRows;
  int64_t arity = 1;
  int64_t K = 1;         // reduced elements per result
  int64_t outputs = 1;   // logical results
  int64_t physical = 1;  // physical result elements, padding included (O)
  int64_t unit = -1;     // the operand's unit-stride dim; -1 for scalars
  Layout x_layout;       // the layout the operand is read through
  bool row_vectors = false;     // lanes read whole vectors along the reduced row
  bool column_vectors = false;  // a slot reads vectors across 4 results
  bool strided = false;         // lanes stride the reduced index (one commutative op)
  bool lockstep = false;        // column-vector slots walk the rows together (CPU drivers)
  int64_t E = 4;                // physical results per output vector
  int64_t vectors = 0;          // output vectors
  int64_t L = 1;                // lanes per slot
  int64_t P = 256;              // slots per workgroup
  int64_t G = 1;                // results per slot
  int64_t slots = 0;            // result slots (result vectors with column vectors)
  int64_t steps = 0;            // steps of a whole fold (vectors with row vectors)
  int64_t chunk_steps = 0;      // steps of one chunk
  int64_t chunks = 1;           // chunks per result; more than one writes partials
  int64_t groups = 0;           // first-pass workgroups (kRows, kColumns)
  // Partials per result after the first pass and each later one; the last
  // is at most kPartialsPerFold, which the final pass folds.
  std::vector<int64_t> parts;
  bool fold_vectors = false;  // later passes read 4 results at a time

  bool split() const { return chunks > 1; }
  // Word offset (in elements) of the partials pass `pass` writes.
  int64_t RegionOffset(size_t pass) const { return pass % 2 == 0 ? 0 : parts[0] * physical; }
  int64_t PartialElements() const { return (parts[0] + (parts.size() > 1 ? parts[1] : 0)) * physical; }
  // Invocations of the first pass, of later pass p, of the final pass.
  uint64_t FirstPassInvocations() const;
  uint64_t FoldPassInvocations(size_t pass) const;
  uint64_t FinalPassInvocations() const { return static_cast<uint64_t>(vectors); }
};

// `out` is the first result with its layout (every result of one group
// shares its placement); `fold_trips` the loop trips of folding one
// element (the fused operands and the computation).
StatusOr<ReduceConfig> ChooseReduceConfig(const Instruction& reduce, const Shape& out, int64_t fold_trips,
                                          const MaterializedLayoutFn& materialized, const TargetFeatures& target);

}  // namespace vkxla
