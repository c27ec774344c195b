#pragma once
// A geometric multigrid V-cycle for the cell-centred PoissonOperator, used as the preconditioner of CG.
// Levels coarsen by 2 on every axis while each rank's extents are even (and at least 2), keeping the
// process grid; each level's operator is rediscretised on its spacing with the same face conditions.
// Transfers: the average of the 2^d children (restriction) and its transpose times 2^d, the constant
// (prolongation); the smoother is damped Jacobi, the same sweeps before and after, so the V-cycle is a
// symmetric operator and CG stays CG. The coarsest level is gathered onto every rank and solved there,
// on the host, by a banded Cholesky factor made once (banded_cholesky.hpp): exactly, so the cycle is a fixed
// linear operator, for one MPI_Allgatherv and one copy each way. For a GPU each sweep and the residual are one
// kernel with the product inside (PoissonOperator::load), prolongation and the first sweep write the next sweep's
// operand: a level costs 9 kernels and 4 halo exchanges a cycle (15 and 4 with separate products), and none of
// the exchanges where a rank holds the whole grid.
#include <memory>
#include <vector>

#include "solvers/common/sparse/poisson_operator.hpp"

namespace meridian::sparse {

class Multigrid {
 public:
  // The coarsest level may hold at most this many cells in all; a grid whose coarsening stops above
  // it (too few factors of 2 per rank) is refused with a DecompositionError naming the extents.
  static constexpr long max_coarsest_cells = 4096;
  static constexpr int sweeps = 2;  // Jacobi sweeps before and after the coarse correction

  Multigrid(PoissonOperator& finest, const mesh::Decomposition& decomp, const PoissonProblem& problem);
  // The constructor's check of the grid, without building anything: throws the same DecompositionError
  // for a grid whose coarsening stops above max_coarsest_cells (collective).
  static void check(const mesh::Decomposition& decomp);
  ~Multigrid();
  // z = M^-1 r, one V-cycle from z = 0.
  void apply(const Vector& r, const Vector& z);
  int levels() const { return static_cast<int>(levels_.size()); }

 private:
  struct Level;
  struct Gathered;  // the coarsest level, whole on this rank
  void cycle(std::size_t level, const Vector& b, const Vector& x);
  void solve_coarsest(const Vector& b, const Vector& x);
  static std::unique_ptr<Gathered> gather_plan(const mesh::Decomposition& coarsest, const PoissonProblem& problem,
                                               bool singular);

  bool three_d_;
  std::vector<std::unique_ptr<Level>> levels_;
  std::unique_ptr<Gathered> coarsest_;
};

}  // namespace meridian::sparse
