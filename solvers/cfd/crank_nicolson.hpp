#pragma once
// Crank-Nicolson viscosity for the MAC projection solver, in increment form: with the explicit half of the
// viscous term in the predictor's right-hand side b, the increment d = u* - u^n solves
//   (I - alpha L) d = b,   alpha = nu dt / 2,
// on every face the momentum equation sets, with the boundary conditions made homogeneous (the wall and
// inflow values do not change within a step). The operator is symmetric positive definite and well
// conditioned (its condition number is below 1 + 4 alpha sum 1/h^2), so matrix-free CG converges in tens of
// iterations without a preconditioner; work fields are made once. CG in Chronopoulos and Gear's form: one
// reduction, one boundary fill and two launches an iteration.
#include "mesh/decomposition.hpp"
#include "solvers/cfd/mac_boundaries.hpp"
#include "solvers/common/sparse/conjugate_gradient.hpp"

namespace meridian::cfd {

class CrankNicolson {
 public:
  CrankNicolson(const mesh::Decomposition& decomp, MacBoundaries& boundaries);
  // Overwrites `increment` (b on entry, zero on the faces the boundaries set) with d. Faces marked 0 in
  // free_faces() keep the value `increment` brings (an immersed body's forced faces: Dirichlet values the
  // free faces next to them see, as the no-slip wall in the implicit viscous step).
  sparse::SolveResult solve(const mesh::Field& increment, double alpha, const sparse::SolverSettings& settings);
  // 1 on the faces the solve determines, 0 where it keeps the given value; 1 everywhere until marked.
  const mesh::Field& free_faces() const { return free_; }

 private:
  template <int D>
  sparse::SolveResult solve_in(const mesh::Field& increment, double alpha, const sparse::SolverSettings& settings);

  const mesh::Decomposition& decomp_;
  MacBoundaries& boundaries_;
  mesh::Field x_, r_, p_, w_, s_, free_;  // w = H r and s = H p (Chronopoulos-Gear CG)
};

}  // namespace meridian::cfd
