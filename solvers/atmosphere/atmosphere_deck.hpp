#pragma once
// The atmosphere's deck: its keys, their checks, and the Settings the solver is built from. The helpers
// after acoustic_courant_limit also serve build() and the solver's constructor.
#include <string>

#include "io/deck.hpp"
#include "mesh/decomposition.hpp"
#include "solvers/atmosphere/hydrostatic_background.hpp"
#include "solvers/atmosphere/moist_sounding.hpp"

namespace meridian::atmosphere {

enum class Case { rest, thermal, colliding_thermals, density_current, gravity_wave, linear_gravity_wave, bryan_fritsch };

// The water the air carries: none (the dry core), a uniform vapour mixing ratio on the dry background, or Bryan &
// Fritsch's saturated neutral state (moist_sounding.hpp), which replaces the dry background.
enum class Water { none, uniform_vapour, saturated_neutral };

struct Moisture {
  Water water = Water::none;
  double vapour = 0;                        // kg/kg, uniform_vapour's mixing ratio
  double theta_e = 320, total_water = 0.02; // K and kg/kg, the saturated neutral state's
  double surface_pressure = 1.0e5;          // Pa
  bool adjustment = true;                   // saturation adjustment at the end of each step
  double tolerance = 1e-10;                 // |q_v - q_vs| / q_vs it leaves alone where cloud exists
  bool on() const { return water != Water::none; }
};

struct Settings {
  mesh::GridSpec grid;
  Case initial = Case::thermal;
  Profile profile;
  double width = 2.0e4, depth = 2.0e4, height = 1.0e4;  // m along x, y (3-D) and z
  double wind = 0;                        // m/s, uniform background u
  double courant = 1.0;                   // acoustic, per direction
  double fixed_dt = 0;                    // s; 0: from courant
  double hyperviscosity = 0.05;           // miniWeather's beta
  double viscosity = 0, diffusivity = 0;  // m^2/s
  double rayleigh_depth = 0, rayleigh_rate = 0;  // m below the lid, 1/s at the lid
  bool side_walls = false;                // in x, and in y in 3-D
  bool unsplit = false;                   // every direction in every RK3 stage
  bool fifth_order = false;               // WRF's 5th-order upwind advection, 6th-order centred acoustics
  bool one_sided_walls = false;           // the 2nd-order closure at the walls instead of halo copies
  Moisture moisture;
};

void declare_keys(io::Schema& schema);
void declare_moisture_keys(io::Schema& schema);
void validate(const io::Deck& deck, MPI_Comm comm);

// Largest acoustic Courant number of one directional RK3 sweep with the 4th-order interpolation (or the
// 6th-order centred acoustics of the 5th-order scheme) and miniWeather's hyperviscosity `beta`: the von
// Neumann limit of the linear sweep. 4th order: 1.262 without hyperviscosity (RK3 on the imaginary axis
// reaches sqrt(3); the interpolation's largest wavenumber response is max (8 sin k - sin 2k) / 6 = 1.372),
// 1.345 at beta = 0.05.
double acoustic_courant_limit(double beta, bool fifth_order = false);

Settings settings_of(const io::Deck& deck);

// The domain's length along mesh axis `axis` (m).
double domain_length(const Settings& s, int axis);

// Bryan & Fritsch's saturated neutral column of the deck's moisture keys, up to the lid's halo (throws
// std::invalid_argument where it cannot reach it).
moist::SaturatedSounding saturated_sounding(const Settings& s);

int components_of_dims(int dims);

// Bytes a rank needs, in doubles per cell: the state and one stage (a second stage unsplit), the face
// fluxes, the output's staged fields (one more than the components) and the checkpoint's.
void require_memory(const io::Deck& deck, const Settings& s, MPI_Comm comm);

// The deck's name for a Decomposition's mesh key: the 2-D slice's second mesh axis is the deck's nz.
std::string deck_key(const Settings& s, const std::string& key);

}  // namespace meridian::atmosphere
