// The MAC projection core (solvers/cfd/mac_projection): the 2-D Taylor-Green vortex converges at second order
// in space and time together and keeps the divergence at the Poisson tolerance every step (the spectral
// solver reproduces it exactly, so this is also its decay to the discretisation error); carried by a uniform
// stream, at second order in time alone, with uniform steps and with steps of alternating length; the
// vortex in each plane of a 3-D box; plane Poiseuille flow between walls, explicit and Crank-Nicolson,
// converges at second order to the parabola (the mirror ghost of a wall between u nodes is second order,
// not exact); a channel with parabolic inflow and outflow keeps the profile and its mass flux, one with
// free-slip walls a uniform stream through a convective outflow; central4's advection operator converges at
// fourth order on smooth periodic fields in 2-D and 3-D, where central's converges at second; the 128^2
// lid-driven cavity at Re 100 and 1000 against Ghia, Ghia & Shin (1982). Bodies: tests/integration/
// schaefer_turek.sh and test_projection_bodies.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <array>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "mesh/halo_exchange.hpp"
#include "mesh/reductions.hpp"
#include "parallel/launch_policy.hpp"
#include "solvers/cfd/mac_projection.hpp"
#include "tests/test_data.hpp"

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

// Max over this run's u faces of |u - exact|, over all ranks; faces where exact is NaN are left out.
double u_error(const cfd::MacProjection& s, const Profile& exact) {
  const auto& d = s.decomposition();
  const double h = s.spacing(0);
  const int lo = cfd::MacProjection::halo_width;
  const auto vel = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.velocity());
  double error = 0;
  for (long j = 0; j < d.local_cells(1); ++j)
    for (long i = 0; i < d.local_cells(0); ++i) {
      const double e = exact((d.offset(0) + i) * h, (d.offset(1) + j + 0.5) * s.spacing(1));
      if (!std::isnan(e)) error = std::max(error, std::abs(vel(0, 0, j + lo, i + lo) - e));
    }
  return mesh::global_max(error, d.comm());
}

double order(double coarse, double fine) { return std::log2(coarse / fine); }

// A smooth periodic velocity on [0, 2 pi)^d, each component a sum of waves a sin(k . x + phase), whose
// derivatives are exact: not divergence-free, since the conservative form is exact for any field, so the
// advection operator's own order shows.
struct Wave {
  double amplitude;
  int k[3];
  double phase;
};
struct WaveField {
  std::vector<Wave> component[3];
  double value(int c, const double (&x)[3]) const {
    double sum = 0;
    for (const Wave& w : component[c]) sum += w.amplitude * std::sin(w.k[0] * x[0] + w.k[1] * x[1] + w.k[2] * x[2] + w.phase);
    return sum;
  }
  double derivative(int c, int a, const double (&x)[3]) const {
    double sum = 0;
    for (const Wave& w : component[c])
      sum += w.amplitude * w.k[a] * std::cos(w.k[0] * x[0] + w.k[1] * x[1] + w.k[2] * x[2] + w.phase);
    return sum;
  }
  // d(u_a u_c)/dx_a, summed over the d axes.
  double advection(int c, int dimensions, const double (&x)[3]) const {
    double sum = 0;
    for (int a = 0; a < dimensions; ++a)
      sum += derivative(a, a, x) * value(c, x) + value(a, x) * derivative(c, a, x);
    return sum;
  }
};

// Max over the owned faces of every component of the error of the advection operator, central or central4's
// advection4, on an n^d periodic grid of side 2 pi, against WaveField::advection.
double advection_error(long n, bool fourth, int dimensions = 2) {
  mesh::GridSpec spec = square(n, mesh::Boundary::periodic, mesh::Boundary::periodic);
  if (dimensions == 3) spec.dimensions = 3, spec.cells[2] = n;
  const mesh::Decomposition d(MPI_COMM_WORLD, spec);
  const double length[3] = {2 * pi, 2 * pi, dimensions == 3 ? 2 * pi : 1};
  const cfd::MacGrid g = cfd::mac_grid(d, length);
  WaveField field;
  field.component[0] = {{0.5, {1, 2, 0}, 0}, {0.5, {1, -2, 0}, 0}, {0.3, {1, 1, 0}, pi / 2}};
  field.component[1] = {{0.5, {1, 1, 0}, 0}, {-0.5, {1, -1, 0}, 0}, {0.2, {2, -1, 0}, 0}};
  if (dimensions == 3) {
    field.component[0].push_back({0.4, {0, 1, 1}, 0.3});
    field.component[1].push_back({0.3, {1, 0, -2}, 1.1});
    field.component[2] = {{0.6, {1, -1, 1}, 0.5}, {0.25, {0, 2, 1}, 0}};
  }
  const mesh::Field u = mesh::make_field(d, dimensions, "test::u"), out = mesh::make_field(d, dimensions, "test::advection");
  // body(c, k, j, i, x) on every owned face of every component, x its position.
  const auto for_each_face = [&](const auto& body) {
    const int z_lo = dimensions == 3 ? g.lo[2] : 0, z_end = dimensions == 3 ? g.lo[2] + g.n[2] : 1;
    for (int k = z_lo; k < z_end; ++k)
      for (int j = g.lo[1]; j < g.lo[1] + g.n[1]; ++j)
        for (int i = g.lo[0]; i < g.lo[0] + g.n[0]; ++i)
          for (int c = 0; c < dimensions; ++c) {
            const int index[3] = {i, j, k};
            double x[3];
            for (int a = 0; a < 3; ++a) x[a] = (g.offset[a] + index[a] - g.lo[a] + (a == c ? 0.0 : 0.5)) * g.h[a];
            body(c, k, j, i, x);
          }
  };
  auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), u);
  for_each_face([&](int c, int k, int j, int i, const double (&x)[3]) { host(c, k, j, i) = field.value(c, x); });
  Kokkos::deep_copy(u, host);
  mesh::HaloExchange(d, dimensions).exchange(u, mesh::Corners::fill);
  const cfd::FaceStrides f = cfd::face_strides(u);
  parallel::for_each(
      "test::advection", cfd::owned(g), KOKKOS_LAMBDA(const int k, const int j, const int i) {
        const double* u0 = &u(0, k, j, i);
        for (int c = 0; c < g.dims; ++c)
          out(c, k, j, i) = g.dims == 3 ? (fourth ? cfd::advection4<3>(u0, c, f, g) : cfd::advection<3, false>(u0, c, f, g))
                                        : (fourth ? cfd::advection4<2>(u0, c, f, g) : cfd::advection<2, false>(u0, c, f, g));
      });
  const auto result = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  double error = 0;
  for_each_face([&](int c, int k, int j, int i, const double (&x)[3]) {
    error = std::max(error, std::abs(result(c, k, j, i) - field.advection(c, dimensions, x)));
  });
  return mesh::global_max(error, d.comm());
}

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

TEST(MacProjection, Central4AdvectionConvergesAtFourthOrder) {
  const double e32 = advection_error(32, true), e64 = advection_error(64, true), e128 = advection_error(128, true);
  EXPECT_GT(order(e32, e64), 3.8) << e32 << " -> " << e64;
  EXPECT_GT(order(e64, e128), 3.8) << e64 << " -> " << e128;
  // The second-order form on the same fields: the test tells the two apart.
  const double c64 = advection_error(64, false), c128 = advection_error(128, false);
  EXPECT_NEAR(order(c64, c128), 2.0, 0.1) << c64 << " -> " << c128;
}

TEST(MacProjection, Central4AdvectionConvergesAtFourthOrderIn3d) {
  const double e16 = advection_error(16, true, 3), e32 = advection_error(32, true, 3), e64 = advection_error(64, true, 3);
  EXPECT_GT(order(e16, e32), 3.6) << e16 << " -> " << e32;
  EXPECT_GT(order(e32, e64), 3.8) << e32 << " -> " << e64;
  const double c32 = advection_error(32, false, 3), c64 = advection_error(64, false, 3);
  EXPECT_NEAR(order(c32, c64), 2.0, 0.1) << c32 << " -> " << c64;
}

// The vortex carried by a uniform stream u = 1 (without it advection is a gradient that the projection
// removes, and no error of its time scheme would show) on one 32^2 grid with Crank-Nicolson viscosity, run to
// t = 0.5 in `steps` steps: uniform, or alternately 4/3 and 2/3 of the uniform step (as a Courant limit or an
// output time varies it).
std::unique_ptr<cfd::MacProjection> taylor_green_in_time(int steps, bool alternating) {
  const double nu = 0.05, end = 0.5;
  cfd::MacSettings settings;
  settings.length = {2 * pi, 2 * pi, 1}, settings.viscosity = nu, settings.viscous = cfd::ViscousScheme::crank_nicolson;
  settings.poisson.tolerance = 1e-13;
  auto s = std::make_unique<cfd::MacProjection>(square(32, mesh::Boundary::periodic, mesh::Boundary::periodic), settings,
                                                MPI_COMM_WORLD);
  set(*s, [](double x, double y) { return 1 + std::sin(x) * std::cos(y); },
      [](double x, double y) { return -std::cos(x) * std::sin(y); },
      [](double x, double y) { return (std::cos(2 * x) + std::cos(2 * y)) / 4; });
  const double uniform = end / steps;
  double time = 0;
  for (int n = 0; n < steps; ++n) {
    const double dt = n + 1 == steps ? end - time : alternating ? uniform * (n % 2 == 0 ? 4.0 / 3 : 2.0 / 3) : uniform;
    s->step(time, dt);
    time += dt;
  }
  return s;
}

// Max over the u faces of the difference between two runs of taylor_green_in_time.
double u_difference(const cfd::MacProjection& a, const cfd::MacProjection& b) {
  const auto ua = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.velocity());
  const auto ub = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.velocity());
  const auto& d = a.decomposition();
  const int lo = cfd::MacProjection::halo_width;
  double difference = 0;
  for (long j = lo; j < lo + d.local_cells(1); ++j)
    for (long i = lo; i < lo + d.local_cells(0); ++i) difference = std::max(difference, std::abs(ua(0, 0, j, i) - ub(0, 0, j, i)));
  return mesh::global_max(difference, d.comm());
}

// The step halved twice, against a run with a step 16 times smaller: AB2 advection with Crank-Nicolson
// viscosity and the incremental projection are second order in time (the spatial error is the same in every
// run and cancels); with steps that alternate between two sizes too, which AB2's coefficients must follow
// (1 + r/2 and -r/2 for a step r times the last one; the fixed 3/2 and -1/2 make it first order).
void expect_second_order_in_time(bool alternating) {
  const auto reference = taylor_green_in_time(256, false);
  double errors[3];
  for (int r = 0; r < 3; ++r) errors[r] = u_difference(*taylor_green_in_time(16 << r, alternating), *reference);
  EXPECT_GT(order(errors[0], errors[1]), 1.8) << errors[0] << " -> " << errors[1];
  EXPECT_GT(order(errors[1], errors[2]), 1.8) << errors[1] << " -> " << errors[2];
}

TEST(MacProjection, TaylorGreenConvergesAtSecondOrderInTime) { expect_second_order_in_time(false); }

TEST(MacProjection, TaylorGreenConvergesAtSecondOrderInTimeWithAlternatingSteps) { expect_second_order_in_time(true); }

void expect_poiseuille_second_order(cfd::ViscousScheme scheme, double dt_factor) {
  const double nu = 1, force = 8;  // u(y) = force / (2 nu) y (1 - y), 1 at the centre
  double errors[3];
  const long sizes[3] = {8, 16, 32};
  for (int g = 0; g < 3; ++g) {
    cfd::MacSettings settings;
    settings.viscosity = nu, settings.body_force = {force, 0, 0}, settings.viscous = scheme;
    cfd::MacProjection s(square(sizes[g], mesh::Boundary::periodic, mesh::Boundary::open), settings, MPI_COMM_WORLD);
    const Profile zero = [](double, double) { return 0.0; };
    set(s, zero, zero, zero);
    // From rest the slowest mode decays as exp(-pi^2 nu t): t = 2 leaves 3e-9 of it.
    const double dt = dt_factor * s.spacing(0) * s.spacing(0) / nu;
    for (double t = 0; t < 2; t += dt) {
      s.step(t, dt);
      if (scheme == cfd::ViscousScheme::crank_nicolson) {
        ASSERT_TRUE(s.last_viscous_solve().converged);
      }
    }
    errors[g] = u_error(s, [&](double, double y) { return force / (2 * nu) * y * (1 - y); });
  }
  EXPECT_GT(order(errors[0], errors[1]), 1.8) << errors[0] << " -> " << errors[1];
  EXPECT_GT(order(errors[1], errors[2]), 1.8) << errors[1] << " -> " << errors[2];
  EXPECT_LT(errors[2], 2e-3);
}

TEST(MacProjection, PoiseuilleConvergesAtSecondOrderToTheParabola) {
  expect_poiseuille_second_order(cfd::ViscousScheme::explicit_ab2, 0.1);
}

TEST(MacProjection, PoiseuilleWithCrankNicolsonConvergesAtSecondOrderBeyondTheExplicitLimit) {
  expect_poiseuille_second_order(cfd::ViscousScheme::crank_nicolson, 0.8);
}

// A channel [0, 4] x [0, 1] with the parabola flowing in at x = 0 and out at x = 4 (zero gradient, p = 0):
// the steady state keeps the parabola (to the walls' second-order error), the pressure falls linearly at
// 2 nu U_max 4 per unit length, and what flows out is what flows in.
TEST(MacProjection, ChannelWithParabolicInflowAndOutflowKeepsThePoiseuilleProfile) {
  double errors[2];
  const long rows[2] = {16, 32};
  for (int g = 0; g < 2; ++g) {
    mesh::GridSpec grid = square(rows[g], mesh::Boundary::open, mesh::Boundary::open);
    grid.cells[0] = 4 * rows[g];
    cfd::MacSettings settings;
    settings.length = {4, 1, 1}, settings.viscosity = 0.2, settings.viscous = cfd::ViscousScheme::crank_nicolson;
    settings.boundaries.face[0] = {cfd::FaceKind::inflow, cfd::FaceKind::outflow};
    settings.boundaries.profile = cfd::InflowProfile::parabolic, settings.boundaries.inflow_velocity = 1;
    cfd::MacProjection s(grid, settings, MPI_COMM_WORLD);
    const Profile zero = [](double, double) { return 0.0; };
    set(s, zero, zero, zero);
    double t = 0;
    for (; t < 6;) {  // the slowest viscous mode decays as exp(-pi^2 nu t): 7e-6 of it is left
      const double dt = s.stable_dt(0.5);
      s.step(t, dt);
      t += dt;
      ASSERT_LT(s.max_divergence(), 1e-8);
    }
    // Away from the ends, where the discrete profile has adjusted to the one the grid keeps.
    errors[g] = u_error(s, [](double x, double y) { return x >= 1 && x <= 3 ? 4 * y * (1 - y) : std::nan(""); });
    // Mass: the outflow face (x = 4) carries what the inflow face brings, to the solver tolerance.
    const auto& d = s.decomposition();
    const int lo = cfd::MacProjection::halo_width;
    const auto vel = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.velocity());
    double in = 0, out = 0;
    for (long j = 0; j < d.local_cells(1); ++j) {
      if (d.at_lower_boundary(0)) in += vel(0, 0, j + lo, lo) * s.spacing(1);
      if (d.at_upper_boundary(0)) out += vel(0, 0, j + lo, lo + d.local_cells(0)) * s.spacing(1);
    }
    in = mesh::global_sum(in, d.comm()), out = mesh::global_sum(out, d.comm());
    EXPECT_NEAR(in, 2.0 / 3.0 + 1.0 / (3.0 * rows[g] * rows[g]), 1e-14);  // the midpoint rule on the parabola
    EXPECT_NEAR(out, in, 1e-9);
  }
  EXPECT_GT(order(errors[0], errors[1]), 1.8) << errors[0] << " -> " << errors[1];
}

// A uniform stream through a channel with free-slip walls, entering at x = 0 and leaving by the convective
// outflow at x = 4, from rest: it is the exact steady state of the discrete equations, u = U, v = 0, and
// the run reaches it to the solver tolerance.
TEST(MacProjection, UniformStreamBetweenFreeSlipWallsStaysUniform) {
  mesh::GridSpec grid = square(16, mesh::Boundary::open, mesh::Boundary::open);
  grid.cells[0] = 64;
  cfd::MacSettings settings;
  settings.length = {4, 1, 1}, settings.viscosity = 0.05, settings.viscous = cfd::ViscousScheme::crank_nicolson;
  settings.poisson.tolerance = 1e-12;
  settings.boundaries.face[0] = {cfd::FaceKind::inflow, cfd::FaceKind::outflow};
  settings.boundaries.face[1] = {cfd::FaceKind::free_slip, cfd::FaceKind::free_slip};
  settings.boundaries.inflow_velocity = 1, settings.boundaries.inflow_ramp_time = 0.5;
  settings.boundaries.outflow = cfd::OutflowKind::convective;
  cfd::MacProjection s(grid, settings, MPI_COMM_WORLD);
  const Profile zero = [](double, double) { return 0.0; };
  set(s, zero, zero, zero);
  for (double t = 0; t < 2;) {
    const double dt = s.stable_dt(0.5);
    s.step(t, dt);
    t += dt;
  }
  EXPECT_LT(u_error(s, [](double, double) { return 1.0; }), 1e-9);
  const auto& d = s.decomposition();
  const int lo = cfd::MacProjection::halo_width;
  const auto vel = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.velocity());
  double v = 0;
  for (long j = 0; j < d.local_cells(1); ++j)
    for (long i = 0; i < d.local_cells(0); ++i) v = std::max(v, std::abs(vel(1, 0, j + lo, i + lo)));
  EXPECT_LT(mesh::global_max(v, d.comm()), 1e-9);
}

// The 2-D Taylor-Green vortex in each coordinate plane of a 3-D periodic box, uniform along the third axis:
// the 3-D kernels converge at second order to the planar decay along every pair of axes.
TEST(MacProjection, TaylorGreenInEachPlaneOf3DBoxConvergesAtSecondOrder) {
  const double nu = 0.05, end = 0.3;
  for (int plane = 0; plane < 3; ++plane) {
    const int a = plane, b = (plane + 1) % 3;  // the vortex's axes
    double errors[2];
    const long sizes[2] = {12, 24};
    for (int g = 0; g < 2; ++g) {
      mesh::GridSpec grid;
      grid.dimensions = 3, grid.cells = {sizes[g], sizes[g], sizes[g]}, grid.halo_width = cfd::MacProjection::halo_width;
      cfd::MacSettings settings;
      settings.length = {2 * pi, 2 * pi, 2 * pi}, settings.viscosity = nu;
      cfd::MacProjection s(grid, settings, MPI_COMM_WORLD);
      const auto& d = s.decomposition();
      const double h = s.spacing(0);
      const int lo = cfd::MacProjection::halo_width;
      auto vel = Kokkos::create_mirror_view(s.velocity());
      auto pre = Kokkos::create_mirror_view(s.pressure());
      Kokkos::deep_copy(vel, 0.0), Kokkos::deep_copy(pre, 0.0);
      // component c's value at the face of cell (i, j, k): positions along a and b.
      const auto face = [&](int c, const long (&cell)[3], int axis) {
        return (d.offset(axis) + cell[axis] + (axis == c ? 0.0 : 0.5)) * h;
      };
      double error = 0;
      const auto each = [&](auto&& visit) {
        for (long k = 0; k < d.local_cells(2); ++k)
          for (long j = 0; j < d.local_cells(1); ++j)
            for (long i = 0; i < d.local_cells(0); ++i) visit(std::array<long, 3>{i, j, k});
      };
      each([&](std::array<long, 3> c3) {
        const long cell[3] = {c3[0], c3[1], c3[2]};
        vel(a, cell[2] + lo, cell[1] + lo, cell[0] + lo) = std::sin(face(a, cell, a)) * std::cos(face(a, cell, b));
        vel(b, cell[2] + lo, cell[1] + lo, cell[0] + lo) = -std::cos(face(b, cell, a)) * std::sin(face(b, cell, b));
        pre(0, cell[2] + lo, cell[1] + lo, cell[0] + lo) = (std::cos(2 * face(-1, cell, a)) + std::cos(2 * face(-1, cell, b))) / 4;
      });
      s.set_state(vel, pre);
      const int steps = static_cast<int>(std::lround(end / (0.2 * h)));
      const double dt = end / steps;
      for (int n = 0; n < steps; ++n) s.step(n * dt, dt);
      const auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.velocity());
      const double decay = std::exp(-2 * nu * end);
      each([&](std::array<long, 3> c3) {
        const long cell[3] = {c3[0], c3[1], c3[2]};
        const double exact = std::sin(face(a, cell, a)) * std::cos(face(a, cell, b)) * decay;
        error = std::max(error, std::abs(out(a, cell[2] + lo, cell[1] + lo, cell[0] + lo) - exact));
      });
      errors[g] = mesh::global_max(error, d.comm());
    }
    EXPECT_GT(order(errors[0], errors[1]), 1.8) << "plane " << plane << ": " << errors[0] << " -> " << errors[1];
  }
}

// The Crank-Nicolson step solved directly (projection.pressure_solver = "direct" without bodies: ViscousDirect)
// against conjugate gradients ("krylov") to 1e-13, on grids with every kind of face: a 3-D cavity of walls with a
// moving lid; a 3-D channel with inflow, convective outflow, a wall and a free-slip face across a periodic axis;
// the same channel in 2-D. Any difference in an operator's boundary rows would show at the viscous term's size,
// not at round-off.
TEST(MacProjection, DirectViscousStepMatchesConjugateGradients) {
  using cfd::FaceKind;
  // Walls all round; a channel periodic in z; the same in 2-D; a channel periodic in x (each component's own
  // axis, where it holds nodes, is the one its tridiagonal systems run along, the others transformed).
  const std::array<std::array<std::array<FaceKind, 2>, 3>, 4> faces{
      {{{{FaceKind::wall, FaceKind::wall}, {FaceKind::wall, FaceKind::wall}, {FaceKind::wall, FaceKind::wall}}},
       {{{FaceKind::inflow, FaceKind::outflow}, {FaceKind::wall, FaceKind::free_slip}, {FaceKind::wall, FaceKind::wall}}},
       {{{FaceKind::inflow, FaceKind::outflow}, {FaceKind::wall, FaceKind::free_slip}, {FaceKind::wall, FaceKind::wall}}},
       {{{FaceKind::wall, FaceKind::wall}, {FaceKind::wall, FaceKind::free_slip}, {FaceKind::wall, FaceKind::wall}}}}};
  for (int setup = 0; setup < 4; ++setup) {
    mesh::GridSpec grid;
    grid.dimensions = setup == 2 ? 2 : 3, grid.cells = {12, 10, setup == 2 ? 1 : 8};
    grid.halo_width = cfd::MacProjection::halo_width;
    const auto open_unless = [](bool periodic) { return periodic ? mesh::Boundary::periodic : mesh::Boundary::open; };
    grid.boundary = {open_unless(setup == 3), mesh::Boundary::open, open_unless(setup == 1 || setup == 2)};
    std::vector<double> result[2];
    for (int krylov = 0; krylov < 2; ++krylov) {
      cfd::MacSettings settings;
      settings.length = {1.2, 1.3, 0.7}, settings.viscosity = 0.05;  // h = 0.1, 0.13, 0.0875
      settings.viscous = cfd::ViscousScheme::crank_nicolson;
      settings.poisson.tolerance = 1e-13;
      settings.pressure_solver = krylov ? cfd::PressureSolver::krylov : cfd::PressureSolver::direct;
      for (int a = 0; a < 3; ++a) settings.boundaries.face[a] = faces[setup][a];
      settings.boundaries.wall_velocity[1][1] = 1;  // the y = 1 wall moves along x
      settings.boundaries.inflow_velocity = 1, settings.boundaries.outflow = cfd::OutflowKind::convective;
      cfd::MacProjection s(grid, settings, MPI_COMM_WORLD);
      const auto& d = s.decomposition();
      const int lo = cfd::MacProjection::halo_width;
      auto vel = Kokkos::create_mirror_view(s.velocity());
      auto pre = Kokkos::create_mirror_view(s.pressure());
      Kokkos::deep_copy(vel, 0.0), Kokkos::deep_copy(pre, 0.0);
      const int z0 = grid.dimensions == 3 ? lo : 0;  // a 2-D field's one z index is 0
      for (int c = 0; c < grid.dimensions; ++c)
        for (long k = 0; k < d.local_cells(2); ++k)
          for (long j = 0; j < d.local_cells(1); ++j)
            for (long i = 0; i < d.local_cells(0); ++i)
              vel(c, k + z0, j + lo, i + lo) =
                  0.3 * std::sin(1.3 * (d.offset(0) + i) + 2.1 * (d.offset(1) + j) + 0.7 * (d.offset(2) + k) + c);
      s.set_state(vel, pre);
      double t = 0;
      for (int n = 0; n < 6; ++n) {
        const double dt = s.stable_dt(0.5);
        s.step(t, dt);
        t += dt;
      }
      const auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.velocity());
      for (int c = 0; c < grid.dimensions; ++c)
        for (long k = 0; k < d.local_cells(2); ++k)
          for (long j = 0; j < d.local_cells(1); ++j)
            for (long i = 0; i < d.local_cells(0); ++i) result[krylov].push_back(out(c, k + z0, j + lo, i + lo));
    }
    double difference = 0, largest = 0;
    for (std::size_t n = 0; n < result[0].size(); ++n) {
      difference = std::max(difference, std::abs(result[0][n] - result[1][n]));
      largest = std::max(largest, std::abs(result[1][n]));
    }
    difference = mesh::global_max(difference, MPI_COMM_WORLD), largest = mesh::global_max(largest, MPI_COMM_WORLD);
    EXPECT_LE(difference, 1e-10 * largest) << "setup " << setup << ": max |u| " << largest;
  }
}

struct GhiaPoint {
  bool u_profile;  // u along x = 0.5 (coordinate y), else v along y = 0.5 (coordinate x)
  double coordinate, re100, re1000;
};

std::vector<GhiaPoint> ghia_table() {
  std::ifstream in(test_data("ghia1982_cavity_centerlines.csv"));
  std::vector<GhiaPoint> points;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("profile", 0) == 0) continue;
    std::stringstream fields(line);
    std::string profile, index, coordinate, re100, re1000;
    std::getline(fields, profile, ','), std::getline(fields, index, ','), std::getline(fields, coordinate, ',');
    std::getline(fields, re100, ','), std::getline(fields, re1000, ',');
    points.push_back({profile[0] == 'u', std::stod(coordinate), std::stod(re100), std::stod(re1000)});
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

// The unit cavity with the lid y = 1 moving at u = 1 and Crank-Nicolson viscosity, from rest until the
// velocity changes by less than `steady` per unit time (checked every 100 steps; at most t = 100); returns
// the maximum deviation of u on x = 0.5 and v on y = 0.5 from Ghia's values at this Reynolds number.
double cavity_deviation_from_ghia(long n, double reynolds, double steady) {
  cfd::MacSettings settings;
  settings.viscosity = 1 / reynolds, settings.viscous = cfd::ViscousScheme::crank_nicolson;
  settings.boundaries.wall_velocity[1][1] = 1;
  settings.poisson.tolerance = 1e-8;  // the divergence left is far below the profiles' discretisation error
  cfd::MacProjection s(square(n, mesh::Boundary::open, mesh::Boundary::open), settings, MPI_COMM_WORLD);
  const Profile zero = [](double, double) { return 0.0; };
  set(s, zero, zero, zero);
  const auto& d = s.decomposition();
  // A copy of its own (create_mirror_view would alias the velocity where device memory is host memory).
  auto previous = Kokkos::create_mirror(Kokkos::HostSpace(), s.velocity());
  Kokkos::deep_copy(previous, s.velocity());
  double t = 0, since = 0;
  for (int step = 1; t < 100; ++step) {
    const double dt = s.stable_dt(0.5);
    s.step(t, dt);
    t += dt, since += dt;
    if (step % 100) continue;
    const auto now = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.velocity());
    double change = 0;
    for (std::size_t k = 0; k < now.size(); ++k) change = std::max(change, std::abs(now.data()[k] - previous.data()[k]));
    if (mesh::global_max(change, d.comm()) / since < steady) break;
    Kokkos::deep_copy(previous, now);
    since = 0;
  }
  // Centreline profiles: u on the x-faces at x = 0.5, v on the y-faces at y = 0.5, with the wall values.
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
  EXPECT_EQ(table.size(), 34u);
  for (const GhiaPoint& p : table) {
    const double reference = reynolds == 100 ? p.re100 : p.re1000;
    deviation = std::max(deviation, std::abs(interpolate(at, p.u_profile ? u : v, p.coordinate) - reference));
  }
  std::cout << "cavity Re " << reynolds << " at " << n << "^2: steady by t = " << t << ", max deviation from Ghia "
            << deviation << std::endl;
  return deviation;
}

TEST(MacProjection, LidDrivenCavityAtRe100MatchesGhia) { EXPECT_LE(cavity_deviation_from_ghia(128, 100, 1e-3), 0.02); }

TEST(MacProjection, LidDrivenCavityAtRe1000MatchesGhia) { EXPECT_LE(cavity_deviation_from_ghia(128, 1000, 1e-3), 0.03); }

}  // namespace
