// The pieces cyclic Jacobi methods share, built from HLO ops on whole
// batched arrays: the (p, q) pair a loop trip rotates, the plane rotation
// that diagonalises a symmetric 2x2 (a Hermitian one after a phase), and
// that rotation applied to two lines of a matrix. The symmetric eigendecomposition rotates rows and columns of
// the matrix (frontends/eigh_decomposition.h); the one-sided SVD rotates
// columns only (frontends/svd_decomposition.h).
#pragma once

#include <utility>
#include <vector>

#include "frontends/array_ops.h"

namespace vkxla {

// The pairs (p, q), p < q < n, row by row: one sweep.
struct JacobiSweep {
  std::vector<int64_t> ps, qs;
  explicit JacobiSweep(int64_t n);
  int64_t pairs() const { return static_cast<int64_t>(ps.size()); }
  // Sweeps enough for the type: Jacobi converges quadratically once the
  // off-diagonal part is small.
  static int64_t SweepsFor(ElementType t) { return BitWidth(t) == 32 ? 10 : 16; }
};

// The pair of loop trip `step` (an s32 scalar): entry step mod pairs of the
// sweep's tables, as s32 scalars.
std::pair<Instruction*, Instruction*> PickPair(ArrayOps& o, Instruction* step, const JacobiSweep& sweep);

// J = [[c, s], [-s, c]] with J^T [[app, apq], [apq, aqq]] J diagonal (Golub
// and Van Loan's symmetric Schur decomposition, the smaller angle); the
// identity where apq is zero. Scalars over the batch dims.
struct PlaneRotation {
  Instruction* cos = nullptr;
  Instruction* sin = nullptr;
  Instruction* rotates = nullptr;  // pred: apq is not zero
};
PlaneRotation SymmetricSchurRotation(ArrayOps& o, Instruction* app, Instruction* aqq, Instruction* apq);

// A complex apq as its magnitude times a phase: the factor e = conj(apq) /
// |apq| (1 where apq is zero) that makes apq e real. Scaling column q by e
// (and row q by conj e) makes a Hermitian 2x2 real symmetric, which a
// plane rotation then diagonalises.
struct Phase {
  Instruction* factor = nullptr;     // complex, over the batch dims
  Instruction* magnitude = nullptr;  // real
};
Phase PhaseOf(ArrayOps& o, Instruction* apq);

// Lines of a batch of matrices along one dim: `index` (s32 of y's dims)
// counts along the other, so a line is a column where index is the column
// iota and `dim` the row dim (summed over to take one out), a row the
// other way round; `map` spreads a line back to y's dims.
struct MatrixLines {
  Instruction* index;
  int64_t dim;
  std::vector<int64_t> map;
  Computation* add;
  // Line `i` (a spread s32 of y's dims) of y.
  Instruction* Take(ArrayOps& o, Instruction* y, Instruction* i) const;
  // y with lines p and q (yp and yq, as Take gives them) made
  // c yp - s yq and s yp + c yq: y J for columns, J^T y for rows.
  Instruction* Rotate(ArrayOps& o, Instruction* y, Instruction* pm, Instruction* qm, Instruction* yp, Instruction* yq,
                      const PlaneRotation& r, const std::vector<int64_t>& batch_map) const;
  // y with line q (qm a spread s32 of y's dims) times `factor` (over the
  // batch dims).
  Instruction* Scale(ArrayOps& o, Instruction* y, Instruction* qm, Instruction* factor, const std::vector<int64_t>& batch_map) const;
};

// Columns of `matrix` [..., r, n] put in the order of `values` [..., n]
// (ascending or descending, stable): the sorted values and the matrix.
std::pair<Instruction*, Instruction*> SortColumnsByValues(ArrayOps& o, Instruction* values, Instruction* matrix, bool descending,
                                                          const ComputationBuilders& b);

}  // namespace vkxla
