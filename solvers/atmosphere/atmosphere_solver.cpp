#include "solvers/atmosphere/atmosphere_solver.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <sstream>

#include "mesh/reductions.hpp"
#include "parallel/copies.hpp"
#include "solvers/common/gauss_rule.hpp"
#include "solvers/common/grid_config.hpp"
#include "solvers/common/memory_budget.hpp"
#include "parallel/launch_policy.hpp"
#include "parallel/team_shape.hpp"
#include "solvers/common/wicker_skamarock.hpp"

namespace meridian::atmosphere {

void declare_keys(io::Schema& schema) {
  using io::KeyType;
  solvers::declare_mesh_keys(schema, solvers::MeshKind::vertical_slice);
  const std::string s = "atmosphere";
  schema.add({s, "case", KeyType::string, std::string("thermal"), "",
              "initial state. rest: the background alone; thermal: miniWeather's rising thermal, theta' = 3 K "
              "cos^2 bubble of radius 2 km at (width/2, 2 km), rho' = 0; colliding_thermals: +20 K at (width/2, "
              "2 km) and -20 K at (width/2, 8 km), radius 2 km, rho' = 0; density_current: Straka et al. (1993), "
              "theta' = -15 K cos^2 / Exner in an ellipse of radii 4 km x 2 km at (width/2, 3 km), pressure "
              "unperturbed; gravity_wave: Skamarock & Klemp (1994), theta' = 0.01 K sin(pi z / height) / (1 + "
              "((x - width/3) / 5 km)^2), pressure unperturbed; linear_gravity_wave: Baldauf & Brdar (2013), "
              "T' = 0.01 K exp(delta z / 2) exp(-((x - width/3) / 5 km)^2) sin(pi z / height), delta = g / (rd "
              "surface_theta), pressure unperturbed, on an isothermal background: one vertical mode of the "
              "linearised compressible equations, whose solution is known exactly. In 3-D each bubble is centred "
              "at y = depth/2 with its x radius along y (a sphere of radius 2 km for the thermals); the gravity "
              "waves do not depend on y",
              {"rest", "thermal", "colliding_thermals", "density_current", "gravity_wave", "linear_gravity_wave"}});
  schema.add({s, "width", KeyType::real, 2.0e4, "m", "domain length along x", {}, 0, 1e8, true});
  schema.add({s, "depth", KeyType::real, 2.0e4, "m", "domain length along y (3-D only: mesh.dimensions = 3)", {}, 0,
              1e8, true});
  schema.add({s, "height", KeyType::real, 1.0e4, "m",
              "domain height (the lid); the background's Exner pressure must stay positive up to it", {}, 0, 1e6, true});
  schema.add({s, "surface_theta", KeyType::real, 300.0, "K", "background potential temperature at the ground", {}, 0,
              1e4, true});
  schema.add({s, "background", KeyType::string, std::string("constant_buoyancy_frequency"), "",
              "the resting atmosphere. constant_buoyancy_frequency: theta = surface_theta exp(N^2 z / g), N from "
              "buoyancy_frequency (0: constant theta); isothermal: T = surface_theta at every height (N^2 = g^2 / "
              "(cp surface_theta)), buoyancy_frequency left 0",
              {"constant_buoyancy_frequency", "isothermal"}});
  schema.add({s, "buoyancy_frequency", KeyType::real, 0.0, "1/s",
              "background Brunt-Vaisala frequency N: theta = surface_theta exp(N^2 z / g) (0: constant theta)", {}, 0,
              1});
  schema.add({s, "wind", KeyType::real, 0.0, "m/s", "uniform background wind u added to the initial state", {}, -1e3,
              1e3});
  schema.add({s, "courant", KeyType::real, 1.0, "1",
              "acoustic Courant number: dt = courant / max over cells of (|u| + c) / dx, (|v| + c) / dy (3-D) and "
              "(|w| + c) / dz (their sum when unsplit); the sweep's von Neumann limit at hyperviscosity 0.05 is "
              "1.345 (1.262 without), 1.179 with fifth_order_upwind",
              {}, 0, 100, true});
  schema.add({s, "dt", KeyType::real, 0.0, "s",
              "a fixed time step instead of the Courant one (0: use courant), e.g. miniWeather's min(dx, dz) / 450 "
              "m/s x 1.5; refused where it puts the acoustic Courant number of the initial state above the limit, "
              "shortened where the Rayleigh layer's or the diffusion's limit is shorter",
              {}, 0, 1e6});
  schema.add({s, "splitting", KeyType::string, std::string("alternating"), "",
              "alternating: miniWeather's dimensional splitting, a full RK3 step along x then z (x, y, z in 3-D), "
              "the order reversed every step; unsplit: every direction's tendencies in each RK3 stage (the Courant "
              "number then sums the directions')",
              {"alternating", "unsplit"}});
  schema.add({s, "reconstruction", KeyType::string, std::string("fourth_order"), "",
              "face fluxes. fourth_order: miniWeather's, every component interpolated from 4 cells; "
              "fifth_order_upwind: WRF's, the mass flux and pressure 6th-order centred, u, w and theta carried at "
              "their 5th-order upwind values (6 cells, a 3-cell halo); hyperviscosity applies to both",
              {"fourth_order", "fifth_order_upwind"}});
  schema.add({s, "hyperviscosity", KeyType::real, 0.05, "1",
              "miniWeather's hv_beta: each stage removes beta/16 of the third difference across each face", {}, 0,
              1});
  schema.add({s, "viscosity", KeyType::real, 0.0, "m^2/s",
              "constant eddy viscosity nu on u and w (Straka's density current: 75)", {}, 0, 1e6});
  schema.add({s, "diffusivity", KeyType::real, 0.0, "m^2/s",
              "constant eddy diffusivity kappa on theta' (Straka's density current: 75)", {}, 0, 1e6});
  schema.add({s, "rayleigh_depth", KeyType::real, 0.0, "m",
              "depth of the Rayleigh damping layer below the lid (0: none); it relaxes u to the background wind, w to "
              "0 and theta' to 0",
              {}, 0, 1e6});
  schema.add({s, "rayleigh_rate", KeyType::real, 0.0, "1/s",
              "the layer's largest relaxation rate, at the lid; it grows as sin^2 from the layer's base (Klemp & "
              "Lilly 1978); at most 1/dt",
              {}, 0, 10});
  schema.add({s, "wall_closure", KeyType::string, std::string("halo"), "",
              "the fluxes next to the ground, the lid and side walls. halo: miniWeather's, the interior stencil "
              "reading halo cells that copy the cell inside (w and the normal momentum zero), first order at the "
              "wall; one_sided: the face next to a wall 2nd-order centred and the wall's pressure extrapolated "
              "linearly from inside, without hyperviscosity there, second order at the wall (fourth_order only)",
              {"halo", "one_sided"}});
  schema.add({s, "sides", KeyType::string, std::string("periodic"), "",
              "boundaries at x = 0 and x = width (and y = 0 and y = depth in 3-D): periodic, or free-slip walls (the "
              "ground and the lid always are)",
              {"periodic", "wall"}});
}

double acoustic_courant_limit(double beta, bool fifth_order) {
  // Each stage of a sweep maps u to u0 + (dt_stage A - beta/16 D) u, A the acoustic operator (the
  // difference of the faces' centred interpolations: 4th order from 4 cells, or 6th from 6), D the 4th
  // difference: per Fourier mode z = -i nu s(k) and d = beta sin^4(k/2), and the step's amplification is
  // 1 + (z - d)(1 + (z/2 - d)(1 + z/3 - d)). The limit is the largest nu whose amplification stays within
  // 1 for every k (over 2000 wavenumbers). The upwind part of the 5th-order advection only adds damping
  // and is left out.
  const int modes = 2000;
  std::vector<double> response(modes + 1), damping(modes + 1);
  for (int m = 0; m <= modes; ++m) {
    const double k = pi * m / modes;
    // Face interpolation weights on the cells two (three) below to one (two) above the face; the symbol
    // of F(j + 1/2) - F(j - 1/2) is (e^{ik} - 1) sum_s w_s e^{i s k}, purely imaginary.
    std::complex<double> sum = 0;
    if (fifth_order) {
      const double w[6] = {1, -8, 37, 37, -8, 1};
      for (int s = 0; s < 6; ++s) sum += w[s] / 60 * std::polar(1.0, (s - 3) * k);
    } else {
      const double w[4] = {-1, 7, 7, -1};
      for (int s = 0; s < 4; ++s) sum += w[s] / 12 * std::polar(1.0, (s - 2) * k);
    }
    response[m] = std::abs(((std::polar(1.0, k) - 1.0) * sum).imag());
    damping[m] = beta * std::pow(std::sin(k / 2), 4);
  }
  const auto stable = [&](double nu) {
    for (int m = 0; m <= modes; ++m) {
      const std::complex<double> z(0, -nu * response[m]);
      const double d = damping[m];
      if (std::abs(1.0 + (z - d) * (1.0 + (z / 2.0 - d) * (1.0 + z / 3.0 - d))) > 1 + 1e-12) return false;
    }
    return true;
  };
  // The stable Courant numbers form an interval from 0: bisection to 1e-4, returning its stable end.
  double low = 0, high = 10;
  while (high - low > 1e-4) {
    const double middle = 0.5 * (low + high);
    (stable(middle) ? low : high) = middle;
  }
  return low;
}

namespace {

Case case_of(const std::string& name) {
  if (name == "rest") return Case::rest;
  if (name == "colliding_thermals") return Case::colliding_thermals;
  if (name == "density_current") return Case::density_current;
  if (name == "gravity_wave") return Case::gravity_wave;
  if (name == "linear_gravity_wave") return Case::linear_gravity_wave;
  return Case::thermal;
}

// The largest theta perturbation of a case, with its sign (K), for the check that theta stays positive.
double coldest_perturbation(Case c) {
  if (c == Case::colliding_thermals) return -20;
  if (c == Case::density_current) return -15 / 0.8;  // divided by Exner; 0.8 is below its value at 3 km
  return 0;
}

// The mesh key of mesh axis `axis` of a `dims`-dimensional atmosphere (the vertical is its last axis).
const char* cells_key(int dims, int axis) { return axis == 0 ? "nx" : axis == dims - 1 ? "nz" : "ny"; }

// The domain's length along mesh axis `axis` (m).
double domain_length(const Settings& s, int axis) {
  const int dims = s.grid.dimensions;
  return axis == 0 ? s.width : axis == dims - 1 ? s.height : s.depth;
}

Settings settings_of(const io::Deck& deck) {
  Settings s;
  s.side_walls = deck.string("atmosphere", "sides") == "wall";
  s.fifth_order = deck.string("atmosphere", "reconstruction") == "fifth_order_upwind";
  s.grid = solvers::vertical_slice_spec(deck, s.fifth_order ? 3 : 2,
                                        s.side_walls ? mesh::Boundary::open : mesh::Boundary::periodic);
  s.one_sided_walls = deck.string("atmosphere", "wall_closure") == "one_sided";
  if (s.one_sided_walls && s.fifth_order)
    deck.fail("atmosphere", "wall_closure",
              "the one_sided closure is written for the 4th-order fluxes; with reconstruction = "
              "\"fifth_order_upwind\" the allowed value is \"halo\"");
  s.initial = case_of(deck.string("atmosphere", "case"));
  s.width = deck.real("atmosphere", "width");
  s.depth = deck.real("atmosphere", "depth");
  s.height = deck.real("atmosphere", "height");
  s.profile.surface_theta = deck.real("atmosphere", "surface_theta");
  s.profile.buoyancy_frequency = deck.real("atmosphere", "buoyancy_frequency");
  if (deck.string("atmosphere", "background") == "isothermal") {
    if (s.profile.buoyancy_frequency != 0)
      deck.fail("atmosphere", "buoyancy_frequency",
                "an isothermal background sets N from surface_theta; leave buoyancy_frequency at 0");
    // Constant N with N^2 = g^2 / (cp theta0) is the isothermal atmosphere: its Exner pressure is then
    // exactly theta0 / theta, so T = theta exner = theta0 at every height.
    s.profile.buoyancy_frequency = gravity / std::sqrt(cp * s.profile.surface_theta);
  } else if (s.initial == Case::linear_gravity_wave) {
    deck.fail("atmosphere", "background",
              "case = \"linear_gravity_wave\" is Baldauf & Brdar's mode of an isothermal atmosphere; allowed: "
              "\"isothermal\"");
  }
  s.wind = deck.real("atmosphere", "wind");
  s.courant = deck.real("atmosphere", "courant");
  s.fixed_dt = deck.real("atmosphere", "dt");
  s.unsplit = deck.string("atmosphere", "splitting") == "unsplit";
  s.hyperviscosity = deck.real("atmosphere", "hyperviscosity");
  s.viscosity = deck.real("atmosphere", "viscosity");
  s.diffusivity = deck.real("atmosphere", "diffusivity");
  s.rayleigh_depth = deck.real("atmosphere", "rayleigh_depth");
  s.rayleigh_rate = deck.real("atmosphere", "rayleigh_rate");
  if (s.rayleigh_depth > s.height) deck.fail("atmosphere", "rayleigh_depth", "the Rayleigh layer is deeper than the domain");
  if (s.rayleigh_depth > 0 && s.rayleigh_rate == 0)
    deck.fail("atmosphere", "rayleigh_rate", "a Rayleigh layer (rayleigh_depth > 0) needs a rate above 0");
  const double limit = acoustic_courant_limit(s.hyperviscosity, s.fifth_order);
  if (s.courant > limit) {
    std::ostringstream m;
    m << "courant = " << s.courant << " is above the acoustic stability limit " << limit
      << " of the RK3 sweep with " << (s.fifth_order ? "6th" : "4th") << "-order centred acoustics and hyperviscosity "
      << s.hyperviscosity;
    deck.fail("atmosphere", "courant", m.str());
  }
  const int halo = s.grid.halo_width, dims = s.grid.dimensions, vertical = dims - 1;
  for (int axis = 0; axis < dims; ++axis)
    if (s.grid.cells[axis] < halo)
      deck.fail("mesh", cells_key(dims, axis),
                "the atmosphere needs at least as many cells along each axis as its halo is wide (2; 3 with "
                "fifth_order_upwind)");
  const double coldest = s.profile.surface_theta + coldest_perturbation(s.initial);
  if (coldest <= 0) {
    std::ostringstream m;
    m << "the initial state has a negative absolute temperature: theta reaches " << coldest << " K";
    deck.fail("atmosphere", "surface_theta", m.str());
  }
  // The halos above the lid hold background values too, so the profile must reach beyond it.
  const double dz = s.height / static_cast<double>(s.grid.cells[vertical]);
  const double top = s.height + (halo + 1) * dz, supported = s.profile.top_supported();
  if (top >= supported) {
    std::ostringstream m;
    m << "the background cannot support a domain this high: its Exner pressure reaches zero at " << supported
      << " m, below the lid and its halo at " << top << " m (lower the height, or raise surface_theta)";
    deck.fail("atmosphere", "height", m.str());
  }
  if (s.fixed_dt > 0) {
    // The initial state's fastest signal, estimated from the background's sound speed at the faces and
    // the wind (the perturbations add a few per cent; the progress line shows each step's own number),
    // sampled at 1000 heights at most: the sound speed is smooth in z.
    const long samples = std::min<long>(s.grid.cells[vertical], 1000);
    double fastest = 0;
    for (long k = 0; k <= samples; ++k) {
      const double z = s.height * static_cast<double>(k) / static_cast<double>(samples);
      fastest = std::max(fastest, std::sqrt(gamma_d * s.profile.pressure(z) / s.profile.density(z)));
    }
    fastest += std::abs(s.wind);
    double inverse_sum = 0, smallest = std::numeric_limits<double>::infinity();
    for (int axis = 0; axis < dims; ++axis) {
      const double h = domain_length(s, axis) / static_cast<double>(s.grid.cells[axis]);
      inverse_sum += 1 / h;
      smallest = std::min(smallest, h);
    }
    const double courant = s.fixed_dt * fastest * (s.unsplit ? inverse_sum : 1 / smallest);
    if (courant > limit) {
      std::ostringstream m;
      m << "dt = " << s.fixed_dt << " s gives an acoustic Courant number of " << courant << " (sound speed and wind "
        << fastest << " m/s), above the limit " << limit << " at hyperviscosity " << s.hyperviscosity;
      deck.fail("atmosphere", "dt", m.str());
    }
  }
  return s;
}

int components_of_dims(int dims) { return dims == 3 ? components_of<3> : components_of<2>; }

// Bytes a rank needs, in doubles per cell: the state and one stage (a second stage unsplit), the face
// fluxes, the output's staged fields (one more than the components) and the checkpoint's.
void require_memory(const io::Deck& deck, const Settings& s, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const std::uint64_t cells = solvers::saturating_product({static_cast<std::uint64_t>(s.grid.cells[0]),
                                                           static_cast<std::uint64_t>(s.grid.cells[1]),
                                                           static_cast<std::uint64_t>(s.grid.cells[2])});
  const std::uint64_t local = cells == UINT64_MAX ? cells : (cells + ranks - 1) / ranks;
  const std::uint64_t components = components_of_dims(s.grid.dimensions);
  solvers::require_memory(deck, "mesh", "nx",
                          solvers::saturating_product({local, components * (s.unsplit ? 5u : 4u) + 1, sizeof(double)}),
                          "the state, stage, face fluxes and staged output", comm);
}

// The deck's name for a Decomposition's mesh key: the 2-D slice's second mesh axis is the deck's nz.
std::string deck_key(const Settings& s, const std::string& key) {
  return s.grid.dimensions == 2 && key == "ny" ? "nz" : key;
}

}  // namespace

void validate(const io::Deck& deck, MPI_Comm comm) {
  const Settings s = settings_of(deck);
  require_memory(deck, s, comm);
  try {
    const mesh::Decomposition d(comm, s.grid);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", deck_key(s, e.key()), e.what());
  }
}

std::unique_ptr<solvers::Solver> build(const io::Deck& deck, MPI_Comm comm) {
  const Settings s = settings_of(deck);
  require_memory(deck, s, comm);
  try {
    return std::make_unique<AtmosphereSolver>(s, comm);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", deck_key(s, e.key()), e.what());
  }
}

namespace {

// This rank's block: interior cells (ny = 1 in 2-D) and halo, and the walls it touches: west and east
// at x = 0 and width, south and north at y = 0 and depth (3-D), the ground and the lid.
struct Block {
  int nx, ny, nz, h;
  bool west, east, south, north, ground, lid;
};

Block block_of(const mesh::Decomposition& d, bool side_walls) {
  const int vertical = d.dimensions() - 1;
  const bool box = d.dimensions() == 3;
  return Block{static_cast<int>(d.local_cells(0)), box ? static_cast<int>(d.local_cells(1)) : 1,
               static_cast<int>(d.local_cells(vertical)), d.halo(0), side_walls && d.at_lower_boundary(0),
               side_walls && d.at_upper_boundary(0), box && side_walls && d.at_lower_boundary(1),
               box && side_walls && d.at_upper_boundary(1), d.at_lower_boundary(vertical),
               d.at_upper_boundary(vertical)};
}

// Component c of the cell at halo-inclusive (vertical k, y j, x i): the 2-D slice keeps its vertical on
// the View's y index (and ignores j), the 3-D box on the View's z index.
template <int Dims, class View>
KOKKOS_FORCEINLINE_FUNCTION auto& at(const View& q, int c, int k, int j, int i) {
  if constexpr (Dims == 2)
    return q(c, 0, k, i);
  else
    return q(c, k, j, i);
}

// The distance in memory between neighbouring cells along mesh axis `axis`.
template <int Dims>
long axis_stride(const mesh::Field& q, int axis) {
  if (axis == 0) return 1;
  return static_cast<long>(Dims == 2 || axis == 1 ? q.stride(2) : q.stride(1));
}

// Rows (along x) of cells or faces are numbered k * rows_y + j; the slice has one row per level.
template <int Dims>
KOKKOS_FORCEINLINE_FUNCTION int row_of(int k, int j, int rows_y) {
  return Dims == 2 ? k : k * rows_y + j;
}

using Flux = Kokkos::View<double***, mesh::Layout>;

// What one sweep's face-flux kernel reads.
struct FluxInputs {
  mesh::Field q;
  Flux flux;
  BackgroundView cells, faces;
  Block b;
  double hyperviscosity, spacing, viscosity, diffusivity;
  bool fifth_order, one_sided_walls;
};

// Where face `n` of the faces 0 .. cells across one axis (0 the lowest or leftmost) sits with respect
// to walls at its ends (`low`, `high`: those this rank touches).
KOKKOS_INLINE_FUNCTION FaceStencil face_stencil(int n, int cells, bool low, bool high) {
  if (low && n == 0) return FaceStencil::wall_below;
  if (high && n == cells) return FaceStencil::wall_above;
  if ((low && n == 1) || (high && n == cells - 1)) return FaceStencil::next_to_wall;
  return FaceStencil::interior;
}

// Fluxes through this rank's faces across mesh axis `axis`: rows of faces along x (a row of x-faces
// per row of cells, a row of y-faces per y face and level, a row of z-faces per face level and y),
// lanes along x.
template <int Dims>
void face_fluxes(int axis, const FluxInputs& in) {
  const mesh::Field q = in.q;
  const Flux flux = in.flux;
  const BackgroundView cells = in.cells, faces = in.faces;
  const Block b = in.b;
  const double hv = in.hyperviscosity, spacing = in.spacing, nu = in.viscosity, kappa = in.diffusivity;
  const bool fifth = in.fifth_order, one_sided = in.one_sided_walls;
  const bool along_y = Dims == 3 && axis == 1, along_z = axis == Dims - 1;
  const int normal = normal_momentum<Dims>(axis);
  const long component_stride = static_cast<long>(q.stride(0));
  const long stride = axis_stride<Dims>(q, axis);
  const int rows_y = b.ny + (along_y ? 1 : 0), rows = rows_y * (b.nz + (along_z ? 1 : 0));
  const int faces_per_row = axis == 0 ? b.nx + 1 : b.nx;
  const parallel::TeamShape shape = parallel::row_team_shape();
  const int rows_per_team = shape.threads;
  Kokkos::parallel_for(
      "atmosphere::face_fluxes", shape.policy((rows + rows_per_team - 1) / rows_per_team),
      KOKKOS_LAMBDA(const parallel::TeamMember& team) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](const int t) {
          const int row = team.league_rank() * rows_per_team + t;
          if (row >= rows) return;
          const int k = Dims == 2 ? row : row / rows_y, j = Dims == 2 ? 0 : row % rows_y;
          FaceInputs inputs{};  // the levels past a narrower halo stay zero: no read of an unset value
          inputs.hyperviscosity = hv, inputs.spacing = spacing, inputs.viscosity = nu, inputs.diffusivity = kappa;
          // The background of the stencil's cells that the halo holds (all six with the 5th-order flux's
          // three-cell halo): across the horizontal faces the row's level, across the vertical ones the
          // levels about the face. A loop of constant bounds, unrolled to constant indices: with the halo's
          // width as its bounds, sm_90's face-flux kernel kept `inputs` in local memory (ptxas: a 400-byte
          // stack frame in 2-D, 480 in 3-D; 192 and 288 now).
          inputs.face = along_z ? faces(k) : cells(b.h + k);
          for (int s = 0; s < 6; ++s)
            if (s >= 3 - b.h && s < 3 + b.h) inputs.cell[s] = cells(b.h + k + (along_z ? s - 3 : 0));
          const bool wall_row = (along_z && ((b.ground && k == 0) || (b.lid && k == b.nz))) ||
                                (along_y && ((b.south && j == 0) || (b.north && j == b.ny)));
          const FaceStencil row_stencil = !one_sided || axis == 0 ? FaceStencil::interior
                                          : along_z      ? face_stencil(k, b.nz, b.ground, b.lid)
                                                         : face_stencil(j, b.ny, b.south, b.north);
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, faces_per_row), [&](const int i) {
            const bool wall = wall_row || (axis == 0 && ((b.west && i == 0) || (b.east && i == b.nx)));
            const double* above = &at<Dims>(q, 0, b.h + k, b.h + j, b.h + i);
            const FaceStencil stencil = axis == 0 && one_sided ? face_stencil(i, b.nx, b.west, b.east) : row_stencil;
            double f[components_of<Dims>];
            if (fifth)
              fifth_order_face_flux<components_of<Dims>>(above, stride, component_stride, normal, inputs, wall, f);
            else
              face_flux<components_of<Dims>>(above, stride, component_stride, normal, inputs, wall, stencil, f);
            for (int c = 0; c < components_of<Dims>; ++c) flux(c, row, i) = f[c];
          });
        });
      });
}

// The sources of the vertical sweep: the buoyancy -g rho' and the Rayleigh layer's rate per interior row.
struct VerticalSources {
  BackgroundView cells;
  Kokkos::View<const double*> rayleigh_rate;  // 1/s by interior level; zero below the layer
  double wind;
  bool rayleigh;
};

// out = initial - dt (flux divergence across mesh axis `axis`), and along the vertical the buoyancy
// -g rho' of `forcing` in the z momentum and the Rayleigh layer's relaxation of `forcing`. `out` may be
// `initial` or `forcing`: each cell is read before it is written.
template <int Dims>
void apply_tendencies(int axis, const Block& b, const Flux& flux, const mesh::Field& initial,
                      const mesh::Field& forcing, const mesh::Field& out, double dt, double spacing,
                      const VerticalSources& sources) {
  const bool along_y = Dims == 3 && axis == 1, along_z = axis == Dims - 1;
  const double scale = dt / spacing, buoyancy = along_z ? dt * gravity : 0.0;
  const bool rayleigh = along_z && sources.rayleigh;
  const BackgroundView cells = sources.cells;
  const Kokkos::View<const double*> rate = sources.rayleigh_rate;
  const double wind = sources.wind;
  const int di = axis == 0, dj = along_y, dk = along_z;
  const int flux_rows_y = b.ny + dj;
  const parallel::TeamShape shape = parallel::row_team_shape();
  const int rows_per_team = shape.threads, rows = b.nz * b.ny;
  Kokkos::parallel_for(
      "atmosphere::apply_tendencies", shape.policy((rows + rows_per_team - 1) / rows_per_team),
      KOKKOS_LAMBDA(const parallel::TeamMember& team) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](const int t) {
          const int row = team.league_rank() * rows_per_team + t;
          if (row >= rows) return;
          const int k = Dims == 2 ? row : row / b.ny, j = Dims == 2 ? 0 : row % b.ny;
          const int lower = row_of<Dims>(k, j, flux_rows_y), upper = row_of<Dims>(k + dk, j + dj, flux_rows_y);
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b.nx), [&](const int i) {
            double state[components_of<Dims>], relaxation[components_of<Dims>] = {};
            for (int c = 0; c < components_of<Dims>; ++c) state[c] = at<Dims>(forcing, c, b.h + k, b.h + j, b.h + i);
            if (rayleigh) rayleigh_tendency<components_of<Dims>>(state, cells(b.h + k), wind, rate(k), relaxation);
            for (int c = 0; c < components_of<Dims>; ++c) {
              double next = at<Dims>(initial, c, b.h + k, b.h + j, b.h + i) -
                            scale * (flux(c, upper, i + di) - flux(c, lower, i));
              if (c == momentum_z) next -= buoyancy * state[density];
              if (rayleigh) next += dt * relaxation[c];
              at<Dims>(out, c, b.h + k, b.h + j, b.h + i) = next;
            }
          });
        });
      });
}

// One direction's tendencies of one stage: its face fluxes, then their divergence (and the vertical sources).
template <int Dims>
void directional_tendencies(int axis, const FluxInputs& in, const mesh::Field& initial, const mesh::Field& out,
                            double dt, const VerticalSources& sources) {
  face_fluxes<Dims>(axis, in);
  apply_tendencies<Dims>(axis, in.b, in.flux, initial, in.q, out, dt, in.spacing, sources);
}

// The halos beyond a side wall across horizontal mesh axis `axis` (x, or y in 3-D) on this rank's
// interior rows: every component copied from its mirror cell, the normal momentum zero.
template <int Dims>
void side_wall_halos(int axis, bool lower_wall, bool upper_wall, const Block& b, const mesh::Field& q) {
  const int h = b.h, cells_along = axis == 0 ? b.nx : b.ny, across = axis == 0 ? b.ny : b.nx;
  const int normal = normal_momentum<Dims>(axis);
  Kokkos::parallel_for(
      "atmosphere::side_wall_halos", Kokkos::RangePolicy<>(0, b.nz * across), KOKKOS_LAMBDA(const int r) {
        const int k = h + r / across, t = h + r % across;
        for (int side = 0; side < 2; ++side) {
          if ((side == 0 && !lower_wall) || (side == 1 && !upper_wall)) continue;
          const int inside = side == 0 ? h : h + cells_along - 1;
          for (int s = 1; s <= h; ++s) {
            const int halo = side == 0 ? h - s : h + cells_along - 1 + s;
            const int j_halo = axis == 0 ? t : halo, i_halo = axis == 0 ? halo : t;
            const int j_inside = axis == 0 ? t : inside, i_inside = axis == 0 ? inside : t;
            for (int c = 0; c < components_of<Dims>; ++c)
              at<Dims>(q, c, k, j_halo, i_halo) = at<Dims>(q, c, k, j_inside, i_inside);
            at<Dims>(q, normal, k, j_halo, i_halo) = 0;
          }
        }
      });
}

// Halos beyond the walls across mesh axis `axis`, as miniWeather's: zero normal momentum; the tangential
// momenta scaled by the background density (the ground and the lid, so u and v are mirrored evenly) or
// copied (the side walls, whose background is the same on both sides); the density and rho theta
// perturbations copied.
template <int Dims>
void wall_halos_across(int axis, const Block& b, const BackgroundView& cells, const mesh::Field& q) {
  const int h = b.h;
  if (axis == 0) {
    if (b.west || b.east) side_wall_halos<Dims>(0, b.west, b.east, b, q);
  } else if (axis < Dims - 1) {
    if (b.south || b.north) side_wall_halos<Dims>(1, b.south, b.north, b, q);
  } else if (b.ground || b.lid) {
    const int width = b.nx + 2 * h, columns = width * (Dims == 3 ? b.ny + 2 * h : 1);
    Kokkos::parallel_for(
        "atmosphere::ground_and_lid_halos", Kokkos::RangePolicy<>(0, columns), KOKKOS_LAMBDA(const int n) {
          const int i = n % width, j = n / width;
          for (int side = 0; side < 2; ++side) {
            if ((side == 0 && !b.ground) || (side == 1 && !b.lid)) continue;
            const int inside = side == 0 ? h : h + b.nz - 1;
            for (int s = 1; s <= h; ++s) {
              const int halo = side == 0 ? h - s : h + b.nz - 1 + s;
              at<Dims>(q, density, halo, j, i) = at<Dims>(q, density, inside, j, i);
              at<Dims>(q, rho_theta, halo, j, i) = at<Dims>(q, rho_theta, inside, j, i);
              at<Dims>(q, momentum_z, halo, j, i) = 0;
              for (int c = 0; c < components_of<Dims>; ++c)
                if (is_momentum(c) && c != momentum_z)
                  at<Dims>(q, c, halo, j, i) = at<Dims>(q, c, inside, j, i) / cells(inside).rho * cells(halo).rho;
            }
          }
        });
  }
}

}  // namespace

AtmosphereSolver::AtmosphereSolver(const Settings& settings, MPI_Comm comm)
    : s_(settings),
      decomp_(comm, settings.grid),
      exchange_(decomp_, components_of_dims(settings.grid.dimensions)),
      components_(components_of_dims(settings.grid.dimensions)) {
  const int dims = dimensions(), vertical = vertical_axis();
  spacing_ = {1.0, 1.0, 1.0};
  for (int axis = 0; axis < dims; ++axis)
    spacing_[axis] = domain_length(s_, axis) / static_cast<double>(decomp_.global_cells(axis));
  const double dz = spacing_[vertical];
  const long nz = decomp_.local_cells(vertical), h = decomp_.halo(vertical);
  const DiscreteBackground background = discretise(s_.profile, dz, decomp_.offset(vertical) - h, nz + 2 * h);
  cells_ = BackgroundView("atmosphere::background_cells", nz + 2 * h);
  faces_ = BackgroundView("atmosphere::background_faces", nz + 1);
  auto cells_host = Kokkos::create_mirror_view(cells_);
  auto faces_host = Kokkos::create_mirror_view(faces_);
  for (long k = 0; k < nz + 2 * h; ++k) cells_host(k) = background.cells[k];
  for (long k = 0; k <= nz; ++k) faces_host(k) = background.faces[k + h];
  parallel::copy<parallel::Copy::host_to_device>(cells_, cells_host);
  parallel::copy<parallel::Copy::host_to_device>(faces_, faces_host);
  // The background's mass and energy, summed over the whole column in one order on every rank, so the
  // totals' large part has the same bits on any decomposition.
  const DiscreteBackground column = discretise(s_.profile, dz, 0, decomp_.global_cells(vertical));
  const double horizontal_area = dims == 3 ? s_.width * s_.depth : s_.width;  // 2-D: per metre along y
  const double layer = horizontal_area * dz;
  for (long k = 0; k < decomp_.global_cells(vertical); ++k) {
    const BackgroundPoint& c = column.cells[k];
    background_mass_ += c.rho * layer;
    background_energy_ += (cv / rd * c.pressure + gravity * (k + 0.5) * dz * c.rho) * layer;
  }
  // The Rayleigh layer's rate at each interior level's centre: rate sin^2(pi/2 (z - base) / depth) above its base.
  Kokkos::View<double*> rate("atmosphere::rayleigh_rate", nz);
  auto rate_host = Kokkos::create_mirror_view(rate);
  for (long k = 0; k < nz; ++k) {
    const double z = (decomp_.offset(vertical) + k + 0.5) * dz, base = s_.height - s_.rayleigh_depth;
    const double s = s_.rayleigh_depth > 0 && z > base ? std::sin(pi / 2 * (z - base) / s_.rayleigh_depth) : 0.0;
    rate_host(k) = s_.rayleigh_rate * s * s;
  }
  parallel::copy<parallel::Copy::host_to_device>(rate, rate_host);
  rayleigh_rate_ = rate;
  q_ = mesh::make_field(decomp_, components_, "atmosphere::state");
  stage_ = mesh::make_field(decomp_, components_, "atmosphere::stage");
  if (s_.unsplit) second_stage_ = mesh::make_field(decomp_, components_, "atmosphere::second_stage");
  // Room for the largest sweep's rows of faces: (nz + 1) x (ny + 1) in 3-D, nz + 1 in 2-D.
  const long y_rows = dims == 3 ? decomp_.local_cells(1) + 1 : 1;
  flux_ = Flux("atmosphere::flux", components_, (nz + 1) * y_rows, decomp_.local_cells(0) + 1);
  if (!parallel::device_memory_is_host) q_host_ = Kokkos::create_mirror(q_);
  // CF names: the winds have standard names; the perturbations from the hydrostatic reference state have none.
  struct Output {
    const char *name, *units, *long_name, *standard_name;
  };
  std::vector<Output> fields{
      {"fields/theta_perturbation", "K", "potential temperature minus the reference state's", ""},
      {"fields/u", "m/s", "eastward wind", "eastward_wind"},
      {"fields/w", "m/s", "upward air velocity", "upward_air_velocity"},
      {"fields/pressure_perturbation", "Pa", "air pressure minus the reference state's", ""},
      {"fields/density_perturbation", "kg/m^3", "air density minus the reference state's", ""}};
  if (dims == 3) fields.push_back({"fields/v", "m/s", "northward wind", "northward_wind"});
  for (const auto& f : fields) {
    output_.push_back({box(f.name, f.units), {}});
    output_.back().box.long_name = f.long_name, output_.back().box.standard_name = f.standard_name;
  }
  for (const auto& b : state_layout()) staged_state_.push_back({b, {}});
  for (auto* sets : {&output_, &staged_state_})
    for (auto& d : *sets) d.values.resize(d.box.local_values());
  set_initial_state();
}

namespace {
struct Point {
  double x, y, z;  // m
};

// cos^2 bubble of amplitude `amplitude` inside the ellipsoid of radii `radii` about `centre`, as
// miniWeather's. The 2-D slice's points sit at the centre's y, whose term is then exactly zero.
double ellipse_cosine(const Point& p, double amplitude, const Point& centre, const Point& radii) {
  const double dx = p.x - centre.x, dy = p.y - centre.y, dz = p.z - centre.z;
  const double distance =
      std::sqrt(dx * dx / (radii.x * radii.x) + dy * dy / (radii.y * radii.y) + dz * dz / (radii.z * radii.z)) * pi / 2;
  return distance <= pi / 2 ? amplitude * std::cos(distance) * std::cos(distance) : 0.0;
}

// The theta perturbation of a case at `p` (K), and whether it comes at constant pressure (the density
// adjusts) or, as miniWeather's thermals, at constant density. In 3-D the bubbles are centred at
// y = depth/2 with their x radius along y; the gravity waves' perturbations do not depend on y.
double theta_perturbation(const Settings& s, const Point& p, bool& constant_pressure) {
  constant_pressure = s.initial == Case::density_current || s.initial == Case::gravity_wave ||
                      s.initial == Case::linear_gravity_wave;
  const double xc = s.width / 2, yc = s.depth / 2;
  switch (s.initial) {
    case Case::rest: return 0;
    case Case::thermal: return ellipse_cosine(p, 3, {xc, yc, 2000}, {2000, 2000, 2000});
    case Case::colliding_thermals:
      return ellipse_cosine(p, 20, {xc, yc, 2000}, {2000, 2000, 2000}) +
             ellipse_cosine(p, -20, {xc, yc, 8000}, {2000, 2000, 2000});
    case Case::density_current:
      return ellipse_cosine(p, -15, {xc, yc, 3000}, {4000, 4000, 2000}) / s.profile.exner(p.z);
    case Case::gravity_wave: {
      const double a = 5000, x0 = s.width / 3;
      return 0.01 * std::sin(pi * p.z / s.height) / (1 + (p.x - x0) * (p.x - x0) / (a * a));
    }
    case Case::linear_gravity_wave: {
      const double d = 5000, x0 = s.width / 3, delta = gravity / (rd * s.profile.surface_theta);
      const double temperature =
          0.01 * std::exp(delta * p.z / 2 - (p.x - x0) * (p.x - x0) / (d * d)) * std::sin(pi * p.z / s.height);
      return temperature / s.profile.exner(p.z);
    }
  }
  return 0;
}

// A host view's component c at halo-inclusive (vertical k, y j, x i), as at<Dims> on the device.
template <class HostField>
double& host_value(const HostField& q, int dims, int c, long k, long j, long i) {
  return dims == 3 ? q(c, k, j, i) : q(c, 0, k, i);
}

// Calls copy(n, k, j, i) for this rank's cells in the C order of the output (vertical slowest, x
// fastest), n counting them and (k, j, i) their halo-inclusive indices (j = 0 in 2-D).
template <class Copy>
void for_owned(const mesh::Decomposition& d, Copy&& copy) {
  const int dims = d.dimensions();
  const long h = d.halo(0), y_first = dims == 3 ? h : 0, y_end = y_first + (dims == 3 ? d.local_cells(1) : 1);
  std::size_t n = 0;
  for (long k = h; k < h + d.local_cells(dims - 1); ++k)
    for (long j = y_first; j < y_end; ++j)
      for (long i = h; i < h + d.local_cells(0); ++i, ++n) copy(n, k, j, i);
}
}  // namespace

// Cell averages by 3 x 3 (x 3) Gauss-Legendre quadrature of the perturbation about the profile's point
// values, as miniWeather's initialisation.
void AtmosphereSolver::set_initial_state() {
  using solvers::GaussRule;
  auto q = Kokkos::create_mirror_view(q_);
  parallel::fill(q, 0.0);
  const int dims = dimensions(), vertical = vertical_axis(), y_points = dims == 3 ? GaussRule::points : 1;
  for_owned(decomp_, [&](std::size_t, long k, long j, long i) {
    const int h = decomp_.halo(0);
    double sums[components_of<3>] = {};
    for (int a = 0; a < GaussRule::points; ++a)
      for (int b = 0; b < y_points; ++b)
        for (int c = 0; c < GaussRule::points; ++c) {
          Point p;
          p.x = (decomp_.offset(0) + i - h + 0.5 + GaussRule::node(c)) * spacing_[0];
          p.y = dims == 3 ? (decomp_.offset(1) + j - h + 0.5 + GaussRule::node(b)) * spacing_[1] : s_.depth / 2;
          p.z = (decomp_.offset(vertical) + k - h + 0.5 + GaussRule::node(a)) * spacing_[vertical];
          const double weight = dims == 3 ? GaussRule::weight(a) * GaussRule::weight(b) * GaussRule::weight(c)
                                          : GaussRule::weight(a) * GaussRule::weight(c);
          bool constant_pressure = false;
          const double dtheta = theta_perturbation(s_, p, constant_pressure);
          const double rho_b = s_.profile.density(p.z), theta_b = s_.profile.theta(p.z);
          double rho = rho_b, rt_perturbation = rho_b * dtheta;
          if (constant_pressure) rho = s_.profile.rho_theta(p.z) / (theta_b + dtheta), rt_perturbation = 0;
          sums[density] += weight * (rho - rho_b);
          sums[momentum_x] += weight * rho * s_.wind;
          sums[rho_theta] += weight * rt_perturbation;
        }
    for (int c = 0; c < components_; ++c) host_value(q, dims, c, k, j, i) = sums[c];
  });
  parallel::copy<parallel::Copy::host_to_device>(q_, q);
}

io::DatasetBox AtmosphereSolver::box(const std::string& name, const std::string& units) const {
  io::DatasetBox b;
  b.name = name;
  for (int axis = dimensions() - 1; axis >= 0; --axis) {  // C order: the vertical slowest, x fastest
    b.global.push_back(static_cast<unsigned long long>(decomp_.global_cells(axis)));
    b.offset.push_back(static_cast<unsigned long long>(decomp_.offset(axis)));
    b.count.push_back(static_cast<unsigned long long>(decomp_.local_cells(axis)));
  }
  b.units = units;
  io::Geometry g;
  g.dimensions = dimensions();
  g.spacing = spacing_;
  g.length_units = "m";
  g.vertical_axis = dimensions() - 1;  // z, the last axis: (x, z) in 2-D
  if (dimensions() == 2) g.axis_names = {"x", "z", ""};
  b.geometry = g;
  return b;
}

namespace {
// Reductions over this rank's interior cells of body(k, j, i, result) (j = 0 in 2-D).
template <class Body, class Reducer>
void reduce_over_cells(const char* label, const Block& b, const Body& body, const Reducer& reducer) {
  parallel::reduce(label, parallel::Cells{{0, 0, 0}, {b.nz, b.ny, b.nx}}, body, reducer);
}

using Spacing = Kokkos::Array<double, 3>;

// Max over cells of (|u_axis| + c) / spacing over the axes, or of its sum over them for the unsplit scheme.
template <int Dims>
double max_signal_rate(const Block& b, const mesh::Field& q, const BackgroundView& cells, const Spacing& spacing,
                       bool unsplit) {
  double rate = 0;
  const auto body = KOKKOS_LAMBDA(const int k, const int j, const int i, double& r) {
    double state[components_of<Dims>], along[Dims];
    for (int c = 0; c < components_of<Dims>; ++c) state[c] = at<Dims>(q, c, b.h + k, b.h + j, b.h + i);
    signal_speeds<Dims>(state, cells(b.h + k), along);
    double cell_rate = along[0] / spacing[0];
    for (int axis = 1; axis < Dims; ++axis)
      cell_rate = unsplit ? cell_rate + along[axis] / spacing[axis] : max_of(cell_rate, along[axis] / spacing[axis]);
    r = max_of(r, cell_rate);
  };
  reduce_over_cells("atmosphere::signal_rate", b, body, Kokkos::Max<double>(rate));
  return rate;
}
}  // namespace

double AtmosphereSolver::stable_dt(double) {
  const Block b = block_of(decomp_, s_.side_walls);
  const Spacing spacing{spacing_[0], spacing_[1], spacing_[2]};
  const double rate = dimensions() == 3 ? max_signal_rate<3>(b, q_, cells_, spacing, s_.unsplit)
                                        : max_signal_rate<2>(b, q_, cells_, spacing, s_.unsplit);
  last_rate_ = mesh::global_max(rate, decomp_.comm());
  double dt = s_.fixed_dt > 0 ? s_.fixed_dt : s_.courant / last_rate_;
  // The explicit relaxation: dt times the rate within 1 (RK3 is stable to 2.5 on the negative real axis).
  if (s_.rayleigh_depth > 0) dt = std::min(dt, 1 / s_.rayleigh_rate);
  // Explicit diffusion: nu dt / h^2 within RK3's real-axis reach (2.5) over the 2nd difference's
  // largest eigenvalue (4), with a margin: 0.5.
  const double diffusion = std::max(s_.viscosity, s_.diffusivity);
  double smallest = spacing_[0];
  for (int axis = 1; axis < dimensions(); ++axis) smallest = std::min(smallest, spacing_[axis]);
  if (diffusion > 0) dt = std::min(dt, 0.5 * smallest * smallest / diffusion);
  return dt;
}

// What a sweep along `axis` reads beyond the rank's cells: the neighbours' cells across that axis and
// the halos beyond its walls. A split step's sweep fills only these: in 2-D on ranks cut along x, the
// vertical sweep sends no messages (miniWeather's split does the same).
void AtmosphereSolver::fill_halos_across(const mesh::Field& field, int axis) {
  exchange_.exchange_across(field, axis);
  const Block b = block_of(decomp_, s_.side_walls);
  if (dimensions() == 3)
    wall_halos_across<3>(axis, b, cells_, field);
  else
    wall_halos_across<2>(axis, b, cells_, field);
}

void AtmosphereSolver::fill_halos(const mesh::Field& field) {
  for (int axis = 0; axis < dimensions(); ++axis) fill_halos_across(field, axis);
}

void AtmosphereSolver::stage(int axis, const mesh::Field& initial, const mesh::Field& forcing, const mesh::Field& out,
                             double dt) {
  fill_halos_across(forcing, axis);
  tendencies(axis, initial, forcing, out, dt);
}

void AtmosphereSolver::tendencies(int axis, const mesh::Field& initial, const mesh::Field& forcing,
                                  const mesh::Field& out, double dt) {
  const Block b = block_of(decomp_, s_.side_walls);
  const double h = spacing_[axis];
  // miniWeather's hyperviscosity coefficient -beta h / (16 dt) with the stage's dt: each stage
  // removes the same fraction of the third difference, whatever the step.
  const FluxInputs in{forcing,      flux_,          cells_,         faces_,
                      b,            -s_.hyperviscosity * h / (16 * dt), h, s_.viscosity,
                      s_.diffusivity, s_.fifth_order, s_.one_sided_walls};
  const VerticalSources sources{cells_, rayleigh_rate_, s_.wind, s_.rayleigh_depth > 0};
  if (dimensions() == 3)
    directional_tendencies<3>(axis, in, initial, out, dt, sources);
  else
    directional_tendencies<2>(axis, in, initial, out, dt, sources);
}

// One direction's Wicker-Skamarock RK3, every stage from the state at the sweep's start.
void AtmosphereSolver::sweep(int axis, double dt) {
  const mesh::Field* forcing[solvers::wicker_skamarock_stages] = {&q_, &stage_, &stage_};
  const mesh::Field* out[solvers::wicker_skamarock_stages] = {&stage_, &stage_, &q_};
  for (int n = 0; n < solvers::wicker_skamarock_stages; ++n)
    stage(axis, q_, *forcing[n], *out[n], solvers::wicker_skamarock_stage(n, dt).dt);
}

// Every direction's tendencies in every stage, from the same forcing state: x into `out` from the
// step's start, then the others added in place (so out may not be the forcing: stage 2 writes the
// second buffer).
void AtmosphereSolver::unsplit_step(double dt) {
  const mesh::Field* forcing[solvers::wicker_skamarock_stages] = {&q_, &stage_, &second_stage_};
  const mesh::Field* out[solvers::wicker_skamarock_stages] = {&stage_, &second_stage_, &q_};
  for (int n = 0; n < solvers::wicker_skamarock_stages; ++n) {
    const double stage_dt = solvers::wicker_skamarock_stage(n, dt).dt;
    fill_halos(*forcing[n]);
    tendencies(0, q_, *forcing[n], *out[n], stage_dt);
    for (int axis = 1; axis < dimensions(); ++axis) tendencies(axis, *out[n], *forcing[n], *out[n], stage_dt);
  }
}

// Split: x to z, then z to x the next step (miniWeather's x, z / z, x in 2-D and x, y, z / z, y, x in 3-D).
void AtmosphereSolver::step(double, double dt) {
  if (s_.unsplit) return unsplit_step(dt);
  const int dims = dimensions();
  for (int n = 0; n < dims; ++n) sweep(x_first_ ? n : dims - 1 - n, dt);
  x_first_ = !x_first_;
}

namespace {
// What the diagnostics sum or bound over this rank's cells, each from one cell's state.
enum class CellQuantity { mass, energy, abs_w, theta_perturbation };

// A cell's mass and total energy (kinetic, internal, potential) less the background's (per metre along
// y in 2-D), |w| or theta'. The energy perturbation rho |u|^2 / 2 + cv p' / rd + g z rho' has no
// cancellation (rho cv T = cv p / rd), so its sums round like the perturbation, not like the total.
template <int N>
KOKKOS_INLINE_FUNCTION double cell_quantity(CellQuantity what, const double state[N], const BackgroundPoint& cell,
                                            double z, double volume) {
  const double rho = state[density] + cell.rho;
  if (what == CellQuantity::mass) return state[density] * volume;
  if (what == CellQuantity::abs_w) return km::fabs(state[momentum_z] / rho);
  if (what == CellQuantity::theta_perturbation)
    return (state[rho_theta] + cell.rho_theta) / rho - cell.rho_theta / cell.rho;
  double speed_squared = 0;
  for (int c = 0; c < N; ++c)
    if (is_momentum(c)) speed_squared += (state[c] / rho) * (state[c] / rho);
  const double p = pressure_perturbation(state[rho_theta], cell.rho_theta, cell.pressure);
  return (0.5 * rho * speed_squared + cv / rd * p + gravity * z * state[density]) * volume;
}

// The sum, max or min over this rank's cells of one quantity (Kokkos 3.4 takes one reducer a launch).
template <int Dims, class Reducer>
double reduce_cells(CellQuantity what, const Block& b, const mesh::Field& q, const BackgroundView& cells, double dz,
                    double volume, long z_offset) {
  double result = 0;
  const auto body = KOKKOS_LAMBDA(const int k, const int j, const int i, double& r) {
    double state[components_of<Dims>];
    for (int c = 0; c < components_of<Dims>; ++c) state[c] = at<Dims>(q, c, b.h + k, b.h + j, b.h + i);
    const double value =
        cell_quantity<components_of<Dims>>(what, state, cells(b.h + k), (z_offset + k + 0.5) * dz, volume);
    Reducer(r).join(r, value);
  };
  reduce_over_cells("atmosphere::diagnostics", b, body, Reducer(result));
  return result;
}

// Sums of mass and energy, and maxima of |w|, -theta' and theta', over this rank's cells.
template <int Dims>
void local_diagnostics(const Block& b, const mesh::Field& q, const BackgroundView& cells, double dz, double volume,
                       long z_offset, double sums[2], double maxima[3]) {
  using Sum = Kokkos::Sum<double>;
  using Max = Kokkos::Max<double>;
  using Min = Kokkos::Min<double>;
  sums[0] = reduce_cells<Dims, Sum>(CellQuantity::mass, b, q, cells, dz, volume, z_offset);
  sums[1] = reduce_cells<Dims, Sum>(CellQuantity::energy, b, q, cells, dz, volume, z_offset);
  maxima[0] = reduce_cells<Dims, Max>(CellQuantity::abs_w, b, q, cells, dz, volume, z_offset);
  maxima[1] = -reduce_cells<Dims, Min>(CellQuantity::theta_perturbation, b, q, cells, dz, volume, z_offset);
  maxima[2] = reduce_cells<Dims, Max>(CellQuantity::theta_perturbation, b, q, cells, dz, volume, z_offset);
}
}  // namespace

std::vector<solvers::Scalar> AtmosphereSolver::diagnostics(double) {
  const Block b = block_of(decomp_, s_.side_walls);
  const int dims = dimensions(), vertical = vertical_axis();
  const double dz = spacing_[vertical];
  const double volume = dims == 3 ? spacing_[0] * spacing_[1] * dz : spacing_[0] * dz;
  const long z0 = decomp_.offset(vertical);
  double sums[2], maxima[3];
  if (dims == 3)
    local_diagnostics<3>(b, q_, cells_, dz, volume, z0, sums, maxima);
  else
    local_diagnostics<2>(b, q_, cells_, dz, volume, z0, sums, maxima);
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, decomp_.comm());
  MPI_Allreduce(MPI_IN_PLACE, maxima, 3, MPI_DOUBLE, MPI_MAX, decomp_.comm());
  return {{"total_mass", background_mass_ + sums[0], true, dims == 3 ? "kg" : "kg/m"},
          {"total_energy", background_energy_ + sums[1], true, dims == 3 ? "J" : "J/m"},
          {"max_abs_w", maxima[0], true, "m/s"},
          {"min_theta_perturbation", -maxima[1], true, "K"},
          {"max_theta_perturbation", maxima[2], true, "K"}};
}

std::vector<solvers::Scalar> AtmosphereSolver::progress(double dt) const { return {{"courant", dt * last_rate_, true, "1"}}; }

double AtmosphereSolver::work_per_step() const { return static_cast<double>(decomp_.global_cell_count()); }

std::string AtmosphereSolver::layout() const {
  const int dims = dimensions();
  const char* names[3] = {"x", dims == 3 ? "y" : "z", "z"};
  std::ostringstream ranks, cells, spacing;
  for (int axis = 0; axis < dims; ++axis) {
    const char* separator = axis == 0 ? "" : " x ";
    ranks << separator << decomp_.process_grid(axis) << " (" << names[axis] << ")";
    cells << separator << decomp_.global_cells(axis);
    spacing << separator << spacing_[axis] << " m";
  }
  std::ostringstream out;
  out << decomp_.size() << " ranks as " << ranks.str() << ", " << cells.str() << " cells of " << spacing.str() << ", "
      << (s_.fifth_order ? "WRF's 5th-order upwind" : "miniWeather's 4th-order") << " fluxes, "
      << (s_.unsplit ? "unsplit" : "dimensionally split") << " RK3";
  return out.str();
}

const std::vector<io::HostDataset>& AtmosphereSolver::output_fields() {
  const auto q = mesh::on_host(q_, q_host_);
  const auto cells = parallel::host_mirror_of(cells_);
  const int dims = dimensions();
  for_owned(decomp_, [&](std::size_t n, long k, long j, long i) {
    const BackgroundPoint& cell = cells(k);
    const auto value = [&](int c) { return host_value(q, dims, c, k, j, i); };
    const double rho = value(density) + cell.rho;
    output_[0].values[n] = (value(rho_theta) + cell.rho_theta) / rho - cell.rho_theta / cell.rho;
    output_[1].values[n] = value(momentum_x) / rho;
    output_[2].values[n] = value(momentum_z) / rho;
    output_[3].values[n] = pressure_perturbation(value(rho_theta), cell.rho_theta, cell.pressure);
    output_[4].values[n] = value(density);
    if (dims == 3) output_[5].values[n] = value(momentum_y) / rho;
  });
  return output_;
}

std::vector<io::DatasetBox> AtmosphereSolver::state_layout() const {
  std::vector<io::DatasetBox> boxes{box("state/density_perturbation", "kg/m^3"), box("state/momentum_x", "kg/(m^2 s)"),
                                    box("state/momentum_z", "kg/(m^2 s)"),
                                    box("state/rho_theta_perturbation", "kg K/m^3")};
  if (dimensions() == 3) boxes.push_back(box("state/momentum_y", "kg/(m^2 s)"));
  return boxes;
}

const std::vector<io::HostDataset>& AtmosphereSolver::state() {
  const auto q = mesh::on_host(q_, q_host_);
  const int dims = dimensions();
  for_owned(decomp_, [&](std::size_t n, long k, long j, long i) {
    for (int c = 0; c < components_; ++c) staged_state_[c].values[n] = host_value(q, dims, c, k, j, i);
  });
  return staged_state_;
}

void AtmosphereSolver::restore(const std::vector<io::HostDataset>& state) {
  const auto q = mesh::on_host(q_, q_host_);
  const int dims = dimensions();
  for_owned(decomp_, [&](std::size_t n, long k, long j, long i) {
    for (int c = 0; c < components_; ++c) host_value(q, dims, c, k, j, i) = state.at(c).values.at(n);
  });
  parallel::copy<parallel::Copy::host_to_device>(q_, q);  // on the host backends q_ itself: counted, no copy
}

std::vector<solvers::Scalar> AtmosphereSolver::state_scalars() const {
  return {{"x_first", x_first_ ? 1.0 : 0.0, true, "1"}};
}

void AtmosphereSolver::restore_scalars(const std::vector<solvers::Scalar>& scalars) {
  x_first_ = scalars.at(0).value != 0;
}

}  // namespace meridian::atmosphere
