#include "solvers/cfd/projection_solver.hpp"

#include <cmath>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "parallel/copies.hpp"
#include "parallel/device_memory.hpp"
#include "parallel/fill.hpp"
#include "solvers/common/grid_config.hpp"
#include "solvers/common/kokkos_math.hpp"
#include "solvers/common/memory_budget.hpp"
#include "solvers/common/sparse/multigrid.hpp"

namespace meridian::cfd {

void declare_projection_keys(io::Schema& schema) {
  using io::KeyType;
  solvers::declare_mesh_keys(schema, solvers::MeshKind::stencil);
  const std::string s = "projection";
  schema.add({s, "domain", KeyType::real_list, std::vector<double>{1, 1, 1}, "length",
              "extents [x, y, z] of the box [0, x] x [0, y] x [0, z] (z unused in 2-D); h = extent / cells per axis",
              {}, 0, 1e12, true});
  schema.add({s, "viscosity", KeyType::real, 0.01, "length^2/time", "kinematic viscosity nu (the cavity: Re = U L / nu)",
              {}, 0, 1e6});
  schema.add({s, "viscous_scheme", KeyType::string, std::string("crank_nicolson"), "",
              "crank_nicolson: implicit, no viscous time-step limit; explicit: in the Adams-Bashforth 2 step with advection",
              {"crank_nicolson", "explicit"}});
  schema.add({s, "advection_scheme", KeyType::string, std::string("central"), "",
              "central: second-order conservative; quick: upwind-biased third-order interpolation (Leonard 1979), for "
              "higher Reynolds numbers; central4: fourth-order conservative (Morinishi et al. 1998) where its stencil "
              "(three cells along each axis) meets no body or open boundary, central there",
              {"central", "quick", "central4"}});
  schema.add({s, "courant", KeyType::real, 0.5, "1",
              "dt = courant / max(sum |u_a| / h_a), and with explicit viscosity at most AB2's viscous limit", {}, 0, 1, true});
  schema.add({s, "dt", KeyType::real, 0.0, "time", "a fixed time step instead of the Courant one (0: use courant)", {}, 0, 1e6});
  schema.add({s, "faces", KeyType::string_list, std::vector<std::string>{}, "",
              "the domain faces [x_lower, x_upper, y_lower, y_upper(, z_lower, z_upper)]: periodic on the periodic axes "
              "of [mesh], else wall, free_slip, inflow or outflow (pressure 0); empty: walls on every open axis",
              {"periodic", "wall", "free_slip", "inflow", "outflow"}});
  schema.add({s, "wall_velocity", KeyType::real_list, std::vector<double>{}, "length/time",
              "each face's wall velocity along its first tangential axis (x faces: v; y and z faces: u), in the order "
              "of faces; empty: all 0 (the lid-driven cavity: [0, 0, 0, 1])",
              {}, -1e6, 1e6});
  schema.add({s, "inflow_profile", KeyType::string, std::string("uniform"), "",
              "uniform, or parabolic (4 U y (H - y) / H^2 across each tangential axis, the channel's Poiseuille inflow)",
              {"uniform", "parabolic"}});
  schema.add({s, "inflow_velocity", KeyType::real, 1.0, "length/time",
              "the inflow's normal velocity: its value (uniform) or its maximum (parabolic)", {}, 0, 1e6});
  schema.add({s, "inflow_ramp_time", KeyType::real, 0.0, "time",
              "the inflow grows as sin^2(pi t / 2 T) until t = T (0: at full speed from the start)", {}, 0, 1e12});
  schema.add({s, "outflow", KeyType::string, std::string("zero_gradient"), "",
              "an outflow face's normal velocity before the projection: zero_gradient, or convective (d/dt + U d/dn = "
              "0 with the face's mean outgoing velocity U)",
              {"zero_gradient", "convective"}});
  schema.add({s, "body_force", KeyType::real_list, std::vector<double>{0, 0, 0}, "length/time^2",
              "force per unit mass [x, y, z], e.g. the pressure gradient driving a periodic channel", {}, -1e12, 1e12});
  schema.add({s, "initial", KeyType::string, std::string("rest"), "",
              "rest: u = p = 0; taylor_green: u = sin(kx) cos(ky) [cos(kz)], v = -cos(kx) sin(ky) [cos(kz)], w = 0, "
              "k = 2 pi / the x extent, and its pressure",
              {"rest", "taylor_green"}});
  schema.add({s, "poisson_tolerance", KeyType::real, 1e-10, "1",
              "relative residual |b - A phi| / |b| the pressure Poisson solve (and the Crank-Nicolson solve) reaches each "
              "step",
              {}, 0, 1e-2, true});
  schema.add({s, "poisson_max_iterations", KeyType::integer, 1000L, "iterations", "CG iterations allowed per solve", {},
              1, 1e7});
  schema.add({s, "pressure_solver", KeyType::string, std::string("auto"), "",
              "direct: real transforms along x (and y in 3-D) and a tridiagonal solve per mode along the last axis, "
              "exact to round-off (each axis must have at least as many cells as the ranks its pencils split it over); "
              "krylov: conjugate gradients to projection.poisson_tolerance; auto: direct where its pencils fit the "
              "ranks, else krylov. Without bodies the Crank-Nicolson viscous step goes with it: solved directly "
              "(the same transforms, shifted) where the pressure is, else by CG",
              {"auto", "direct", "krylov"}});
  schema.add({s, "preconditioner", KeyType::string, std::string("multigrid"), "",
              "of the Krylov pressure solve. multigrid: a geometric V-cycle (each rank's cells must halve down to at "
              "most 4096 in all); jacobi: the diagonal",
              {"multigrid", "jacobi"}});
  schema.add({s, "pressure_probes", KeyType::real_list, std::vector<double>{}, "length",
              "two points [x_a, y_a(, z_a), x_b, y_b(, z_b)] whose pressure difference p(a) - p(b) is a diagnostic "
              "(Schaefer-Turek's dP: [0.15, 0.2, 0.25, 0.2]); a point on a circle's or sphere's surface reads the wall "
              "value, extrapolated along the normal; empty: none",
              {}, 0, 1e12});
  schema.add({s, "on_unconverged", KeyType::string, std::string("stop"), "",
              "what a solve that misses its tolerance does: stop the run with a message, or warn and go on",
              {"stop", "warn"}});
  const std::string b = "bodies";
  schema.add({b, "shapes", KeyType::string_list, std::vector<std::string>{}, "",
              "immersed solid bodies, one entry each: circle (a cylinder along z in 3-D), sphere, or naca (a NACA "
              "4-digit section, extruded along z in 3-D); empty: none",
              {"circle", "sphere", "naca"}});
  schema.add({b, "centres", KeyType::real_list, std::vector<double>{}, "length",
              "each body's centre [x, y(, z)] one after the other (naca: its quarter-chord point)", {}, -1e12, 1e12});
  schema.add({b, "sizes", KeyType::real_list, std::vector<double>{}, "length",
              "each body's diameter (naca: its chord)", {}, 0, 1e12, true});
  schema.add({b, "naca_code", KeyType::string, std::string("0012"), "",
              "the 4 digits MPTT of every naca body: camber M %, its position P tenths, thickness TT %", {}});
  schema.add({b, "angles_of_attack", KeyType::real_list, std::vector<double>{}, "degrees",
              "each body's angle of attack, nose up for a flow along +x (ignored for circles and spheres); empty: all 0",
              {}, -90, 90});
  schema.add({b, "reference_velocity", KeyType::real, 1.0, "length/time",
              "U in the force coefficients c = 2 F / (U^2 A) (Schaefer-Turek: the mean inflow, 2/3 of its maximum)", {},
              0, 1e12, true});
  schema.add({b, "reference_length", KeyType::real, 1.0, "length",
              "A in the coefficients in 2-D, per unit depth (a cylinder: its diameter)", {}, 0, 1e12, true});
  schema.add({b, "reference_area", KeyType::real, 1.0, "length^2", "A in the coefficients in 3-D (a sphere: pi D^2 / 4)",
              {}, 0, 1e12, true});
}

namespace {

const char* const axis_names[3] = {"x", "y", "z"};

// [bodies], each checked against the domain.
std::vector<BodySpec> bodies_of(const io::Deck& deck, const mesh::GridSpec& grid, const std::array<double, 3>& domain) {
  const auto& shapes = deck.strings("bodies", "shapes");
  const auto& centres = deck.reals("bodies", "centres");
  const auto& sizes = deck.reals("bodies", "sizes");
  const auto& angles = deck.reals("bodies", "angles_of_attack");
  const std::size_t n = shapes.size(), dims = static_cast<std::size_t>(grid.dimensions);
  if (centres.size() != n * dims)
    deck.fail("bodies", "centres", "expected " + std::to_string(n * dims) + " entries: " + std::to_string(dims) +
                                       " coordinates for each of the " + std::to_string(n) + " bodies of bodies.shapes");
  if (sizes.size() != n) deck.fail("bodies", "sizes", "expected one size for each of the " + std::to_string(n) + " bodies");
  if (!angles.empty() && angles.size() != n)
    deck.fail("bodies", "angles_of_attack", "expected one angle for each of the " + std::to_string(n) + " bodies, or none");
  std::vector<BodySpec> bodies;
  for (std::size_t i = 0; i < n; ++i) {
    BodySpec body;
    body.shape = shapes[i] == "sphere" ? BodyShape::sphere : shapes[i] == "naca" ? BodyShape::naca : BodyShape::circle;
    for (std::size_t a = 0; a < dims; ++a) body.centre[a] = centres[i * dims + a];
    body.size = sizes[i];
    body.naca_code = deck.string("bodies", "naca_code");
    body.angle_of_attack = angles.empty() ? 0.0 : angles[i];
    std::string outside;
    try {
      outside = outside_domain(body, domain, grid.dimensions);
    } catch (const std::invalid_argument& e) {
      deck.fail("bodies", "naca_code", e.what());
    }
    if (!outside.empty()) deck.fail("bodies", "centres", "body " + std::to_string(i) + " (" + shapes[i] + "): " + outside);
    bodies.push_back(body);
  }
  return bodies;
}

// [projection] faces, checked against the periodic axes of [mesh].
BoundarySettings boundaries_of(const io::Deck& deck, const mesh::GridSpec& grid) {
  BoundarySettings b;
  const int faces = 2 * grid.dimensions;
  const auto& kinds = deck.strings("projection", "faces");
  const auto& velocity = deck.reals("projection", "wall_velocity");
  if (!kinds.empty() && static_cast<int>(kinds.size()) != faces)
    deck.fail("projection", "faces", "expected " + std::to_string(faces) + " entries [x_lower, x_upper, y_lower, y_upper" +
                                         (grid.dimensions == 3 ? ", z_lower, z_upper]" : "]"));
  if (!velocity.empty() && static_cast<int>(velocity.size()) != faces)
    deck.fail("projection", "wall_velocity", "expected " + std::to_string(faces) + " entries, one per face");
  for (int a = 0; a < grid.dimensions; ++a)
    for (int side = 0; side < 2; ++side) {
      const int n = 2 * a + side;
      const bool periodic = grid.boundary[a] == mesh::Boundary::periodic;
      const std::string kind = kinds.empty() ? (periodic ? "periodic" : "wall") : kinds[n];
      const std::string face = std::string(axis_names[a]) + (side == 0 ? "_lower" : "_upper");
      if (periodic != (kind == "periodic"))
        deck.fail("projection", "faces",
                  "the " + face + " face is " + kind + " but mesh.boundary_" + axis_names[a] + " is " +
                      (periodic ? "periodic: set \"periodic\" there, or make the axis open" : "open: use wall, free_slip, inflow or outflow"));
      const double v = velocity.empty() ? 0.0 : velocity[n];
      if (v != 0 && kind != "wall")
        deck.fail("projection", "wall_velocity", "the " + face + " face is " + kind + ", not a wall: its entry must be 0");
      b.wall_velocity[a][side] = v;
      if (kind == "free_slip") b.face[a][side] = FaceKind::free_slip;
      else if (kind == "inflow") b.face[a][side] = FaceKind::inflow;
      else if (kind == "outflow") b.face[a][side] = FaceKind::outflow;
      else b.face[a][side] = FaceKind::wall;
    }
  b.profile = deck.string("projection", "inflow_profile") == "parabolic" ? InflowProfile::parabolic : InflowProfile::uniform;
  b.inflow_velocity = deck.real("projection", "inflow_velocity");
  b.inflow_ramp_time = deck.real("projection", "inflow_ramp_time");
  b.outflow = deck.string("projection", "outflow") == "convective" ? OutflowKind::convective : OutflowKind::zero_gradient;
  return b;
}

ProjectionSettings settings_of(const io::Deck& deck) {
  ProjectionSettings s;
  s.grid = solvers::grid_spec(deck, MacProjection::halo_width);
  for (int a = 0; a < s.grid.dimensions; ++a)
    if (s.grid.cells[a] < 4) deck.fail("mesh", std::string("n") + axis_names[a], "the projection solver needs at least 4 cells per axis");
  const auto& domain = deck.reals("projection", "domain");
  if (domain.size() != 3) deck.fail("projection", "domain", "expected three entries [x, y, z]");
  const auto& force = deck.reals("projection", "body_force");
  if (force.size() != 3) deck.fail("projection", "body_force", "expected three entries [x, y, z]");
  for (int a = 0; a < 3; ++a) s.mac.length[a] = domain[a], s.mac.body_force[a] = a < s.grid.dimensions ? force[a] : 0.0;
  if (s.grid.dimensions == 2 && force[2] != 0) deck.fail("projection", "body_force", "a 2-D grid has no z force: set its entry to 0");
  s.mac.viscosity = deck.real("projection", "viscosity");
  s.mac.boundaries = boundaries_of(deck, s.grid);
  s.mac.bodies = bodies_of(deck, s.grid, s.mac.length);
  s.probes = deck.reals("projection", "pressure_probes");
  if (!s.probes.empty() && s.probes.size() != 2 * static_cast<std::size_t>(s.grid.dimensions))
    deck.fail("projection", "pressure_probes", "expected two points of " + std::to_string(s.grid.dimensions) + " coordinates each");
  for (std::size_t k = 0; k < s.probes.size(); ++k) {
    const int a = static_cast<int>(k) % s.grid.dimensions;
    if (s.probes[k] > s.mac.length[a])
      deck.fail("projection", "pressure_probes", std::string("a probe lies beyond the domain along ") + axis_names[a]);
  }
  s.reference_velocity = deck.real("bodies", "reference_velocity");
  s.reference_size = s.grid.dimensions == 2 ? deck.real("bodies", "reference_length") : deck.real("bodies", "reference_area");
  s.mac.viscous = deck.string("projection", "viscous_scheme") == "explicit" ? ViscousScheme::explicit_ab2 : ViscousScheme::crank_nicolson;
  const std::string advection = deck.string("projection", "advection_scheme");
  s.mac.advection = advection == "quick"      ? AdvectionScheme::quick
                    : advection == "central4" ? AdvectionScheme::central4
                                              : AdvectionScheme::central;
  s.mac.poisson = {deck.real("projection", "poisson_tolerance"), static_cast<int>(deck.integer("projection", "poisson_max_iterations"))};
  s.mac.preconditioner = deck.string("projection", "preconditioner") == "jacobi" ? sparse::Preconditioner::jacobi
                                                                                  : sparse::Preconditioner::multigrid;
  const std::string pressure_solver = deck.string("projection", "pressure_solver");
  s.mac.pressure_solver = pressure_solver == "direct"   ? PressureSolver::direct
                          : pressure_solver == "krylov" ? PressureSolver::krylov
                                                        : PressureSolver::automatic;
  s.courant = deck.real("projection", "courant");
  s.fixed_dt = deck.real("projection", "dt");
  s.stop_unconverged = deck.string("projection", "on_unconverged") == "stop";
  s.taylor_green = deck.string("projection", "initial") == "taylor_green";
  return s;
}

// Doubles the direct solves hold per value of the rank, their shared workspace's (direct_poisson::Workspace) and
// the pressure solve's own: pencils (one on one rank, where every stage works in place; three and the two message
// buffers on more), the Thomas coefficients or the eigenvalues, and on a GPU Makhoul's FFT arrays and cuFFT's
// work areas (about four more).
double direct_solver_doubles(int ranks) {
  return (ranks > 1 ? 5.0 : 1.0) + 1.0 + (parallel::device_memory_is_host ? 0.0 : 4.0);
}

// Faces an immersed body may force: those of the cells in its box (1.5 times its size about its centre,
// which holds a NACA section's 3/4 chord behind the quarter-chord point at any angle; along z the sphere's
// the same, the extruded shapes' the whole depth), widened by three cells on each side for the forcing's band.
double body_faces(const BodySpec& body, const mesh::Decomposition& d, const std::array<double, 3>& length) {
  double faces = d.dimensions();
  for (int a = 0; a < d.dimensions(); ++a) {
    const double cells = static_cast<double>(d.global_cells(a));
    const bool whole = a == 2 && body.shape != BodyShape::sphere;
    faces *= whole ? cells : std::min(cells, 1.5 * body.size / (length[a] / cells) + 6);
  }
  return faces;
}

// A deck error naming mesh.nx where the run does not fit the memory it has (collective).
void require_projection_memory(const io::Deck& deck, MPI_Comm comm) {
  solvers::require_memory(deck, "mesh", "nx", projection_bytes_per_rank(deck, comm),
                          "the velocity and pressure fields and the pressure and viscous solvers", comm);
}

}  // namespace

std::uint64_t projection_bytes_per_rank(const io::Deck& deck, MPI_Comm comm) {
  const ProjectionSettings s = settings_of(deck);
  const mesh::Decomposition d(comm, s.grid);
  const int dims = s.grid.dimensions;
  double owned = 1, with_halos = 1;
  for (int a = 0; a < 3; ++a) {
    owned *= static_cast<double>(d.local_cells(a));
    with_halos *= static_cast<double>(d.local_cells(a) + 2 * d.halo(a));
  }
  const bool cn = s.mac.viscous == ViscousScheme::crank_nicolson, bodies = !s.mac.bodies.empty();
  const bool direct = uses_direct_solver(d, s.mac.pressure_solver), viscous_direct = cn && !bodies && direct;
  // Fields with halos, in components: velocity, tendency, previous tendency and increment; pressure, correction
  // and fluid; Crank-Nicolson's viscous term, its CG's six vector fields where the direct solver does not take
  // the step, and the start of the step with bodies; the fourth-order mask.
  const double fields = 4.0 * dims + 3 + (cn ? dims : 0) + (cn && !viscous_direct ? 6.0 * dims : 0) +
                        (cn && bodies ? dims : 0) + (s.mac.advection == AdvectionScheme::central4 ? 1 : 0);
  // Per owned cell: the right-hand side and solution; the pressure solver's (a direct solve's, or the assembled
  // operator's 2 dims + 1 values, their 4-byte columns, offsets, row map, operand and diagonal, CG's five
  // vectors and multigrid's levels: each a 2^dims-th of the one above, with a residual, relaxation, solution
  // and right-hand side); the direct viscous step's right-hand side and solution, which its components share,
  // as its solvers share the pressure solve's arrays (direct_poisson::Workspace). Each solver keeps its own
  // eigenvalues, one a value where the last axis is periodic (transformed too), and a GPU's Makhoul FFT arrays
  // for a component's DST-I along its own axis are twice as long as the pressure's.
  const double operator_doubles = (2.0 * dims + 1) * 1.5 + 3;
  const double coarser = s.mac.preconditioner == sparse::Preconditioner::multigrid ? 1.0 / ((1 << dims) - 1) : 0.0;
  const double pressure = direct ? direct_solver_doubles(d.size())
                                 : (1 + coarser) * operator_doubles + 5 + (1 + coarser) * 4;
  const double own_eigenvalues = d.periodic(dims - 1) ? 1.0 : 0.0;
  const double viscous =
      viscous_direct ? 2 + dims * own_eigenvalues + (parallel::device_memory_is_host ? 0.0 : 4.0) : 0.0;
  const double per_owned = 2 + pressure + viscous;
  // Halo exchange buffers: a send and a receive shell for a vector field and a scalar one.
  const double shells = 2.0 * (dims + 1) * (with_halos - owned);
  // The bodies' forced faces: an index, a neighbour and a far one, two weights and a target each.
  double forced = 0;
  for (const BodySpec& body : s.mac.bodies) forced += 6 * body_faces(body, d, s.mac.length);
  const double doubles = fields * with_halos + per_owned * owned + shells + forced;
  return doubles * sizeof(double) >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(doubles * sizeof(double));
}

void validate_projection(const io::Deck& deck, MPI_Comm comm) {
  const ProjectionSettings s = settings_of(deck);
  try {
    const mesh::Decomposition d(comm, s.grid);
    // The solvers' index limits first: they hold whatever the memory, and only the solver that runs has its own.
    const bool direct = uses_direct_solver(d, s.mac.pressure_solver);
    if (!direct) sparse::PoissonOperator::check_size(d);
    if (s.mac.pressure_solver == PressureSolver::direct) {
      try {
        direct_poisson::DirectPoisson::check_layout(d);
      } catch (const mesh::DecompositionError& e) {
        deck.fail("projection", "pressure_solver", e.what());
      }
    } else if (s.mac.preconditioner == sparse::Preconditioner::multigrid) {
      // auto falls back to CG where the pencils do not fit, so its multigrid must then work.
      if (!direct) sparse::Multigrid::check(d);
    }
    require_projection_memory(deck, comm);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", e.key(), e.what());
  }
}

std::unique_ptr<solvers::Solver> build_projection(const io::Deck& deck, MPI_Comm comm) {
  validate_projection(deck, comm);  // `run` refuses a deck as `check` does, with the same words
  try {
    return std::make_unique<ProjectionSolver>(settings_of(deck), comm);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", e.key(), e.what());
  }
}

namespace {

using HostField = MacProjection::HostField;

// Calls visit(n, x) for this rank's cells in C order (z, y, x), x their indices in the fields.
template <class Visit>
void for_owned(const MacGrid& g, Visit&& visit) {
  std::size_t n = 0;
  for (int k = g.lo[2]; k < g.lo[2] + g.n[2]; ++k)
    for (int j = g.lo[1]; j < g.lo[1] + g.n[1]; ++j)
      for (int i = g.lo[0]; i < g.lo[0] + g.n[0]; ++i, ++n) {
        const int x[3] = {i, j, k};
        visit(n, x);
      }
}

// The position of the face of component c (c = -1: the centre) of the cell at x, along axis a.
double position(const MacGrid& g, const int (&x)[3], int c, int a) {
  return (static_cast<double>(g.offset[a] + x[a] - g.lo[a]) + (a == c ? 0.0 : 0.5)) * g.h[a];
}

// The Taylor-Green vortex on the faces and centres of this rank's cells (2-D, or 3-D with cos(kz)).
void taylor_green(const ProjectionSettings& s, const MacGrid& g, HostField& vel, HostField& p) {
  const double k = 2 * pi / s.mac.length[0];
  for_owned(g, [&](std::size_t, const int(&x)[3]) {
    const auto at = [&](int c, int a) { return k * position(g, x, c, a); };
    const double z_u = g.dims == 3 ? std::cos(at(0, 2)) : 1.0, z_v = g.dims == 3 ? std::cos(at(1, 2)) : 1.0;
    vel(0, x[2], x[1], x[0]) = std::sin(at(0, 0)) * std::cos(at(0, 1)) * z_u;
    vel(1, x[2], x[1], x[0]) = -std::cos(at(1, 0)) * std::sin(at(1, 1)) * z_v;
    const double planar = (std::cos(2 * at(-1, 0)) + std::cos(2 * at(-1, 1))) / 4;
    p(0, x[2], x[1], x[0]) = g.dims == 3 ? planar * (std::cos(2 * at(-1, 2)) + 2) / 4 : planar;
  });
}

// The deck's probe points: two, or none.
std::vector<std::array<double, 3>> probe_points(const ProjectionSettings& s) {
  std::vector<std::array<double, 3>> points;
  const std::size_t dims = static_cast<std::size_t>(s.grid.dimensions);
  for (std::size_t first = 0; first < s.probes.size(); first += dims) {
    std::array<double, 3> point{0, 0, 0};
    for (std::size_t k = 0; k < dims; ++k) point[k] = s.probes[first + k];
    points.push_back(point);
  }
  return points;
}

}  // namespace

ProjectionSolver::ProjectionSolver(const ProjectionSettings& settings, MPI_Comm comm)
    : s_(settings), mac_(settings.grid, settings.mac, comm), probes_(mac_.pressure_probes(probe_points(settings))) {
  auto vel = Kokkos::create_mirror_view(mac_.velocity());
  auto p = Kokkos::create_mirror_view(mac_.pressure());
  parallel::fill(vel, 0.0);
  parallel::fill(p, 0.0);
  if (s_.taylor_green) taylor_green(s_, mac_.grid(), vel, p);
  mac_.set_state(vel, p);
  const int dims = mac_.grid().dims;
  const auto add = [this](const std::string& name, const char* units, const std::string& long_name) {
    output_.push_back({box("fields/" + name, units), {}});
    output_.back().box.long_name = long_name;
    // Inside a body the flow is not defined: those cells hold the fill value (CF's default for doubles).
    if (mac_.bodies()) output_.back().box.fill_value = io::cf_fill_value;
  };
  for (int c = 0; c < dims; ++c) add(std::string(1, "uvw"[c]), "length/time", std::string(1, "xyz"[c]) + " velocity");
  add("p", "length^2/time^2", "kinematic pressure (pressure over density)");
  if (dims == 2) add("vorticity", "1/time", "vorticity (z component)");
  else
    for (int a = 0; a < 3; ++a) add(std::string("vorticity_") + axis_names[a], "1/time", std::string("vorticity (") + axis_names[a] + " component)");
  if (mac_.bodies()) {
    output_.push_back({box("fields/body_mask", "1"), mac_.bodies()->cell_mask()});
    output_.back().box.long_name = "1 where the cell centre lies inside a body";
  }
  for (const auto& b : state_layout()) staged_state_.push_back({b, {}});
  for (auto* sets : {&output_, &staged_state_})
    for (auto& d : *sets) d.values.resize(d.box.local_values());
}

io::DatasetBox ProjectionSolver::box(const std::string& name, const std::string& units) const {
  const auto& d = mac_.decomposition();
  const MacGrid& g = mac_.grid();
  io::DatasetBox b;
  b.name = name;
  for (int a = g.dims - 1; a >= 0; --a) {  // C order: z, y, x
    b.global.push_back(static_cast<unsigned long long>(d.global_cells(a)));
    b.offset.push_back(static_cast<unsigned long long>(d.offset(a)));
    b.count.push_back(static_cast<unsigned long long>(d.local_cells(a)));
  }
  b.units = units;
  io::Geometry geometry;
  geometry.dimensions = g.dims;
  geometry.spacing = {g.h[0], g.h[1], g.h[2]};
  b.geometry = geometry;
  return b;
}

double ProjectionSolver::stable_dt(double) { return s_.fixed_dt > 0 ? s_.fixed_dt : mac_.stable_dt(s_.courant); }

void ProjectionSolver::step(double time, double dt) {
  mac_.step(time, dt);
  check(mac_.last_solve(), "pressure Poisson");
  if (s_.mac.viscous == ViscousScheme::crank_nicolson) check(mac_.last_viscous_solve(), "Crank-Nicolson viscous");
}

void ProjectionSolver::check(const sparse::SolveResult& r, const char* which) {
  if (r.converged) return;
  std::ostringstream message;
  message << "projection: the " << which << " solve stopped at a relative residual of " << r.residual << " after "
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
  mac_.measure_poisson_residual();
  std::vector<solvers::Scalar> d = {{"kinetic_energy", mac_.kinetic_energy(), true, mac_.grid().dims == 2 ? "length^4/time^2" : "length^5/time^2"},
                                    {"divergence_residual", mac_.max_divergence(), true, "1/time"}};
  for (const auto& p : progress(0)) d.push_back(p);
  if (mac_.bodies()) {
    const char* names[3] = {"drag", "lift", "side"};
    const double scale = 2 / (s_.reference_velocity * s_.reference_velocity * s_.reference_size);
    const auto forces = mac_.bodies()->forces();
    for (std::size_t b = 0; b < forces.size(); ++b)
      for (int c = 0; c < mac_.grid().dims; ++c)
        d.push_back({"body" + std::to_string(b) + "_" + names[c] + "_coefficient", scale * forces[b][c], true, "1"});
  }
  if (probes_.size() == 2) {
    const auto p = mac_.probe_pressures(probes_);
    d.push_back({"pressure_difference", p[0] - p[1], true, "length^2/time^2"});
  }
  return d;
}

std::vector<solvers::Scalar> ProjectionSolver::progress(double) const {
  const sparse::SolveResult& r = mac_.last_solve();
  std::vector<solvers::Scalar> p = {{"poisson_iterations", static_cast<double>(r.iterations), true, "1"},
                                    {"poisson_residual", r.residual, true, "1"}};
  if (s_.mac.viscous == ViscousScheme::crank_nicolson)
    p.push_back({"viscous_iterations", static_cast<double>(mac_.last_viscous_solve().iterations), true, "1"});
  return p;
}

double ProjectionSolver::work_per_step() const {
  return static_cast<double>(mac_.decomposition().global_cell_count());
}

std::string ProjectionSolver::layout() const {
  const auto& d = mac_.decomposition();
  std::ostringstream out;
  out << d.size() << " ranks as " << d.process_grid(0) << " x " << d.process_grid(1);
  if (d.dimensions() == 3) out << " x " << d.process_grid(2);
  out << ", " << d.global_cells(0) << " x " << d.global_cells(1);
  if (d.dimensions() == 3) out << " x " << d.global_cells(2);
  out << " cells, MAC grid, " << (s_.mac.viscous == ViscousScheme::crank_nicolson ? "Crank-Nicolson" : "explicit")
      << " viscosity" << (mac_.direct_viscous_solve() ? " solved directly" : "") << ", pressure by "
      << (mac_.direct_pressure_solve() ? std::string("the direct solver")
                                        : std::string(s_.mac.preconditioner == sparse::Preconditioner::multigrid ? "multigrid" : "Jacobi") +
                                              "-preconditioned CG");
  return out.str();
}

// Cell-centred velocity (face averages), p, and the vorticity: each component the average of the four
// edge values around the cell (2-D: the z component alone, from the cell's corners).
const std::vector<io::HostDataset>& ProjectionSolver::output_fields() {
  const auto vel = parallel::host_mirror_of(mac_.velocity());
  const auto p = parallel::host_mirror_of(mac_.pressure());
  const MacGrid& g = mac_.grid();
  const auto u = [&](int c, const int(&x)[3], int a = 0, int s = 0, int b = 0, int t = 0) {
    int y[3] = {x[0], x[1], x[2]};
    y[a] += s, y[b] += t;
    return vel(c, y[2], y[1], y[0]);
  };
  // omega_a = d u_c / d x_b - d u_b / d x_c on the edge along a at the cell's lower b and c sides, shifted.
  const auto edge = [&](int a, const int(&x)[3], int sb, int sc) {
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    return (u(c, x, b, sb, c, sc) - u(c, x, b, sb - 1, c, sc)) / g.h[b] - (u(b, x, b, sb, c, sc) - u(b, x, b, sb, c, sc - 1)) / g.h[c];
  };
  const int dims = g.dims;
  for_owned(g, [&](std::size_t n, const int(&x)[3]) {
    for (int c = 0; c < dims; ++c) output_[c].values[n] = 0.5 * (u(c, x) + u(c, x, c, 1));
    output_[dims].values[n] = p(0, x[2], x[1], x[0]);
    for (int a = dims == 2 ? 2 : 0; a < 3; ++a)
      output_[dims + 1 + (dims == 2 ? 0 : a)].values[n] =
          0.25 * (edge(a, x, 0, 0) + edge(a, x, 1, 0) + edge(a, x, 0, 1) + edge(a, x, 1, 1));
    if (mac_.bodies() && mac_.bodies()->cell_mask()[n] > 0)
      for (auto& field : output_)
        if (field.box.fill_value) field.values[n] = *field.box.fill_value;
  });
  return output_;
}

std::vector<io::DatasetBox> ProjectionSolver::state_layout() const {
  std::vector<io::DatasetBox> boxes;
  const int dims = mac_.grid().dims;
  const auto add = [&](const std::string& name, const char* units) {
    io::DatasetBox b = box(name, units);
    b.geometry.reset();  // face values at the cells' lower faces: not cell data for a viewer
    boxes.push_back(b);
  };
  for (int c = 0; c < dims; ++c) add(std::string("state/") + "uvw"[c], "length/time");
  add("state/p", "length^2/time^2");
  for (int c = 0; c < dims; ++c) add(std::string("state/tendency_") + "uvw"[c], "length/time^2");
  return boxes;
}

const std::vector<io::HostDataset>& ProjectionSolver::state() {
  const auto vel = parallel::host_mirror_of(mac_.velocity());
  const auto p = parallel::host_mirror_of(mac_.pressure());
  const auto t = parallel::host_mirror_of(mac_.previous_tendency());
  const int dims = mac_.grid().dims;
  for_owned(mac_.grid(), [&](std::size_t n, const int(&x)[3]) {
    for (int c = 0; c < dims; ++c) {
      staged_state_[c].values[n] = vel(c, x[2], x[1], x[0]);
      staged_state_[dims + 1 + c].values[n] = t(c, x[2], x[1], x[0]);
    }
    staged_state_[dims].values[n] = p(0, x[2], x[1], x[0]);
  });
  return staged_state_;
}

void ProjectionSolver::restore(const std::vector<io::HostDataset>& state) {
  auto vel = Kokkos::create_mirror_view(mac_.velocity());
  auto p = Kokkos::create_mirror_view(mac_.pressure());
  auto t = Kokkos::create_mirror_view(mac_.previous_tendency());
  for (auto* host : {&vel, &p, &t}) parallel::fill(*host, 0.0);
  const int dims = mac_.grid().dims;
  for_owned(mac_.grid(), [&](std::size_t n, const int(&x)[3]) {
    for (int c = 0; c < dims; ++c) {
      vel(c, x[2], x[1], x[0]) = state.at(c).values[n];
      t(c, x[2], x[1], x[0]) = state.at(dims + 1 + c).values[n];
    }
    p(0, x[2], x[1], x[0]) = state.at(dims).values[n];
  });
  mac_.restore(vel, p, t);
}

std::vector<solvers::Scalar> ProjectionSolver::state_scalars() const {
  return {{"previous_step", mac_.previous_step(), true, "time"}};
}

void ProjectionSolver::restore_scalars(const std::vector<solvers::Scalar>& scalars) {
  mac_.set_previous_step(scalars.at(0).value);
}

}  // namespace meridian::cfd
