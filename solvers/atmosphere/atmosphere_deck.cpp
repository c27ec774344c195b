#include "solvers/atmosphere/atmosphere_deck.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "solvers/atmosphere/atmosphere_cases.hpp"
#include "solvers/atmosphere/water_transport.hpp"
#include "solvers/common/grid_config.hpp"
#include "solvers/common/memory_budget.hpp"

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
              "waves do not depend on y; bryan_fritsch: Bryan & Fritsch's (2002) bubble, theta' = 2 K cos^2 of "
              "radius 2 km at (width/2, 2 km), pressure unperturbed (the dry twin); with moisture.water = "
              "\"saturated_neutral\" their moist bubble, theta_rho = theta_rho0 (1 + theta' / 300 K), saturated, "
              "r_t unchanged, pressure unperturbed, so its initial buoyancy is the dry twin's",
              {"rest", "thermal", "colliding_thermals", "density_current", "gravity_wave", "linear_gravity_wave",
               "bryan_fritsch"}});
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
  declare_moisture_keys(schema);
}

void declare_moisture_keys(io::Schema& schema) {
  using io::KeyType;
  const std::string m = "moisture";
  schema.add({m, "water", KeyType::string, std::string("none"), "",
              "water carried by the air (vapour and cloud, as partial densities; the dynamics' density is then the "
              "whole air's and its rho theta is rho theta_rho = rho_d theta_m, p = c0 (rho theta_rho)^gamma with the "
              "dry gamma as WRF v4). none: the dry core; uniform_vapour: the mixing ratio `vapour` everywhere on the "
              "dry background (its density read as the whole air's, its theta as theta_rho); saturated_neutral: "
              "Bryan & Fritsch's (2002) saturated neutral state of constant theta_e and total water, hydrostatic "
              "with the whole density from surface_pressure (the atmosphere's background keys are then unused)",
              {"none", "uniform_vapour", "saturated_neutral"}});
  schema.add({m, "vapour", KeyType::real, 0.0, "kg/kg",
              "uniform_vapour's vapour mixing ratio (per kg of dry air); without saturation_adjustment it must not "
              "exceed saturation anywhere in the column",
              {}, 0, 0.1});
  schema.add({m, "theta_e", KeyType::real, 320.0, "K",
              "saturated_neutral's equivalent potential temperature (Emanuel 1994, eq. 4.5.11)", {}, 0, 1e3, true});
  schema.add({m, "total_water", KeyType::real, 0.02, "kg/kg",
              "saturated_neutral's total water mixing ratio r_t = q_v + q_c", {}, 0, 0.1, true});
  schema.add({m, "surface_pressure", KeyType::real, 1.0e5, "Pa", "saturated_neutral's pressure at the ground", {},
              0, 2e5, true});
  schema.add({m, "saturation_adjustment", KeyType::boolean, true, "",
              "bring vapour and cloud to saturation at the end of every step (reversible: cloud stays in the air), "
              "keeping the dry density, r_t and theta_e; Newton to |q_v - q_vs| <= 1e-10 q_vs where cloud exists"});
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
  if (name == "bryan_fritsch") return Case::bryan_fritsch;
  return Case::thermal;
}

Water water_of(const std::string& name) {
  if (name == "uniform_vapour") return Water::uniform_vapour;
  if (name == "saturated_neutral") return Water::saturated_neutral;
  return Water::none;
}

Moisture moisture_of(const io::Deck& deck) {
  Moisture m;
  m.water = water_of(deck.string("moisture", "water"));
  m.vapour = deck.real("moisture", "vapour");
  m.theta_e = deck.real("moisture", "theta_e");
  m.total_water = deck.real("moisture", "total_water");
  m.surface_pressure = deck.real("moisture", "surface_pressure");
  m.adjustment = deck.boolean("moisture", "saturation_adjustment");
  return m;
}

// Without the adjustment, uniform vapour must not be supersaturated anywhere in the column (1000 levels at most).
void require_unsaturated(const io::Deck& deck, const Settings& s) {
  const long samples = std::min<long>(s.grid.cells[s.grid.dimensions - 1], 1000);
  for (long k = 0; k <= samples; ++k) {
    const double z = s.height * static_cast<double>(k) / static_cast<double>(samples);
    const double rho_d = s.profile.density(z) / (1 + s.moisture.vapour);
    const double t = s.profile.pressure(z) / (rho_d * (rd + moist::rv * s.moisture.vapour));
    const double saturated = moist::saturation_mixing_ratio(t, rho_d);
    if (s.moisture.vapour > saturated) {
      std::ostringstream m;
      m << "vapour = " << s.moisture.vapour << " kg/kg is above saturation (" << saturated << " kg/kg, relative "
        << "humidity " << 100 * s.moisture.vapour / saturated << "%) at " << z
        << " m, and saturation_adjustment is off: lower it below the column's smallest saturation mixing ratio, or "
           "turn the adjustment on";
      deck.fail("moisture", "vapour", m.str());
    }
  }
}

// The mesh key of mesh axis `axis` of a `dims`-dimensional atmosphere (the vertical is its last axis).
const char* cells_key(int dims, int axis) { return axis == 0 ? "nx" : axis == dims - 1 ? "nz" : "ny"; }

}  // namespace

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
  s.moisture = moisture_of(deck);
  if (s.moisture.water == Water::saturated_neutral && s.initial != Case::rest && s.initial != Case::bryan_fritsch)
    deck.fail("atmosphere", "case",
              "the saturated neutral state (moisture.water = \"saturated_neutral\") has the cases \"rest\" and "
              "\"bryan_fritsch\"");
  const double coldest = s.profile.surface_theta + coldest_perturbation(s.initial);
  if (coldest <= 0) {
    std::ostringstream m;
    m << "the initial state has a negative absolute temperature: theta reaches " << coldest << " K";
    deck.fail("atmosphere", "surface_theta", m.str());
  }
  // The halos above the lid hold background values too, so the profile must reach beyond it.
  const double dz = s.height / static_cast<double>(s.grid.cells[vertical]);
  const double top = s.height + (halo + 1) * dz, supported = s.profile.top_supported();
  if (s.moisture.water == Water::saturated_neutral) {
    try {
      saturated_sounding(s);
    } catch (const std::invalid_argument& e) {
      deck.fail("atmosphere", "height",
                std::string(e.what()) + " (the halo above the lid included): lower the height, or change "
                                        "moisture.theta_e, total_water or surface_pressure");
    }
  } else if (top >= supported) {
    std::ostringstream m;
    m << "the background cannot support a domain this high: its Exner pressure reaches zero at " << supported
      << " m, below the lid and its halo at " << top << " m (lower the height, or raise surface_theta)";
    deck.fail("atmosphere", "height", m.str());
  }
  if (s.moisture.water == Water::uniform_vapour && !s.moisture.adjustment) require_unsaturated(deck, s);
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
    if (s.moisture.water == Water::saturated_neutral) {  // the dry profile above is unused; nearly the same speeds
      const moist::SaturatedSounding sounding = saturated_sounding(s);
      for (long k = 0; k <= samples; ++k) {
        const moist::SaturatedState a = sounding.at(s.height * static_cast<double>(k) / static_cast<double>(samples));
        fastest = std::max(fastest, std::sqrt(gamma_d * a.pressure / (a.dry_density * (1 + s.moisture.total_water))));
      }
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

moist::SaturatedSounding saturated_sounding(const Settings& s) {
  const int vertical = s.grid.dimensions - 1;
  const double dz = s.height / static_cast<double>(s.grid.cells[vertical]);
  const Moisture& m = s.moisture;
  return moist::SaturatedSounding(m.theta_e, m.total_water, m.surface_pressure, s.height + (s.grid.halo_width + 1) * dz);
}

int components_of_dims(int dims) { return dims == 3 ? components_of<3> : components_of<2>; }

void require_memory(const io::Deck& deck, const Settings& s, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const std::uint64_t cells = solvers::saturating_product({static_cast<std::uint64_t>(s.grid.cells[0]),
                                                           static_cast<std::uint64_t>(s.grid.cells[1]),
                                                           static_cast<std::uint64_t>(s.grid.cells[2])});
  const std::uint64_t local = cells == UINT64_MAX ? cells : (cells + ranks - 1) / ranks;
  const std::uint64_t components = components_of_dims(s.grid.dimensions) + (s.moisture.on() ? water_species + 1 : 0);
  solvers::require_memory(deck, "mesh", "nx",
                          solvers::saturating_product({local, components * (s.unsplit ? 5u : 4u) + 1, sizeof(double)}),
                          "the state, stage, face fluxes and staged output", comm);
}

std::string deck_key(const Settings& s, const std::string& key) {
  return s.grid.dimensions == 2 && key == "ny" ? "nz" : key;
}

void validate(const io::Deck& deck, MPI_Comm comm) {
  const Settings s = settings_of(deck);
  require_memory(deck, s, comm);
  try {
    const mesh::Decomposition d(comm, s.grid);
  } catch (const mesh::DecompositionError& e) {
    deck.fail("mesh", deck_key(s, e.key()), e.what());
  }
}

}  // namespace meridian::atmosphere
