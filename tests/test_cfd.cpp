// The pseudo-spectral Navier-Stokes solver against exact solutions and its invariants.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <map>

#include "deck_for_tests.hpp"
#include "solvers/cfd/spectral_navier_stokes.hpp"
#include "tests/test_data.hpp"

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

// Calls f(x, y, z, value) for every grid point of this rank in the physical field `name`.
template <typename F>
void for_each_point(meridian::solvers::Solver& solver, const std::string& name, double length, F&& f) {
  for (const auto& d : solver.output_fields()) {
    if (d.box.name != name) continue;
    const auto& c = d.box.count;
    const auto& o = d.box.offset;
    const auto& g = d.box.global;
    const bool three_d = c.size() == 3;
    const std::size_t nz = three_d ? c[0] : 1, ny = c[three_d ? 1 : 0], nx = c[three_d ? 2 : 1];
    const auto coordinate = [&](std::size_t axis, std::size_t index) {
      return static_cast<double>(o[axis] + index) * length / static_cast<double>(g[axis]);
    };
    std::size_t at = 0;
    for (std::size_t k = 0; k < nz; ++k)
      for (std::size_t j = 0; j < ny; ++j)
        for (std::size_t i = 0; i < nx; ++i, ++at)
          f(coordinate(three_d ? 2 : 1, i), coordinate(three_d ? 1 : 0, j), three_d ? coordinate(0, k) : 0.0,
            d.values[at]);
  }
}

const std::vector<std::string> taylor_green_2d{"mesh.dimensions=2", "mesh.nx=32", "mesh.ny=32", "mesh.nz=1",
                                               "cfd.viscosity=0.05", "cfd.dt=0.01"};

TEST(SpectralNavierStokes, TaylorGreen2DMatchesTheExactSolutionAfter100Steps) {
  auto solver = build(taylor_green_2d, MPI_COMM_WORLD);
  for (int n = 0; n < 100; ++n) solver->step(n * 0.01, 0.01);
  const double t = 1.0, nu = 0.05, decay = std::exp(-2 * nu * t), length = 2 * std::acos(-1.0);
  double error = 0;
  for_each_point(*solver, "fields/u", length, [&](double x, double y, double, double value) {
    error = std::max(error, std::fabs(value - std::sin(x) * std::cos(y) * decay));
  });
  for_each_point(*solver, "fields/v", length, [&](double x, double y, double, double value) {
    error = std::max(error, std::fabs(value + std::cos(x) * std::sin(y) * decay));
  });
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

using Record = std::map<std::string, double>;

// Steps a solver with a fixed dt and returns (quantity(0) - quantity(T)) / integral of rate over
// [0, T], the integral by Simpson's rule on the step records (steps must be even).
double budget_ratio(meridian::solvers::Solver& solver, const std::string& quantity,
                    const std::function<double(const Record&)>& rate, int steps, double dt) {
  const auto start = named(solver.diagnostics(0.0));
  std::vector<double> rates{rate(start)};
  double last = start.at(quantity);
  for (int n = 0; n < steps; ++n) {
    solver.step(n * dt, dt);
    const auto d = named(solver.diagnostics((n + 1) * dt));
    rates.push_back(rate(d));
    last = d.at(quantity);
  }
  double integral = rates.front() + rates.back();
  for (int n = 1; n < steps; ++n) integral += (n % 2 ? 4 : 2) * rates[n];
  return (start.at(quantity) - last) / (integral * dt / 3);
}

std::function<double(const Record&)> diagnostic(const std::string& name) {
  return [name](const Record& d) { return d.at(name); };
}

// The 512^3 pseudo-spectral reference of the Re 1600 Taylor-Green vortex (tests/data): a row every
// 0.01 time units from t = 0, columns time, kinetic energy, -dE/dt, enstrophy.
constexpr double reference_interval = 0.01;
std::vector<std::array<double, 4>> taylor_green_reference() {
  std::ifstream file(test_data("tgv_re1600_spectral512.dat"));
  std::vector<std::array<double, 4>> rows;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    std::array<double, 4> r{};
    if (row >> r[0] >> r[1] >> r[2] >> r[3]) rows.push_back(r);
  }
  return rows;
}

// The dealiased rotational form conserves energy exactly, so only viscosity removes it:
// E(0) - E(t) must equal the time integral of 2 nu enstrophy.
TEST(SpectralNavierStokes, TaylorGreenRe1600EnergyBudgetCloses) {
  auto solver = build({"mesh.dimensions=3", "mesh.nx=32", "mesh.ny=32", "mesh.nz=32", "cfd.dt=0.01"}, MPI_COMM_WORLD);
  const auto start = named(solver->diagnostics(0.0));
  EXPECT_NEAR(start.at("kinetic_energy"), 0.125, 1e-12 * 0.125);
  EXPECT_NEAR(start.at("dissipation"), 4.6875e-4, 1e-12 * 4.6875e-4);
  EXPECT_NEAR(budget_ratio(*solver, "kinetic_energy", diagnostic("dissipation"), 200, 0.01), 1.0, 1e-6);  // to t = 2
}

// The largest relative differences of the kinetic energy and of the enstrophy from the 512^3
// reference at every step to t = end, on an n^3 grid. The step is a multiple of the reference's
// interval, so every record lands on one of its rows.
std::pair<double, double> taylor_green_difference(int n, double end) {
  const auto reference = taylor_green_reference();
  const double dt = 2 * reference_interval;
  const int steps = static_cast<int>(std::lround(end / dt)), stride = 2;
  const auto size = "=" + std::to_string(n);
  auto solver = build({"mesh.dimensions=3", "mesh.nx" + size, "mesh.ny" + size, "mesh.nz" + size,
                       "cfd.dt=" + std::to_string(dt)},
                      MPI_COMM_WORLD);
  EXPECT_GT(reference.size(), static_cast<std::size_t>(steps * stride)) << "reference rows read";
  double energy = 0, enstrophy = 0;
  for (int s = 1; s <= steps && reference.size() > static_cast<std::size_t>(steps * stride); ++s) {
    solver->step((s - 1) * dt, dt);
    const auto d = named(solver->diagnostics(s * dt));
    const auto& row = reference[s * stride];
    EXPECT_NEAR(row[0], s * dt, 1e-9) << "reference row " << s * stride;
    energy = std::max(energy, std::fabs(d.at("kinetic_energy") / row[1] - 1));
    enstrophy = std::max(enstrophy, std::fabs(d.at("enstrophy") / row[3] - 1));
  }
  std::cout << "  " << n << "^3 to t = " << end << ": kinetic energy within " << energy << ", enstrophy within "
            << enstrophy << " of the 512^3 reference\n";
  return {energy, enstrophy};
}

// While the grid still resolves the cascade (to about t = 3 at 32^3) a dealiased spectral solver
// must follow the 512^3 reference and close in on it quickly as the grid grows (measured:
// enstrophy within 2.3e-2 at 32^3 and 8.2e-3 at 48^3, energy within 7.3e-5 and 2.3e-5). A
// viscosity 1% high leaves the energy 1.4e-4 off at 48^3, a nonlinear term with one component 5%
// short 8e-4.
TEST(SpectralNavierStokes, TaylorGreenRe1600ConvergesToThe512Reference) {
  const auto [coarse_energy, coarse_enstrophy] = taylor_green_difference(32, 3.0);
  const auto [fine_energy, fine_enstrophy] = taylor_green_difference(48, 3.0);
  EXPECT_LT(fine_energy, 5e-5);
  EXPECT_LT(fine_enstrophy, 1.5e-2);
  EXPECT_LT(fine_energy, coarse_energy / 1.5);
  EXPECT_LT(fine_enstrophy, coarse_enstrophy / 1.5);
}

// Likewise the advection of a passive scalar conserves its variance; only diffusion removes it.
TEST(SpectralNavierStokes, PassiveScalarVarianceBudgetCloses) {
  auto solver = build({"mesh.dimensions=3", "mesh.nx=16", "mesh.ny=16", "mesh.nz=16", "cfd.dt=0.01",
                       "cfd.viscosity=0.01", "cfd.passive_scalar=true", "cfd.scalar_diffusivity=0.02"},
                      MPI_COMM_WORLD);
  EXPECT_NEAR(named(solver->diagnostics(0.0)).at("scalar_variance"), 0.0625, 1e-14);  // (1/2) <cos^2 cos^2 cos^2>
  EXPECT_NEAR(budget_ratio(*solver, "scalar_variance", diagnostic("scalar_dissipation"), 100, 0.01), 1.0, 1e-6);
  // The flow does carry it: sharpened gradients dissipate faster than diffusion alone, under
  // which theta = theta_0 exp(-3 kappa t) and the variance falls as exp(-6 kappa t).
  const double diffusion_only = 0.0625 * std::exp(-6 * 0.02 * 1.0);
  EXPECT_LT(named(solver->diagnostics(1.0)).at("scalar_variance"), 0.99 * diffusion_only);
}

// One short step from the 3-D Taylor-Green field against the analytic time derivative
// du/dt = -(u.grad)u - grad p + nu lap u, with p = (cos 2x + cos 2y)(cos 2z + 2)/16 and lap u = -3u:
// du/dt = -sin 2x cos 2z / 8, dv/dt = -sin 2y cos 2z / 8, dw/dt = (cos 2x + cos 2y) sin 2z / 8 (plus
// the viscous term). The difference quotient carries an O(dt) error; a deleted or sign-flipped
// nonlinear term is off by 1/8 or 1/4.
double taylor_green_tendency_error(double dt) {
  const double nu = 0.01, pi = std::acos(-1.0);
  auto solver = build({"mesh.dimensions=3", "mesh.nx=16", "mesh.ny=16", "mesh.nz=16", "cfd.viscosity=0.01",
                       "cfd.dt=" + std::to_string(dt)},
                      MPI_COMM_WORLD);
  solver->step(0.0, dt);
  double error = 0;
  const auto check = [&](const std::string& name, auto start, auto tendency) {
    for_each_point(*solver, name, 2 * pi, [&](double x, double y, double z, double value) {
      const double u0 = start(x, y, z);
      error = std::max(error, std::fabs((value - u0) / dt - (tendency(x, y, z) - 3 * nu * u0)));
    });
  };
  using std::cos, std::sin;
  check("fields/u", [](double x, double y, double z) { return sin(x) * cos(y) * cos(z); },
        [](double x, double, double z) { return -sin(2 * x) * cos(2 * z) / 8; });
  check("fields/v", [](double x, double y, double z) { return -cos(x) * sin(y) * cos(z); },
        [](double, double y, double z) { return -sin(2 * y) * cos(2 * z) / 8; });
  check("fields/w", [](double, double, double) { return 0.0; },
        [](double x, double y, double z) { return (cos(2 * x) + cos(2 * y)) * sin(2 * z) / 8; });
  return global_max(error);
}

TEST(SpectralNavierStokes, TaylorGreenTendencyMatchesTheNonlinearTermAndPressure) {
  const double coarse = taylor_green_tendency_error(1e-3), fine = taylor_green_tendency_error(1e-4);
  std::cout << "  tendency error: dt 1e-3 " << coarse << ", dt 1e-4 " << fine << "\n";
  EXPECT_LT(fine, 1e-4);
  EXPECT_NEAR(coarse / fine, 10.0, 2.0);  // first order in dt: the error is the difference quotient's
}

// Classical RK4 in the integrating-factor frame: fourth order in dt on a nonlinear random field
// (the error of each run against one at a quarter of the finest step, in every Fourier mode).
TEST(SpectralNavierStokes, RungeKuttaConvergesAtFourthOrder) {
  const double end = 0.4;
  const auto run = [end](int steps) {
    const double dt = end / steps;
    auto solver = build({"mesh.dimensions=3", "mesh.nx=16", "mesh.ny=16", "mesh.nz=16", "cfd.initial=random",
                         "cfd.peak_wavenumber=3", "cfd.viscosity=0.02", "cfd.dt=" + std::to_string(dt)},
                        MPI_COMM_WORLD);
    for (int n = 0; n < steps; ++n) solver->step(n * dt, dt);
    std::vector<double> values;
    for (const auto& d : solver->state()) values.insert(values.end(), d.values.begin(), d.values.end());
    return values;
  };
  const auto reference = run(64);
  std::vector<double> errors;
  for (int steps : {4, 8, 16}) {
    const auto values = run(steps);
    double e = 0;
    for (std::size_t k = 0; k < values.size(); ++k) e = std::max(e, std::fabs(values[k] - reference[k]));
    errors.push_back(global_max(e));
  }
  for (std::size_t k = 1; k < errors.size(); ++k) {
    const double order = std::log2(errors[k - 1] / errors[k]);
    std::cout << "  RK4 error " << errors[k] << ", order " << order << "\n";
    EXPECT_GE(order, 3.8);
  }
}

// A box of side 1: wavenumbers are multiples of 2 pi, so the 2-D Taylor-Green field decays as
// exp(-2 nu (2 pi)^2 t); a solver that took the wavenumbers as integers would barely decay.
TEST(SpectralNavierStokes, TaylorGreenInAUnitBoxDecaysWithItsOwnWavenumbers) {
  const double nu = 0.001, pi = std::acos(-1.0), t = 1.0;
  auto solver = build({"mesh.dimensions=2", "mesh.nx=16", "mesh.ny=16", "mesh.nz=1", "cfd.length=1.0",
                       "cfd.viscosity=0.001", "cfd.dt=0.01"},
                      MPI_COMM_WORLD);
  for (int n = 0; n < 100; ++n) solver->step(n * 0.01, 0.01);
  const double decay = std::exp(-2 * nu * 4 * pi * pi * t);
  double error = 0;
  for_each_point(*solver, "fields/u", 1.0, [&](double x, double y, double, double value) {
    error = std::max(error, std::fabs(value - std::sin(2 * pi * x) * std::cos(2 * pi * y) * decay));
  });
  EXPECT_LT(global_max(error), 1e-10);
  // Energy and dissipation carry the box's wavenumbers too: E = (1/4) decay^2 and 2 nu |k|^2 E with
  // |k|^2 = 2 (2 pi)^2.
  const auto d = named(solver->diagnostics(t));
  EXPECT_NEAR(d.at("kinetic_energy"), 0.25 * decay * decay, 1e-12);
  EXPECT_NEAR(d.at("dissipation"), 2 * nu * 8 * pi * pi * 0.25 * decay * decay, 1e-12);
}

// Linear forcing A u puts in 2 A E: E(0) - E(t) must equal the integral of dissipation - 2 A E.
TEST(SpectralNavierStokes, ForcedEnergyBudgetCloses) {
  const double a = 0.5;
  auto solver = build({"mesh.dimensions=3", "mesh.nx=16", "mesh.ny=16", "mesh.nz=16", "cfd.initial=random",
                       "cfd.peak_wavenumber=3", "cfd.viscosity=0.01", "cfd.forcing_rate=0.5", "cfd.dt=0.01"},
                      MPI_COMM_WORLD);
  const auto net_loss = [a](const Record& d) { return d.at("dissipation") - 2 * a * d.at("kinetic_energy"); };
  const double energy0 = named(solver->diagnostics(0.0)).at("kinetic_energy");
  EXPECT_NEAR(budget_ratio(*solver, "kinetic_energy", net_loss, 100, 0.01), 1.0, 1e-6);
  EXPECT_GT(named(solver->diagnostics(1.0)).at("kinetic_energy"), energy0);  // the forcing wins here
}

// The random initial field: the energy the deck asks for, a spectrum k^4 exp(-2 (k/k0)^2) that
// peaks in the shell of k0, shells that sum to the kinetic energy, and no divergence.
TEST(SpectralNavierStokes, RandomFieldHasTheRequestedEnergyAndSpectrum) {
  auto solver = build({"mesh.dimensions=3", "mesh.nx=32", "mesh.ny=32", "mesh.nz=32", "cfd.initial=random",
                       "cfd.peak_wavenumber=4", "cfd.initial_energy=0.3", "cfd.viscosity=0.01"},
                      MPI_COMM_WORLD);
  const auto d = named(solver->diagnostics(0.0));
  EXPECT_NEAR(d.at("kinetic_energy"), 0.3, 1e-12);
  EXPECT_LT(d.at("max_divergence"), 1e-12);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (const auto& f : solver->output_fields()) {
    if (f.box.name != "spectrum/energy" || rank != 0) continue;
    double total = 0;
    for (double e : f.values) total += e;
    EXPECT_NEAR(total, 0.3, 1e-12);
    const auto peak = std::max_element(f.values.begin(), f.values.end()) - f.values.begin();
    EXPECT_EQ(peak, 4);
    // Shell sums follow the model within the sampling of a shell by the grid's modes (from |k| = 3:
    // shell 2 holds 62 lattice modes where 4 pi k^2 counts 50, most of them at |k| > 2, where k^4 is
    // steep, and comes out 60% high).
    const auto model = [](double k) { return std::pow(k, 4) * std::exp(-2 * (k / 4) * (k / 4)); };
    for (int k : {3, 5, 6, 8}) EXPECT_NEAR(f.values[k] / f.values[4], model(k) / model(4), 0.25 * model(k) / model(4)) << k;
  }
}

// The spectrum shells of any field sum to its kinetic energy (the Taylor-Green field: all of its
// 0.125 in the shell |k| = sqrt 3, index 2).
TEST(SpectralNavierStokes, EnergySpectrumSumsToTheKineticEnergy) {
  auto solver = build({"mesh.dimensions=3", "mesh.nx=16", "mesh.ny=16", "mesh.nz=16"}, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (const auto& f : solver->output_fields())
    if (f.box.name == "spectrum/energy" && rank == 0) {
      EXPECT_NEAR(f.values.at(2), 0.125, 1e-14);
      double total = 0;
      for (double e : f.values) total += e;
      EXPECT_NEAR(total, 0.125, 1e-14);
    }
}

// dt = cfl / max over points of sum_i |u_i| / h_i: on the 16^3 grid the Taylor-Green field reaches
// |u| + |v| = 1 at x = y = pi/4, z = 0, so dt = cfl h with h = 2 pi / 16.
TEST(SpectralNavierStokes, TimeStepFollowsTheCflNumber) {
  auto solver = build({"mesh.dimensions=3", "mesh.nx=16", "mesh.ny=16", "mesh.nz=16", "cfd.cfl=0.5"}, MPI_COMM_WORLD);
  EXPECT_NEAR(solver->stable_dt(0.0), 0.5 * 2 * std::acos(-1.0) / 16, 1e-14);
  EXPECT_NEAR(named(solver->progress(solver->stable_dt(0.0))).at("cfl"), 0.5, 1e-14);
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
