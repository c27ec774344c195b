// The atmosphere solver against the exact solution of the linearised compressible equations: Baldauf &
// Brdar's (2013) gravity wave in a 300 km x 10 km channel of an isothermal 250 K atmosphere moving at
// 20 m/s, at 1800 s (linear_gravity_wave.hpp). The Boussinesq solution is not what a compressible model
// converges to; this one is.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <memory>

#include "deck_for_tests.hpp"
#include "linear_gravity_wave.hpp"
#include "mesh/reductions.hpp"
#include "solvers/atmosphere/atmosphere_solver.hpp"
#include "solvers/common/gauss_rule.hpp"

using namespace meridian;

namespace {

struct Errors {
  double momentum_z, rho_theta;  // root-mean-square over the cells, each over its field's largest value
};

// The cell averages of rho w and (rho theta)' against the exact solution's, by 3 x 3 Gauss points (the
// solver's cells hold averages: point values would leave a second-order difference of their own). To
// first order in the perturbation rho w = rho0 w and (rho theta)' = (rho theta)0 p' / (gamma p0).
Errors errors_against_exact(const atmosphere::AtmosphereSolver& s, const meridian::testing::LinearGravityWave& exact) {
  using solvers::GaussRule;
  using namespace atmosphere;
  const auto& d = s.decomposition();
  const auto q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.fields());
  const double dx = s.spacing(0), dz = s.spacing(1);
  const int h = d.halo(0);
  std::vector<double> w_x(d.local_cells(0) * GaussRule::points), p_x(w_x.size());
  for (long i = 0; i < d.local_cells(0); ++i)
    for (int a = 0; a < GaussRule::points; ++a) {
      const double x = (d.offset(0) + i + 0.5 + GaussRule::node(a)) * dx;
      w_x[i * GaussRule::points + a] = exact.w_along_x(x);
      p_x[i * GaussRule::points + a] = exact.p_along_x(x);
    }
  double sums[2] = {0, 0}, largest[2] = {0, 0};
  for (long k = 0; k < d.local_cells(1); ++k) {
    double w_z[GaussRule::points], p_z[GaussRule::points];
    for (int c = 0; c < GaussRule::points; ++c) {
      const double z = (d.offset(1) + k + 0.5 + GaussRule::node(c)) * dz;
      const double pressure = exact.background_pressure(z);
      w_z[c] = exact.background_density(z) * exact.w_along_z(z);
      p_z[c] = std::pow(pressure / c0, 1 / gamma_d) / (gamma_d * pressure) * exact.p_along_z(z);
    }
    for (long i = 0; i < d.local_cells(0); ++i) {
      double expected[2] = {0, 0};
      for (int a = 0; a < GaussRule::points; ++a)
        for (int c = 0; c < GaussRule::points; ++c) {
          const double weight = GaussRule::weight(a) * GaussRule::weight(c);
          expected[0] += weight * w_x[i * GaussRule::points + a] * w_z[c];
          expected[1] += weight * p_x[i * GaussRule::points + a] * p_z[c];
        }
      const double computed[2] = {q(momentum_z, 0, h + k, h + i), q(rho_theta, 0, h + k, h + i)};
      for (int f = 0; f < 2; ++f) {
        sums[f] += (computed[f] - expected[f]) * (computed[f] - expected[f]);
        largest[f] = std::max(largest[f], std::abs(expected[f]));
      }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, d.comm());
  MPI_Allreduce(MPI_IN_PLACE, largest, 2, MPI_DOUBLE, MPI_MAX, d.comm());
  const double cells = static_cast<double>(d.global_cell_count());
  return {std::sqrt(sums[0] / cells) / largest[0], std::sqrt(sums[1] / cells) / largest[1]};
}

// One resolution: dx = dz = 300 km / columns, the step `dt_per_km` x dx, to 1800 s.
Errors run_at(long columns, double dt_per_km, const std::string& splitting) {
  const double end = 1800, dx = 3.0e5 / static_cast<double>(columns), dt = dt_per_km * dx / 1000;
  auto built = atmosphere::build(
      meridian::testing::deck_of("atmosphere",
                       {"atmosphere.case=linear_gravity_wave", "atmosphere.background=isothermal",
                        "atmosphere.surface_theta=250.0", "atmosphere.width=300000.0", "atmosphere.height=10000.0",
                        "atmosphere.wind=20.0", "atmosphere.wall_closure=one_sided", "atmosphere.splitting=" + splitting,
                        "atmosphere.dt=" + std::to_string(dt), "mesh.nx=" + std::to_string(columns),
                        "mesh.nz=" + std::to_string(columns / 30)}),
      MPI_COMM_WORLD);
  auto& s = dynamic_cast<atmosphere::AtmosphereSolver&>(*built);
  const long steps = std::lround(end / dt);
  for (long n = 0; n < steps; ++n) s.step(n * dt, dt);
  return errors_against_exact(s, meridian::testing::LinearGravityWave({}, end));
}

// The observed orders of rho w and of (rho theta)' from 1 km to 500 m (errors at 2 km, 1 km and 500 m
// with dt proportional to dx; the 2 km grid, five cells deep, is not yet in the asymptotic range).
std::array<double, 2> orders_of(const std::string& splitting, double dt_per_km) {
  Errors e[3];
  const long columns[3] = {150, 300, 600};
  for (int g = 0; g < 3; ++g) e[g] = run_at(columns[g], dt_per_km, splitting);
  const std::array<double, 2> orders{std::log2(e[1].momentum_z / e[2].momentum_z),
                                     std::log2(e[1].rho_theta / e[2].rho_theta)};
  std::cout << "  linear gravity wave, " << splitting << ": relative rms errors of rho w " << e[0].momentum_z << ", "
            << e[1].momentum_z << ", " << e[2].momentum_z << " (order " << orders[0] << "); of (rho theta)' "
            << e[0].rho_theta << ", " << e[1].rho_theta << ", " << e[2].rho_theta << " (order " << orders[1] << ")\n";
  return orders;
}

}  // namespace

// Both with the one-sided wall closure (wall_closure = "one_sided"); miniWeather's halo copies across the
// ground and lid leave a first-order error there (unsplit, halo closure, 1 km to 250 m: rho w orders 2.30
// and 2.15; without hyperviscosity rho w converges at first order). Dimensional splitting, dt = 3 s per km
// (acoustic Courant number 1.01): measured rho w 0.373, 0.0973, 0.0189 (order 2.37), (rho theta)' 0.186,
// 0.155, 0.0429 (order 1.85); on to 250 m, 0.00393 and 0.00966 (orders 2.27 and 2.15).
TEST(AtmosphereLinearWave, SplitSchemeConvergesAtOrder1_8To500m) {
  for (double order : orders_of("alternating", 3.0)) EXPECT_GT(order, 1.8);
}

// Unsplit, dt = 1.8 s per km (Courant number 1.18 summed over the directions): measured rho w 0.296,
// 0.0588, 0.00812 (order 2.86), (rho theta)' 0.202, 0.110, 0.0146 (order 2.91). On to 250 m the order of
// (rho theta)' is 3.04 and that of rho w 2.35: the closure's second-order error next to the ground and
// the lid begins to show in the vertical momentum there (third-order closures were unstable).
TEST(AtmosphereLinearWave, UnsplitSchemeConvergesAtOrder2_7To500m) {
  for (double order : orders_of("unsplit", 1.8)) EXPECT_GT(order, 2.7);
}
