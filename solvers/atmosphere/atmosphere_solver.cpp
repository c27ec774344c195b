#include "solvers/atmosphere/atmosphere_solver.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <sstream>

#include "mesh/reductions.hpp"
#include "solvers/common/gauss_rule.hpp"
#include "solvers/common/grid_config.hpp"
#include "solvers/common/memory_budget.hpp"
#include "solvers/common/team_shape.hpp"
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
              "linearised compressible equations, whose solution is known exactly",
              {"rest", "thermal", "colliding_thermals", "density_current", "gravity_wave", "linear_gravity_wave"}});
  schema.add({s, "width", KeyType::real, 2.0e4, "m", "domain length along x", {}, 0, 1e8, true});
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
              "acoustic Courant number: dt = courant / max over cells of (|u| + c) / dx and (|w| + c) / dz (their "
              "sum when unsplit); the sweep's von Neumann limit at hyperviscosity 0.05 is 1.345 (1.262 without), "
              "1.179 with fifth_order_upwind",
              {}, 0, 100, true});
  schema.add({s, "dt", KeyType::real, 0.0, "s",
              "a fixed time step instead of the Courant one (0: use courant), e.g. miniWeather's min(dx, dz) / 450 "
              "m/s x 1.5; refused where it puts the acoustic Courant number of the initial state above the limit, "
              "shortened where the Rayleigh layer's or the diffusion's limit is shorter",
              {}, 0, 1e6});
  schema.add({s, "splitting", KeyType::string, std::string("alternating"), "",
              "alternating: miniWeather's dimensional splitting, a full RK3 step along x then z, the order swapped "
              "every step; unsplit: both directions' tendencies in each RK3 stage (the Courant number then sums "
              "the two directions')",
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
              "boundaries at x = 0 and x = width: periodic, or free-slip walls (the ground and the lid always are)",
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
  const int halo = s.grid.halo_width;
  if (s.grid.cells[0] < halo || s.grid.cells[1] < halo)
    deck.fail("mesh", s.grid.cells[0] < halo ? "nx" : "ny",
              "the atmosphere needs at least as many cells along each axis as its halo is wide (2; 3 with "
              "fifth_order_upwind)");
  const double coldest = s.profile.surface_theta + coldest_perturbation(s.initial);
  if (coldest <= 0) {
    std::ostringstream m;
    m << "the initial state has a negative absolute temperature: theta reaches " << coldest << " K";
    deck.fail("atmosphere", "surface_theta", m.str());
  }
  // The halos above the lid hold background values too, so the profile must reach beyond it.
  const double dz = s.height / static_cast<double>(s.grid.cells[1]);
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
    const long samples = std::min<long>(s.grid.cells[1], 1000);
    double fastest = 0;
    for (long k = 0; k <= samples; ++k) {
      const double z = s.height * static_cast<double>(k) / static_cast<double>(samples);
      fastest = std::max(fastest, std::sqrt(gamma_d * s.profile.pressure(z) / s.profile.density(z)));
    }
    fastest += std::abs(s.wind);
    const double dx = s.width / static_cast<double>(s.grid.cells[0]);
    const double courant = s.fixed_dt * fastest * (s.unsplit ? 1 / dx + 1 / dz : 1 / std::min(dx, dz));
    if (courant > limit) {
      std::ostringstream m;
      m << "dt = " << s.fixed_dt << " s gives an acoustic Courant number of " << courant << " (sound speed and wind "
        << fastest << " m/s), above the limit " << limit << " at hyperviscosity " << s.hyperviscosity;
      deck.fail("atmosphere", "dt", m.str());
    }
  }
  return s;
}

// Bytes a rank needs: the state and one stage (4 components each; a second stage unsplit), the face
// fluxes (4), and the output's five staged fields and the checkpoint's four in double.
void require_memory(const io::Deck& deck, const Settings& s, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const std::uint64_t cells = solvers::saturating_product(
      {static_cast<std::uint64_t>(s.grid.cells[0]), static_cast<std::uint64_t>(s.grid.cells[1])});
  const std::uint64_t local = cells == UINT64_MAX ? cells : (cells + ranks - 1) / ranks;
  solvers::require_memory(deck, "mesh", "nx", solvers::saturating_product({local, s.unsplit ? 25u : 21u, sizeof(double)}),
                          "the state, stage, face fluxes and staged output", comm);
}

}  // namespace

void validate(const io::Deck& deck, MPI_Comm comm) {
  const Settings s = settings_of(deck);
  require_memory(deck, s, comm);
  try {
    const mesh::Decomposition d(comm, s.grid);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", e.key(), e.what());
  }
}

std::unique_ptr<solvers::Solver> build(const io::Deck& deck, MPI_Comm comm) {
  const Settings s = settings_of(deck);
  require_memory(deck, s, comm);
  try {
    return std::make_unique<AtmosphereSolver>(s, comm);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", e.key(), e.what());
  }
}

namespace {

// This rank's block: interior cells and halo, and whether it touches each wall.
struct Block {
  int nx, nz, h;
  bool wall_left, wall_right, ground, lid;
};

Block block_of(const mesh::Decomposition& d, bool side_walls) {
  return Block{static_cast<int>(d.local_cells(0)), static_cast<int>(d.local_cells(1)), d.halo(0),
               side_walls && d.at_lower_boundary(0), side_walls && d.at_upper_boundary(0), d.at_lower_boundary(1),
               d.at_upper_boundary(1)};
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

// Where face `n` along `axis` (its index in its row, 0 the lowest or leftmost) sits with respect to
// this rank's walls.
KOKKOS_INLINE_FUNCTION FaceStencil face_stencil(int n, int axis, const Block& b) {
  const bool low = axis == 0 ? b.wall_left : b.ground, high = axis == 0 ? b.wall_right : b.lid;
  const int last = axis == 0 ? b.nx : b.nz;
  if (low && n == 0) return FaceStencil::wall_below;
  if (high && n == last) return FaceStencil::wall_above;
  if ((low && n == 1) || (high && n == last - 1)) return FaceStencil::next_to_wall;
  return FaceStencil::interior;
}

// Fluxes through this rank's faces along `axis`: rows of faces (a row of x-faces per cell row, or a
// row of z-faces per face level), lanes along x.
void face_fluxes(int axis, const FluxInputs& in) {
  const mesh::Field q = in.q;
  const Flux flux = in.flux;
  const BackgroundView cells = in.cells, faces = in.faces;
  const Block b = in.b;
  const double hv = in.hyperviscosity, spacing = in.spacing, nu = in.viscosity, kappa = in.diffusivity;
  const bool fifth = in.fifth_order, one_sided = in.one_sided_walls;
  const long component_stride = static_cast<long>(q.stride(0));
  const long stride = axis == 0 ? 1 : static_cast<long>(q.stride(2));
  const int rows = axis == 0 ? b.nz : b.nz + 1, faces_per_row = axis == 0 ? b.nx + 1 : b.nx;
  const solvers::TeamShape shape = solvers::row_team_shape();
  const int rows_per_team = shape.threads;
  Kokkos::parallel_for(
      "atmosphere::face_fluxes", shape.policy((rows + rows_per_team - 1) / rows_per_team),
      KOKKOS_LAMBDA(const solvers::TeamMember& team) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](const int t) {
          const int row = team.league_rank() * rows_per_team + t;
          if (row >= rows) return;
          FaceInputs inputs;
          inputs.hyperviscosity = hv, inputs.spacing = spacing, inputs.viscosity = nu, inputs.diffusivity = kappa;
          // The background of the stencil's cells that the halo holds (all six with the 5th-order flux's
          // three-cell halo): along x the row's, along the vertical the levels about the face.
          inputs.face = axis == 0 ? cells(b.h + row) : faces(row);
          for (int s = 3 - b.h; s < 3 + b.h; ++s) inputs.cell[s] = cells(b.h + row + (axis == 0 ? 0 : s - 3));
          const bool wall_row = axis == 1 && ((b.ground && row == 0) || (b.lid && row == b.nz));
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, faces_per_row), [&](const int i) {
            const bool wall = wall_row || (axis == 0 && ((b.wall_left && i == 0) || (b.wall_right && i == b.nx)));
            double f[components];
            if (fifth)
              fifth_order_face_flux(&q(0, 0, b.h + row, b.h + i), stride, component_stride, axis, inputs, wall, f);
            else
              face_flux(&q(0, 0, b.h + row, b.h + i), stride, component_stride, axis, inputs, wall,
                        one_sided ? face_stencil(axis == 0 ? i : row, axis, b) : FaceStencil::interior, f);
            for (int c = 0; c < components; ++c) flux(c, row, i) = f[c];
          });
        });
      });
}

// The sources of the vertical sweep: the buoyancy -g rho' and the Rayleigh layer's rate per interior row.
struct VerticalSources {
  BackgroundView cells;
  Kokkos::View<const double*> rayleigh_rate;  // 1/s by interior row; zero below the layer
  double wind;
  bool rayleigh;
};

// out = initial - dt (flux divergence along `axis`), and along the vertical the buoyancy -g rho' of
// `forcing` in the z momentum and the Rayleigh layer's relaxation of `forcing`. `out` may be `initial`
// or `forcing`: each cell is read before it is written.
void apply_tendencies(int axis, const Block& b, const Flux& flux, const mesh::Field& initial,
                      const mesh::Field& forcing, const mesh::Field& out, double dt, double spacing,
                      const VerticalSources& sources) {
  const double scale = dt / spacing, buoyancy = axis == 1 ? dt * gravity : 0.0;
  const bool rayleigh = axis == 1 && sources.rayleigh;
  const BackgroundView cells = sources.cells;
  const Kokkos::View<const double*> rate = sources.rayleigh_rate;
  const double wind = sources.wind;
  const int di = axis == 0, dk = axis == 1;
  const solvers::TeamShape shape = solvers::row_team_shape();
  const int rows_per_team = shape.threads, rows = b.nz;
  Kokkos::parallel_for(
      "atmosphere::apply_tendencies", shape.policy((rows + rows_per_team - 1) / rows_per_team),
      KOKKOS_LAMBDA(const solvers::TeamMember& team) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](const int t) {
          const int k = team.league_rank() * rows_per_team + t;
          if (k >= rows) return;
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, b.nx), [&](const int i) {
            double state[components], relaxation[components] = {0, 0, 0, 0};
            for (int c = 0; c < components; ++c) state[c] = forcing(c, 0, b.h + k, b.h + i);
            if (rayleigh) rayleigh_tendency(state, cells(b.h + k), wind, rate(k), relaxation);
            for (int c = 0; c < components; ++c) {
              double next = initial(c, 0, b.h + k, b.h + i) - scale * (flux(c, k + dk, i + di) - flux(c, k, i));
              if (c == momentum_z) next -= buoyancy * state[density];
              if (rayleigh) next += dt * relaxation[c];
              out(c, 0, b.h + k, b.h + i) = next;
            }
          });
        });
      });
}

// Halos across the walls, as miniWeather's: zero normal momentum; the tangential momentum scaled
// by the background density (the ground and the lid, so u is mirrored evenly) or copied (the side
// walls, whose background is the same on both sides); the density and rho theta perturbations copied.
void wall_halos(const Block& b, const BackgroundView& cells, const mesh::Field& q) {
  const int h = b.h;
  if (b.ground || b.lid) {
    const int columns = b.nx + 2 * h;
    Kokkos::parallel_for(
        "atmosphere::ground_and_lid_halos", Kokkos::RangePolicy<>(0, columns), KOKKOS_LAMBDA(const int i) {
          for (int side = 0; side < 2; ++side) {
            if ((side == 0 && !b.ground) || (side == 1 && !b.lid)) continue;
            const int inside = side == 0 ? h : h + b.nz - 1;
            for (int s = 1; s <= h; ++s) {
              const int halo = side == 0 ? h - s : h + b.nz - 1 + s;
              q(density, 0, halo, i) = q(density, 0, inside, i);
              q(rho_theta, 0, halo, i) = q(rho_theta, 0, inside, i);
              q(momentum_z, 0, halo, i) = 0;
              q(momentum_x, 0, halo, i) = q(momentum_x, 0, inside, i) / cells(inside).rho * cells(halo).rho;
            }
          }
        });
  }
  if (b.wall_left || b.wall_right) {
    Kokkos::parallel_for(
        "atmosphere::side_wall_halos", Kokkos::RangePolicy<>(0, b.nz), KOKKOS_LAMBDA(const int k) {
          for (int side = 0; side < 2; ++side) {
            if ((side == 0 && !b.wall_left) || (side == 1 && !b.wall_right)) continue;
            const int inside = side == 0 ? h : h + b.nx - 1;
            for (int s = 1; s <= h; ++s) {
              const int halo = side == 0 ? h - s : h + b.nx - 1 + s;
              for (int c = 0; c < components; ++c) q(c, 0, h + k, halo) = q(c, 0, h + k, inside);
              q(momentum_x, 0, h + k, halo) = 0;
            }
          }
        });
  }
}

}  // namespace

AtmosphereSolver::AtmosphereSolver(const Settings& settings, MPI_Comm comm)
    : s_(settings), decomp_(comm, settings.grid), exchange_(decomp_, components) {
  spacing_ = {s_.width / static_cast<double>(decomp_.global_cells(0)),
              s_.height / static_cast<double>(decomp_.global_cells(1))};
  const long nz = decomp_.local_cells(1), h = decomp_.halo(1);
  const DiscreteBackground background = discretise(s_.profile, spacing_[1], decomp_.offset(1) - h, nz + 2 * h);
  cells_ = BackgroundView("atmosphere::background_cells", nz + 2 * h);
  faces_ = BackgroundView("atmosphere::background_faces", nz + 1);
  auto cells_host = Kokkos::create_mirror_view(cells_);
  auto faces_host = Kokkos::create_mirror_view(faces_);
  for (long k = 0; k < nz + 2 * h; ++k) cells_host(k) = background.cells[k];
  for (long k = 0; k <= nz; ++k) faces_host(k) = background.faces[k + h];
  Kokkos::deep_copy(cells_, cells_host);
  Kokkos::deep_copy(faces_, faces_host);
  // The background's mass and energy, summed over the whole column in one order on every rank, so the
  // totals' large part has the same bits on any decomposition.
  const DiscreteBackground column = discretise(s_.profile, spacing_[1], 0, decomp_.global_cells(1));
  const double row = s_.width * spacing_[1];
  for (long k = 0; k < decomp_.global_cells(1); ++k) {
    const BackgroundPoint& c = column.cells[k];
    background_mass_ += c.rho * row;
    background_energy_ += (cv / rd * c.pressure + gravity * (k + 0.5) * spacing_[1] * c.rho) * row;
  }
  // The Rayleigh layer's rate at each interior row's centre: rate sin^2(pi/2 (z - base) / depth) above its base.
  Kokkos::View<double*> rate("atmosphere::rayleigh_rate", nz);
  auto rate_host = Kokkos::create_mirror_view(rate);
  for (long k = 0; k < nz; ++k) {
    const double z = (decomp_.offset(1) + k + 0.5) * spacing_[1], base = s_.height - s_.rayleigh_depth;
    const double s = s_.rayleigh_depth > 0 && z > base ? std::sin(pi / 2 * (z - base) / s_.rayleigh_depth) : 0.0;
    rate_host(k) = s_.rayleigh_rate * s * s;
  }
  Kokkos::deep_copy(rate, rate_host);
  rayleigh_rate_ = rate;
  q_ = mesh::make_field(decomp_, components, "atmosphere::state");
  stage_ = mesh::make_field(decomp_, components, "atmosphere::stage");
  if (s_.unsplit) second_stage_ = mesh::make_field(decomp_, components, "atmosphere::second_stage");
  flux_ = Flux("atmosphere::flux", components, nz + 1, decomp_.local_cells(0) + 1);
  if (!mesh::device_memory_is_host) q_host_ = Kokkos::create_mirror(q_);
  const char* fields[5][2] = {{"fields/theta_perturbation", "K"},
                              {"fields/u", "m/s"},
                              {"fields/w", "m/s"},
                              {"fields/pressure_perturbation", "Pa"},
                              {"fields/density_perturbation", "kg/m^3"}};
  for (const auto& f : fields) output_.push_back({box(f[0], f[1]), {}});
  for (const auto& b : state_layout()) staged_state_.push_back({b, {}});
  for (auto* sets : {&output_, &staged_state_})
    for (auto& d : *sets) d.values.resize(d.box.local_values());
  set_initial_state();
}

namespace {
// cos^2 bubble of amplitude `amplitude` inside the ellipse of radii (rx, rz) about (x0, z0), as miniWeather's.
double ellipse_cosine(double x, double z, double amplitude, double x0, double z0, double rx, double rz) {
  const double distance = std::sqrt((x - x0) * (x - x0) / (rx * rx) + (z - z0) * (z - z0) / (rz * rz)) * pi / 2;
  return distance <= pi / 2 ? amplitude * std::cos(distance) * std::cos(distance) : 0.0;
}

// The theta perturbation of a case at (x, z) (K), and whether it comes at constant pressure (the
// density adjusts) or, as miniWeather's thermals, at constant density.
double theta_perturbation(const Settings& s, double x, double z, bool& constant_pressure) {
  constant_pressure = s.initial == Case::density_current || s.initial == Case::gravity_wave ||
                      s.initial == Case::linear_gravity_wave;
  switch (s.initial) {
    case Case::rest: return 0;
    case Case::thermal: return ellipse_cosine(x, z, 3, s.width / 2, 2000, 2000, 2000);
    case Case::colliding_thermals:
      return ellipse_cosine(x, z, 20, s.width / 2, 2000, 2000, 2000) +
             ellipse_cosine(x, z, -20, s.width / 2, 8000, 2000, 2000);
    case Case::density_current:
      return ellipse_cosine(x, z, -15, s.width / 2, 3000, 4000, 2000) / s.profile.exner(z);
    case Case::gravity_wave: {
      const double a = 5000, xc = s.width / 3;
      return 0.01 * std::sin(pi * z / s.height) / (1 + (x - xc) * (x - xc) / (a * a));
    }
    case Case::linear_gravity_wave: {
      const double d = 5000, xc = s.width / 3, delta = gravity / (rd * s.profile.surface_theta);
      const double temperature = 0.01 * std::exp(delta * z / 2 - (x - xc) * (x - xc) / (d * d)) * std::sin(pi * z / s.height);
      return temperature / s.profile.exner(z);
    }
  }
  return 0;
}
}  // namespace

// Cell averages by 3 x 3 Gauss-Legendre quadrature of the perturbation about the profile's point
// values, as miniWeather's initialisation.
void AtmosphereSolver::set_initial_state() {
  using solvers::GaussRule;
  auto q = Kokkos::create_mirror_view(q_);
  Kokkos::deep_copy(q, 0.0);
  const int h = decomp_.halo(0);
  for (long k = 0; k < decomp_.local_cells(1); ++k)
    for (long i = 0; i < decomp_.local_cells(0); ++i) {
      double sums[components] = {0, 0, 0, 0};
      for (int a = 0; a < GaussRule::points; ++a)
        for (int c = 0; c < GaussRule::points; ++c) {
          const double x = (decomp_.offset(0) + i + 0.5 + GaussRule::node(c)) * spacing_[0];
          const double z = (decomp_.offset(1) + k + 0.5 + GaussRule::node(a)) * spacing_[1];
          const double weight = GaussRule::weight(a) * GaussRule::weight(c);
          bool constant_pressure = false;
          const double dtheta = theta_perturbation(s_, x, z, constant_pressure);
          const double rho_b = s_.profile.density(z), theta_b = s_.profile.theta(z);
          double rho = rho_b, rt_perturbation = rho_b * dtheta;
          if (constant_pressure) rho = s_.profile.rho_theta(z) / (theta_b + dtheta), rt_perturbation = 0;
          sums[density] += weight * (rho - rho_b);
          sums[momentum_x] += weight * rho * s_.wind;
          sums[rho_theta] += weight * rt_perturbation;
        }
      for (int c = 0; c < components; ++c) q(c, 0, h + k, h + i) = sums[c];
    }
  Kokkos::deep_copy(q_, q);
}

io::DatasetBox AtmosphereSolver::box(const std::string& name, const std::string& units) const {
  io::DatasetBox b;
  b.name = name;
  b.global = {static_cast<unsigned long long>(decomp_.global_cells(1)),
              static_cast<unsigned long long>(decomp_.global_cells(0))};
  b.offset = {static_cast<unsigned long long>(decomp_.offset(1)), static_cast<unsigned long long>(decomp_.offset(0))};
  b.count = {static_cast<unsigned long long>(decomp_.local_cells(1)),
             static_cast<unsigned long long>(decomp_.local_cells(0))};
  b.units = units;
  io::Geometry g;
  g.dimensions = 2;
  g.spacing = {spacing_[0], spacing_[1], 1.0};
  b.geometry = g;
  return b;
}

namespace {
// Max over cells of (|u| + c) / dx and (|w| + c) / dz, or of their sum for the unsplit scheme.
double max_signal_rate(const Block& b, const mesh::Field& q, const BackgroundView& cells, double dx, double dz,
                       bool unsplit) {
  double rate = 0;
  Kokkos::parallel_reduce(
      "atmosphere::signal_rate", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {b.nz, b.nx}),
      KOKKOS_LAMBDA(const int k, const int i, double& r) {
        double state[components];
        for (int c = 0; c < components; ++c) state[c] = q(c, 0, b.h + k, b.h + i);
        double along_x, along_z;
        signal_speeds(state, cells(b.h + k), along_x, along_z);
        r = max_of(r, unsplit ? along_x / dx + along_z / dz : max_of(along_x / dx, along_z / dz));
      },
      Kokkos::Max<double>(rate));
  return rate;
}
}  // namespace

double AtmosphereSolver::stable_dt(double) {
  const Block b = block_of(decomp_, s_.side_walls);
  last_rate_ = mesh::global_max(max_signal_rate(b, q_, cells_, spacing_[0], spacing_[1], s_.unsplit), decomp_.comm());
  double dt = s_.fixed_dt > 0 ? s_.fixed_dt : s_.courant / last_rate_;
  // The explicit relaxation: dt times the rate within 1 (RK3 is stable to 2.5 on the negative real axis).
  if (s_.rayleigh_depth > 0) dt = std::min(dt, 1 / s_.rayleigh_rate);
  // Explicit diffusion: nu dt / h^2 within RK3's real-axis reach (2.5) over the 2nd difference's
  // largest eigenvalue (4), with a margin: 0.5.
  const double diffusion = std::max(s_.viscosity, s_.diffusivity);
  if (diffusion > 0) dt = std::min(dt, 0.5 * std::min(spacing_[0], spacing_[1]) * std::min(spacing_[0], spacing_[1]) / diffusion);
  return dt;
}

void AtmosphereSolver::fill_halos(const mesh::Field& field) {
  exchange_.exchange(field);
  wall_halos(block_of(decomp_, s_.side_walls), cells_, field);
}

void AtmosphereSolver::stage(int axis, const mesh::Field& initial, const mesh::Field& forcing, const mesh::Field& out,
                             double dt) {
  fill_halos(forcing);
  tendencies(axis, initial, forcing, out, dt);
}

void AtmosphereSolver::tendencies(int axis, const mesh::Field& initial, const mesh::Field& forcing,
                                  const mesh::Field& out, double dt) {
  const Block b = block_of(decomp_, s_.side_walls);
  const double h = spacing_[axis];
  // miniWeather's hyperviscosity coefficient -beta h / (16 dt) with the stage's dt: each stage
  // removes the same fraction of the third difference, whatever the step.
  face_fluxes(axis, FluxInputs{forcing, flux_, cells_, faces_, b, -s_.hyperviscosity * h / (16 * dt), h, s_.viscosity,
                               s_.diffusivity, s_.fifth_order, s_.one_sided_walls});
  apply_tendencies(axis, b, flux_, initial, forcing, out, dt, h,
                   VerticalSources{cells_, rayleigh_rate_, s_.wind, s_.rayleigh_depth > 0});
}

// One direction's Wicker-Skamarock RK3, every stage from the state at the sweep's start.
void AtmosphereSolver::sweep(int axis, double dt) {
  const mesh::Field* forcing[solvers::wicker_skamarock_stages] = {&q_, &stage_, &stage_};
  const mesh::Field* out[solvers::wicker_skamarock_stages] = {&stage_, &stage_, &q_};
  for (int n = 0; n < solvers::wicker_skamarock_stages; ++n)
    stage(axis, q_, *forcing[n], *out[n], solvers::wicker_skamarock_stage(n, dt).dt);
}

// Both directions' tendencies in every stage, from the same forcing state: x into `out` from the
// step's start, then z added in place (so out may not be the forcing: stage 2 writes the second buffer).
void AtmosphereSolver::unsplit_step(double dt) {
  const mesh::Field* forcing[solvers::wicker_skamarock_stages] = {&q_, &stage_, &second_stage_};
  const mesh::Field* out[solvers::wicker_skamarock_stages] = {&stage_, &second_stage_, &q_};
  for (int n = 0; n < solvers::wicker_skamarock_stages; ++n) {
    const double stage_dt = solvers::wicker_skamarock_stage(n, dt).dt;
    fill_halos(*forcing[n]);
    tendencies(0, q_, *forcing[n], *out[n], stage_dt);
    tendencies(1, *out[n], *forcing[n], *out[n], stage_dt);
  }
}

void AtmosphereSolver::step(double, double dt) {
  if (s_.unsplit) return unsplit_step(dt);
  sweep(x_first_ ? 0 : 1, dt);
  sweep(x_first_ ? 1 : 0, dt);
  x_first_ = !x_first_;
}

namespace {
// What the diagnostics sum or bound over this rank's cells, each from one cell's state.
enum class CellQuantity { mass, energy, abs_w, theta_perturbation };

// A cell's mass and total energy (kinetic, internal, potential) per metre along y less the
// background's, |w| or theta'. The energy perturbation rho (u^2 + w^2) / 2 + cv p' / rd + g z rho' has
// no cancellation (rho cv T = cv p / rd), so its sums round like the perturbation, not like the total.
KOKKOS_INLINE_FUNCTION double cell_quantity(CellQuantity what, const double state[components],
                                            const BackgroundPoint& cell, double z, double area) {
  const double rho = state[density] + cell.rho;
  if (what == CellQuantity::mass) return state[density] * area;
  if (what == CellQuantity::abs_w) return km::fabs(state[momentum_z] / rho);
  if (what == CellQuantity::theta_perturbation)
    return (state[rho_theta] + cell.rho_theta) / rho - cell.rho_theta / cell.rho;
  const double u = state[momentum_x] / rho, w = state[momentum_z] / rho;
  const double p = pressure_perturbation(state[rho_theta], cell.rho_theta, cell.pressure);
  return (0.5 * rho * (u * u + w * w) + cv / rd * p + gravity * z * state[density]) * area;
}

// The sum, max or min over this rank's cells of one quantity (Kokkos 3.4 takes one reducer a launch).
template <class Reducer>
double reduce_cells(CellQuantity what, const Block& b, const mesh::Field& q, const BackgroundView& cells, double dx,
                    double dz, long z_offset) {
  double result = 0;
  Kokkos::parallel_reduce(
      "atmosphere::diagnostics", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {b.nz, b.nx}),
      KOKKOS_LAMBDA(const int k, const int i, double& r) {
        double state[components];
        for (int c = 0; c < components; ++c) state[c] = q(c, 0, b.h + k, b.h + i);
        const double value = cell_quantity(what, state, cells(b.h + k), (z_offset + k + 0.5) * dz, dx * dz);
        Reducer(r).join(r, value);
      },
      Reducer(result));
  return result;
}
}  // namespace

std::vector<solvers::Scalar> AtmosphereSolver::diagnostics(double) {
  const Block b = block_of(decomp_, s_.side_walls);
  const double dx = spacing_[0], dz = spacing_[1];
  const long z0 = decomp_.offset(1);
  using Sum = Kokkos::Sum<double>;
  using Max = Kokkos::Max<double>;
  using Min = Kokkos::Min<double>;
  double sums[2] = {reduce_cells<Sum>(CellQuantity::mass, b, q_, cells_, dx, dz, z0),
                    reduce_cells<Sum>(CellQuantity::energy, b, q_, cells_, dx, dz, z0)};
  double maxima[3] = {reduce_cells<Max>(CellQuantity::abs_w, b, q_, cells_, dx, dz, z0),
                      -reduce_cells<Min>(CellQuantity::theta_perturbation, b, q_, cells_, dx, dz, z0),
                      reduce_cells<Max>(CellQuantity::theta_perturbation, b, q_, cells_, dx, dz, z0)};
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, decomp_.comm());
  MPI_Allreduce(MPI_IN_PLACE, maxima, 3, MPI_DOUBLE, MPI_MAX, decomp_.comm());
  return {{"total_mass", background_mass_ + sums[0], true, "kg/m"},
          {"total_energy", background_energy_ + sums[1], true, "J/m"},
          {"max_abs_w", maxima[0], true, "m/s"},
          {"min_theta_perturbation", -maxima[1], true, "K"},
          {"max_theta_perturbation", maxima[2], true, "K"}};
}

std::vector<solvers::Scalar> AtmosphereSolver::progress(double dt) const { return {{"courant", dt * last_rate_, true, "1"}}; }

double AtmosphereSolver::work_per_step() const { return static_cast<double>(decomp_.global_cell_count()); }

std::string AtmosphereSolver::layout() const {
  std::ostringstream out;
  out << decomp_.size() << " ranks as " << decomp_.process_grid(0) << " (x) x " << decomp_.process_grid(1)
      << " (z), " << decomp_.global_cells(0) << " x " << decomp_.global_cells(1) << " cells of " << spacing_[0]
      << " m x " << spacing_[1] << " m, " << (s_.fifth_order ? "WRF's 5th-order upwind" : "miniWeather's 4th-order")
      << " fluxes, " << (s_.unsplit ? "unsplit" : "dimensionally split") << " RK3";
  return out.str();
}

namespace {
template <class Copy>
void for_owned(const mesh::Decomposition& d, Copy&& copy) {
  const long h = d.halo(0);
  std::size_t n = 0;
  for (long k = h; k < h + d.local_cells(1); ++k)
    for (long i = h; i < h + d.local_cells(0); ++i, ++n) copy(n, k, i);
}
}  // namespace

const std::vector<io::HostDataset>& AtmosphereSolver::output_fields() {
  const auto q = mesh::on_host(q_, q_host_);
  const auto cells = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cells_);
  for_owned(decomp_, [&](std::size_t n, long k, long i) {
    const BackgroundPoint& cell = cells(k);
    const double rho = q(density, 0, k, i) + cell.rho;
    output_[0].values[n] = (q(rho_theta, 0, k, i) + cell.rho_theta) / rho - cell.rho_theta / cell.rho;
    output_[1].values[n] = q(momentum_x, 0, k, i) / rho;
    output_[2].values[n] = q(momentum_z, 0, k, i) / rho;
    output_[3].values[n] = pressure_perturbation(q(rho_theta, 0, k, i), cell.rho_theta, cell.pressure);
    output_[4].values[n] = q(density, 0, k, i);
  });
  return output_;
}

std::vector<io::DatasetBox> AtmosphereSolver::state_layout() const {
  return {box("state/density_perturbation", "kg/m^3"), box("state/momentum_x", "kg/(m^2 s)"),
          box("state/momentum_z", "kg/(m^2 s)"), box("state/rho_theta_perturbation", "kg K/m^3")};
}

const std::vector<io::HostDataset>& AtmosphereSolver::state() {
  const auto q = mesh::on_host(q_, q_host_);
  for_owned(decomp_, [&](std::size_t n, long k, long i) {
    for (int c = 0; c < components; ++c) staged_state_[c].values[n] = q(c, 0, k, i);
  });
  return staged_state_;
}

void AtmosphereSolver::restore(const std::vector<io::HostDataset>& state) {
  const auto q = mesh::on_host(q_, q_host_);
  for_owned(decomp_, [&](std::size_t n, long k, long i) {
    for (int c = 0; c < components; ++c) q(c, 0, k, i) = state.at(c).values.at(n);
  });
  if (!mesh::device_memory_is_host) Kokkos::deep_copy(q_, q);
}

std::vector<solvers::Scalar> AtmosphereSolver::state_scalars() const {
  return {{"x_first", x_first_ ? 1.0 : 0.0, true, "1"}};
}

void AtmosphereSolver::restore_scalars(const std::vector<solvers::Scalar>& scalars) {
  x_first_ = scalars.at(0).value != 0;
}

}  // namespace meridian::atmosphere
