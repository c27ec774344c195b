// The MAC projection core (solvers/cfd/mac_projection): the 2-D Taylor-Green vortex in a periodic box
// converges at second order in space and time together and keeps the divergence at the Poisson tolerance
// every step; plane Poiseuille flow between walls, driven by a body force, converges at second order to
// the parabola (the mirror ghost of a wall between u nodes is second order, not exact); the lid-driven
// cavity at Re 100 against Ghia, Ghia & Shin (1982).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "mesh/reductions.hpp"
#include "solvers/cfd/mac_projection.hpp"

using namespace meridian;

namespace {

constexpr double pi = 3.141592653589793;

mesh::GridSpec square(long n, mesh::Boundary x, mesh::Boundary y) {
  mesh::GridSpec g;
  g.dimensions = 2;
  g.cells = {n, n, 1};
  g.boundary = {x, y, mesh::Boundary::periodic};
  g.halo_width = cfd::MacProjection::halo_width;
  return g;
}

// Host copies of the state, filled from u(x, y) on the x-faces, v on the y-faces and p at the centres.
using Profile = std::function<double(double, double)>;

void set(cfd::MacProjection& s, const Profile& u, const Profile& v, const Profile& p) {
  const auto& d = s.decomposition();
  const double h = s.spacing(0);
  const int lo = cfd::MacProjection::halo_width;
  auto vel = Kokkos::create_mirror_view(s.velocity());
  auto pre = Kokkos::create_mirror_view(s.pressure());
  for (long j = 0; j < d.local_cells(1); ++j)
    for (long i = 0; i < d.local_cells(0); ++i) {
      const double x = (d.offset(0) + i) * h, y = (d.offset(1) + j) * h;
      vel(0, 0, j + lo, i + lo) = u(x, y + h / 2);
      vel(1, 0, j + lo, i + lo) = v(x + h / 2, y);
      pre(0, 0, j + lo, i + lo) = p(x + h / 2, y + h / 2);
    }
  s.set_state(vel, pre);
}

// Max over this run's u faces (not on a wall) of |u - exact|, over all ranks.
double u_error(const cfd::MacProjection& s, const Profile& exact) {
  const auto& d = s.decomposition();
  const double h = s.spacing(0);
  const int lo = cfd::MacProjection::halo_width;
  const auto vel = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.velocity());
  double error = 0;
  for (long j = 0; j < d.local_cells(1); ++j)
    for (long i = 0; i < d.local_cells(0); ++i)
      error = std::max(error, std::abs(vel(0, 0, j + lo, i + lo) - exact((d.offset(0) + i) * h, (d.offset(1) + j + 0.5) * h)));
  return mesh::global_max(error, d.comm());
}

double order(double coarse, double fine) { return std::log2(coarse / fine); }

TEST(MacProjection, TaylorGreenConvergesAtSecondOrderAndStaysDivergenceFree) {
  const double nu = 0.05, end = 0.5;
  double errors[3];
  const long sizes[3] = {16, 32, 64};
  for (int g = 0; g < 3; ++g) {
    cfd::MacSettings settings;
    settings.length = {2 * pi, 2 * pi, 1}, settings.viscosity = nu;
    cfd::MacProjection s(square(sizes[g], mesh::Boundary::periodic, mesh::Boundary::periodic), settings, MPI_COMM_WORLD);
    set(s, [](double x, double y) { return std::sin(x) * std::cos(y); },
        [](double x, double y) { return -std::cos(x) * std::sin(y); },
        [](double x, double y) { return (std::cos(2 * x) + std::cos(2 * y)) / 4; });
    const int steps = static_cast<int>(std::lround(end / (0.1 * s.spacing(0))));
    const double dt = end / steps;
    for (int n = 0; n < steps; ++n) {
      s.step(n * dt, dt);
      ASSERT_TRUE(s.last_solve().converged) << "step " << n;
      ASSERT_LT(s.max_divergence(), 1e-8) << "step " << n;
    }
    const double decay = std::exp(-2 * nu * end);
    errors[g] = u_error(s, [&](double x, double y) { return std::sin(x) * std::cos(y) * decay; });
  }
  EXPECT_GT(order(errors[0], errors[1]), 1.8) << errors[0] << " -> " << errors[1];
  EXPECT_GT(order(errors[1], errors[2]), 1.8) << errors[1] << " -> " << errors[2];
}

TEST(MacProjection, PoiseuilleConvergesAtSecondOrderToTheParabola) {
  const double nu = 1, force = 8;  // u(y) = force / (2 nu) y (1 - y), 1 at the centre
  double errors[3];
  const long sizes[3] = {8, 16, 32};
  for (int g = 0; g < 3; ++g) {
    cfd::MacSettings settings;
    settings.viscosity = nu, settings.body_force = {force, 0};
    cfd::MacProjection s(square(sizes[g], mesh::Boundary::periodic, mesh::Boundary::open), settings, MPI_COMM_WORLD);
    const Profile zero = [](double, double) { return 0.0; };
    set(s, zero, zero, zero);
    // From rest the slowest mode decays as exp(-pi^2 nu t): t = 2 leaves 3e-9 of it.
    const double dt = 0.1 * s.spacing(0) * s.spacing(0) / nu;
    for (double t = 0; t < 2; t += dt) s.step(t, dt);
    errors[g] = u_error(s, [&](double, double y) { return force / (2 * nu) * y * (1 - y); });
  }
  EXPECT_GT(order(errors[0], errors[1]), 1.8) << errors[0] << " -> " << errors[1];
  EXPECT_GT(order(errors[1], errors[2]), 1.8) << errors[1] << " -> " << errors[2];
  EXPECT_LT(errors[2], 2e-3);
}

struct GhiaPoint {
  bool u_profile;  // u along x = 0.5 (coordinate y), else v along y = 0.5 (coordinate x)
  double coordinate, re100;
};

std::vector<GhiaPoint> ghia_table() {
  std::ifstream in(std::string(MERIDIAN_TEST_DATA_DIR) + "/ghia1982_cavity_centerlines.csv");
  std::vector<GhiaPoint> points;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("profile", 0) == 0) continue;
    std::stringstream fields(line);
    std::string profile, index, coordinate, re100;
    std::getline(fields, profile, ','), std::getline(fields, index, ','), std::getline(fields, coordinate, ',');
    std::getline(fields, re100, ',');
    points.push_back({profile[0] == 'u', std::stod(coordinate), std::stod(re100)});
  }
  return points;
}

// Linear interpolation in (coordinates, values), sorted by coordinate.
double interpolate(const std::vector<double>& at, const std::vector<double>& values, double x) {
  std::size_t k = 1;
  while (k + 1 < at.size() && at[k] < x) ++k;
  const double w = (x - at[k - 1]) / (at[k] - at[k - 1]);
  return (1 - w) * values[k - 1] + w * values[k];
}

// 48^2 (the 128^2 takes minutes with explicit viscosity, which is still to be made Crank-Nicolson;
// 48^2 keeps the test near 4 s serial, and the many small multigrid kernels made 64^2 take over 300 s on
// Kokkos OpenMP with passive waiting): the maximum deviation from Ghia's 34 centreline values was 0.0082
// of the lid speed (0.0086 at 64^2).
TEST(MacProjection, LidDrivenCavityAtRe100MatchesGhia) {
  const long n = 48;
  cfd::MacSettings settings;
  settings.viscosity = 0.01, settings.boundaries.wall_velocity[1][1] = 1;  // the lid y = 1 moves with u = 1
  cfd::MacProjection s(square(n, mesh::Boundary::open, mesh::Boundary::open), settings, MPI_COMM_WORLD);
  const Profile zero = [](double, double) { return 0.0; };
  set(s, zero, zero, zero);
  for (double t = 0; t < 20;) {
    const double dt = std::min(s.stable_dt(0.5), 0.5 * s.spacing(0));
    s.step(t, dt);
    t += dt;
  }
  // Centreline profiles: u on the x-faces at x = 0.5, v on the y-faces at y = 0.5, with the wall values.
  const auto& d = s.decomposition();
  const int lo = cfd::MacProjection::halo_width;
  const auto vel = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.velocity());
  std::vector<double> u(n + 2, 0.0), v(n + 2, 0.0), at(n + 2);
  at[0] = 0, at[n + 1] = 1;
  for (long c = 0; c < n; ++c) at[c + 1] = (c + 0.5) / n;
  for (long j = 0; j < d.local_cells(1); ++j)
    for (long i = 0; i < d.local_cells(0); ++i) {
      if (d.offset(0) + i == n / 2) u[d.offset(1) + j + 1] = vel(0, 0, j + lo, i + lo);
      if (d.offset(1) + j == n / 2) v[d.offset(0) + i + 1] = vel(1, 0, j + lo, i + lo);
    }
  MPI_Allreduce(MPI_IN_PLACE, u.data(), static_cast<int>(u.size()), MPI_DOUBLE, MPI_SUM, d.comm());
  MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_SUM, d.comm());
  u[n + 1] = 1;
  double deviation = 0;
  const auto table = ghia_table();
  ASSERT_EQ(table.size(), 34u);
  for (const GhiaPoint& p : table)
    deviation = std::max(deviation, std::abs(interpolate(at, p.u_profile ? u : v, p.coordinate) - p.re100));
  EXPECT_LE(deviation, 0.02);
}

}  // namespace
