#pragma once
// The atmosphere's initial states: the potential temperature perturbation each case puts on the
// hydrostatic background (the solver averages it over each cell), and its coldest value, which the
// deck's check needs.
#include "solvers/atmosphere/atmosphere_deck.hpp"

namespace meridian::atmosphere {

struct Point {
  double x, y, z;  // m
};

// The theta perturbation of a case at `p` (K), and whether it comes at constant pressure (the density
// adjusts) or, as miniWeather's thermals, at constant density. In 3-D the bubbles are centred at
// y = depth/2 with their x radius along y; the gravity waves' perturbations do not depend on y.
double theta_perturbation(const Settings& s, const Point& p, bool& constant_pressure);

// Bryan & Fritsch's moist bubble at height z in their saturated neutral state: theta_rho raised by the factor
// theta_ratio (1 + theta' / 300 K) at the base state's pressure, saturated, r_t unchanged; returned as the whole
// density's and the water's partial densities' differences from the base state (rho theta_rho is unchanged, as
// the pressure is).
struct WaterPerturbation {
  double density, vapour, cloud;  // kg/m^3
};
WaterPerturbation saturated_bubble(const moist::SaturatedSounding& sounding, double total_water, double theta_ratio,
                                   double z);

// The largest theta perturbation of a case, with its sign (K), for the check that theta stays positive.
double coldest_perturbation(Case c);

}  // namespace meridian::atmosphere
