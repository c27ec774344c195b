#include "solvers/cfd/crank_nicolson.hpp"

#include <cmath>
#include <string>

#include "mesh/reductions.hpp"
#include "parallel/copies.hpp"
#include "parallel/fill.hpp"
#include "parallel/sums.hpp"

namespace meridian::cfd {

namespace {

// Chronopoulos and Gear's CG (1989, J. Comput. Appl. Math. 25): the same iterates as CG in exact arithmetic,
// with both dot products of an iteration in one reduction, so an iteration is one boundary fill and two
// launches, one of which the host waits for (plain CG: three launches, two waits; gpu-review.md C5).

// The kernels take the dimension D as a template parameter, so that their component loops unroll and every
// stencil's axis is a constant, and each is a row functor (for_each_row's kind), whose host loop vectorises:
// advance was 5.3x faster so on Schaefer-Turek 2D-2, apply 2x.

// A reduction whose row functor (row_of(k, j)) sets its field at a cell (row(i)) and adds the cells' terms
// (row.add_sums): on the host a row at a time, the field by a vectorised loop, then the row's terms in the
// cell-by-cell order (GCC vectorises no floating-point sum without leave to reorder it), so the sums and every
// iterate keep their bits; on a GPU cell by cell.
template <class RowOf, class Reducer>
void reduce_by_rows(const std::string& label, const MacGrid g, const RowOf& row_of, const Reducer& reducer) {
  using Value = typename Reducer::value_type;
  if constexpr (parallel::device_memory_is_host) {
    const int first = g.lo[0], last = g.lo[0] + g.n[0];
    Kokkos::parallel_reduce(
        label, parallel::FlatPolicy(0, static_cast<long>(g.n[2]) * g.n[1]),
        [=](const long n, Value& sums) {
          const auto row = row_of(g.lo[2] + static_cast<int>(n / g.n[1]), g.lo[1] + static_cast<int>(n % g.n[1]));
          MERIDIAN_INDEPENDENT_ITERATIONS
          for (int i = first; i < last; ++i) row(i);
          row.add_sums(first, last, sums);
        },
        reducer);
  } else {
    parallel::reduce(
        label, owned(g),
        KOKKOS_LAMBDA(const int k, const int j, const int i, Value& sums) {
          const auto row = row_of(k, j);
          row(i);
          row.add_sums(i, i + 1, sums);
        },
        reducer);
  }
}

// r = b - H b with x = b on one row's free faces (0 on the others; pointers at (k, j, 0)), and its terms of b . b.
template <int D>
struct StartRow {
  const double *b, *x, *free;
  double* r;
  FaceStrides f;
  MacGrid g;
  int j, k;
  double alpha;
  KOKKOS_INLINE_FUNCTION double rhs(int c, long at, const int (&face)[3]) const {
    return g.fixed(c, face) ? 0.0 : free[at] * b[at];
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const int face[3] = {i, j, k};
    for (int c = 0; c < D; ++c) {
      const long at = c * f.component + i;
      const double h_x = g.fixed(c, face) ? 0.0 : free[at] * (x[at] - alpha * laplacian<D>(x + at, f, g));
      r[at] = rhs(c, at, face) - h_x;
    }
  }
  KOKKOS_INLINE_FUNCTION void add_sums(int first, int last, double& sum) const {
    for (int i = first; i < last; ++i) {
      const int face[3] = {i, j, k};
      for (int c = 0; c < D; ++c) {
        const double value = rhs(c, c * f.component + i, face);
        sum += value * value;
      }
    }
  }
};

// r = b - H b with x = b, on the free faces (0 on the others); returns b . b over the free faces, summed over
// the ranks. x has its halos filled.
template <int D>
double start(const mesh::Field& b, const mesh::Field& x, const mesh::Field& r, const mesh::Field& free, const MacGrid g,
             double alpha, MPI_Comm comm) {
  const FaceStrides f = face_strides(x);
  const auto row_of = [=] KOKKOS_FUNCTION(const int k, const int j) {
    const long start = f.row(k, j);
    return StartRow<D>{b.data() + start, x.data() + start, free.data() + start, r.data() + start, f, g, j, k, alpha};
  };
  double local = 0;
  reduce_by_rows("mac::cn_start", g, row_of, Kokkos::Sum<double>(local));
  return mesh::global_sum(local, comm);
}

// w = H r on one row's free faces (pointers at (k, j, 0)), and its terms of r . r and r . w.
template <int D>
struct ApplyRow {
  const double *r, *free;
  double* w;
  FaceStrides f;
  MacGrid g;
  int j, k;
  double alpha;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const int x[3] = {i, j, k};
    for (int c = 0; c < D; ++c) {
      const long at = c * f.component + i;
      w[at] = g.fixed(c, x) ? 0.0 : free[at] * (r[at] - alpha * laplacian<D>(r + at, f, g));
    }
  }
  KOKKOS_INLINE_FUNCTION void add_sums(int first, int last, parallel::Sums<2>& sums) const {
    for (int i = first; i < last; ++i)
      for (int c = 0; c < D; ++c) {
        const long at = c * f.component + i;
        sums.value[0] += r[at] * r[at];
        sums.value[1] += r[at] * w[at];
      }
  }
};

// w = H r with r's halos filled, on the free faces; returns {r . r, r . w} summed over the ranks.
template <int D>
parallel::Sums<2> apply(const mesh::Field& r, const mesh::Field& w, const mesh::Field& free, const MacGrid g,
                        double alpha, MPI_Comm comm) {
  const FaceStrides f = face_strides(r);
  const auto row_of = [=] KOKKOS_FUNCTION(const int k, const int j) {
    const long start = f.row(k, j);
    return ApplyRow<D>{r.data() + start, free.data() + start, w.data() + start, f, g, j, k, alpha};
  };
  parallel::Sums<2> local;
  reduce_by_rows("mac::cn_apply", g, row_of, parallel::SumsReducer<2>(local));
  mesh::global_sums(local.value, 2, comm);
  return local;
}

// p = r + beta p, s = w + beta s (s = H p), x += step p, r -= step s; a row's pointers at (k, j, 0).
template <int D>
struct AdvanceRow {
  double *x, *r, *p, *w, *s;
  long component;
  double step, beta;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    for (int c = 0; c < D; ++c) {
      const long at = c * component + i;
      const double direction = r[at] + beta * p[at];
      const double image = w[at] + beta * s[at];
      p[at] = direction;
      s[at] = image;
      x[at] += step * direction;
      r[at] -= step * image;
    }
  }
};

template <int D>
void advance(const mesh::Field& x, const mesh::Field& r, const mesh::Field& p, const mesh::Field& w, const mesh::Field& s,
             double step, double beta, const MacGrid g) {
  const FaceStrides f = face_strides(x);
  for_each_row("mac::cn_advance", g, KOKKOS_LAMBDA(const int k, const int j) {
    const long start = f.row(k, j);
    return AdvanceRow<D>{x.data() + start, r.data() + start, p.data() + start, w.data() + start, s.data() + start,
                         f.component, step, beta};
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

sparse::SolveResult CrankNicolson::solve(const mesh::Field& increment, double alpha, const sparse::SolverSettings& settings) {
  if (decomp_.dimensions() == 3) return solve_in<3>(increment, alpha, settings);
  return solve_in<2>(increment, alpha, settings);
}

// CG from x = b, which alpha L is a small correction to: r = b - H b.
template <int D>
sparse::SolveResult CrankNicolson::solve_in(const mesh::Field& increment, double alpha,
                                            const sparse::SolverSettings& settings) {
  const MacGrid& g = boundaries_.grid();
  const MPI_Comm comm = decomp_.comm();
  sparse::SolveResult result;
  parallel::copy<parallel::Copy::device_to_device>(x_, increment);
  // H's Laplacian reads the first ghost layer alone.
  boundaries_.fill(x_, Fill::homogeneous, 0, Layers::first);
  const double norm_b = std::sqrt(start<D>(increment, x_, r_, free_, g, alpha, comm));
  if (norm_b == 0) {
    result.converged = true;
    return result;
  }
  boundaries_.fill(r_, Fill::homogeneous, 0, Layers::first);
  parallel::Sums<2> dots = apply<D>(r_, w_, free_, g, alpha, comm);
  double rr = dots.value[0], step = rr / dots.value[1], beta = 0;
  result.residual = std::sqrt(rr) / norm_b;
  while (result.residual > settings.tolerance && result.iterations < settings.max_iterations) {
    advance<D>(x_, r_, p_, w_, s_, step, beta, g);
    ++result.iterations;
    boundaries_.fill(r_, Fill::homogeneous, 0, Layers::first);
    dots = apply<D>(r_, w_, free_, g, alpha, comm);
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
