#include "solvers/cfd/mac_projection.hpp"

#include <cmath>
#include <stdexcept>

#include "mesh/reductions.hpp"
#include "solvers/common/kokkos_math.hpp"

namespace meridian::cfd {

namespace {

// Which walls this rank holds, and their tangential velocities; kernels take it by value.
struct Walls {
  bool lower[2] = {false, false}, upper[2] = {false, false};
  double lower_velocity[2] = {0, 0}, upper_velocity[2] = {0, 0};
  int nx = 0, ny = 0;  // owned cells; the halo is one cell
};

Walls walls_of(const mesh::Decomposition& d, const MacSettings& s) {
  Walls w;
  for (int axis = 0; axis < 2; ++axis) {
    w.lower[axis] = !d.periodic(axis) && d.at_lower_boundary(axis);
    w.upper[axis] = !d.periodic(axis) && d.at_upper_boundary(axis);
    w.lower_velocity[axis] = s.lower_wall[axis], w.upper_velocity[axis] = s.upper_wall[axis];
  }
  w.nx = static_cast<int>(d.local_cells(0)), w.ny = static_cast<int>(d.local_cells(1));
  return w;
}

using Faces = Kokkos::MDRangePolicy<Kokkos::Rank<2>>;

Faces owned(const Walls& w) { return Faces({1, 1}, {w.ny + 1, w.nx + 1}); }

// The wall-normal velocity on a wall face is zero; the tangential one's ghost mirrors it about the wall
// velocity, so the average of ghost and first interior value is the wall's. x-walls first, then y-walls.
void apply_walls(const mesh::Field& f, const Walls w) {
  const int rows = w.ny + 2, columns = w.nx + 2;
  Kokkos::parallel_for(
      "mac::x_walls", Kokkos::RangePolicy<>(0, rows), KOKKOS_LAMBDA(const int j) {
        if (w.lower[0]) f(0, 0, j, 1) = 0, f(1, 0, j, 0) = 2 * w.lower_velocity[0] - f(1, 0, j, 1);
        if (w.upper[0]) f(0, 0, j, w.nx + 1) = 0, f(1, 0, j, w.nx + 1) = 2 * w.upper_velocity[0] - f(1, 0, j, w.nx);
      });
  Kokkos::parallel_for(
      "mac::y_walls", Kokkos::RangePolicy<>(0, columns), KOKKOS_LAMBDA(const int i) {
        if (w.lower[1]) f(1, 0, 1, i) = 0, f(0, 0, 0, i) = 2 * w.lower_velocity[1] - f(0, 0, 1, i);
        if (w.upper[1]) f(1, 0, w.ny + 1, i) = 0, f(0, 0, w.ny + 1, i) = 2 * w.upper_velocity[1] - f(0, 0, w.ny, i);
      });
}

// Advection (conservative, central) and viscosity of both components at every owned face.
void tendency(const mesh::Field& vel, const mesh::Field& out, const Walls w, double h, double nu, double fx, double fy) {
  const double quarter = 0.25 / h, diffusion = nu / (h * h);
  Kokkos::parallel_for(
      "mac::tendency", owned(w), KOKKOS_LAMBDA(const int j, const int i) {
        const auto u = [&](int jj, int ii) { return vel(0, 0, jj, ii); };
        const auto v = [&](int jj, int ii) { return vel(1, 0, jj, ii); };
        const double uu = (u(j, i) + u(j, i + 1)) * (u(j, i) + u(j, i + 1)) - (u(j, i - 1) + u(j, i)) * (u(j, i - 1) + u(j, i));
        const double uv_u = (u(j, i) + u(j + 1, i)) * (v(j + 1, i - 1) + v(j + 1, i)) -
                            (u(j - 1, i) + u(j, i)) * (v(j, i - 1) + v(j, i));
        const double lap_u = u(j, i + 1) + u(j, i - 1) + u(j + 1, i) + u(j - 1, i) - 4 * u(j, i);
        out(0, 0, j, i) = -quarter * (uu + uv_u) + diffusion * lap_u + fx;
        const double vv = (v(j, i) + v(j + 1, i)) * (v(j, i) + v(j + 1, i)) - (v(j - 1, i) + v(j, i)) * (v(j - 1, i) + v(j, i));
        const double uv_v = (u(j, i + 1) + u(j - 1, i + 1)) * (v(j, i) + v(j, i + 1)) -
                            (u(j, i) + u(j - 1, i)) * (v(j, i - 1) + v(j, i));
        const double lap_v = v(j, i + 1) + v(j, i - 1) + v(j + 1, i) + v(j - 1, i) - 4 * v(j, i);
        out(1, 0, j, i) = -quarter * (uv_v + vv) + diffusion * lap_v + fy;
      });
}

// u += dt (a N + b N_old) - dt grad p, on the faces that are not walls.
void predict(const mesh::Field& vel, const mesh::Field& n, const mesh::Field& n_old, const mesh::Field& p,
             const Walls w, double dt, double a, double b, double h) {
  Kokkos::parallel_for(
      "mac::predict", owned(w), KOKKOS_LAMBDA(const int j, const int i) {
        if (!(w.lower[0] && i == 1))
          vel(0, 0, j, i) += dt * (a * n(0, 0, j, i) + b * n_old(0, 0, j, i) - (p(0, 0, j, i) - p(0, 0, j, i - 1)) / h);
        if (!(w.lower[1] && j == 1))
          vel(1, 0, j, i) += dt * (a * n(1, 0, j, i) + b * n_old(1, 0, j, i) - (p(0, 0, j, i) - p(0, 0, j - 1, i)) / h);
      });
}

// rhs = -div(u*) / dt per cell, in the Poisson operator's row order.
void divergence_rhs(const mesh::Field& vel, const sparse::Vector& rhs, const Walls w, double h, double dt) {
  const double scale = -1 / (h * dt);
  Kokkos::parallel_for(
      "mac::divergence", owned(w), KOKKOS_LAMBDA(const int j, const int i) {
        rhs((j - 1) * w.nx + i - 1) = scale * (vel(0, 0, j, i + 1) - vel(0, 0, j, i) + vel(1, 0, j + 1, i) - vel(1, 0, j, i));
      });
}

void to_field(const sparse::Vector& values, const mesh::Field& f, const Walls w) {
  Kokkos::parallel_for(
      "mac::to_field", owned(w), KOKKOS_LAMBDA(const int j, const int i) { f(0, 0, j, i) = values((j - 1) * w.nx + i - 1); });
}

// u -= dt grad phi on the faces that are not walls; p += phi.
void correct(const mesh::Field& vel, const mesh::Field& p, const mesh::Field& phi, const Walls w, double dt, double h) {
  Kokkos::parallel_for(
      "mac::correct", owned(w), KOKKOS_LAMBDA(const int j, const int i) {
        if (!(w.lower[0] && i == 1)) vel(0, 0, j, i) -= dt * (phi(0, 0, j, i) - phi(0, 0, j, i - 1)) / h;
        if (!(w.lower[1] && j == 1)) vel(1, 0, j, i) -= dt * (phi(0, 0, j, i) - phi(0, 0, j - 1, i)) / h;
        p(0, 0, j, i) += phi(0, 0, j, i);
      });
}

double max_speed(const mesh::Field& vel, const Walls w, MPI_Comm comm) {
  double local = 0;
  Kokkos::parallel_reduce(
      "mac::max_speed", owned(w),
      KOKKOS_LAMBDA(const int j, const int i, double& m) {
        const double s = km::fabs(vel(0, 0, j, i)) + km::fabs(vel(1, 0, j, i));
        m = s > m ? s : m;
      },
      Kokkos::Max<double>(local));
  return mesh::global_max(local, comm);
}

double max_abs_divergence(const mesh::Field& vel, const Walls w, double h, MPI_Comm comm) {
  double local = 0;
  Kokkos::parallel_reduce(
      "mac::max_divergence", owned(w),
      KOKKOS_LAMBDA(const int j, const int i, double& m) {
        const double d = km::fabs(vel(0, 0, j, i + 1) - vel(0, 0, j, i) + vel(1, 0, j + 1, i) - vel(1, 0, j, i)) / h;
        m = d > m ? d : m;
      },
      Kokkos::Max<double>(local));
  return mesh::global_max(local, comm);
}

mesh::GridSpec checked(const mesh::GridSpec& grid) {
  if (grid.dimensions != 2 || grid.halo_width != MacProjection::halo_width || grid.cells[0] != grid.cells[1])
    throw std::logic_error("MacProjection: a 2-D square grid with a halo of one cell");
  return grid;
}

}  // namespace

MacProjection::MacProjection(const mesh::GridSpec& grid, const MacSettings& settings, MPI_Comm comm)
    : settings_(settings), decomp_(comm, checked(grid)), h_(settings.length / static_cast<double>(grid.cells[0])),
      exchange_(decomp_, 2), velocity_(mesh::make_field(decomp_, 2, "mac::velocity")),
      tendency_(mesh::make_field(decomp_, 2, "mac::tendency")),
      previous_tendency_(mesh::make_field(decomp_, 2, "mac::previous_tendency")),
      pressure_(mesh::make_field(decomp_, 1, "mac::pressure")), correction_(mesh::make_field(decomp_, 1, "mac::phi")) {
  problem_.spacing = {h_, h_, h_};  // every wall face takes zero normal gradient, the default
  poisson_ = std::make_unique<sparse::PoissonOperator>(decomp_, problem_);
  cg_ = std::make_unique<sparse::ConjugateGradient>(*poisson_, decomp_, problem_, settings.preconditioner);
  rhs_ = sparse::Vector("mac::rhs", poisson_->rows());
  phi_ = sparse::Vector("mac::phi_rows", poisson_->rows());
}

MacProjection::~MacProjection() = default;

void MacProjection::fill_velocity_halos(const mesh::Field& velocity) {
  exchange_.exchange(velocity, mesh::Corners::fill);
  apply_walls(velocity, walls_of(decomp_, settings_));
}

void MacProjection::set_state(const HostField& velocity, const HostField& pressure) {
  Kokkos::deep_copy(velocity_, velocity);
  Kokkos::deep_copy(pressure_, pressure);
  fill_velocity_halos(velocity_);
  exchange_.exchange(pressure_);
  first_step_ = true;
}

void MacProjection::restore(const HostField& velocity, const HostField& pressure, const HostField& previous_tendency) {
  const bool first = first_step_;
  set_state(velocity, pressure);
  Kokkos::deep_copy(previous_tendency_, previous_tendency);
  first_step_ = first;
}

double MacProjection::kinetic_energy() const {
  const Walls w = walls_of(decomp_, settings_);
  const mesh::Field vel = velocity_;
  double local = 0;
  Kokkos::parallel_reduce(
      "mac::kinetic_energy", owned(w),
      KOKKOS_LAMBDA(const int j, const int i, double& e) {
        e += 0.5 * (vel(0, 0, j, i) * vel(0, 0, j, i) + vel(1, 0, j, i) * vel(1, 0, j, i));
      },
      local);
  return mesh::global_sum(local, decomp_.comm()) * h_ * h_;
}

double MacProjection::stable_dt(double courant) const {
  const double speed = max_speed(velocity_, walls_of(decomp_, settings_), decomp_.comm());
  // AB2 is stable on [-1, 0] of the real axis, and the 2-D Laplacian's largest eigenvalue is 8 nu / h^2:
  // 0.1 h^2 / nu leaves a margin of 1.25.
  const double viscous = settings_.viscosity > 0 ? 0.1 * h_ * h_ / settings_.viscosity : 1e300;
  return speed > 0 ? std::min(courant * h_ / speed, viscous) : viscous;
}

void MacProjection::step(double dt) {
  const Walls w = walls_of(decomp_, settings_);
  tendency(velocity_, tendency_, w, h_, settings_.viscosity, settings_.body_force[0], settings_.body_force[1]);
  const double a = first_step_ ? 1.0 : 1.5, b = first_step_ ? 0.0 : -0.5;
  predict(velocity_, tendency_, previous_tendency_, pressure_, w, dt, a, b, h_);
  fill_velocity_halos(velocity_);
  divergence_rhs(velocity_, rhs_, w, h_, dt);
  Kokkos::deep_copy(phi_, 0.0);
  last_solve_ = cg_->solve(rhs_, phi_, settings_.poisson);
  to_field(phi_, correction_, w);
  exchange_.exchange(correction_);
  correct(velocity_, pressure_, correction_, w, dt, h_);
  fill_velocity_halos(velocity_);
  exchange_.exchange(pressure_);
  std::swap(tendency_, previous_tendency_);
  first_step_ = false;
}

double MacProjection::max_divergence() const {
  return max_abs_divergence(velocity_, walls_of(decomp_, settings_), h_, decomp_.comm());
}

}  // namespace meridian::cfd
