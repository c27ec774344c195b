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

// The largest theta perturbation of a case, with its sign (K), for the check that theta stays positive.
double coldest_perturbation(Case c);

}  // namespace meridian::atmosphere
