#include "solvers/cfd/crank_nicolson.hpp"

#include <cmath>

#include "mesh/reductions.hpp"
#include "parallel/copies.hpp"
#include "parallel/fill.hpp"
#include "parallel/sums.hpp"

namespace meridian::cfd {

namespace {

// Chronopoulos and Gear's CG (1989, J. Comput. Appl. Math. 25): the same iterates as CG in exact arithmetic,
// with both dot products of an iteration in one reduction, so an iteration is one boundary fill and two
// launches, one of which the host waits for (plain CG: three launches, two waits; gpu-review.md C5).

// r = b - H b with x = b, on the free faces (0 on the others); returns b . b over the free faces, summed over
// the ranks. x has its halos filled.
double start(const mesh::Field& b, const mesh::Field& x, const mesh::Field& r, const mesh::Field& free, const MacGrid g,
             double alpha, MPI_Comm comm) {
  double local = 0;
  parallel::reduce(
      "mac::cn_start", owned(g),
      KOKKOS_LAMBDA(const int k, const int j, const int i, double& sum) {
        const int at_face[3] = {i, j, k};
        for (int c = 0; c < g.dims; ++c) {
          const double rhs = g.fixed(c, at_face) ? 0.0 : free(c, k, j, i) * b(c, k, j, i);
          const double h_x = g.fixed(c, at_face) ? 0.0 : free(c, k, j, i) * (at(x, c, at_face) - alpha * laplacian(x, c, at_face, g));
          r(c, k, j, i) = rhs - h_x;
          sum += rhs * rhs;
        }
      },
      local);
  return mesh::global_sum(local, comm);
}

// w = H r with r's halos filled, on the free faces; returns {r . r, r . w} summed over the ranks.
parallel::Sums<2> apply(const mesh::Field& r, const mesh::Field& w, const mesh::Field& free, const MacGrid g,
                        double alpha, MPI_Comm comm) {
  parallel::Sums<2> local;
  parallel::reduce(
      "mac::cn_apply", owned(g),
      KOKKOS_LAMBDA(const int k, const int j, const int i, parallel::Sums<2>& sums) {
        const int x[3] = {i, j, k};
        for (int c = 0; c < g.dims; ++c) {
          const double value = g.fixed(c, x) ? 0.0 : free(c, k, j, i) * (at(r, c, x) - alpha * laplacian(r, c, x, g));
          w(c, k, j, i) = value;
          sums.value[0] += at(r, c, x) * at(r, c, x);
          sums.value[1] += at(r, c, x) * value;
        }
      },
      parallel::SumsReducer<2>(local));
  mesh::global_sums(local.value, 2, comm);
  return local;
}

// p = r + beta p, s = w + beta s (s = H p), x += step p, r -= step s.
void advance(const mesh::Field& x, const mesh::Field& r, const mesh::Field& p, const mesh::Field& w, const mesh::Field& s,
             double step, double beta, const MacGrid g) {
  parallel::for_each(
      "mac::cn_advance", owned(g), KOKKOS_LAMBDA(const int k, const int j, const int i) {
        for (int c = 0; c < g.dims; ++c) {
          const double direction = r(c, k, j, i) + beta * p(c, k, j, i);
          const double image = w(c, k, j, i) + beta * s(c, k, j, i);
          p(c, k, j, i) = direction;
          s(c, k, j, i) = image;
          x(c, k, j, i) += step * direction;
          r(c, k, j, i) -= step * image;
        }
      });
}

}  // namespace

CrankNicolson::CrankNicolson(const mesh::Decomposition& decomp, MacBoundaries& boundaries)
    : decomp_(decomp), boundaries_(boundaries), x_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_x")),
      r_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_r")),
      p_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_p")),
      w_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_w")),
      s_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_s")),
      free_(mesh::make_field(decomp, decomp.dimensions(), "mac::cn_free")) {
  parallel::fill(free_, 1.0);
}

// CG from x = b, which alpha L is a small correction to: r = b - H b.
sparse::SolveResult CrankNicolson::solve(const mesh::Field& increment, double alpha, const sparse::SolverSettings& settings) {
  const MacGrid& g = boundaries_.grid();
  const MPI_Comm comm = decomp_.comm();
  sparse::SolveResult result;
  parallel::copy<parallel::Copy::device_to_device>(x_, increment);
  boundaries_.fill(x_, Fill::homogeneous, 0);
  const double norm_b = std::sqrt(start(increment, x_, r_, free_, g, alpha, comm));
  if (norm_b == 0) {
    result.converged = true;
    return result;
  }
  boundaries_.fill(r_, Fill::homogeneous, 0);
  parallel::Sums<2> dots = apply(r_, w_, free_, g, alpha, comm);
  double rr = dots.value[0], step = rr / dots.value[1], beta = 0;
  result.residual = std::sqrt(rr) / norm_b;
  while (result.residual > settings.tolerance && result.iterations < settings.max_iterations) {
    advance(x_, r_, p_, w_, s_, step, beta, g);
    ++result.iterations;
    boundaries_.fill(r_, Fill::homogeneous, 0);
    dots = apply(r_, w_, free_, g, alpha, comm);
    const double rr_next = dots.value[0];
    result.residual = std::sqrt(rr_next) / norm_b;
    beta = rr_next / rr;
    step = rr_next / (dots.value[1] - beta * rr_next / step);
    rr = rr_next;
  }
  result.converged = result.residual <= settings.tolerance;
  parallel::copy<parallel::Copy::device_to_device>(increment, x_);
  return result;
}

}  // namespace meridian::cfd
