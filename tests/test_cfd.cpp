// The pseudo-spectral Navier-Stokes solver against exact solutions and its invariants.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "deck_for_tests.hpp"
#include "solvers/cfd/spectral_navier_stokes.hpp"

namespace {

std::unique_ptr<meridian::solvers::Solver> build(const std::vector<std::string>& settings, MPI_Comm comm) {
  return meridian::cfd::build(meridian::testing::deck_of("cfd_spectral", settings), comm);
}

std::map<std::string, double> named(const std::vector<meridian::solvers::Scalar>& scalars) {
  std::map<std::string, double> out;
  for (const auto& s : scalars) out[s.name] = s.value;
  return out;
}

double global_max(double x) {
  double m = 0;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

const std::vector<std::string> taylor_green_2d{"mesh.dimensions=2", "mesh.nx=32", "mesh.ny=32", "mesh.nz=1",
                                               "cfd.viscosity=0.05", "cfd.dt=0.01"};

TEST(SpectralNavierStokes, TaylorGreen2DMatchesTheExactSolutionAfter100Steps) {
  auto solver = build(taylor_green_2d, MPI_COMM_WORLD);
  for (int n = 0; n < 100; ++n) solver->step(n * 0.01, 0.01);
  const double t = 1.0, nu = 0.05, decay = std::exp(-2 * nu * t), h = 2 * std::acos(-1.0) / 32;
  double error = 0;
  for (const auto& f : solver->output_fields()) {
    if (f.box.name != "fields/u" && f.box.name != "fields/v") continue;
    const bool is_u = f.box.name == "fields/u";
    std::size_t n = 0;
    for (unsigned long long j = 0; j < f.box.count[0]; ++j)
      for (unsigned long long i = 0; i < f.box.count[1]; ++i, ++n) {
        const double x = (f.box.offset[1] + i) * h, y = (f.box.offset[0] + j) * h;
        const double exact = is_u ? std::sin(x) * std::cos(y) * decay : -std::cos(x) * std::sin(y) * decay;
        error = std::max(error, std::fabs(f.values[n] - exact));
      }
  }
  EXPECT_LT(global_max(error), 1e-10);
}

TEST(SpectralNavierStokes, DivergenceStaysAtRoundOffInEveryStep) {
  auto solver = build({"mesh.dimensions=3", "mesh.nx=16", "mesh.ny=16", "mesh.nz=16", "cfd.initial=random",
                       "cfd.peak_wavenumber=3", "cfd.viscosity=0.01"},
                      MPI_COMM_WORLD);
  double t = 0;
  for (int n = 0; n < 10; ++n) {
    const double dt = solver->stable_dt(t);
    solver->step(t, dt);
    t += dt;
    EXPECT_LT(named(solver->diagnostics(t)).at("max_divergence"), 1e-12) << "step " << n;
  }
}

// Steps a solver with a fixed dt and returns (quantity(0) - quantity(T)) / integral of rate over
// [0, T], the integral by Simpson's rule on the step records (steps must be even).
double budget_ratio(meridian::solvers::Solver& solver, const std::string& quantity, const std::string& rate,
                    int steps, double dt) {
  const auto start = named(solver.diagnostics(0.0));
  std::vector<double> rates{start.at(rate)};
  double last = start.at(quantity);
  for (int n = 0; n < steps; ++n) {
    solver.step(n * dt, dt);
    const auto d = named(solver.diagnostics((n + 1) * dt));
    rates.push_back(d.at(rate));
    last = d.at(quantity);
  }
  double integral = rates.front() + rates.back();
  for (int n = 1; n < steps; ++n) integral += (n % 2 ? 4 : 2) * rates[n];
  return (start.at(quantity) - last) / (integral * dt / 3);
}

// The dealiased rotational form conserves energy exactly, so only viscosity removes it:
// E(0) - E(t) must equal the time integral of 2 nu enstrophy.
TEST(SpectralNavierStokes, TaylorGreenRe1600EnergyBudgetCloses) {
  auto solver = build({"mesh.dimensions=3", "mesh.nx=32", "mesh.ny=32", "mesh.nz=32", "cfd.dt=0.01"}, MPI_COMM_WORLD);
  const auto start = named(solver->diagnostics(0.0));
  EXPECT_NEAR(start.at("kinetic_energy"), 0.125, 1e-12 * 0.125);
  EXPECT_NEAR(start.at("dissipation"), 4.6875e-4, 1e-12 * 4.6875e-4);
  EXPECT_NEAR(budget_ratio(*solver, "kinetic_energy", "dissipation", 200, 0.01), 1.0, 1e-6);  // to t = 2
}

// Likewise the advection of a passive scalar conserves its variance; only diffusion removes it.
TEST(SpectralNavierStokes, PassiveScalarVarianceBudgetCloses) {
  auto solver = build({"mesh.dimensions=3", "mesh.nx=16", "mesh.ny=16", "mesh.nz=16", "cfd.dt=0.01",
                       "cfd.viscosity=0.01", "cfd.passive_scalar=true", "cfd.scalar_diffusivity=0.02"},
                      MPI_COMM_WORLD);
  EXPECT_NEAR(named(solver->diagnostics(0.0)).at("scalar_variance"), 0.0625, 1e-14);  // (1/2) <cos^2 cos^2 cos^2>
  EXPECT_NEAR(budget_ratio(*solver, "scalar_variance", "scalar_dissipation", 100, 0.01), 1.0, 1e-6);
  // The flow does carry it: sharpened gradients dissipate faster than diffusion alone, under
  // which theta = theta_0 exp(-3 kappa t) and the variance falls as exp(-6 kappa t).
  const double diffusion_only = 0.0625 * std::exp(-6 * 0.02 * 1.0);
  EXPECT_LT(named(solver->diagnostics(1.0)).at("scalar_variance"), 0.99 * diffusion_only);
}

// The same run on all ranks and on this rank alone: the spectra agree to round-off (the FFTs
// split their sums differently).
TEST(SpectralNavierStokes, SameResultOnAnyRankCount) {
  const std::vector<std::string> settings{"mesh.dimensions=3", "mesh.nx=16", "mesh.ny=12", "mesh.nz=8",
                                          "cfd.initial=random", "cfd.viscosity=0.02", "cfd.dt=0.02"};
  auto parallel = build(settings, MPI_COMM_WORLD);
  auto serial = build(settings, MPI_COMM_SELF);
  for (int n = 0; n < 5; ++n) {
    parallel->step(n * 0.02, 0.02);
    serial->step(n * 0.02, 0.02);
  }
  const auto mine = parallel->state(), whole = serial->state();
  double difference = 0, size = 0;
  for (int c = 0; c < 3; ++c) {
    const auto& box = mine[c].box;
    std::size_t n = 0;
    for (unsigned long long i = 0; i < box.count[0]; ++i)
      for (unsigned long long j = 0; j < box.count[1]; ++j)
        for (unsigned long long l = 0; l < box.count[2]; ++l, ++n)
          for (int part = 0; part < 2; ++part) {
            const std::size_t at = (((box.offset[0] + i) * box.global[1] + box.offset[1] + j) * box.global[2] + l) * 2 + part;
            difference = std::max(difference, std::fabs(mine[c].values[2 * n + part] - whole[c].values[at]));
            size = std::max(size, std::fabs(whole[c].values[at]));
          }
  }
  EXPECT_LT(global_max(difference), 1e-13 * global_max(size));
  EXPECT_NEAR(named(parallel->diagnostics(0.1)).at("kinetic_energy"), named(serial->diagnostics(0.1)).at("kinetic_energy"),
              1e-14);
}

}  // namespace

namespace {

// Orszag's rule keeps |k| < n/3 on every axis: on a grid divisible by 3 the modes at |k| = n/3 and
// beyond never receive anything, so they stay exactly zero step after step (a rule that kept
// |k| = n/3 would fill them from their aliases).
TEST(SpectralNavierStokes, ModesBeyondTheTwoThirdsCutStayExactlyZero) {
  const long n = 12;
  auto solver = build({"mesh.dimensions=3", "mesh.nx=12", "mesh.ny=12", "mesh.nz=12", "cfd.initial=random",
                       "cfd.peak_wavenumber=3", "cfd.viscosity=0.01", "cfd.dt=0.02"},
                      MPI_COMM_WORLD);
  for (int step = 0; step < 5; ++step) solver->step(step * 0.02, 0.02);
  const auto signed_index = [n](long i) { return 2 * i <= n ? i : i - n; };
  double beyond = 0, inside = 0;
  for (const auto& d : solver->state()) {
    const auto& box = d.box;
    std::size_t at = 0;
    for (unsigned long long i = 0; i < box.count[0]; ++i)
      for (unsigned long long j = 0; j < box.count[1]; ++j)
        for (unsigned long long l = 0; l < box.count[2]; ++l, at += 2) {
          const long kx = static_cast<long>(box.offset[0] + i), ky = signed_index(static_cast<long>(box.offset[1] + j));
          const long kz = signed_index(static_cast<long>(l));
          const double size = std::hypot(d.values[at], d.values[at + 1]);
          if (3 * kx >= n || 3 * std::abs(ky) >= n || 3 * std::abs(kz) >= n)
            beyond = std::max(beyond, size);
          else
            inside = std::max(inside, size);
        }
  }
  EXPECT_EQ(global_max(beyond), 0.0);
  EXPECT_GT(global_max(inside), 0.0);  // the flow itself is there
}

}  // namespace
