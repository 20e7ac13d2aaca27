// The pieces the Jacobi methods share, built from HLO ops on whole batched
// arrays. A loop trip rotates n / 2 disjoint index pairs at once (the
// round-robin ordering: n - 1 rounds a sweep pair every two indices once),
// each pair's rotation written per index: index i with its partner p(i),
// new line i = c_i line_i + s_i line_p(i), the partners' lines gathered by
// a product with the pairing's permutation matrix. The symmetric
// eigendecomposition rotates rows and columns (frontends/eigh_decomposition.h),
// the one-sided SVD columns only (frontends/svd_decomposition.h). A sweep in
// which no pair needed a rotation ends the loop.
#pragma once

#include <utility>
#include <vector>

#include "frontends/array_ops.h"

namespace vkxla {

// The round-robin ordering of n indices (an odd n plays a dummy: its
// partner is n, "none").
struct JacobiRounds {
  int64_t n = 0, players = 0, rounds = 0;
  std::vector<int64_t> partner;  // [rounds * n]: index i's partner in round r
  explicit JacobiRounds(int64_t n);
  // Sweeps at most: Jacobi converges quadratically once the off-diagonal
  // part is small; a sweep without a rotation ends it sooner.
  static constexpr int64_t kMaxSweeps = 30;
};

// One round's pairing over a batch of n x n matrices.
struct Pairing {
  const MatrixFrame* f = nullptr;
  Computation* add = nullptr;   // over the element type
  ElementType t{};
  Instruction* first = nullptr;   // pred [..., n]: i < p(i)
  Instruction* paired = nullptr;  // pred [..., n]: p(i) is an index
  Instruction* at_partner = nullptr;  // pred [..., n, n]: column j is row i's partner
  Instruction* gather_rows = nullptr;  // t [..., n, n]: P, P y has row p(i) at row i
  Instruction* gather_cols = nullptr;  // t [..., n, n]: P^T, y P^T has column p(i) at column i
  // v[p(i)] for v [..., n] (0 where unpaired).
  Instruction* Partner(ArrayOps& o, Instruction* v) const;
  // y with column i c_i y_i + s_i y_p(i) (c, s over [..., n] of y's type),
  // and the same for rows.
  Instruction* RotateColumns(ArrayOps& o, Instruction* y, Instruction* c, Instruction* s) const;
  Instruction* RotateRows(ArrayOps& o, Instruction* y, Instruction* c, Instruction* s) const;
};

// Round `step` mod rounds of `r`, for matrices of frame `f` and type `t`.
Pairing RoundPairing(ArrayOps& o, Instruction* step, const JacobiRounds& r, const MatrixFrame& f, ElementType t, Computation* add);

// J = [[c, s], [-s, c]] with J^T [[app, apq], [apq, aqq]] J diagonal (Golub
// and Van Loan's symmetric Schur decomposition, the smaller angle); the
// identity where apq is zero. Elementwise over the shapes given.
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
  Instruction* factor = nullptr;     // complex
  Instruction* magnitude = nullptr;  // real
};
Phase PhaseOf(ArrayOps& o, Instruction* apq);

// The per-index coefficients of a pair's rotation: c on both, -s on the
// first index (p), +s on its partner (q); the identity where unpaired.
std::pair<Instruction*, Instruction*> RotationCoefficients(ArrayOps& o, const Pairing& p, const PlaneRotation& r);

// Whether any pair needs a rotation: |apq|^2 > eps^2 |app| |aqq| anywhere
// (over every dim), eps the type's epsilon.
Instruction* AnySignificant(ArrayOps& o, const Pairing& p, Instruction* app, Instruction* aqq, Instruction* apq_magnitude,
                            const ComputationBuilders& b);

// The loop's state past the step and the arrays: a pred "quiet so far this
// sweep" and a pred "done"; `significant` from AnySignificant.
std::pair<Instruction*, Instruction*> SweepProgress(ArrayOps& o, Instruction* step, const JacobiRounds& r, Instruction* quiet,
                                                    Instruction* significant);

// A loop condition over a state whose element 0 is the step and element
// `done_index` the done flag: step < max_trips and not done.
Computation* JacobiCondition(const ComputationBuilders& b, const Shape& state, int64_t done_index, int64_t max_trips);

// Columns of `matrix` [..., r, n] put in the order of `values` [..., n]
// (ascending or descending, stable): the sorted values and the matrix.
std::pair<Instruction*, Instruction*> SortColumnsByValues(ArrayOps& o, Instruction* values, Instruction* matrix, bool descending,
                                                          const ComputationBuilders& b);

}  // namespace vkxla
