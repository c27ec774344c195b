#include "solvers/cfd/crank_nicolson.hpp"

#include <cmath>

#include "mesh/reductions.hpp"

namespace meridian::cfd {

namespace {

// The CG iteration fused into three sweeps, each one pass over the faces the momentum equation sets.

// q = (I - alpha L) p with p's halos filled, on the free faces; returns p . q summed over the ranks.
double apply(const mesh::Field& p, const mesh::Field& q, const mesh::Field& free, const MacGrid g, double alpha,
             MPI_Comm comm) {
  double local = 0;
  parallel::reduce(
      "mac::cn_apply", owned(g),
      KOKKOS_LAMBDA(const int k, const int j, const int i, double& sum) {
        const int x[3] = {i, j, k};
        for (int c = 0; c < g.dims; ++c) {
          const double value = g.fixed(c, x) ? 0.0 : free(c, k, j, i) * (at(p, c, x) - alpha * laplacian(p, c, x, g));
          q(c, k, j, i) = value;
          sum += value * at(p, c, x);
        }
      },
      local);
  return mesh::global_sum(local, comm);
}

// x += step p, r -= step q (r zero where a face is not free); returns r . r summed over the ranks.
double update(const mesh::Field& x, const mesh::Field& r, const mesh::Field& p, const mesh::Field& q,
              const mesh::Field& free, double step, const MacGrid g, MPI_Comm comm) {
  double local = 0;
  parallel::reduce(
      "mac::cn_update", owned(g),
      KOKKOS_LAMBDA(const int k, const int j, const int i, double& sum) {
        const int at_face[3] = {i, j, k};
        for (int c = 0; c < g.dims; ++c) {
          x(c, k, j, i) += step * p(c, k, j, i);
          const double residual = g.fixed(c, at_face) ? 0.0 : free(c, k, j, i) * (r(c, k, j, i) - step * q(c, k, j, i));
          r(c, k, j, i) = residual;
          sum += residual * residual;
        }
      },
      local);
  return mesh::global_sum(local, comm);
}

// p = r + beta p.
void next_direction(const mesh::Field& r, const mesh::Field& p, double beta, const MacGrid g) {
  parallel::for_each(
      "mac::cn_direction", owned(g), KOKKOS_LAMBDA(const int k, const int j, const int i) {
        for (int c = 0; c < g.dims; ++c) p(c, k, j, i) = r(c, k, j, i) + beta * p(c, k, j, i);
      });
}

}  // namespace

CrankNicolson::CrankNicolson(const mesh::Decomposition& decomp, MacBoundaries& boundaries)
    : decomp_(decomp), boundaries_(boundaries), x_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_x")),
      r_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_r")),
      p_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_p")),
      q_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_q")),
      free_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_free")) {
  Kokkos::deep_copy(free_, 1.0);
}

// CG from x = b, which alpha L is a small correction to: r = b - H b.
sparse::SolveResult CrankNicolson::solve(const mesh::Field& increment, double alpha, const sparse::SolverSettings& settings) {
  const MacGrid& g = boundaries_.grid();
  const MPI_Comm comm = decomp_.comm();
  Kokkos::deep_copy(x_, 0.0);
  Kokkos::deep_copy(r_, increment);
  Kokkos::deep_copy(p_, increment);
  sparse::SolveResult result;
  const double norm_b = std::sqrt(update(x_, r_, p_, p_, free_, 0.0, g, comm));
  if (norm_b == 0) {
    result.converged = true;
    return result;
  }
  boundaries_.fill(p_, Fill::homogeneous, 0);
  apply(p_, q_, free_, g, alpha, comm);
  double rr = update(x_, r_, p_, q_, free_, 1.0, g, comm);  // x = b, r = b - H b
  result.residual = std::sqrt(rr) / norm_b;
  Kokkos::deep_copy(p_, r_);
  while (result.residual > settings.tolerance && result.iterations < settings.max_iterations) {
    boundaries_.fill(p_, Fill::homogeneous, 0);
    const double step = rr / apply(p_, q_, free_, g, alpha, comm);
    const double rr_next = update(x_, r_, p_, q_, free_, step, g, comm);
    ++result.iterations;
    result.residual = std::sqrt(rr_next) / norm_b;
    next_direction(r_, p_, rr_next / rr, g);
    rr = rr_next;
  }
  result.converged = result.residual <= settings.tolerance;
  Kokkos::deep_copy(increment, x_);
  return result;
}

}  // namespace meridian::cfd
