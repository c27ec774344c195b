// The advection solver's RK3 step written as plain nested C++ loops over raw arrays: the ceiling that
// bench/advection_benchmark.sh compares meridian's advection throughput against, beside the STREAM triad.
// No MPI, no halo exchange and no Kokkos runtime: the face flux is the solver's own upwind_flux
// (solvers/advection/flux_form.hpp, inline), so the arithmetic per cell is the solver's and only the loop
// structure and the framework around it differ.
//
// One step is Wicker-Skamarock RK3 on one tracer, as meridian does it away from open boundaries: three
// stages, each q_out = q^n - (dt_stage / V) * (sum over axes of the 5th-order upwind flux through the upper
// face minus that through the lower face), every face flux computed for both cells that share it (as the
// solver does), the wind's face volume fluxes read from precomputed arrays. The wind is the benchmark's: in
// 2-D the solid-body rotation of configs/advection/solid_body_rotation.toml, in 3-D a uniform u = 1 (the
// y and z fluxes are zero but still read and multiplied). Halos stay zero, as at an open boundary where
// nothing flows in.
//
// Prints on stdout:
//   reference_cell_updates_per_second <cells x steps / best time of one repetition>
//   reference_seconds_per_step <that time / steps>
//   reference_checksum <sum of the tracer after the last repetition, so the work is observable>
//
// usage: advection_reference_loop [--nx N] [--ny N] [--nz N] [--steps S] [--repetitions R]
//                                 [--start-at EPOCH_SECONDS --duration SECONDS]
//   --nx, --ny, --nz   cells per axis (default 2048 x 2048 x 1; --nz 1 is 2-D)
//   --steps S          RK3 steps per timed repetition (default 4)
//   --repetitions R    timed repetitions, the best one is reported (default 3)
//   --start-at T, --duration S
//                      as stream_triad's: count only repetitions inside a window shared by copies started at
//                      once, whose sum is then the bound for as many ranks (each copy taking its share)

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "command_line.hpp"
#include "solvers/advection/flux_form.hpp"
#include "timing_window.hpp"

namespace {

constexpr long halo = 3;
constexpr double courant = 0.8;  // the benchmark deck's advection.courant
constexpr double two_pi = 6.283185307179586;

struct Options {
  long nx = 2048, ny = 2048, nz = 1;
  int steps = 4;
  bench::Timing timing{3};
};

constexpr bench::Usage usage{"advection_reference_loop",
                             "advection_reference_loop [--nx N] [--ny N] [--nz N] [--steps S] [--repetitions R] "
                             "[--start-at EPOCH_SECONDS --duration SECONDS]"};

Options parse_options(int argc, char** argv) {
  Options o;
  bench::parse_flags(argc, argv, usage,
                     {{"--nx", [&](const char* v) { o.nx = std::atol(v); }},
                      {"--ny", [&](const char* v) { o.ny = std::atol(v); }},
                      {"--nz", [&](const char* v) { o.nz = std::atol(v); }},
                      {"--steps", [&](const char* v) { o.steps = std::atoi(v); }},
                      {"--repetitions", [&](const char* v) { o.timing.repetitions = std::atoi(v); }},
                      {"--start-at", [&](const char* v) { o.timing.start_at_epoch_seconds = std::atof(v); }},
                      {"--duration", [&](const char* v) { o.timing.duration_seconds = std::atof(v); }}});
  if (o.nx < 2 * halo || o.ny < 2 * halo || o.nz < 1 || o.steps < 1 || o.timing.repetitions < 1 ||
      o.timing.duration_seconds <= 0)
    bench::usage_error(usage, "--nx and --ny must be at least 6, --nz, --steps, --repetitions and --duration positive");
  return o;
}

// A tracer or face-flux array with halos on every axis of the grid (none in z for 2-D), x fastest.
struct Grid {
  long nx, ny, nz, hz;      // cells, and the z halo (0 in 2-D)
  long row, plane, values;  // strides and size of one array
  Grid(long x, long y, long z)
      : nx(x), ny(y), nz(z), hz(z > 1 ? halo : 0), row(x + 2 * halo), plane(row * (y + 2 * halo)),
        values(plane * (z + 2 * hz)) {}
  long index(long k, long j, long i) const { return (k + hz) * plane + (j + halo) * row + i + halo; }
  bool three_d() const { return nz > 1; }
};

struct Arrays {
  std::vector<double> q, stage1, stage2, flux_x, flux_y, flux_z;
  double scale = 0;  // dt / cell volume
};

// The wind's volume fluxes through the lower face of each cell (one halo cell past the upper end too), and
// the time step at the deck's Courant number, on the unit square or cube.
Arrays make_arrays(const Grid& g) {
  Arrays a;
  for (auto* v : {&a.q, &a.stage1, &a.stage2, &a.flux_x, &a.flux_y, &a.flux_z}) v->assign(g.values, 0.0);
  const double h = 1.0 / static_cast<double>(g.nx), area = g.three_d() ? h * h : h;
  double max_rate = 0;
  for (long k = 0; k < g.nz + (g.three_d() ? 1 : 0); ++k)
    for (long j = 0; j <= g.ny; ++j)
      for (long i = 0; i <= g.nx; ++i) {
        const double x = (i + 0.5) * h, y = (j + 0.5) * h;
        const double u = g.three_d() ? 1.0 : -two_pi * (y - 0.5), v = g.three_d() ? 0.0 : two_pi * (x - 0.5);
        a.flux_x[g.index(k, j, i)] = u * area;
        a.flux_y[g.index(k, j, i)] = v * area;
        max_rate = std::max(max_rate, (std::fabs(u) + std::fabs(v)) / h);
        if (i < g.nx && j < g.ny && k < g.nz) a.q[g.index(k, j, i)] = std::exp(-20 * ((x - 0.5) * (x - 0.5) + (y - 0.75) * (y - 0.75)));
      }
  a.scale = courant / max_rate / (area * h);
  return a;
}

// One stage: out = base - coefficient * scale * divergence of the upwind fluxes of `in`. The last stage writes
// q^n in place, each cell reading only its own old value, so no iteration depends on another: `ivdep` says
// so, as a hand-written loop would, where GCC otherwise gives up on the y and z stencils' unknown strides.
template <bool ThreeD>
void stage(const Grid& g, const Arrays& a, const double* in, const double* base, double* out, double coefficient) {
  constexpr int full = meridian::advection::OpenFaces::interior;
  using meridian::advection::upwind_flux;
  const double scale = coefficient * a.scale;
  const long row = g.row, plane = g.plane;
  const int nx = static_cast<int>(g.nx);
  for (long k = 0; k < g.nz; ++k)
    for (long j = 0; j < g.ny; ++j) {
      const long start = g.index(k, j, 0);
      const double *q = in + start, *old = base + start;
      const double *fx = a.flux_x.data() + start, *fy = a.flux_y.data() + start, *fz = a.flux_z.data() + start;
      double* next = out + start;
#pragma GCC ivdep
      for (int i = 0; i < nx; ++i) {
        double divergence = upwind_flux(q + i + 1, 1, fx[i + 1], full) - upwind_flux(q + i, 1, fx[i], full) +
                            upwind_flux(q + i + row, row, fy[i + row], full) - upwind_flux(q + i, row, fy[i], full);
        if constexpr (ThreeD)
          divergence += upwind_flux(q + i + plane, plane, fz[i + plane], full) - upwind_flux(q + i, plane, fz[i], full);
        next[i] = old[i] - scale * divergence;
      }
    }
}

template <bool ThreeD>
void rk3_step(const Grid& g, Arrays& a) {
  stage<ThreeD>(g, a, a.q.data(), a.q.data(), a.stage1.data(), 1.0 / 3.0);
  stage<ThreeD>(g, a, a.stage1.data(), a.q.data(), a.stage2.data(), 0.5);
  stage<ThreeD>(g, a, a.stage2.data(), a.q.data(), a.q.data(), 1.0);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  const Grid g(o.nx, o.ny, o.nz);
  Arrays a = make_arrays(g);
  const double seconds = bench::best_seconds(o.timing, [&] {
    for (int s = 0; s < o.steps; ++s) g.three_d() ? rk3_step<true>(g, a) : rk3_step<false>(g, a);
  });
  if (seconds == 0) {
    std::fprintf(stderr, "advection_reference_loop: no repetition finished inside the window; lengthen --duration\n");
    return 1;
  }
  double checksum = 0;
  for (double v : a.q) checksum += v;
  const double cells = static_cast<double>(o.nx * o.ny * o.nz);
  std::printf("reference_cell_updates_per_second %.4e\n", cells * o.steps / seconds);
  std::printf("reference_seconds_per_step %.6f\n", seconds / o.steps);
  std::printf("reference_checksum %.12e\n", checksum);
  return 0;
}
