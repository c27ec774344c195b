#include "solvers/cfd/crank_nicolson.hpp"

#include <cmath>

#include "mesh/reductions.hpp"

namespace meridian::cfd {

namespace {

// Sum over the faces the momentum equation sets of a . b, over all ranks.
double dot(const mesh::Field& a, const mesh::Field& b, const MacGrid g, MPI_Comm comm) {
  double local = 0;
  Kokkos::parallel_reduce(
      "mac::cn_dot", owned(g),
      KOKKOS_LAMBDA(const int k, const int j, const int i, double& sum) {
        const int x[3] = {i, j, k};
        for (int c = 0; c < g.dims; ++c)
          if (!g.fixed(c, x)) sum += at(a, c, x) * at(b, c, x);
      },
      local);
  return mesh::global_sum(local, comm);
}

// q = (I - alpha L) p; p's halos filled.
void helmholtz(const mesh::Field& p, const mesh::Field& q, const MacGrid g, double alpha) {
  Kokkos::parallel_for(
      "mac::cn_apply", owned(g), KOKKOS_LAMBDA(const int k, const int j, const int i) {
        const int x[3] = {i, j, k};
        for (int c = 0; c < g.dims; ++c)
          q(c, k, j, i) = g.fixed(c, x) ? 0.0 : at(p, c, x) - alpha * laplacian(p, c, x, g);
      });
}

// y = a x + b y on the owned faces.
void axpby(double a, const mesh::Field& x, double b, const mesh::Field& y, const MacGrid g) {
  Kokkos::parallel_for(
      "mac::cn_axpby", owned(g), KOKKOS_LAMBDA(const int k, const int j, const int i) {
        for (int c = 0; c < g.dims; ++c) y(c, k, j, i) = a * x(c, k, j, i) + b * y(c, k, j, i);
      });
}

}  // namespace

CrankNicolson::CrankNicolson(const mesh::Decomposition& decomp, MacBoundaries& boundaries)
    : decomp_(decomp), boundaries_(boundaries), x_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_x")),
      r_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_r")),
      p_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_p")),
      q_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_q")) {}

sparse::SolveResult CrankNicolson::solve(const mesh::Field& increment, double alpha, const sparse::SolverSettings& settings) {
  const MacGrid& g = boundaries_.grid();
  const MPI_Comm comm = decomp_.comm();
  Kokkos::deep_copy(x_, 0.0);
  Kokkos::deep_copy(r_, increment);
  Kokkos::deep_copy(p_, increment);
  const double norm_b = std::sqrt(dot(increment, increment, g, comm));
  sparse::SolveResult result;
  if (norm_b == 0) {
    result.converged = true;
    return result;
  }
  double rr = norm_b * norm_b;
  while (result.iterations < settings.max_iterations) {
    boundaries_.fill(p_, Fill::homogeneous, 0);
    helmholtz(p_, q_, g, alpha);
    const double step = rr / dot(p_, q_, g, comm);
    axpby(step, p_, 1.0, x_, g);
    axpby(-step, q_, 1.0, r_, g);
    const double rr_next = dot(r_, r_, g, comm);
    ++result.iterations;
    result.residual = std::sqrt(rr_next) / norm_b;
    if (result.residual <= settings.tolerance) break;
    axpby(1.0, r_, rr_next / rr, p_, g);
    rr = rr_next;
  }
  result.converged = result.residual <= settings.tolerance;
  Kokkos::deep_copy(increment, x_);
  return result;
}

}  // namespace meridian::cfd
