#pragma once
// Bryan & Fritsch's (2002, section 2b) saturated neutral base state: air saturated at every height with constant
// total water r_t and constant equivalent potential temperature theta_e (moist_thermodynamics.hpp's Emanuel 4.5.11),
// in hydrostatic balance with its whole density, dp/dz = -g rho_d (1 + r_t), from a given surface pressure. At each
// pressure the temperature is the root of theta_e(T, rho_d, q_vs) = theta_e with rho_d = (p - e_s(T)) / (R_d T) (the
// partial pressures add up to p); the pressure is integrated upward by the classic fourth-order Runge-Kutta method in
// steps of `step` metres, tabulated, and read between table entries by one more step from the entry below, so a
// value at any height is the integration's own. Host code: the solver's background is built from it once.
#include <vector>

namespace meridian::atmosphere::moist {

struct SaturatedState {
  double pressure, temperature, dry_density, vapour, cloud;  // Pa, K, kg/m^3, kg/kg, kg/kg (per kg of dry air)
  // rho_d theta_m with theta_m = theta (1 + q_v R_v / R_d) and theta = T (p0 / p)^(R_d / c_pd): the ideal gas of dry
  // air and vapour is then p = c0 (rho_d theta_m)^gamma exactly, the core's dry formula (WRF v4's moist theta).
  double rho_theta_m() const;
};

class SaturatedSounding {
 public:
  // Throws std::invalid_argument naming the quantity unless theta_e, r_t, the surface pressure, the top and the step
  // are positive, or if the saturated column cannot reach `top` (the pressure falls to the vapour's own).
  SaturatedSounding(double theta_e, double total_water, double surface_pressure, double top, double step = 5.0);
  // The state at height z <= top; below the ground (z < 0) the column is continued downward from the surface.
  SaturatedState at(double z) const;
  double top() const { return top_; }

 private:
  SaturatedState state_at_pressure(double p) const;
  double climb(double p, double dz) const;  // one Runge-Kutta step of dz from pressure p

  double log_theta_e_, total_water_, top_, step_;
  std::vector<double> pressures_;  // at z = n step
};

}  // namespace meridian::atmosphere::moist
