#pragma once
// Preconditioned conjugate gradients for the symmetric positive (semi-)definite PoissonOperator, with
// the Jacobi preconditioner or a multigrid V-cycle (multigrid.hpp), in Chronopoulos and Gear's single-reduction
// form. Work vectors are made once; a solve allocates nothing. Dot products are
// summed on each rank by a Kokkos reduction and then over the ranks, so the iterates agree across rank
// counts to round-off, not bitwise.
#include <memory>

#include "solvers/common/sparse/poisson_operator.hpp"

namespace meridian::sparse {

class Multigrid;

enum class Preconditioner { jacobi, multigrid };

struct SolverSettings {
  double tolerance = 1e-10;  // on |b - A x| / |b| (2-norms over all ranks)
  int max_iterations = 10000;
};

struct SolveResult {
  int iterations = 0;
  double residual = 0;  // relative, as the tolerance
  bool converged = false;
};

class ConjugateGradient {
 public:
  // Jacobi-preconditioned.
  explicit ConjugateGradient(PoissonOperator& op);
  // The multigrid levels are built on `decomp` and `problem`, those of `op` (throws DecompositionError
  // for a grid the multigrid cannot coarsen far enough).
  ConjugateGradient(PoissonOperator& op, const mesh::Decomposition& decomp, const PoissonProblem& problem,
                    Preconditioner preconditioner);
  ~ConjugateGradient();
  // Solves A x = b starting from the x given. A singular operator's null space (the constants) is
  // removed, not pinned: b's mean is taken out of the residual, and x is returned with zero mean.
  SolveResult solve(const Vector& b, const Vector& x, const SolverSettings& settings);

 private:
  PoissonOperator& op_;
  Vector r_, u_, w_, p_, s_;  // u = M^-1 r, w = A u, s = A p (Chronopoulos-Gear)
  std::unique_ptr<Multigrid> multigrid_;  // none: Jacobi
};

}  // namespace meridian::sparse
