#include "solvers/cfd/projection_solver.hpp"

#include <cmath>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "solvers/common/grid_config.hpp"
#include "solvers/common/kokkos_math.hpp"
#include "solvers/common/sparse/multigrid.hpp"

namespace meridian::cfd {

void declare_projection_keys(io::Schema& schema) {
  using io::KeyType;
  solvers::declare_mesh_keys(schema, solvers::MeshKind::stencil);
  const std::string s = "projection";
  schema.add({s, "length", KeyType::real, 1.0, "length", "side of the square domain", {}, 0, 1e12, true});
  schema.add({s, "viscosity", KeyType::real, 0.01, "length^2/time", "kinematic viscosity nu (the cavity: Re = U L / nu)",
              {}, 0, 1e6});
  schema.add({s, "courant", KeyType::real, 0.5, "1", "dt = courant h / max(|u| + |v|), and at most AB2's viscous limit",
              {}, 0, 1, true});
  schema.add({s, "dt", KeyType::real, 0.0, "time", "a fixed time step instead of the Courant one (0: use courant)", {}, 0, 1e6});
  schema.add({s, "wall_velocity", KeyType::real_list, std::vector<double>{0, 0, 0, 0}, "length/time",
              "tangential velocity of the walls [x = 0, x = L, y = 0, y = L] (v of the x walls, u of the y walls; "
              "the lid-driven cavity: [0, 0, 0, 1]); walls are the open boundaries of [mesh]",
              {}, -1e6, 1e6});
  schema.add({s, "body_force", KeyType::real_list, std::vector<double>{0, 0}, "length/time^2",
              "force per unit mass [x, y], e.g. the pressure gradient driving a periodic channel", {}, -1e12, 1e12});
  schema.add({s, "initial", KeyType::string, std::string("rest"), "",
              "rest: u = v = p = 0; taylor_green: u = sin(2 pi x / L) cos(2 pi y / L), v = -cos sin, its pressure",
              {"rest", "taylor_green"}});
  schema.add({s, "poisson_tolerance", KeyType::real, 1e-10, "1",
              "relative residual |b - A phi| / |b| the pressure Poisson solve reaches each step", {}, 0, 1e-2, true});
  schema.add({s, "poisson_max_iterations", KeyType::integer, 1000L, "iterations", "CG iterations allowed per solve", {},
              1, 1e7});
  schema.add({s, "preconditioner", KeyType::string, std::string("multigrid"), "",
              "multigrid: a geometric V-cycle (each rank's cells must halve down to at most 4096 in all); jacobi: "
              "the diagonal",
              {"multigrid", "jacobi"}});
  schema.add({s, "on_unconverged", KeyType::string, std::string("stop"), "",
              "what a Poisson solve that misses its tolerance does: stop the run with a message, or warn and go on",
              {"stop", "warn"}});
}

namespace {

ProjectionSettings settings_of(const io::Deck& deck) {
  ProjectionSettings s;
  s.grid = solvers::grid_spec(deck, MacProjection::halo_width);
  if (s.grid.dimensions != 2) deck.fail("mesh", "dimensions", "the projection solver is 2-D so far: set 2");
  if (s.grid.cells[0] != s.grid.cells[1]) deck.fail("mesh", "ny", "the projection solver's grid is square: ny = nx");
  if (s.grid.cells[0] < 4) deck.fail("mesh", "nx", "the projection solver needs nx >= 4");
  const auto& walls = deck.reals("projection", "wall_velocity");
  if (walls.size() != 4) deck.fail("projection", "wall_velocity", "expected four entries [x = 0, x = L, y = 0, y = L]");
  for (int axis = 0; axis < 2; ++axis)
    if (s.grid.boundary[axis] == mesh::Boundary::periodic && (walls[2 * axis] != 0 || walls[2 * axis + 1] != 0))
      deck.fail("projection", "wall_velocity",
                std::string("a wall velocity on the ") + (axis == 0 ? "x" : "y") + " faces needs walls there (mesh.boundary_" +
                    (axis == 0 ? "x" : "y") + " = \"open\"), not a periodic axis");
  const auto& force = deck.reals("projection", "body_force");
  if (force.size() != 2) deck.fail("projection", "body_force", "expected two entries [x, y]");
  s.mac.length = deck.real("projection", "length");
  s.mac.viscosity = deck.real("projection", "viscosity");
  s.mac.lower_wall = {walls[0], walls[2]};
  s.mac.upper_wall = {walls[1], walls[3]};
  s.mac.body_force = {force[0], force[1]};
  s.mac.poisson = {deck.real("projection", "poisson_tolerance"), static_cast<int>(deck.integer("projection", "poisson_max_iterations"))};
  s.mac.preconditioner = deck.string("projection", "preconditioner") == "jacobi" ? sparse::Preconditioner::jacobi
                                                                                  : sparse::Preconditioner::multigrid;
  s.courant = deck.real("projection", "courant");
  s.fixed_dt = deck.real("projection", "dt");
  s.stop_unconverged = deck.string("projection", "on_unconverged") == "stop";
  s.taylor_green = deck.string("projection", "initial") == "taylor_green";
  return s;
}

}  // namespace

void validate_projection(const io::Deck& deck, MPI_Comm comm) {
  const ProjectionSettings s = settings_of(deck);
  try {
    const mesh::Decomposition d(comm, s.grid);
    if (s.mac.preconditioner == sparse::Preconditioner::multigrid) sparse::Multigrid::check(d);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", e.key(), e.what());
  }
}

std::unique_ptr<solvers::Solver> build_projection(const io::Deck& deck, MPI_Comm comm) {
  const ProjectionSettings s = settings_of(deck);
  try {
    return std::make_unique<ProjectionSolver>(s, comm);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", e.key(), e.what());
  }
}

namespace {

using HostField = MacProjection::HostField;

// The initial state on the host, owned cells: u on the x-faces, v on the y-faces, p at the centres.
void initial_state(const ProjectionSettings& s, const mesh::Decomposition& d, double h, HostField& vel, HostField& p) {
  if (!s.taylor_green) return;
  const double k = 2 * pi / s.mac.length;
  for (long j = 0; j < d.local_cells(1); ++j)
    for (long i = 0; i < d.local_cells(0); ++i) {
      const double x = (d.offset(0) + i) * h, y = (d.offset(1) + j) * h;
      vel(0, 0, j + 1, i + 1) = std::sin(k * x) * std::cos(k * (y + h / 2));
      vel(1, 0, j + 1, i + 1) = -std::cos(k * (x + h / 2)) * std::sin(k * y);
      p(0, 0, j + 1, i + 1) = (std::cos(2 * k * (x + h / 2)) + std::cos(2 * k * (y + h / 2))) / 4;
    }
}

}  // namespace

ProjectionSolver::ProjectionSolver(const ProjectionSettings& settings, MPI_Comm comm)
    : s_(settings), mac_(settings.grid, settings.mac, comm) {
  auto vel = Kokkos::create_mirror_view(mac_.velocity());
  auto p = Kokkos::create_mirror_view(mac_.pressure());
  Kokkos::deep_copy(vel, 0.0);
  Kokkos::deep_copy(p, 0.0);
  initial_state(s_, mac_.decomposition(), mac_.spacing(), vel, p);
  mac_.set_state(vel, p);
  const char* fields[4][2] = {{"fields/u", "length/time"}, {"fields/v", "length/time"}, {"fields/p", "length^2/time^2"},
                              {"fields/vorticity", "1/time"}};
  for (const auto& f : fields) output_.push_back({box(f[0], f[1]), {}});
  for (const auto& b : state_layout()) staged_state_.push_back({b, {}});
  for (auto* sets : {&output_, &staged_state_})
    for (auto& d : *sets) d.values.resize(d.box.local_values());
}

io::DatasetBox ProjectionSolver::box(const std::string& name, const std::string& units) const {
  const auto& d = mac_.decomposition();
  io::DatasetBox b;
  b.name = name;
  b.global = {static_cast<unsigned long long>(d.global_cells(1)), static_cast<unsigned long long>(d.global_cells(0))};
  b.offset = {static_cast<unsigned long long>(d.offset(1)), static_cast<unsigned long long>(d.offset(0))};
  b.count = {static_cast<unsigned long long>(d.local_cells(1)), static_cast<unsigned long long>(d.local_cells(0))};
  b.units = units;
  io::Geometry g;
  g.dimensions = 2;
  g.spacing = {mac_.spacing(), mac_.spacing(), mac_.spacing()};
  b.geometry = g;
  return b;
}

double ProjectionSolver::stable_dt(double) { return s_.fixed_dt > 0 ? s_.fixed_dt : mac_.stable_dt(s_.courant); }

void ProjectionSolver::step(double, double dt) {
  mac_.step(dt);
  const sparse::SolveResult& r = mac_.last_solve();
  if (r.converged) return;
  std::ostringstream message;
  message << "projection: the pressure Poisson solve stopped at a relative residual of " << r.residual << " after "
          << r.iterations << " iterations, above projection.poisson_tolerance = " << s_.mac.poisson.tolerance
          << "; raise projection.poisson_max_iterations, use projection.preconditioner = \"multigrid\", or set "
             "projection.on_unconverged = \"warn\"";
  if (s_.stop_unconverged) throw std::runtime_error(message.str());
  int rank = 0;
  MPI_Comm_rank(mac_.decomposition().comm(), &rank);
  if (rank == 0 && warned_++ < 10) std::cerr << "warning: " << message.str() << std::endl;
}

// divergence_residual is max |div u| after the projection: zero but for the Poisson solve's residual.
std::vector<solvers::Scalar> ProjectionSolver::diagnostics(double) {
  const sparse::SolveResult& r = mac_.last_solve();
  return {{"kinetic_energy", mac_.kinetic_energy(), true, "length^4/time^2"},
          {"divergence_residual", mac_.max_divergence(), true, "1/time"},
          {"poisson_iterations", static_cast<double>(r.iterations), true, "1"},
          {"poisson_residual", r.residual, true, "1"}};
}

std::vector<solvers::Scalar> ProjectionSolver::progress(double) const {
  const sparse::SolveResult& r = mac_.last_solve();
  return {{"poisson_iterations", static_cast<double>(r.iterations), true, "1"}, {"poisson_residual", r.residual, true, "1"}};
}

double ProjectionSolver::work_per_step() const {
  return static_cast<double>(mac_.decomposition().global_cell_count());
}

std::string ProjectionSolver::layout() const {
  const auto& d = mac_.decomposition();
  std::ostringstream out;
  out << d.size() << " ranks as " << d.process_grid(0) << " x " << d.process_grid(1) << ", " << d.global_cells(0)
      << " x " << d.global_cells(1) << " cells, MAC grid, "
      << (s_.mac.preconditioner == sparse::Preconditioner::multigrid ? "multigrid" : "Jacobi") << "-preconditioned CG";
  return out.str();
}

// Cell-centred u, v (face averages), p, and the vorticity (the average of the cell's four corner values).
const std::vector<io::HostDataset>& ProjectionSolver::output_fields() {
  const auto vel = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mac_.velocity());
  const auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mac_.pressure());
  const auto& d = mac_.decomposition();
  const double h = mac_.spacing();
  const auto corner = [&](long j, long i) {
    return (vel(1, 0, j, i) - vel(1, 0, j, i - 1) - vel(0, 0, j, i) + vel(0, 0, j - 1, i)) / h;
  };
  std::size_t n = 0;
  for (long j = 1; j <= d.local_cells(1); ++j)
    for (long i = 1; i <= d.local_cells(0); ++i, ++n) {
      output_[0].values[n] = 0.5 * (vel(0, 0, j, i) + vel(0, 0, j, i + 1));
      output_[1].values[n] = 0.5 * (vel(1, 0, j, i) + vel(1, 0, j + 1, i));
      output_[2].values[n] = p(0, 0, j, i);
      output_[3].values[n] = 0.25 * (corner(j, i) + corner(j, i + 1) + corner(j + 1, i) + corner(j + 1, i + 1));
    }
  return output_;
}

std::vector<io::DatasetBox> ProjectionSolver::state_layout() const {
  std::vector<io::DatasetBox> boxes;
  const char* names[5][2] = {{"state/u", "length/time"},
                             {"state/v", "length/time"},
                             {"state/p", "length^2/time^2"},
                             {"state/tendency_u", "length/time^2"},
                             {"state/tendency_v", "length/time^2"}};
  for (const auto& n : names) {
    io::DatasetBox b = box(n[0], n[1]);
    b.geometry.reset();  // face values at the cells' lower faces: not cell data for a viewer
    boxes.push_back(b);
  }
  return boxes;
}

// The owned values of (field, component) in C order, to or from a dataset's values.
namespace {
template <class Copy>
void for_owned(const mesh::Decomposition& d, Copy&& copy) {
  std::size_t n = 0;
  for (long j = 1; j <= d.local_cells(1); ++j)
    for (long i = 1; i <= d.local_cells(0); ++i, ++n) copy(n, j, i);
}
}  // namespace

const std::vector<io::HostDataset>& ProjectionSolver::state() {
  const auto vel = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mac_.velocity());
  const auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mac_.pressure());
  const auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mac_.previous_tendency());
  for_owned(mac_.decomposition(), [&](std::size_t n, long j, long i) {
    staged_state_[0].values[n] = vel(0, 0, j, i), staged_state_[1].values[n] = vel(1, 0, j, i);
    staged_state_[2].values[n] = p(0, 0, j, i);
    staged_state_[3].values[n] = t(0, 0, j, i), staged_state_[4].values[n] = t(1, 0, j, i);
  });
  return staged_state_;
}

void ProjectionSolver::restore(const std::vector<io::HostDataset>& state) {
  auto vel = Kokkos::create_mirror_view(mac_.velocity());
  auto p = Kokkos::create_mirror_view(mac_.pressure());
  auto t = Kokkos::create_mirror_view(mac_.previous_tendency());
  for (auto* host : {&vel, &p, &t}) Kokkos::deep_copy(*host, 0.0);
  for_owned(mac_.decomposition(), [&](std::size_t n, long j, long i) {
    vel(0, 0, j, i) = state.at(0).values[n], vel(1, 0, j, i) = state.at(1).values[n];
    p(0, 0, j, i) = state.at(2).values[n];
    t(0, 0, j, i) = state.at(3).values[n], t(1, 0, j, i) = state.at(4).values[n];
  });
  mac_.restore(vel, p, t);
}

std::vector<solvers::Scalar> ProjectionSolver::state_scalars() const {
  return {{"first_step", mac_.next_step_is_first() ? 1.0 : 0.0, true, "1"}};
}

void ProjectionSolver::restore_scalars(const std::vector<solvers::Scalar>& scalars) {
  mac_.set_next_step_is_first(scalars.at(0).value != 0);
}

}  // namespace meridian::cfd
