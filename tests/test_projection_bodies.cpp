// The projection solver with an immersed body (issue #21), on the Schaefer & Turek channel at D/h = 8:
// - mass: every step, every cell where continuity holds (all but the bodies' source cells: those whose
//   centre is inside the body or whose faces are all forced), those cut by the surface included, keeps
//   |div u| <= dt max|r| + 1e-12 max|u| / h, r the Poisson residual; with an outflow (p held) and in a
//   periodic channel driven by a body force (no face holds p, so the fluid's net source must be zero);
// - a probe on the surface reads a bilinear pressure exactly;
// - the steady Re 20 drag does not depend on the step: one step ten times shorter (as the driver takes to
//   land on an output time), or halving dt, moves it by less than 1e-4 of itself.
// The benchmark's coefficients at finer grids: tests/integration/schaefer_turek*.sh and
// scripts/validation/schaefer_turek.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "mesh/reductions.hpp"
#include "solvers/cfd/mac_projection.hpp"

using namespace meridian;

namespace {

constexpr int resolution = 8;  // D / h along x

// The 2.2 x 0.41 channel with a cylinder of diameter 0.1 at (0.2, 0.2), Crank-Nicolson viscosity nu = 1e-3.
mesh::GridSpec channel_grid(mesh::Boundary x) {
  mesh::GridSpec g;
  g.dimensions = 2;
  g.cells = {22 * resolution, 4 * resolution, 1};
  g.boundary = {x, mesh::Boundary::open, mesh::Boundary::periodic};
  g.halo_width = cfd::MacProjection::halo_width;
  return g;
}

cfd::MacSettings channel_settings() {
  cfd::MacSettings s;
  s.length = {2.2, 0.41, 1};
  s.viscosity = 1e-3;
  s.viscous = cfd::ViscousScheme::crank_nicolson;
  s.poisson.tolerance = 1e-8;
  s.boundaries.face[1] = {cfd::FaceKind::wall, cfd::FaceKind::wall};
  cfd::BodySpec cylinder;
  cylinder.centre = {0.2, 0.2, 0};
  cylinder.size = 0.1;
  s.bodies = {cylinder};
  return s;
}

// Schaefer & Turek's inflow: the parabola with maximum u_max, ramped over the first time unit.
cfd::MacSettings inflow_settings(double u_max, cfd::OutflowKind outflow) {
  cfd::MacSettings s = channel_settings();
  s.boundaries.face[0] = {cfd::FaceKind::inflow, cfd::FaceKind::outflow};
  s.boundaries.profile = cfd::InflowProfile::parabolic;
  s.boundaries.inflow_velocity = u_max;
  s.boundaries.inflow_ramp_time = 1;
  s.boundaries.outflow = outflow;
  return s;
}

// Max over this rank's cells where continuity holds of |div u|, and of |u| over all faces, over all ranks.
struct Divergence {
  double max_divergence, max_speed;
};

Divergence divergence_where_continuity_holds(const cfd::MacProjection& s) {
  const auto& d = s.decomposition();
  const int lo = cfd::MacProjection::halo_width;
  const auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.velocity());
  const auto& sources = s.bodies()->source_cells();
  Divergence result{0, 0};
  std::size_t n = 0;
  for (long j = lo; j < lo + d.local_cells(1); ++j)
    for (long i = lo; i < lo + d.local_cells(0); ++i, ++n) {
      result.max_speed = std::max({result.max_speed, std::abs(u(0, 0, j, i)), std::abs(u(1, 0, j, i))});
      if (sources[n] != 0) continue;
      const double div = (u(0, 0, j, i + 1) - u(0, 0, j, i)) / s.spacing(0) + (u(1, 0, j + 1, i) - u(1, 0, j, i)) / s.spacing(1);
      result.max_divergence = std::max(result.max_divergence, std::abs(div));
    }
  return {mesh::global_max(result.max_divergence, d.comm()), mesh::global_max(result.max_speed, d.comm())};
}

// Steps the solver `steps` times at Courant 0.5 (at most dt_max), checking the divergence bound after each.
void expect_divergence_free_where_continuity_holds(cfd::MacProjection& s, int steps, double dt_max) {
  double t = 0;
  for (int n = 0; n < steps; ++n) {
    const double dt = std::min(s.stable_dt(0.5), dt_max);
    s.step(t, dt);
    t += dt;
    const Divergence div = divergence_where_continuity_holds(s);
    const double bound = dt * s.max_poisson_residual() + 1e-12 * div.max_speed / s.spacing(1);
    ASSERT_LE(div.max_divergence, bound) << "step " << n + 1 << ", t = " << t;
  }
}

TEST(ProjectionWithBodies, CellsBesideACylinderStayDivergenceFreeWithAnOutflow) {
  cfd::MacProjection s(channel_grid(mesh::Boundary::open), inflow_settings(1.5, cfd::OutflowKind::convective),
                       MPI_COMM_WORLD);
  expect_divergence_free_where_continuity_holds(s, 100, 0.005);
}

TEST(ProjectionWithBodies, CellsBesideACylinderStayDivergenceFreeInAPeriodicChannel) {
  cfd::MacSettings settings = channel_settings();
  settings.body_force = {1, 0, 0};
  cfd::MacProjection s(channel_grid(mesh::Boundary::periodic), settings, MPI_COMM_WORLD);
  expect_divergence_free_where_continuity_holds(s, 100, 0.005);
}

// The drag on the cylinder at Re 20 from rest to t = 10 at dt = 0.02, after one step of 0.002 (as the driver
// takes to land on an output time), and after two more time units at 0.01: the steady state and its force
// are those of the equations, not of the step.
TEST(ProjectionWithBodies, SteadyDragDoesNotDependOnTheStep) {
  cfd::MacProjection s(channel_grid(mesh::Boundary::open), inflow_settings(0.3, cfd::OutflowKind::zero_gradient),
                       MPI_COMM_WORLD);
  double t = 0;
  const auto advance = [&](double dt, int steps) {
    for (int n = 0; n < steps; ++n, t += dt) s.step(t, dt);
    return s.bodies()->forces()[0][0];
  };
  const double drag = advance(0.02, 500), after_short_step = advance(0.002, 1), at_half_step = advance(0.01, 200);
  EXPECT_LT(std::abs(after_short_step / drag - 1), 1e-4) << drag << " -> " << after_short_step;
  EXPECT_LT(std::abs(at_half_step / drag - 1), 1e-4) << drag << " -> " << at_half_step;
}

// The wall pressure at points of the cylinder's surface, from a bilinear pressure field: exact, though the
// field is quadratic along the normals at 45 degrees (the extrapolation is cubic, the interpolation of its
// samples bilinear); a line through two samples 1.5 h and 3 h off would miss there by 90 h^2, the nearest
// fluid centres alone by about h dp/dn.
TEST(ProjectionWithBodies, SurfaceProbeReadsABilinearPressureExactly) {
  cfd::MacProjection s(channel_grid(mesh::Boundary::open), inflow_settings(1.5, cfd::OutflowKind::convective),
                       MPI_COMM_WORLD);
  const auto& d = s.decomposition();
  const int lo = cfd::MacProjection::halo_width;
  const auto pressure = [](double x, double y) { return 1 + 3 * x - 2 * y + 40 * x * y; };
  auto velocity = Kokkos::create_mirror_view(s.velocity());
  auto p = Kokkos::create_mirror_view(s.pressure());
  Kokkos::deep_copy(velocity, 0.0);
  for (long j = 0; j < d.local_cells(1); ++j)
    for (long i = 0; i < d.local_cells(0); ++i)
      p(0, 0, j + lo, i + lo) = pressure((d.offset(0) + i + 0.5) * s.spacing(0), (d.offset(1) + j + 0.5) * s.spacing(1));
  s.set_state(velocity, p);
  const double r = 0.05, diagonal = r / std::sqrt(2.0);
  // On the surface, then one in the fluid (interpolated), all read together.
  const std::vector<std::array<double, 3>> points{{0.15, 0.2, 0},
                                                  {0.25, 0.2, 0},
                                                  {0.2, 0.25, 0},
                                                  {0.2 - diagonal, 0.2 - diagonal, 0},
                                                  {0.2 + diagonal, 0.2 - diagonal, 0},
                                                  {1.0, 0.3, 0}};
  const auto read = s.probe_pressures(s.pressure_probes(points));
  ASSERT_EQ(read.size(), points.size());
  for (std::size_t k = 0; k < points.size(); ++k)
    EXPECT_NEAR(read[k], pressure(points[k][0], points[k][1]), 1e-12) << "at (" << points[k][0] << ", " << points[k][1] << ")";
}

}  // namespace
