#pragma once
// The core of the projection solver of issue #11: incompressible Navier-Stokes on a uniform staggered (MAC)
// grid in 2-D, on the Cartesian decomposition of mesh/. u lives on the x-faces and v on the y-faces (a cell's
// lower faces, stored at the cell's index), p at the cell centres. Conservative central advection and
// viscosity explicit by Adams-Bashforth 2 (Euler on the first step), then an incremental pressure
// correction: u* with the old pressure gradient, A phi = -div(u*)/dt by CG (solvers/common/sparse), u =
// u* - dt grad(phi), p += phi. The discrete divergence of the result is zero to the Poisson tolerance,
// because A is exactly minus the divergence of the gradient on this grid, walls included.
// Boundaries per axis: periodic, or no-slip walls on both sides with a tangential wall velocity each (the
// moving lid). Not yet a deck solver: inflow, outflow, bodies and 3-D are still to come.
#include <array>
#include <memory>

#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"
#include "mesh/halo_exchange.hpp"
#include "solvers/common/sparse/conjugate_gradient.hpp"

namespace meridian::cfd {

struct MacSettings {
  double length = 1;     // of the square domain's sides
  double viscosity = 0.01;
  // Tangential velocity of each wall, per axis of the wall's normal: [0] the walls x = 0 and x = L (their v),
  // [1] the walls y = 0 and y = L (their u). Ignored on periodic axes.
  std::array<double, 2> lower_wall{0, 0}, upper_wall{0, 0};
  std::array<double, 2> body_force{0, 0};  // per unit mass
  sparse::SolverSettings poisson{1e-10, 10000};
  sparse::Preconditioner preconditioner = sparse::Preconditioner::multigrid;
};

class MacProjection {
 public:
  static constexpr int halo_width = 1;
  // `grid` must be 2-D with a halo of 1; non-periodic axes are walls.
  MacProjection(const mesh::GridSpec& grid, const MacSettings& settings, MPI_Comm comm);
  ~MacProjection();

  // The largest stable dt: courant * h / max(|u| + |v|) and the viscous limit of explicit AB2.
  double stable_dt(double courant) const;
  void step(double dt);
  // Max over cells of |div u| h / max|u| after the last projection (relative to the velocity scale).
  double max_divergence() const;
  const sparse::SolveResult& last_solve() const { return last_solve_; }

  // Velocity components (0: u on x-faces, 1: v on y-faces) and pressure, with halos; index (c, 0, j, i).
  const mesh::Field& velocity() const { return velocity_; }
  const mesh::Field& pressure() const { return pressure_; }
  using HostField = mesh::Field::HostMirror;
  // Sets the fields from host copies shaped like velocity() and pressure() (owned cells; halos are filled
  // here); marks the next step as the first.
  void set_state(const HostField& velocity, const HostField& pressure);
  // Everything a bitwise restart needs besides velocity and pressure: AB2's previous tendency, and
  // whether the next step is a first one.
  const mesh::Field& previous_tendency() const { return previous_tendency_; }
  bool next_step_is_first() const { return first_step_; }
  void set_next_step_is_first(bool first) { first_step_ = first; }
  // Sets velocity, pressure and the previous tendency; leaves next_step_is_first as it is.
  void restore(const HostField& velocity, const HostField& pressure, const HostField& previous_tendency);
  // Kinetic energy per unit mass, sum over faces of (u^2 + v^2) / 2 times the cell area (collective).
  double kinetic_energy() const;
  const mesh::Decomposition& decomposition() const { return decomp_; }
  double spacing() const { return h_; }

 private:
  void fill_velocity_halos(const mesh::Field& velocity);

  MacSettings settings_;
  mesh::Decomposition decomp_;
  double h_;
  mesh::HaloExchange exchange_;
  mesh::Field velocity_, tendency_, previous_tendency_, pressure_, correction_;
  sparse::PoissonProblem problem_;
  std::unique_ptr<sparse::PoissonOperator> poisson_;
  std::unique_ptr<sparse::ConjugateGradient> cg_;
  sparse::Vector rhs_, phi_;
  sparse::SolveResult last_solve_;
  bool first_step_ = true;
};

}  // namespace meridian::cfd
