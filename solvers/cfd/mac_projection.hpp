#pragma once
// The core of the projection solver of issue #11: incompressible Navier-Stokes on a uniform staggered (MAC)
// grid in 2-D and 3-D, on the Cartesian decomposition of mesh/ (mac_grid.hpp has the layout). Advection is
// conservative, central or QUICK, by Adams-Bashforth 2 (Euler on the first step); viscosity explicit in the
// same AB2 or Crank-Nicolson (crank_nicolson.hpp). Then an incremental pressure correction: u* with the old
// pressure gradient, immersed bodies forced onto u* (immersed_bodies.hpp), A phi = -div(u*)/dt by CG
// (solvers/common/sparse), u = u* - dt grad(phi), p += phi. The discrete divergence of the result is zero to
// the Poisson tolerance, because A is exactly minus the divergence of the gradient on this grid, boundaries
// included. Domain faces per axis and side: mac_boundaries.hpp.
// With immersed bodies A stays the whole grid's (separable) Laplacian; only the right-hand side changes: a
// source cell of the bodies (ImmersedBodies::source_cells: its centre inside a body, or every face of it
// forced) gets 0 (or, with no face holding p, the fluid's net source shared out), so every other cell, those
// cut by a surface included, ends divergence-free, while the source cells keep the mass source the forcing's
// targets leave there (Kim, Kim & Choi 2001 put it in the equation as q). phi and p there are then the
// discrete harmonic extension of their values around, bounded, and are what a free face beside such a cell
// (where the surface cuts a grid line short) sees in grad p.
#include <array>
#include <limits>
#include <memory>
#include <vector>

#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"
#include "mesh/halo_exchange.hpp"
#include "solvers/cfd/crank_nicolson.hpp"
#include "solvers/cfd/immersed_bodies.hpp"
#include "solvers/cfd/mac_boundaries.hpp"
#include "solvers/cfd/pressure_probes.hpp"
#include "solvers/cfd/viscous_direct.hpp"
#include "solvers/common/direct_poisson/direct_poisson.hpp"
#include "solvers/common/sparse/conjugate_gradient.hpp"
#include "solvers/common/sparse/poisson_stencil.hpp"

namespace meridian::cfd {

enum class ViscousScheme { explicit_ab2, crank_nicolson };
// How the pressure Poisson equation is solved: automatic takes the direct solver wherever its pencils fit the
// ranks (every grid is uniform per axis with per-axis face conditions, so its operator is separable), else CG.
enum class PressureSolver { automatic, direct, krylov };
// Whether `choice` takes the direct solver on `decomp`.
bool uses_direct_solver(const mesh::Decomposition& decomp, PressureSolver choice);

struct MacSettings {
  std::array<double, 3> length{1, 1, 1};  // of the domain along each axis
  double viscosity = 0.01;
  BoundarySettings boundaries;             // on the open axes of the grid
  std::array<double, 3> body_force{0, 0, 0};  // per unit mass
  sparse::SolverSettings poisson{1e-10, 10000};  // also the Crank-Nicolson solve's
  sparse::Preconditioner preconditioner = sparse::Preconditioner::multigrid;  // of the Krylov pressure solve
  PressureSolver pressure_solver = PressureSolver::automatic;
  ViscousScheme viscous = ViscousScheme::explicit_ab2;
  AdvectionScheme advection = AdvectionScheme::central;
  std::vector<BodySpec> bodies;  // immersed, stationary
};

class MacProjection {
 public:
  static constexpr int halo_width = advection4_reach;  // central4's; QUICK reads two faces away
  // `grid` must have a halo of halo_width; its open axes take the faces of settings.boundaries.
  MacProjection(const mesh::GridSpec& grid, const MacSettings& settings, MPI_Comm comm);
  ~MacProjection();

  // The largest stable dt: courant / max(sum |u_a| / h_a), and for explicit viscosity AB2's viscous limit.
  double stable_dt(double courant) const;
  // Advances from `time` (the inflow ramp's clock) by dt.
  void step(double time, double dt);
  // Max over the cells where continuity holds (all but the bodies' source cells) of |div u| after the last
  // projection.
  double max_divergence() const;
  // Max over cells of |r|, r = rhs - A phi the last projection's Poisson residual (collective): the fluid
  // cells' divergence after it is -dt r.
  double max_poisson_residual() const;
  const sparse::SolveResult& last_solve() const { return last_solve_; }
  // For the direct pressure solve, which has no residual of its own: measures the last solve's relative residual
  // |b - A phi| / |b| (one product with the operator; collective) into last_solve(). Nothing for CG's.
  void measure_poisson_residual();
  bool direct_pressure_solve() const { return direct_ != nullptr; }
  bool direct_viscous_solve() const { return viscous_direct_ != nullptr; }
  const sparse::SolveResult& last_viscous_solve() const { return last_viscous_solve_; }

  // Velocity components (c: on the lower c-faces) and pressure, with halos; index (c, z, y, x).
  const mesh::Field& velocity() const { return velocity_; }
  const mesh::Field& pressure() const { return pressure_; }
  using HostField = mesh::Field::HostMirror;
  // Sets the fields from host copies shaped like velocity() and pressure() (owned cells; halos are filled
  // here); marks the next step as the first (forward Euler for the explicit terms).
  void set_state(const HostField& velocity, const HostField& pressure);
  // Everything a bitwise restart needs besides velocity and pressure: AB2's previous tendency, and the
  // length of the step that computed it (0 when the next step is a first one).
  const mesh::Field& previous_tendency() const { return previous_tendency_; }
  double previous_step() const { return previous_dt_; }
  void set_previous_step(double dt) { previous_dt_ = dt; }
  // Sets velocity, pressure and the previous tendency; leaves previous_step as it is.
  void restore(const HostField& velocity, const HostField& pressure, const HostField& previous_tendency);
  // Kinetic energy per unit mass, sum over faces of |u|^2 / 2 times the cell volume (collective).
  double kinetic_energy() const;
  const mesh::Decomposition& decomposition() const { return decomp_; }
  const MacGrid& grid() const { return boundaries_.grid(); }
  // The immersed bodies; null when there are none.
  const ImmersedBodies* bodies() const { return bodies_.get(); }
  // Probes reading the pressure at `points` (solvers/cfd/pressure_probes.hpp: interpolated where continuity
  // holds; on a body's surface, extrapolated along the normal), and their reading now (collective).
  PressureProbes pressure_probes(const std::vector<std::array<double, 3>>& points) const;
  std::vector<double> probe_pressures(const PressureProbes& probes) const { return probes.read(pressure_, fluid_); }
  double spacing(int axis) const { return boundaries_.grid().h[axis]; }

 private:
  void force_explicit_prediction(double time, double dt);

  MacSettings settings_;
  mesh::Decomposition decomp_;
  MacBoundaries boundaries_;
  mesh::HaloExchange scalar_exchange_;
  mesh::Field velocity_, tendency_, previous_tendency_, viscous_, increment_, pressure_, correction_;
  std::unique_ptr<CrankNicolson> crank_nicolson_;
  std::unique_ptr<ViscousDirect> viscous_direct_;  // the Crank-Nicolson step solved directly, where separable
  std::unique_ptr<ImmersedBodies> bodies_;
  mesh::Field start_;  // u^n, while the bodies force the explicit prediction (Crank-Nicolson)
  mesh::Field fluid_;  // 1 in the cells where continuity holds, 0 in the bodies' source cells; with halos
  mesh::Field fourth_order_;  // central4 only: 1 in the cells whose faces take advection4 (fourth_order_cells)
  double body_cells_ = 0;  // how many source cells, over all ranks
  sparse::PoissonProblem problem_;
  sparse::PoissonStencil stencil_;  // the operator's product without its matrix, for the residuals
  std::unique_ptr<sparse::PoissonOperator> poisson_;  // assembled for the Krylov pressure solve only
  std::unique_ptr<sparse::ConjugateGradient> cg_;     // the Krylov pressure solve, or
  std::unique_ptr<direct_poisson::DirectPoisson> direct_;  // the direct one
  sparse::Vector rhs_, phi_;
  sparse::SolveResult last_solve_, last_viscous_solve_;
  // AB2's weights follow the ratio of this step to the last: the fixed 3/2 and -1/2 are first order in time
  // wherever the step changes (a Courant limit that moves, the equal steps into an output time).
  double previous_dt_ = 0;
  // The time at which velocity_'s halos were last filled as a state (Fill::state): each step ends with that fill,
  // so the next, at that time, need not start with it (a halo exchange and three boundary launches). NaN: not
  // since the owned values last changed.
  double state_filled_at_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace meridian::cfd
